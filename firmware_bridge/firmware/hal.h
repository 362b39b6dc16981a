/* The hardware layer: everything the protocol and machine logic need from the
 * board, behind one header. hal_avr.c implements it for the ATmega2560 with
 * the pins of pins.h; a port to another board (ESP32, RP2040) rewrites that
 * file only. */
#ifndef BW_HAL_H
#define BW_HAL_H

#include <stdint.h>

void hal_init(void);
uint32_t hal_millis(void);

/* UART: bytes in (from the interrupt-fed ring) and out (queued, sent by interrupt). */
int hal_uart_read(void);              /* next byte, or -1 */
uint16_t hal_uart_write_room(void);
void hal_uart_write(const uint8_t *data, uint16_t len);

/* Sensors. */
uint8_t hal_gate(void);
uint8_t hal_cover_open(void);
uint8_t hal_jam(void);
uint8_t hal_hopper_has_cards(void);
uint8_t hal_board_present(void);
uint8_t hal_double_feed(void);
uint16_t hal_board_number(void);
uint8_t hal_stack_count(uint8_t stack);   /* 0..3 pockets, 4 reject tray */

/* Actuators. */
void hal_feed(uint8_t on);
void hal_camera_trigger(void);
void hal_select(uint8_t position);        /* 0..3 pockets, 4 reject tray */
void hal_drop(void);
void hal_divert(void);
void hal_speed(uint8_t level);            /* 1..3 */

/* Power-up facts. */
uint32_t hal_boot_counter(void);          /* counts power-ups (kept in EEPROM) */
void hal_idle(void);                      /* sleep until the next interrupt */

/* Stack painting: bytes of RAM never touched since boot (measured by the harness too). */
uint16_t hal_stack_unused(void);

#endif
