/* libFuzzer target: the .pte reader on arbitrary bytes: an error or a result,
 * never a read outside the buffer (ASan), never a hang. */
#include "pte.h"
#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    arena a;
    arena_init(&a);
    diag d;
    diag_init(&d, NULL);
    og_pte p;
    if (og_pte_read(&a, "f.pte", data, size, &p, &d)) free(p.calls);
    arena_free(&a);
    return 0;
}
