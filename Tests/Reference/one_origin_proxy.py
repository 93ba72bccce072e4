"""An HTTP proxy on 127.0.0.1 that takes every destination to one origin: a CONNECT to any
host and port is answered 200 and tunnelled to 127.0.0.1:ORIGIN_PORT. It stands in for the name
resolution imgproxy's tests replace, so rows can name hosts (a-1.mycdn.dev) that a source
pattern must match while the bytes come from the test's origin.

Usage: one_origin_proxy.py LISTEN_PORT ORIGIN_PORT
"""
import asyncio
import sys


async def pipe(reader, writer):
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    except (ConnectionError, asyncio.CancelledError):
        pass
    finally:
        writer.close()


async def handle(client_reader, client_writer, origin_port):
    head = await client_reader.readuntil(b"\r\n\r\n")
    if not head.upper().startswith(b"CONNECT "):
        client_writer.write(b"HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\n\r\n")
        client_writer.close()
        return
    origin_reader, origin_writer = await asyncio.open_connection("127.0.0.1", origin_port)
    client_writer.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
    await client_writer.drain()
    await asyncio.gather(pipe(client_reader, origin_writer), pipe(origin_reader, client_writer))


async def main():
    listen_port, origin_port = int(sys.argv[1]), int(sys.argv[2])
    server = await asyncio.start_server(lambda r, w: handle(r, w, origin_port), "127.0.0.1", listen_port)
    async with server:
        await server.serve_forever()


asyncio.run(main())
