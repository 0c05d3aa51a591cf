/* Compares two .npy files: same dtype and shape, values within tolerance.
 * usage: npy_close EXPECTED ACTUAL [RTOL [ATOL]]   (exit 0 close, 1 not, 2 unreadable) */
#include "opgen/kernel.h"
#include "opgen/npy.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    if (argc < 3) return fputs("usage: npy_close EXPECTED ACTUAL [RTOL [ATOL]]\n", stderr), 2;
    double rtol = argc > 3 ? atof(argv[3]) : 1e-5, atol = argc > 4 ? atof(argv[4]) : 1e-6;
    opgen_arena a;
    opgen_arena_init_growing(&a);
    opgen_error err = {0};
    opgen_tensor x, y;
    if (opgen_npy_read(argv[1], &a, &x, &err) || opgen_npy_read(argv[2], &a, &y, &err)) {
        char msg[1024];
        opgen_error_format(&err, msg, sizeof msg);
        fprintf(stderr, "%s\n", msg);
        opgen_arena_release(&a);
        return 2;
    }
    int rc = 0;
    if (x.dtype != y.dtype || x.dim != y.dim || memcmp(x.sizes, y.sizes, sizeof(int64_t) * (size_t)x.dim)) {
        printf("%s: dtype or shape differs (%s %d-d vs %s %d-d)\n", argv[2], opgen_dtype_name(x.dtype), x.dim, opgen_dtype_name(y.dtype), y.dim);
        rc = 1;
    }
    double worst = 0;
    for (int64_t i = 0; !rc && i < opgen_numel(&x); i++) {
        double e = opgen_load_f64(&x, i), g = opgen_load_f64(&y, i), diff = fabs(e - g);
        if (!(diff <= atol + rtol * fabs(e)) && !(isnan(e) && isnan(g))) {
            printf("%s: element %lld is %.9g, expected %.9g\n", argv[2], (long long)i, g, e);
            rc = 1;
        }
        if (diff > worst) worst = diff;
    }
    if (!rc) printf("%s: %lld values close (max abs diff %.3g)\n", argv[2], (long long)opgen_numel(&x), worst);
    opgen_arena_release(&a);
    return rc;
}
