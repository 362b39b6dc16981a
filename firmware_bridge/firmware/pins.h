/* The pin map of the reference dealing machine on an Arduino Mega 2560
 * (ATmega2560). Every pin the firmware touches is named here and nowhere else:
 * porting to another wiring means editing this file only (docs/firmware.md).
 *
 * Outputs (PORTA, Arduino D22..D29, and PORTG):
 *   FEED     PA0 D22  feed roller motor: high while it turns
 *   CAMERA   PA1 D23  camera trigger: a 1 ms pulse when a card reaches the gate
 *   SELECT0  PA2 D24  pocket selector position, 3-bit code:
 *   SELECT1  PA3 D25    0..3 = pockets N, E, S, W; 4 = reject tray
 *   SELECT2  PA4 D26    (to the selector's stepper/servo driver)
 *   DROP     PA5 D27  gate release solenoid: a pulse lets the card fall
 *   DIVERT   PA6 D28  double-feed diverter: a pulse sends the pair to the reject tray
 *   SPEED0   PG0 D41  feed speed level 1..3 to the motor driver (2-bit code)
 *   SPEED1   PG1 D40
 * Inputs (PORTC, Arduino D37..D32, internal pull-ups off: the sensors drive them):
 *   GATE     PC0 D37  IR gate: high while a card waits at the read gate
 *   COVER    PC1 D36  cover switch: high while the cover is open
 *   JAM      PC2 D35  feed-path sensor: high while a card is stuck
 *   HOPPER   PC3 D34  hopper sensor: high while cards are in the hopper
 *   BOARD    PC4 D33  board switch: high while a board is in the machine
 *   DOUBLE   PC5 D32  thickness sensor: high when two cards came together
 * Board-number reader: a 16-bit number on PORTK (low, A8..A15) and PORTJ (high),
 *   valid while BOARD is high (0 = no sticker read).
 * Stack sensors (analogue): ADC0..ADC3 = pockets 0..3, ADC4 = reject tray.
 *   The height of each stack, STACK_LSB_PER_CARD ADC steps per card, so the
 *   counts survive a power cut (the protocol's "pocket counts come from sensors").
 * UART0 (D0/D1, the USB-serial chip of the Mega): the protocol at 115200 8N1.
 */
#ifndef BW_PINS_H
#define BW_PINS_H

#include <avr/io.h>

#define OUT_DDR   DDRA
#define OUT_PORT  PORTA
#define PIN_FEED    0
#define PIN_CAMERA  1
#define PIN_SELECT0 2 /* three bits: 2, 3, 4 */
#define PIN_DROP    5
#define PIN_DIVERT  6

#define SPEED_DDR  DDRG
#define SPEED_PORT PORTG
#define PIN_SPEED0 0 /* two bits: 0, 1 */

#define IN_PINR   PINC
#define IN_DDR    DDRC
#define PIN_GATE   0
#define PIN_COVER  1
#define PIN_JAM    2
#define PIN_HOPPER 3
#define PIN_BOARD  4
#define PIN_DOUBLE 5

#define BOARDNO_LO_PINR PINK
#define BOARDNO_LO_DDR  DDRK
#define BOARDNO_HI_PINR PINJ
#define BOARDNO_HI_DDR  DDRJ

#define ADC_POCKET0 0 /* pockets 0..3 on ADC0..ADC3 */
#define ADC_REJECT  4
#define STACK_LSB_PER_CARD 8

#define SELECT_REJECT 4

#endif
