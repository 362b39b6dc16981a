#include "link.h"

#include <string.h>

#include "config.h"
#include "hal.h"
#include "wire.h"

link_stats_t link_stats;
uint8_t link_host_ready;

static uint32_t boot_id;
static uint32_t boot_ms;
static uint32_t next_heartbeat;
static uint32_t last_burst;

/* ---- receiving ---------------------------------------------------------- */
static uint8_t rx[BODY_MAX + 8];
static uint16_t rx_len;
static uint8_t rx_overflow;

/* ---- sending: one stuffed frame at a time -------------------------------- */
static uint8_t tx_body[BODY_MAX];
static uint8_t tx_wire[BODY_MAX + 4];

static void send_frame(uint8_t type, uint16_t seq, const uint8_t *payload, uint8_t len) {
    tx_body[0] = PROTO_MAJOR;
    tx_body[1] = type;
    put16(tx_body + 2, seq);
    memcpy(tx_body + 4, payload, len);
    put32(tx_body + 4 + len, crc32(tx_body, (uint16_t)(4 + len)));
    uint16_t n = cobs_encode(tx_body, (uint16_t)(8 + len), tx_wire);
    if (hal_uart_write_room() < n) return; /* the line is full: dropped, as on a real UART */
    hal_uart_write(tx_wire, n);
    link_stats.frames_out++;
}

/* ---- replies: the last REPLY_CACHE, keyed by (seq, type) ----------------- */
typedef struct {
    uint16_t seq;
    uint8_t type, status, len, used;
    uint8_t body[REPLY_BODY_MAX];
} reply_t;
static reply_t replies[REPLY_CACHE];
static uint8_t reply_next;        /* slot the next reply goes to (oldest is overwritten) */
static int8_t reply_last = -1;    /* slot of the newest reply, resent on a NAK */

static void send_reply(const reply_t *r) {
    uint8_t payload[2 + REPLY_BODY_MAX];
    payload[0] = r->type;
    payload[1] = r->status;
    memcpy(payload + 2, r->body, r->len);
    send_frame(T_REPLY, r->seq, payload, (uint8_t)(2 + r->len));
}

static const reply_t *cached_reply(uint16_t seq, uint8_t type) {
    for (uint8_t i = 0; i < REPLY_CACHE; i++)
        if (replies[i].used && replies[i].seq == seq && replies[i].type == type) return &replies[i];
    return 0;
}

static void reply(uint16_t seq, uint8_t type, uint8_t status, const uint8_t *body, uint8_t len) {
    reply_t *r = &replies[reply_next];
    r->seq = seq; r->type = type; r->status = status; r->len = len; r->used = 1;
    memcpy(r->body, body, len);
    reply_last = (int8_t)reply_next;
    reply_next = (uint8_t)((reply_next + 1) % REPLY_CACHE);
    send_reply(r);
}

/* ---- events: a ring; the first `in_flight` entries are the window ------- */
typedef struct {
    uint8_t type, len;
    uint8_t payload[EVENT_PAYLOAD_MAX];
} event_t;
static event_t events[EVENT_QUEUE];
static uint8_t ev_head;       /* oldest unacknowledged (or oldest queued) */
static uint8_t ev_count;      /* queued in all */
static uint8_t in_flight;     /* of which sent and unacknowledged (at most WINDOW) */
static uint16_t oldest_seq;   /* seq of events[ev_head] once sent; next seq otherwise */
static uint32_t oldest_sent_at;

uint8_t link_event_room(void) { return (uint8_t)(EVENT_QUEUE - ev_count); }
uint16_t link_next_event_seq(void) { return oldest_seq; }

uint8_t link_queue_event(uint8_t type, const uint8_t *payload, uint8_t len) {
    if (ev_count >= EVENT_QUEUE || len > EVENT_PAYLOAD_MAX) {
        link_stats.events_refused++;
        return 0;
    }
    event_t *e = &events[(ev_head + ev_count) % EVENT_QUEUE];
    e->type = type;
    e->len = len;
    memcpy(e->payload, payload, len);
    ev_count++;
    return 1;
}

static void send_event(uint8_t i) {
    const event_t *e = &events[(ev_head + i) % EVENT_QUEUE];
    send_frame(e->type, (uint16_t)(oldest_seq + i), e->payload, e->len);
}

static void resend_window(uint32_t now) {
    last_burst = now;
    oldest_sent_at = now;
    for (uint8_t i = 0; i < in_flight; i++) send_event(i);
    link_stats.retransmissions += in_flight;
}

static uint8_t seq_after(uint16_t a, uint16_t b) {
    uint16_t d = (uint16_t)(a - b);
    return d != 0 && d < 0x8000;
}

static void on_ack(uint16_t seq) {
    /* Cumulative: everything up to and including seq arrived. An ACK of an
     * event not yet sent is stale (the host's numbering from before a power
     * cut, crossing the handshake) and is ignored (docs/protocol.md 4.3). */
    if (!in_flight || seq_after(seq, (uint16_t)(oldest_seq + in_flight - 1))) return;
    while (in_flight && !seq_after(oldest_seq, seq)) {
        ev_head = (uint8_t)((ev_head + 1) % EVENT_QUEUE);
        ev_count--;
        in_flight--;
        oldest_seq++;
    }
}

/* ---- one frame ----------------------------------------------------------- */
static void on_frame(uint8_t *body, uint16_t len, uint32_t now) {
    uint8_t type = body[1];
    uint16_t seq = get16(body + 2);
    uint8_t *payload = body + 4;
    uint8_t plen = (uint8_t)(len - 8);
    link_stats.frames_in++;
    if (type == T_ACK) { on_ack(seq); return; }
    if (type == T_NAK) {
        if (link_host_ready && in_flight && now - last_burst >= RTO_MS / 4) resend_window(now);
        if (reply_last >= 0) send_reply(&replies[reply_last]);
        return;
    }
    uint8_t is_request = type >= 0x80 && type <= 0x9F;
    if (!is_request) {
        if (type & 0x80) reply(seq, type, ST_UNKNOWN, 0, 0); /* sequenced: answer so it stops */
        return;
    }
    if (type != T_HELLO) {
        const reply_t *kept = cached_reply(seq, type);
        if (kept) { /* at most once: answer again, do not redo */
            link_stats.duplicate_requests++;
            send_reply(kept);
            return;
        }
    } else {
        memset(replies, 0, sizeof replies); /* a new host session numbers afresh */
        reply_next = 0;
        reply_last = -1;
    }
    uint8_t out[REPLY_BODY_MAX];
    uint8_t out_len = 0;
    uint8_t status = machine_execute(type, payload, plen, out, &out_len);
    if (status == ST_UNKNOWN) link_stats.unknown_requests++;
    reply(seq, type, status, out, out_len);
    if (type == T_HELLO) {
        link_host_ready = 1;
        if (in_flight) resend_window(now); /* what is pending goes out at once */
    }
}

static void bad_frame(void) {
    link_stats.bad_frames++;
    send_frame(T_NAK, 0, 0, 0);
}

void link_poll(uint32_t now) {
    int b;
    while ((b = hal_uart_read()) >= 0) {
        if (b != 0) {
            if (rx_len < sizeof rx) rx[rx_len++] = (uint8_t)b;
            else rx_overflow = 1;
            continue;
        }
        uint16_t n = rx_len;
        uint8_t over = rx_overflow;
        rx_len = 0;
        rx_overflow = 0;
        if (n == 0) continue; /* an idle delimiter */
        int16_t len = over ? -1 : cobs_decode(rx, n);
        if (len < BODY_MIN || len > BODY_MAX || rx[0] != PROTO_MAJOR
            || crc32(rx, (uint16_t)(len - 4)) != get32(rx + len - 4)) {
            bad_frame();
            continue;
        }
        on_frame(rx, (uint16_t)len, now);
    }
}

void link_service(uint32_t now) {
    if ((int32_t)(now - next_heartbeat) >= 0) {
        next_heartbeat = now + HEARTBEAT_MS;
        uint8_t hb[9];
        put32(hb, boot_id);
        hb[4] = machine_mode();
        put32(hb + 5, now - boot_ms);
        send_frame(T_HEARTBEAT, 0, hb, sizeof hb);
    }
    if (!link_host_ready) return; /* before the first HELLO: events wait, heartbeats only */
    while (in_flight < ev_count && in_flight < WINDOW) {
        if (in_flight == 0) oldest_sent_at = now;
        send_event(in_flight);
        in_flight++;
    }
    if (in_flight && now - oldest_sent_at >= RTO_MS) resend_window(now);
}

void link_init(uint32_t id) {
    boot_id = id;
    boot_ms = hal_millis();
    next_heartbeat = boot_ms;
    last_burst = 0;
}
