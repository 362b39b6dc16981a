/* Protocol and mechanics settings (docs/protocol.md section 8). */
#ifndef BW_CONFIG_H
#define BW_CONFIG_H

#define FIRMWARE_NAME "boardwright-avr 1.0"
#define SERIAL_NUMBER "BW-AVR-0001"
#define POCKETS 4
#define SPEED_LEVELS 3

#define HEARTBEAT_MS 250
#define RTO_MS 50
#define WINDOW 8         /* events in flight */
#define EVENT_QUEUE 24   /* events kept in all; feeding waits while it is nearly full */
#define REPLY_CACHE 32   /* replies kept for at-most-once requests */

#define FEED_TIMEOUT_MS 250   /* no card at the gate by then: the roller slipped */
#define DIVERT_TIMEOUT_MS 500 /* a double feed reaches the reject tray by then */
#define MAX_MISFEEDS 3

#endif
