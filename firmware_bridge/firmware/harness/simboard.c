/* simboard: the reference firmware's ELF, unchanged, on a simulated ATmega2560
 * (libsimavr), with the dealing machine's mechanics played on its pins.
 *
 *   simboard FIRMWARE.elf [--time-scale S] [--boot-count N] [--control-fd FD]
 *
 * UART0 is connected to a pseudo-terminal (libsimavrparts' uart_pty); its
 * path is reported as "PTY /dev/pts/N" on the control channel: the socket
 * passed as --control-fd (default: stdin for commands, stdout for reports). The mechanics (hopper, feed roller,
 * gate, selector, stacks, cover, jam sensor, board reader) answer the pins
 * with the timing of docs/protocol.md section 8, scaled by --time-scale.
 * Which feed attempt slips, jams or double-feeds is not decided here: the
 * controller (firmware_bridge/simboard.py) is asked, so the same seeded dice
 * as the Python emulator drive both machines. A "stuck_pair" is two cards
 * stuck together that the thickness sensor misses: DOUBLE stays low, the gate
 * sees one card, and the stack it is dropped on grows by two.
 *
 * Control lines on stdin:  F ok|misfeed|double|jam|stuck_pair   (the answer to FEED?)
 *   H n (n cards added to the hopper)   K n (the hopper now holds n)   B n / B - (board in with number n / out)
 *   C 1|0 (cover)   J 0 (jam cleared: the card back on the hopper)
 *   R n (n rejects put back on the hopper)   Z n (n rejects taken off the tray)   X 0|1 (power cut now; 1: a falling
 *   card lands)   A at_gate|dropping 0|1 (cut when the card path gets there)
 *   P i n (the operator took cards out of pocket i: it holds n)
 *   S (report stack use and the firmware's link counters)   L (request latency)   Q (quit)
 * Reports on stdout: PTY path, FEED?, GATE, JAMMED, DOUBLE, FALL p, DROP p,
 *   CUT landed|back|feeder|none p, JAMBACK, BOOTED, STACK unused, STATS (7 counters),
 *   LAT n p50 p99 max (cycles), ERR text.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "avr_adc.h"
#include "avr_eeprom.h"
#include "avr_ioport.h"
#include "avr_uart.h"
#include "sim_avr.h"
#include "sim_elf.h"
#include "sim_irq.h"
#include "uart_pty.h"

#include <gelf.h>
#include <libelf.h>

/* Pins: the same map as firmware_bridge/firmware/pins.h. */
enum { PA_FEED = 0, PA_CAMERA = 1, PA_SEL0 = 2, PA_DROP = 5, PA_DIVERT = 6 };
enum { PC_GATE = 0, PC_COVER = 1, PC_JAM = 2, PC_HOPPER = 3, PC_BOARD = 4, PC_DOUBLE = 5 };
#define STACK_MV_PER_CARD 39 /* 8 ADC steps of 5000/1024 mV */
#define FEED_US 60000
#define DROP_US 36000
#define REJECT 255

static avr_t *avr;
static uart_pty_t uart;
static double scale = 1.0;
static uint32_t heap_start;
static int speed = 2;
static uint8_t out_a; /* output levels of PORTA as seen */

/* The physical machine. */
static int hopper, stacks[5], board_present, board_number, cover_open, jam;
enum { IDLE, FEEDING, AT_GATE, FALLING, DIVERTING } path = IDLE;
static int falling_to;
static int gate_cards = 1; /* cards at the gate or falling: 2 for a stuck pair */
static int feed_asked;
static char kept[16]; /* the outcome of the feed in progress (the timer's param) */
static char armed[16];
static int armed_lands;
static int quit;

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
#include <stdarg.h>
static int control_in = 0, control_out = 1;
static void say(const char *fmt, ...) {
    char buf[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf - 1, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if (n > (int)sizeof buf - 2) n = (int)sizeof buf - 2;
    buf[n++] = '\n';
    for (int done = 0; done < n;) {
        ssize_t w = write(control_out, buf + done, (size_t)(n - done));
        if (w <= 0) { if (errno == EINTR || errno == EAGAIN) continue; return; }
        done += (int)w;
    }
}

/* A RAM symbol of the firmware (its data-space address), from the ELF's symbol table. */
static uint32_t elf_symbol(const char *path, const char *name) {
    uint32_t found = 0;
    if (elf_version(EV_CURRENT) == EV_NONE) return 0;
    int fd = open(path, O_RDONLY);
    if (fd < 0) return 0;
    Elf *e = elf_begin(fd, ELF_C_READ, NULL);
    Elf_Scn *scn = NULL;
    while (e && !found && (scn = elf_nextscn(e, scn)) != NULL) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize) continue;
        Elf_Data *d = elf_getdata(scn, NULL);
        for (size_t i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
            GElf_Sym sym;
            if (!gelf_getsym(d, (int)i, &sym)) continue;
            const char *nm = elf_strptr(e, sh.sh_link, sym.st_name);
            if (nm && strcmp(nm, name) == 0) { found = (uint32_t)(sym.st_value & 0xFFFF); break; }
        }
    }
    if (e) elf_end(e);
    close(fd);
    return found;
}

static avr_irq_t *pin(char port, int bit) {
    return avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ(port), bit);
}
static int forcing; /* after a reset: simavr skips a raise that does not change an IRQ's value */
static void drive(avr_irq_t *irq, uint32_t value) {
    if (forcing) avr_raise_irq(irq, value ? 0 : 1);
    avr_raise_irq(irq, value);
}
static void set_in(int bit, int level) { drive(pin('C', bit), level ? 1 : 0); }
static double speed_factor(void) { return speed == 1 ? 1.5 : speed == 3 ? 0.75 : 1.0; }
static uint32_t scaled(uint32_t us) {
    double v = us * speed_factor() * scale;
    return v < 50 ? 50 : (uint32_t)v;
}

static void apply_inputs(void) {
    set_in(PC_GATE, path == AT_GATE);
    set_in(PC_COVER, cover_open);
    set_in(PC_JAM, jam);
    set_in(PC_HOPPER, hopper > 0);
    set_in(PC_BOARD, board_present);
    set_in(PC_DOUBLE, path == DIVERTING);
    for (int b = 0; b < 8; b++) {
        drive(pin('K', b), (board_number >> b) & 1);
        drive(pin('J', b), (board_number >> (8 + b)) & 1);
    }
    for (int i = 0; i < 5; i++)
        avr_raise_irq(avr_io_getirq(avr, AVR_IOCTL_ADC_GETIRQ, ADC_IRQ_ADC0 + i),
                      (uint32_t)(stacks[i] * STACK_MV_PER_CARD + STACK_MV_PER_CARD / 2));
}

static void power_cut(int lands);
static avr_cycle_count_t poll_control(avr_t *a, avr_cycle_count_t when, void *param);

static void reached(const char *phase) {
    if (armed[0] && strcmp(armed, phase) == 0) {
        armed[0] = 0;
        power_cut(armed_lands);
    }
}

/* ---- mechanics, timed in simulated microseconds ---------------------------- */

static avr_cycle_count_t feed_done(avr_t *a, avr_cycle_count_t when, void *param) {
    (void)a; (void)when;
    const char *outcome = param;
    if (path != FEEDING) return 0;
    if (strcmp(outcome, "jam") == 0) {
        jam = 1;
        path = IDLE;
        say("JAMMED");
    } else if (strcmp(outcome, "double") == 0) {
        path = DIVERTING; /* the thickness sensor sees two cards */
    } else {
        /* A stuck pair passes the thickness sensor as one card: DOUBLE stays low. */
        gate_cards = strcmp(outcome, "stuck_pair") == 0 ? 2 : 1;
        path = AT_GATE;
        say("GATE");
    }
    apply_inputs();
    if (path == AT_GATE) reached("at_gate");
    return 0;
}

static avr_cycle_count_t drop_done(avr_t *a, avr_cycle_count_t when, void *param) {
    (void)a; (void)when; (void)param;
    if (path != FALLING) return 0;
    stacks[falling_to == REJECT ? 4 : falling_to] += gate_cards;
    gate_cards = 1;
    path = IDLE;
    apply_inputs();
    say("DROP %d", falling_to);
    return 0;
}

static avr_cycle_count_t divert_done(avr_t *a, avr_cycle_count_t when, void *param) {
    (void)a; (void)when; (void)param;
    if (path != DIVERTING) return 0;
    stacks[4] += 2;
    path = IDLE;
    apply_inputs();
    say("DOUBLE");
    return 0;
}


static void start_feed(const char *outcome) {
    feed_asked = 0;
    if (path != FEEDING) return;
    /* The roller slips (nothing reaches the gate: the firmware's feed times
     * out), or takes one card, or two at once. The controller decides which,
     * and turns a third slip in a row into a card stuck in the path ("jam"). */
    if (strcmp(outcome, "misfeed") == 0) return;
    hopper -= strcmp(outcome, "double") == 0 || strcmp(outcome, "stuck_pair") == 0 ? 2 : 1;
    snprintf(kept, sizeof kept, "%s", outcome);
    avr_cycle_timer_register_usec(avr, scaled(FEED_US), feed_done, kept);
}

static void read_control(int wait_for_feed_answer);

static void on_feed(avr_irq_t *irq, uint32_t value, void *param) {
    (void)irq; (void)param;
    if (value && path == IDLE && hopper > 0 && !jam) {
        path = FEEDING;
        feed_asked = 1;
        say("FEED?");
        /* Simulated time stands still until the controller answers: the roller's
         * fate is decided the moment it turns, however slow the host is. */
        read_control(1);
    } else if (!value && path == FEEDING) {
        path = IDLE; /* the firmware gave up: a slip */
    }
}

static void on_drop(avr_irq_t *irq, uint32_t value, void *param) {
    (void)irq; (void)param;
    if (!value || path != AT_GATE) return;
    int sel = (out_a >> PA_SEL0) & 7;
    falling_to = sel >= 4 ? REJECT : sel;
    path = FALLING;
    apply_inputs();
    say("FALL %d", falling_to);
    avr_cycle_timer_register_usec(avr, scaled(DROP_US), drop_done, NULL);
    reached("dropping");
}

static void on_divert(avr_irq_t *irq, uint32_t value, void *param) {
    (void)irq; (void)param;
    if (value && path == DIVERTING)
        avr_cycle_timer_register_usec(avr, scaled(DROP_US), divert_done, NULL);
}

static void on_port_a(avr_irq_t *irq, uint32_t value, void *param) {
    (void)irq; (void)param;
    out_a = (uint8_t)value;
}

static void on_speed(avr_irq_t *irq, uint32_t value, void *param) {
    (void)irq; (void)param;
    int level = (int)(value & 3);
    if (level >= 1 && level <= 3) speed = level;
}

/* ---- power ------------------------------------------------------------------ */

/* A cut asked for inside a timer or pin callback happens between two
 * instructions, from the main loop: resetting the AVR inside simavr's own
 * timer processing would corrupt it. */
static int cut_pending = -1;

static void power_cut(int lands) { cut_pending = lands; }

static void do_power_cut(int lands) {
    avr_cycle_timer_cancel(avr, feed_done, kept);
    if (path == FALLING) {
        avr_cycle_timer_cancel(avr, drop_done, NULL);
        if (lands) {
            stacks[falling_to == REJECT ? 4 : falling_to] += gate_cards;
            say("CUT landed %d", falling_to);
        } else {
            hopper += gate_cards;
            say("CUT back %d", falling_to);
        }
    } else if (path == AT_GATE) {
        hopper += gate_cards; /* the machine clears its path at power-up: back on top of the hopper */
        say("CUT back -1");
    } else if (path == DIVERTING) {
        avr_cycle_timer_cancel(avr, divert_done, NULL);
        hopper += 2; /* the roller lets go: both lie on top of the hopper again */
        say("CUT feeder -1");
    } else if (path == FEEDING) {
        if (strcmp(kept, "ok") == 0 || strcmp(kept, "jam") == 0) hopper++;
        else if (strcmp(kept, "double") == 0 || strcmp(kept, "stuck_pair") == 0) hopper += 2;
        say("CUT feeder -1");
    } else {
        say("CUT none -1");
    }
    if (jam) {
        jam = 0;
        hopper++;
        say("JAMBACK");
    }
    path = IDLE;
    gate_cards = 1;
    cover_open = 0;
    feed_asked = 0;
    kept[0] = 0;
    /* The firmware's RAM is gone; EEPROM (the boot counter) and the stacks are not. */
    avr_reset(avr); /* this also clears every cycle timer, ours included */
    avr_cycle_timer_cancel(avr, drop_done, NULL);
    avr_cycle_timer_cancel(avr, divert_done, NULL);
    avr->frequency = 16000000;
    avr->vcc = avr->avcc = avr->aref = 5000;
    forcing = 1;
    apply_inputs();
    forcing = 0;
    avr_cycle_timer_register_usec(avr, 500, poll_control, NULL);
    say("BOOTED");
}

/* The firmware's own counters (link_stats in link.c, seven u32), read from its RAM. */
static uint32_t stats_at;
static void report_stats(void) {
    if (!stats_at) { say("STATS unknown"); return; }
    uint32_t v[7];
    for (int i = 0; i < 7; i++) {
        const uint8_t *b = avr->data + stats_at + 4 * i; /* AVR is little-endian */
        v[i] = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
    }
    say("STATS %u %u %u %u %u %u %u", v[0], v[1], v[2], v[3], v[4], v[5], v[6]);
}

/* Request latency in simulated cycles: from the 0x00 that ends a request frame
 * on UART0's input to the next byte the firmware puts on its output. */
#define MAX_SAMPLES 200000
static uint64_t *samples;
static size_t n_samples;
static uint64_t request_end;
static int in_pos, in_is_request;
static void on_uart_in(avr_irq_t *irq, uint32_t value, void *param) {
    (void)irq; (void)param;
    uint8_t b = (uint8_t)value;
    if (b == 0) {
        if (in_is_request) request_end = avr->cycle;
        in_pos = 0;
        in_is_request = 0;
        return;
    }
    if (in_pos == 2) in_is_request = b >= 0x80 && b <= 0x9F; /* code, version, type */
    in_pos++;
}
static void on_uart_out(avr_irq_t *irq, uint32_t value, void *param) {
    (void)irq; (void)value; (void)param;
    if (request_end && n_samples < MAX_SAMPLES) samples[n_samples++] = avr->cycle - request_end;
    request_end = 0;
}
static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}
static void report_latency(void) {
    if (!n_samples) { say("LAT 0 0 0 0"); return; }
    qsort(samples, n_samples, sizeof *samples, cmp_u64);
    say("LAT %zu %llu %llu %llu", n_samples, (unsigned long long)samples[n_samples / 2],
        (unsigned long long)samples[(size_t)(0.99 * (double)(n_samples - 1))],
        (unsigned long long)samples[n_samples - 1]);
}

static void report_stack(void) {
    if (!heap_start) { say("STACK unknown"); return; }
    uint32_t ramend = 0x21FF, n = 0;
    for (uint32_t p = heap_start; p < ramend && avr->data[p] == 0xC5; p++) n++;
    say("STACK %u", n);
}

/* ---- control lines ------------------------------------------------------------ */

static char line[256];
static size_t line_len;

static void command(char *s) {
    char word[16] = "";
    int n = 0;
    switch (s[0]) {
    case 'F': sscanf(s + 1, "%15s", word); start_feed(word); break;
    case 'H': hopper += atoi(s + 1); break;
    case 'K': hopper = atoi(s + 1); break; /* the operator set the hopper to n cards */
    case 'B':
        if (strchr(s, '-')) { board_present = 0; board_number = 0; for (int i = 0; i < 4; i++) stacks[i] = 0; }
        else { board_present = 1; board_number = atoi(s + 1) & 0xFFFF; }
        break;
    case 'C': cover_open = atoi(s + 1) != 0; break;
    case 'J': if (jam) { jam = 0; hopper++; } break;
    case 'P': {
        int i = -1;
        if (sscanf(s + 1, "%d %d", &i, &n) == 2 && i >= 0 && i < 4 && n >= 0 && n < stacks[i] + 1)
            stacks[i] = n;
        break;
    }
    case 'Z': n = atoi(s + 1); stacks[4] = n > stacks[4] ? 0 : stacks[4] - n; break;
    case 'R': n = atoi(s + 1); if (n > stacks[4]) n = stacks[4]; stacks[4] -= n; hopper += n; break;
    case 'X': power_cut(atoi(s + 1)); break;
    case 'A': sscanf(s + 1, "%15s %d", armed, &armed_lands); break;
    case 'S': report_stack(); report_stats(); break;
    case 'L': report_latency(); break;
    case 'Q': quit = 1; break;
    default: say("ERR unknown control line: %s", s); break;
    }
    apply_inputs();
}

/* Handle the control lines waiting on stdin; with wait_for_feed_answer, block
 * until the answer to FEED? has been handled (feed_asked cleared). One byte at
 * a time, so nothing after the line that is needed is consumed early. */
static void read_control(int wait_for_feed_answer) {
    struct pollfd pfd = {.fd = control_in, .events = POLLIN};
    for (;;) {
        int waiting = wait_for_feed_answer && feed_asked && !quit;
        if (poll(&pfd, 1, waiting ? 5000 : 0) <= 0) {
            if (waiting) { say("ERR no answer to FEED? for 5 s"); feed_asked = 0; }
            return;
        }
        char c;
        ssize_t got = read(control_in, &c, 1);
        if (got <= 0) { quit = 1; return; }
        if (c == '\n') {
            line[line_len] = 0;
            line_len = 0;
            command(line);
            if (wait_for_feed_answer && !feed_asked) return;
        } else if (line_len < sizeof line - 1) {
            line[line_len++] = c;
        }
    }
}

/* The process that started the harness: when it is gone, so is the harness. Its end of
 * the control channel closing says so too, unless a process it forked still holds that
 * end (orphaned harnesses were seen after full test runs, each using the CPU). */
static pid_t parent;

static avr_cycle_count_t poll_control(avr_t *a, avr_cycle_count_t when, void *param) {
    (void)a; (void)param;
    if (getppid() != parent) quit = 1;
    read_control(0);
    return when + avr->frequency / 2000; /* every 500 us */
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: simboard FIRMWARE.elf [--time-scale S] [--boot-count N] [--control-fd FD]\n");
        return 2;
    }
    parent = getppid();
    uint32_t boot_count = 0;
    for (int i = 2; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--time-scale")) scale = atof(argv[i + 1]);
        else if (!strcmp(argv[i], "--boot-count")) boot_count = (uint32_t)strtoul(argv[i + 1], 0, 0);
        else if (!strcmp(argv[i], "--control-fd")) control_in = control_out = atoi(argv[i + 1]);
    }
    elf_firmware_t fw;
    memset(&fw, 0, sizeof fw);
    if (elf_read_firmware(argv[1], &fw) != 0) {
        fprintf(stderr, "simboard: cannot read the firmware %s\n", argv[1]);
        return 1;
    }
    heap_start = elf_symbol(argv[1], "__heap_start"); /* where stack painting starts */
    stats_at = elf_symbol(argv[1], "link_stats");     /* the firmware's link counters */
    avr = avr_make_mcu_by_name("atmega2560");
    if (!avr) { fprintf(stderr, "simboard: simavr has no atmega2560\n"); return 1; }
    avr_init(avr);
    avr->log = 0;
    avr->frequency = 16000000;
    avr_load_firmware(avr, &fw);
    avr->frequency = 16000000;
    avr->vcc = avr->avcc = avr->aref = 5000;
    /* The boot counter lives in EEPROM at 0 (hal_boot_counter): seed it so each
     * run's boot ids differ, as a machine that has been switched on before. */
    uint8_t ee[4] = {(uint8_t)boot_count, (uint8_t)(boot_count >> 8),
                     (uint8_t)(boot_count >> 16), (uint8_t)(boot_count >> 24)};
    avr_eeprom_desc_t d = {.ee = ee, .offset = 0, .size = 4};
    avr_ioctl(avr, AVR_IOCTL_EEPROM_SET, &d);

    samples = calloc(MAX_SAMPLES, sizeof *samples);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_INPUT), on_uart_in, NULL);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUTPUT), on_uart_out, NULL);
    uart_pty_init(avr, &uart);
    uart_pty_connect(&uart, '0');
    say("PTY %s", uart.pty.slavename);

    avr_irq_register_notify(pin('A', PA_FEED), on_feed, NULL);
    avr_irq_register_notify(pin('A', PA_DROP), on_drop, NULL);
    avr_irq_register_notify(pin('A', PA_DIVERT), on_divert, NULL);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ('A'), IOPORT_IRQ_PIN_ALL),
                            on_port_a, NULL);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ('G'), IOPORT_IRQ_PIN_ALL),
                            on_speed, NULL);
    apply_inputs();
    avr_cycle_timer_register_usec(avr, 500, poll_control, NULL);
    say("BOOTED");
    while (!quit) {
        int state = avr_run(avr);
        if (cut_pending >= 0) {
            int lands = cut_pending;
            cut_pending = -1;
            do_power_cut(lands);
        }
        if (state == cpu_Done || state == cpu_Crashed) {
            say("ERR the simulated CPU stopped (state %d)", state);
            break;
        }
    }
    /* Not uart_pty_stop(): it stops the pty thread with SIGINT and joins it, and a
     * harness started with SIGINT ignored (as test workers start it) then waits for
     * ever: such harnesses were left running after every full test run. Leaving the
     * process ends the thread and closes the pty. */
    _exit(0);
}
