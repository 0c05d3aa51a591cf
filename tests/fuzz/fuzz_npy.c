/* libFuzzer target: the .npy decoder on arbitrary bytes (never a read past the
 * end), and decode(encode(t)) on whatever decodes. */
#include "opgen/npy.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    uint8_t *copy = malloc(size ? size : 1); /* exact-size buffer: ASan sees overreads */
    if (!copy) return 0;
    memcpy(copy, data, size);
    opgen_arena a;
    opgen_arena_init_growing(&a);
    opgen_error err = {0};
    opgen_tensor t, u;
    if (!opgen_npy_decode(copy, size, "f", &a, &t, &err)) {
        opgen_error e2 = {0};
        size_t n = opgen_npy_encode(&t, NULL, 0, &e2);
        if (n) {
            uint8_t *buf = malloc(n);
            if (buf && opgen_npy_encode(&t, buf, n, &e2) == n &&
                (opgen_npy_decode(buf, n, "g", &a, &u, &e2) || u.dtype != t.dtype || u.dim != t.dim ||
                 memcmp(u.data, t.data, opgen_nbytes(&t))))
                abort();
            free(buf);
        }
    }
    opgen_arena_release(&a);
    free(copy);
    return 0;
}
