/* Every program of a bare-metal test build traps unaligned accesses, as a strict
 * core does (the Cortex-M's CCR.UNALIGN_TRP bit, set before main): the runtime
 * must read a .pte's fields through memcpy or aligned loads, and a test shows it. */
#include <stdint.h>

__attribute__((constructor)) static void opgen_strict_alignment(void) {
    volatile uint32_t *ccr = (volatile uint32_t *)0xE000ED14u; /* System Control Block: CCR */
    *ccr |= 1u << 3;                                           /* UNALIGN_TRP */
    __asm__ volatile("dsb\n\tisb" ::: "memory");
}
