#!/usr/bin/env python3
"""What a Python user would write instead of `magpie fetch --process ...`: aiohttp downloads the
URLs (eight at a time) and a pool of two processes (this machine's cores) decodes and processes
each with Pillow, keeping nothing. usage: pillow_jobs.py URL_FILE fit|blur
  fit:  fit inside 1024x1024 (LANCZOS)                = magpie --process resize:1024x1024
  blur: fit inside 2048x2048, then Gaussian blur 4    = magpie --process resize:2048x2048,blur:4
Prints the number of images processed; the caller measures time and peak memory."""
import asyncio, io, sys
from concurrent.futures import ProcessPoolExecutor

import aiohttp
from PIL import Image, ImageFilter


def process(body, job):
    image = Image.open(io.BytesIO(body))
    box = 1024 if job == "fit" else 2048
    # thumbnail() as users call it: JPEG draft mode (DCT scaling) first, then reduce + LANCZOS.
    image.thumbnail((box, box), Image.LANCZOS)
    image = image.convert("RGB")
    if job == "blur":
        image = image.filter(ImageFilter.GaussianBlur(4))
    return image.size


async def main():
    urls = [line.strip() for line in open(sys.argv[1]) if line.strip()]
    job = sys.argv[2]
    loop = asyncio.get_running_loop()
    limit = asyncio.Semaphore(8)
    with ProcessPoolExecutor(max_workers=2) as pool:
        async with aiohttp.ClientSession() as session:
            async def one(url):
                async with limit:
                    async with session.get(url) as response:
                        response.raise_for_status()
                        body = await response.read()
                return await loop.run_in_executor(pool, process, body, job)
            sizes = await asyncio.gather(*(one(url) for url in urls))
    print(len(sizes))


asyncio.run(main())
