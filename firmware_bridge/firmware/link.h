/* The link layer of docs/protocol.md section 4: requests at most once (a cache
 * of the last 32 replies), events go-back-N (a window of 8), NAKs, heartbeats. */
#ifndef BW_LINK_H
#define BW_LINK_H

#include <stdint.h>

/* Message types (section 5). */
enum {
    T_ACK = 0x01, T_NAK = 0x02, T_HEARTBEAT = 0x03, T_REPLY = 0x04,
    T_HELLO = 0x80, T_GET_STATE = 0x81, T_ROUTE = 0x82, T_PAUSE = 0x83,
    T_RESUME = 0x84, T_ABORT = 0x85, T_SET_SPEED = 0x86,
    T_BOARD = 0xA0, T_HOPPER_EMPTY = 0xA1, T_CARD_AT_GATE = 0xA2, T_CARD_DROPPED = 0xA3,
    T_MISFEED = 0xA4, T_DOUBLE_FEED = 0xA5, T_JAM = 0xA6, T_COVER = 0xA7,
};
enum { ST_OK = 0, ST_DUPLICATE = 1, ST_STALE = 2, ST_REFUSED = 3, ST_UNKNOWN = 4 };

#define EVENT_PAYLOAD_MAX 10 /* CARD_DROPPED: gate u32, pocket u8, 4 counts, rejects */
#define REPLY_BODY_MAX 48    /* HELLO: 12 bytes and two strings */

typedef struct {
    uint32_t frames_in, frames_out, bad_frames, duplicate_requests, unknown_requests;
    uint32_t retransmissions, events_refused;
} link_stats_t;
extern link_stats_t link_stats;
extern uint8_t link_host_ready;

void link_init(uint32_t boot_id);
void link_poll(uint32_t now);
void link_service(uint32_t now);
/* Queue a machine event; returns 0 (and counts it) when the queue is full. */
uint8_t link_queue_event(uint8_t type, const uint8_t *payload, uint8_t len);
uint8_t link_event_room(void);
uint16_t link_next_event_seq(void);

/* Provided by the machine: run one request; fills body (at most REPLY_BODY_MAX
 * bytes) and returns a status. */
uint8_t machine_execute(uint8_t type, const uint8_t *payload, uint8_t len,
                        uint8_t *body, uint8_t *body_len);
uint8_t machine_mode(void);

#endif
