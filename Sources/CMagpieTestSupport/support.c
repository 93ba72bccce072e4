#include "magpie_test_support.h"
#include <string.h>
#include <zlib.h>

uint32_t magpie_crc32(uint32_t crc, const unsigned char *bytes, size_t length) {
    return (uint32_t)crc32((uLong)crc, bytes, (uInt)length);
}

size_t magpie_deflate_zeros(size_t length, unsigned char *output, size_t capacity) {
    z_stream stream;
    memset(&stream, 0, sizeof stream);
    if (deflateInit(&stream, Z_BEST_COMPRESSION) != Z_OK) return 0;
    static unsigned char zeros[1 << 16];
    stream.next_out = output;
    stream.avail_out = (uInt)capacity;
    size_t remaining = length;
    int status = Z_OK;
    while (status == Z_OK) {
        size_t chunk = remaining < sizeof zeros ? remaining : sizeof zeros;
        stream.next_in = zeros;
        stream.avail_in = (uInt)chunk;
        remaining -= chunk;
        status = deflate(&stream, remaining == 0 ? Z_FINISH : Z_NO_FLUSH);
        if (stream.avail_out == 0 && status != Z_STREAM_END) {
            deflateEnd(&stream);
            return 0;
        }
        if (status == Z_STREAM_END) break;
    }
    size_t produced = capacity - stream.avail_out;
    deflateEnd(&stream);
    return status == Z_STREAM_END ? produced : 0;
}
