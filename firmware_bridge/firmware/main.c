/* boardwright reference firmware for an open dealing machine (ATmega2560).
 * The protocol is docs/protocol.md; the pins are pins.h; docs/firmware.md
 * says how to build, flash and port it. */
#include <stdint.h>

#include "hal.h"
#include "link.h"

void machine_init(uint32_t boot_id);
void machine_tick(uint32_t now);

/* A 32-bit mix (the finaliser of MurmurHash3) so consecutive boot counts give
 * unrelated boot ids. */
static uint32_t mix32(uint32_t h) {
    h ^= h >> 16; h *= 0x85EBCA6Bul; h ^= h >> 13; h *= 0xC2B2AE35ul; h ^= h >> 16;
    return h ? h : 1;
}

/* Free RAM never touched since boot, readable by the harness at this symbol. */
volatile uint16_t bw_stack_unused;

int main(void) {
    hal_init();
    uint32_t boot_id = mix32(hal_boot_counter() ^ 0x626F6172ul);
    link_init(boot_id);
    machine_init(boot_id);
    uint32_t last_paint_check = 0;
    for (;;) {
        uint32_t now = hal_millis();
        link_poll(now);
        machine_tick(now);
        link_service(now);
        if (now - last_paint_check >= 1000) {
            last_paint_check = now;
            bw_stack_unused = hal_stack_unused();
        }
        hal_idle();
    }
}
