/* The card path and the host's commands (docs/protocol.md sections 5 and 6).
 * One card at most is between the hopper and a pocket, so every fault is
 * recoverable; the machine never decides where a card goes. */
#include <string.h>

#include "config.h"
#include "hal.h"
#include "link.h"
#include "pins.h"
#include "wire.h"

enum { MODE_WAITING_HOST = 0, MODE_IDLE = 1, MODE_RUNNING = 2, MODE_FAULT = 3 };
enum { PH_IDLE, PH_FEEDING, PH_AT_GATE, PH_DROPPING, PH_DIVERTING };
#define UNROUTED 254
#define REJECT 255

static uint32_t boot_id;
static uint8_t mode = MODE_WAITING_HOST;
static uint8_t running, speed = 2, phase = PH_IDLE;
static uint32_t phase_since;
static uint32_t gate_counter, gate_id;
static uint8_t gate_pocket = UNROUTED;
static uint32_t last_drop_gate;
static uint8_t last_drop_pocket;
static uint8_t drop_before;      /* the target stack's count when the card was let go */
static uint8_t misfeeds, double_fed, hopper_empty_sent;
/* Sensor levels as last seen, for edges. */
static uint8_t was_cover, was_jam, was_board, was_hopper;

uint8_t machine_mode(void) { return mode; }

static void event(uint8_t type, const uint8_t *payload, uint8_t len) {
    link_queue_event(type, payload, len);
}

static void counts(uint8_t *out) { /* pockets 0..3 then the reject tray */
    for (uint8_t i = 0; i < POCKETS; i++) out[i] = hal_stack_count((uint8_t)(ADC_POCKET0 + i));
    out[4] = hal_stack_count(ADC_REJECT);
}

static uint8_t stack_of(uint8_t pocket) {
    return pocket == REJECT ? ADC_REJECT : (uint8_t)(ADC_POCKET0 + pocket);
}

static void fault_check(void) {
    if (mode == MODE_FAULT && !hal_cover_open() && !hal_jam()) mode = MODE_IDLE;
}

static void stop_running(void) {
    running = 0;
    if (mode == MODE_RUNNING) mode = MODE_IDLE;
}

static void let_fall(uint8_t pocket, uint32_t now) {
    gate_pocket = pocket;
    drop_before = hal_stack_count(stack_of(pocket));
    hal_select(pocket == REJECT ? SELECT_REJECT : pocket);
    hal_drop();
    phase = PH_DROPPING;
    phase_since = now;
}

/* ---- requests ------------------------------------------------------------ */

static uint8_t put_str(uint8_t *p, const char *s) {
    uint8_t n = (uint8_t)strlen(s);
    p[0] = n;
    memcpy(p + 1, s, n);
    return (uint8_t)(n + 1);
}

static uint8_t route(const uint8_t *a, uint32_t now) {
    uint32_t boot = get32(a), gate = get32(a + 4);
    uint8_t pocket = a[8];
    if (pocket >= POCKETS && pocket != REJECT) return ST_REFUSED;
    if (boot != boot_id || gate == 0) return ST_STALE;
    if (gate == gate_id && phase == PH_AT_GATE) {
        let_fall(pocket, now);
        return ST_OK;
    }
    uint8_t done;
    if (gate == gate_id && phase == PH_DROPPING) done = gate_pocket;
    else if (gate == last_drop_gate && gate != 0) done = last_drop_pocket;
    else return ST_STALE;
    /* Idempotent: the same route again changes nothing; another one is refused. */
    return done == pocket ? ST_DUPLICATE : ST_REFUSED;
}

uint8_t machine_execute(uint8_t type, const uint8_t *a, uint8_t len, uint8_t *body,
                        uint8_t *body_len) {
    uint32_t now = hal_millis();
    *body_len = 0;
    switch (type) {
    case T_HELLO: {
        if (len < 2) return ST_REFUSED;
        if (mode == MODE_WAITING_HOST) mode = MODE_IDLE;
        uint8_t n = 0;
        body[n++] = PROTO_MINOR;
        put32(body + n, boot_id); n += 4;
        put16(body + n, link_next_event_seq()); n += 2;
        body[n++] = POCKETS;
        body[n++] = 0x03; /* reject tray, board-number reader */
        body[n++] = SPEED_LEVELS;
        body[n++] = speed;
        n += put_str(body + n, FIRMWARE_NAME);
        n += put_str(body + n, SERIAL_NUMBER);
        *body_len = n;
        return ST_OK;
    }
    case T_GET_STATE: {
        uint8_t c[5];
        counts(c);
        uint8_t faults = (uint8_t)((hal_jam() ? 1 : 0) | (hal_cover_open() ? 2 : 0)
                                   | (double_fed ? 4 : 0) | (hal_hopper_has_cards() ? 0 : 8));
        uint8_t board = hal_board_present();
        uint8_t n = 0;
        put32(body + n, boot_id); n += 4;
        body[n++] = mode;
        body[n++] = speed;
        body[n++] = board;
        put16(body + n, board ? hal_board_number() : 0); n += 2;
        body[n++] = faults;
        memcpy(body + n, c, 5); n += 5;
        uint8_t busy = phase == PH_AT_GATE || phase == PH_DROPPING;
        put32(body + n, busy ? gate_id : 0); n += 4;
        body[n++] = phase == PH_DROPPING ? gate_pocket : UNROUTED;
        put32(body + n, last_drop_gate); n += 4;
        body[n++] = last_drop_pocket;
        put16(body + n, link_next_event_seq()); n += 2;
        *body_len = n;
        return ST_OK;
    }
    case T_ROUTE:
        return len < 9 ? ST_REFUSED : route(a, now);
    case T_PAUSE: /* finish the card in hand, feed no more */
        stop_running();
        return ST_OK;
    case T_RESUME:
        if (hal_cover_open() || hal_jam()) return ST_REFUSED;
        double_fed = 0;
        running = 1;
        mode = MODE_RUNNING;
        return ST_OK;
    case T_ABORT:
        stop_running();
        if (phase == PH_AT_GATE) let_fall(REJECT, now); /* an unrouted card goes to the tray */
        return ST_OK;
    case T_SET_SPEED:
        if (len < 1 || a[0] < 1 || a[0] > SPEED_LEVELS) return ST_REFUSED;
        speed = a[0];
        hal_speed(speed);
        return ST_OK;
    default:
        return ST_UNKNOWN;
    }
}

/* ---- mechanics ------------------------------------------------------------ */

static void sensors(void) {
    uint8_t cover = hal_cover_open(), jam = hal_jam(), board = hal_board_present();
    uint8_t hopper = hal_hopper_has_cards();
    if (cover != was_cover) {
        event(T_COVER, &cover, 1);
        if (cover) { running = 0; mode = MODE_FAULT; } else fault_check();
    }
    if (jam != was_jam && !jam) { /* the operator cleared it; the card is back on the hopper */
        misfeeds = 0;
        uint8_t z = 0;
        event(T_JAM, &z, 1);
        fault_check();
    }
    if (board != was_board) {
        uint8_t b[3] = {board, 0, 0};
        if (board) put16(b + 1, hal_board_number());
        event(T_BOARD, b, 3);
        if (!board) stop_running(); /* removing a board stops feeding */
    }
    if (hopper && !was_hopper) hopper_empty_sent = 0;
    was_cover = cover; was_board = board; was_hopper = hopper;
    if (jam) was_jam = 1; else if (was_jam) was_jam = 0;
}

static void jammed(void) {
    hal_feed(0);
    running = 0;
    mode = MODE_FAULT;
    was_jam = 1;
    uint8_t one = 1;
    event(T_JAM, &one, 1);
    phase = PH_IDLE;
}

void machine_tick(uint32_t now) {
    sensors();
    switch (phase) {
    case PH_FEEDING:
        if (hal_jam()) { jammed(); break; }
        if (hal_double_feed()) { /* both cards go to the reject tray before the gate */
            hal_feed(0);
            drop_before = hal_stack_count(ADC_REJECT);
            hal_divert();
            phase = PH_DIVERTING;
            phase_since = now;
            break;
        }
        if (hal_gate()) {
            hal_feed(0);
            misfeeds = 0;
            gate_id = ++gate_counter;
            gate_pocket = UNROUTED;
            phase = PH_AT_GATE;
            hal_camera_trigger();
            uint8_t g[4];
            put32(g, gate_id);
            event(T_CARD_AT_GATE, g, 4);
            break;
        }
        if (now - phase_since >= FEED_TIMEOUT_MS) { /* the roller slipped */
            hal_feed(0);
            phase = PH_IDLE;
            misfeeds++;
            event(T_MISFEED, &misfeeds, 1);
        }
        break;
    case PH_DIVERTING: {
        uint8_t r = hal_stack_count(ADC_REJECT);
        if ((uint8_t)(r - drop_before) >= 2 || now - phase_since >= DIVERT_TIMEOUT_MS) {
            uint8_t d[2] = {2, r};
            double_fed = 1;
            stop_running(); /* the operator puts the two back; the host sends RESUME */
            event(T_DOUBLE_FEED, d, 2);
            phase = PH_IDLE;
        }
        break;
    }
    case PH_DROPPING: {
        uint8_t c[5];
        uint8_t stack = stack_of(gate_pocket);
        if (hal_stack_count(stack) == drop_before) break; /* still falling */
        counts(c);
        uint8_t d[10];
        put32(d, gate_id);
        d[4] = gate_pocket;
        memcpy(d + 5, c, 5);
        last_drop_gate = gate_id;
        last_drop_pocket = gate_pocket;
        event(T_CARD_DROPPED, d, 10);
        phase = PH_IDLE;
        break;
    }
    default:
        break;
    }
    if (phase != PH_IDLE || !running || mode != MODE_RUNNING || !hal_board_present()) return;
    if (link_event_room() < 4) return; /* the host is behind: wait rather than lose an event */
    if (!hal_hopper_has_cards()) {
        if (!hopper_empty_sent) {
            hopper_empty_sent = 1;
            event(T_HOPPER_EMPTY, 0, 0);
        }
        return;
    }
    phase = PH_FEEDING;
    phase_since = now;
    hal_feed(1);
}

void machine_init(uint32_t id) {
    boot_id = id;
    hal_speed(speed);
    hal_select(0);
    /* Sensor levels at power-up are the starting point, not news. A board
     * already in is announced, as a fresh insertion would be. */
    was_cover = hal_cover_open();
    was_jam = hal_jam();
    was_hopper = hal_hopper_has_cards();
    was_board = 0;
    if (was_cover || was_jam) mode = MODE_WAITING_HOST; /* FAULT once the host is there */
}
