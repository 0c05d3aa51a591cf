/* .npy: NumPy's own files decode to the right dtype, shape and values and
 * re-encode byte for byte; what opgen refuses, it refuses with a clear message. */
#include "opgen/npy.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *dir;
static int failed;

static unsigned char *slurp(const char *name, size_t *n) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    unsigned char *b = malloc(1 << 16);
    *n = fread(b, 1, 1 << 16, f);
    fclose(f);
    return b;
}

static void check_good(const char *name, opgen_dtype dtype, int dim, const int64_t *sizes, const void *values,
                       size_t nbytes) {
    opgen_arena a;
    opgen_arena_init_growing(&a);
    opgen_error err = {0};
    opgen_tensor t;
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (opgen_npy_read(path, &a, &t, &err)) {
        printf("FAIL %s: %s\n", name, err.msg);
        failed++;
    } else if (t.dtype != dtype || t.dim != dim || memcmp(t.sizes, sizes, sizeof(int64_t) * (size_t)dim) ||
               opgen_nbytes(&t) != nbytes || (nbytes && memcmp(t.data, values, nbytes))) {
        printf("FAIL %s: decoded as %s with %d dims\n", name, opgen_dtype_name(t.dtype), (int)t.dim);
        failed++;
    } else {
        /* re-encoding gives NumPy's bytes */
        size_t n = 0, size = opgen_npy_encode(&t, NULL, 0, &err);
        unsigned char *want = slurp(name, &n), *got = malloc(size);
        opgen_npy_encode(&t, got, size, &err);
        if (size != n || memcmp(want, got, n)) {
            printf("FAIL %s: re-encoded bytes differ from NumPy's\n", name);
            failed++;
        }
        free(want);
        free(got);
    }
    opgen_arena_release(&a);
}

static void check_bad(const char *name, const char *expect) {
    opgen_arena a;
    opgen_arena_init_growing(&a);
    opgen_error err = {0};
    opgen_tensor t;
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (!opgen_npy_read(path, &a, &t, &err)) {
        printf("FAIL %s: accepted\n", name);
        failed++;
    } else if (!strstr(err.msg, expect)) {
        printf("FAIL %s: message '%s' lacks '%s'\n", name, err.msg, expect);
        failed++;
    }
    opgen_arena_release(&a);
}

static void check_roundtrip(opgen_dtype dt, int dim, const int64_t *sizes) {
    opgen_arena a;
    opgen_arena_init_growing(&a);
    opgen_error err = {0};
    opgen_tensor t, u;
    if (opgen_tensor_alloc(&t, dt, dim, sizes, &a, &err)) {
        printf("FAIL alloc: %s\n", err.msg);
        failed++;
        return;
    }
    unsigned char *p = t.data;
    for (size_t i = 0; i < opgen_nbytes(&t); i++) p[i] = (unsigned char)(i * 37 + 11);
    if (dt == OPGEN_DTYPE_Bool)
        for (size_t i = 0; i < opgen_nbytes(&t); i++) p[i] &= 1;
    size_t size = opgen_npy_encode(&t, NULL, 0, &err);
    unsigned char *buf = malloc(size);
    opgen_npy_encode(&t, buf, size, &err);
    if (size % 64 && opgen_nbytes(&t) == 0) { /* header alone is 64-aligned */
        printf("FAIL header not 64-byte aligned\n");
        failed++;
    }
    if (opgen_npy_decode(buf, size, "mem", &a, &u, &err) || u.dtype != dt || u.dim != dim ||
        memcmp(u.data, t.data, opgen_nbytes(&t))) {
        printf("FAIL round trip of %s (%d dims): %s\n", opgen_dtype_name(dt), dim, err.msg);
        failed++;
    }
    /* every truncation is an error, never a read past the end */
    for (size_t cut = 0; cut < size; cut += 1 + size / 50) {
        opgen_error e2 = {0};
        if (!opgen_npy_decode(buf, cut, "mem", &a, &u, &e2)) {
            printf("FAIL truncated to %zu bytes accepted\n", cut);
            failed++;
        }
    }
    free(buf);
    opgen_arena_release(&a);
}

int main(int argc, char **argv) {
    if (argc < 2) return 2;
    dir = argv[1];
    static const float f32[] = {0, 0.25f, 0.5f, 0.75f, 1, 1.25f};
    static const double f64 = 2.5;
    static const int64_t i64[] = {-3, -1, 0, 7, 9};
    static const unsigned char b1[] = {1, 0, 0, 1};
    static const uint16_t f16[] = {0x3c00, 0xc000, 0x3800}, bf16[] = {0x3fc0, 0xc010, 0x7f62, 0x7fc0, 0x3dcd};
    static const float c64[] = {1, 2, 3, -4};
    check_good("f32_2x3.npy", OPGEN_DTYPE_Float, 2, (const int64_t[]){2, 3}, f32, sizeof f32);
    check_good("f64_scalar.npy", OPGEN_DTYPE_Double, 0, (const int64_t[]){0}, &f64, sizeof f64);
    check_good("i64_5.npy", OPGEN_DTYPE_Long, 1, (const int64_t[]){5}, i64, sizeof i64);
    check_good("b1_2x2.npy", OPGEN_DTYPE_Bool, 2, (const int64_t[]){2, 2}, b1, sizeof b1);
    check_good("u8_empty.npy", OPGEN_DTYPE_Byte, 2, (const int64_t[]){0, 4}, NULL, 0);
    check_good("f16_3.npy", OPGEN_DTYPE_Half, 1, (const int64_t[]){3}, f16, sizeof f16);
    check_good("c64_2.npy", OPGEN_DTYPE_ComplexFloat, 1, (const int64_t[]){2}, c64, sizeof c64);
    check_good("bf16_5.npy", OPGEN_DTYPE_BFloat16, 1, (const int64_t[]){5}, bf16, sizeof bf16);
    check_bad("i32_bigendian.npy", "big-endian");
    check_bad("f32_fortran.npy", "Fortran-ordered");
    check_bad("object.npy", "unsupported dtype '|O'");
    check_bad("f32_truncated.npy", "truncated .npy data: the shape and dtype need 24 bytes, the file has 21");
    check_bad("f32_header_truncated.npy", "truncated .npy header");
    check_bad("README.md", "not a .npy file");
    check_bad("no-such-file.npy", "cannot read: No such file");
    opgen_dtype all[] = {OPGEN_DTYPE_Bool,    OPGEN_DTYPE_Byte,   OPGEN_DTYPE_Char,         OPGEN_DTYPE_Short,
                         OPGEN_DTYPE_Int,     OPGEN_DTYPE_Long,   OPGEN_DTYPE_Half,         OPGEN_DTYPE_Float,
                         OPGEN_DTYPE_Double,  OPGEN_DTYPE_UInt16, OPGEN_DTYPE_ComplexFloat, OPGEN_DTYPE_ComplexDouble,
                         OPGEN_DTYPE_BFloat16};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++) {
        check_roundtrip(all[i], 0, NULL);
        check_roundtrip(all[i], 1, (const int64_t[]){7});
        check_roundtrip(all[i], 3, (const int64_t[]){2, 0, 3});
        check_roundtrip(all[i], 4, (const int64_t[]){2, 3, 1, 5});
    }
    printf("test_npy: %d failed\n", failed);
    return failed ? 1 : 0;
}
