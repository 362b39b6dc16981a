/* Framing of docs/protocol.md section 3: COBS( body ) 0x00, body =
 * version u8, type u8, seq u16, payload, CRC-32/ISO-HDLC u32 (all big-endian). */
#ifndef BW_WIRE_H
#define BW_WIRE_H

#include <stdint.h>

#define PROTO_MAJOR 1
#define PROTO_MINOR 0
#define BODY_MIN 8
#define BODY_MAX 250
#define PAYLOAD_MAX (BODY_MAX - 8)

uint32_t crc32(const uint8_t *data, uint16_t len);
/* Stuff len bytes of in into out (room for len + len/254 + 2); returns the
 * length written, including the trailing 0x00. */
uint16_t cobs_encode(const uint8_t *in, uint16_t len, uint8_t *out);
/* Unstuff a frame (without its 0x00) in place; returns the body length or -1. */
int16_t cobs_decode(uint8_t *buf, uint16_t len);

static inline uint16_t get16(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }
static inline uint32_t get32(const uint8_t *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}
static inline void put16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)(v >> 8); p[1] = (uint8_t)v; }
static inline void put32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)(v >> 24); p[1] = (uint8_t)(v >> 16); p[2] = (uint8_t)(v >> 8); p[3] = (uint8_t)v;
}

#endif
