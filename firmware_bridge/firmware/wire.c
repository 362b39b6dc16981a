#include "wire.h"

#include <avr/pgmspace.h>

/* CRC-32/ISO-HDLC, reflected polynomial 0xEDB88320, four bits at a time:
 * a 64-byte table in flash instead of 1 KB, about 2 us a byte at 16 MHz. */
static const uint32_t crc_nibble[16] PROGMEM = {
    0x00000000, 0x1DB71064, 0x3B6E20C8, 0x26D930AC, 0x76DC4190, 0x6B6B51F4,
    0x4DB26158, 0x5005713C, 0xEDB88320, 0xF00F9344, 0xD6D6A3E8, 0xCB61B38C,
    0x9B64C2B0, 0x86D3D2D4, 0xA00AE278, 0xBDBDF21C,
};

uint32_t crc32(const uint8_t *data, uint16_t len) {
    uint32_t c = 0xFFFFFFFFul;
    for (uint16_t i = 0; i < len; i++) {
        c ^= data[i];
        c = (c >> 4) ^ pgm_read_dword(&crc_nibble[c & 0x0F]);
        c = (c >> 4) ^ pgm_read_dword(&crc_nibble[c & 0x0F]);
    }
    return c ^ 0xFFFFFFFFul;
}

uint16_t cobs_encode(const uint8_t *in, uint16_t len, uint8_t *out) {
    uint16_t code_at = 0, o = 1;
    uint8_t code = 1;
    for (uint16_t i = 0; i < len; i++) {
        if (in[i] == 0) {
            out[code_at] = code;
            code_at = o++;
            code = 1;
        } else {
            out[o++] = in[i];
            if (++code == 0xFF) {
                out[code_at] = code;
                code_at = o++;
                code = 1;
            }
        }
    }
    out[code_at] = code;
    out[o++] = 0;
    return o;
}

int16_t cobs_decode(uint8_t *buf, uint16_t len) {
    uint16_t i = 0, o = 0;
    while (i < len) {
        uint8_t code = buf[i++];
        if (code == 0) return -1;
        for (uint8_t k = 1; k < code; k++) {
            if (i >= len) return -1;
            if (buf[i] == 0) return -1;
            buf[o++] = buf[i++];
        }
        if (code != 0xFF && i < len) buf[o++] = 0;
    }
    return (int16_t)o;
}
