/* hal.h for the ATmega2560 at 16 MHz (Arduino Mega 2560). */
#include "hal.h"
#include "pins.h"

#include <avr/eeprom.h>
#include <avr/interrupt.h>
#include <avr/sleep.h>
#include <util/atomic.h>
#include <util/delay.h>

#define RX_SIZE 256
#define TX_SIZE 512

static volatile uint32_t millis_now;
static volatile uint8_t rx_buf[RX_SIZE];
static volatile uint16_t rx_head, rx_tail;
static volatile uint8_t tx_buf[TX_SIZE];
static volatile uint16_t tx_head, tx_tail;

ISR(TIMER0_COMPA_vect) { millis_now++; }

ISR(USART0_RX_vect) {
    uint8_t b = UDR0;
    uint16_t next = (rx_head + 1) % RX_SIZE;
    if (next != rx_tail) { /* full: the byte is lost, as on any UART; the CRC catches it */
        rx_buf[rx_head] = b;
        rx_head = next;
    }
}

ISR(USART0_UDRE_vect) {
    if (tx_head == tx_tail) {
        UCSR0B &= (uint8_t)~_BV(UDRIE0);
        return;
    }
    UDR0 = tx_buf[tx_tail];
    tx_tail = (tx_tail + 1) % TX_SIZE;
}

/* Stack painting: fill the free RAM between the heap end and the stack with a
 * pattern before main runs; hal_stack_unused counts what is still painted. */
extern uint8_t __heap_start;
#define PAINT 0xC5
void paint_stack(void) __attribute__((naked, used, section(".init3")));
void paint_stack(void) {
    uint8_t *p = &__heap_start;
    while (p < (uint8_t *)SP) *p++ = PAINT;  /* .init3: r1 is zero and SP is RAMEND, nothing is on the stack yet */
}

uint16_t hal_stack_unused(void) {
    const uint8_t *p = &__heap_start;
    uint16_t n = 0;
    while (*p == PAINT && p < (uint8_t *)RAMEND) { p++; n++; }
    return n;
}

void hal_init(void) {
    OUT_DDR = 0xFF;
    OUT_PORT = 0;
    SPEED_DDR |= 0x03;
    IN_DDR = 0;
    BOARDNO_LO_DDR = 0;
    BOARDNO_HI_DDR = 0;
    /* Timer0: CTC at 1 kHz (16 MHz / 64 / 250). */
    TCCR0A = _BV(WGM01);
    TCCR0B = _BV(CS01) | _BV(CS00);
    OCR0A = 249;
    TIMSK0 = _BV(OCIE0A);
    /* UART0: 115200 8N1, double speed (UBRR 16). */
    UCSR0A = _BV(U2X0);
    UBRR0H = 0;
    UBRR0L = 16;
    UCSR0C = _BV(UCSZ01) | _BV(UCSZ00);
    UCSR0B = _BV(RXEN0) | _BV(TXEN0) | _BV(RXCIE0);
    /* ADC: AVcc reference, clock / 128. */
    ADMUX = _BV(REFS0);
    ADCSRA = _BV(ADEN) | _BV(ADPS2) | _BV(ADPS1) | _BV(ADPS0);
    sei();
}

uint32_t hal_millis(void) {
    uint32_t m;
    ATOMIC_BLOCK(ATOMIC_RESTORESTATE) { m = millis_now; }
    return m;
}

int hal_uart_read(void) {
    int b = -1;
    ATOMIC_BLOCK(ATOMIC_RESTORESTATE) {
        if (rx_head != rx_tail) {
            b = rx_buf[rx_tail];
            rx_tail = (rx_tail + 1) % RX_SIZE;
        }
    }
    return b;
}

uint16_t hal_uart_write_room(void) {
    uint16_t used;
    ATOMIC_BLOCK(ATOMIC_RESTORESTATE) { used = (tx_head + TX_SIZE - tx_tail) % TX_SIZE; }
    return (uint16_t)(TX_SIZE - 1 - used);
}

void hal_uart_write(const uint8_t *data, uint16_t len) {
    for (uint16_t i = 0; i < len; i++) {
        uint16_t next = (tx_head + 1) % TX_SIZE;
        while (next == tx_tail) { /* full: wait for the interrupt to drain it */ }
        tx_buf[tx_head] = data[i];
        ATOMIC_BLOCK(ATOMIC_RESTORESTATE) { tx_head = next; }
    }
    UCSR0B |= _BV(UDRIE0);
}

static uint8_t in_bit(uint8_t bit) { return (IN_PINR >> bit) & 1u; }
uint8_t hal_gate(void) { return in_bit(PIN_GATE); }
uint8_t hal_cover_open(void) { return in_bit(PIN_COVER); }
uint8_t hal_jam(void) { return in_bit(PIN_JAM); }
uint8_t hal_hopper_has_cards(void) { return in_bit(PIN_HOPPER); }
uint8_t hal_board_present(void) { return in_bit(PIN_BOARD); }
uint8_t hal_double_feed(void) { return in_bit(PIN_DOUBLE); }

uint16_t hal_board_number(void) {
    return (uint16_t)((uint16_t)BOARDNO_HI_PINR << 8 | BOARDNO_LO_PINR);
}

uint8_t hal_stack_count(uint8_t stack) {
    ADMUX = (uint8_t)(_BV(REFS0) | (stack & 0x07));
    ADCSRB &= (uint8_t)~_BV(MUX5);
    ADCSRA |= _BV(ADSC);
    while (ADCSRA & _BV(ADSC)) {}
    uint16_t v = ADC;
    uint16_t n = (uint16_t)((v + STACK_LSB_PER_CARD / 2) / STACK_LSB_PER_CARD);
    return n > 255 ? 255 : (uint8_t)n;
}

static void pulse(uint8_t bit) {
    OUT_PORT |= _BV(bit);
    _delay_us(200);
    OUT_PORT &= (uint8_t)~_BV(bit);
}

void hal_feed(uint8_t on) {
    if (on) OUT_PORT |= _BV(PIN_FEED); else OUT_PORT &= (uint8_t)~_BV(PIN_FEED);
}
void hal_camera_trigger(void) { pulse(PIN_CAMERA); }
void hal_select(uint8_t position) {
    OUT_PORT = (uint8_t)((OUT_PORT & ~(0x07 << PIN_SELECT0)) | ((position & 0x07) << PIN_SELECT0));
}
void hal_drop(void) { pulse(PIN_DROP); }
void hal_divert(void) { pulse(PIN_DIVERT); }
void hal_speed(uint8_t level) {
    SPEED_PORT = (uint8_t)((SPEED_PORT & ~(0x03 << PIN_SPEED0)) | ((level & 0x03) << PIN_SPEED0));
}

uint32_t hal_boot_counter(void) {
    uint32_t *where = (uint32_t *)0;
    uint32_t n = eeprom_read_dword(where) + 1;
    eeprom_update_dword(where, n);
    return n;
}

void hal_idle(void) {
    set_sleep_mode(SLEEP_MODE_IDLE);
    cli();
    if (rx_head == rx_tail) {
        sleep_enable();
        sei();
        sleep_cpu();
        sleep_disable();
    }
    sei();
}
