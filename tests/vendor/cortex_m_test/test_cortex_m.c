/* The cortex_m backend's kernels against ExecuTorch's Cortex-M reference
 * semantics: every case of cases.h (make_cases.py, integer numpy) called
 * directly, outputs compared exactly, each naming the reference function its
 * rule comes from. Inputs marked so are given channels-last. */
#include "opgen/kernel.h"
#include "cortex_m_kernels.h"
#include <stdio.h>
#include <stdlib.h>

static unsigned char memory[1 << 22];
static opgen_arena arena;
static opgen_error err;
static int failed, passed;

#define IL(...) \
    ((opgen_int_list){(const int64_t[]){__VA_ARGS__}, sizeof((const int64_t[]){__VA_ARGS__}) / sizeof(int64_t)})

static opgen_ctx new_ctx(const char *op) {
    memset(&err, 0, sizeof err);
    return (opgen_ctx){&arena, &err, op, false, 0, false, -1, NULL, NULL, NULL, 0, NULL};
}

/* A tensor of logical (row-major) data, laid out channels-last when asked. */
static opgen_tensor t_of(opgen_dtype dt, int dim, const int64_t *sizes, const void *data, bool cl) {
    static const uint8_t nhwc[4] = {0, 2, 3, 1};
    opgen_tensor t = {0};
    if (opgen_tensor_shape_ordered(&t, dt, dim, sizes, cl && dim == 4 ? nhwc : NULL, &err)) abort();
    size_t es = (size_t)opgen_dtype_size(dt);
    t.capacity = opgen_nbytes(&t);
    t.data = opgen_arena_alloc(&arena, t.capacity ? t.capacity : 1);
    int64_t idx[OPGEN_MAX_DIM] = {0}, n = opgen_numel(&t);
    for (int64_t i = 0; i < n; i++, opgen_index_next(t.dim, t.sizes, idx)) {
        int64_t off = 0;
        for (int d = 0; d < dim; d++) off += idx[d] * t.strides[d];
        memcpy((char *)t.data + off * (int64_t)es, (const char *)data + i * (int64_t)es, es);
    }
    return t;
}

static void check(int n, const char *op, const char *ref, opgen_status st, const opgen_tensor *out, opgen_dtype dt,
                  int dim, const int64_t *sizes, const void *want) {
    bool ok = st == OPGEN_OK && out->dtype == dt && out->dim == dim;
    for (int d = 0; ok && d < dim; d++) ok = out->sizes[d] == sizes[d];
    int64_t idx[OPGEN_MAX_DIM] = {0}, count = ok ? opgen_numel(out) : 0, bad = 0;
    size_t es = (size_t)opgen_dtype_size(dt);
    for (int64_t i = 0; i < count; i++, opgen_index_next(out->dim, out->sizes, idx)) {
        int64_t off = 0;
        for (int d = 0; d < dim; d++) off += idx[d] * out->strides[d];
        if (memcmp((const char *)out->data + off * (int64_t)es, (const char *)want + i * (int64_t)es, es)) bad++;
    }
    if (ok && !bad) {
        passed++;
        printf("case %d %s: ok (%lld values exact; %s)\n", n, op, (long long)count, ref);
    } else {
        failed++;
        printf("FAIL: case %d %s (%s): %s\n", n, op, ref, st ? err.msg : ok ? "values differ" : "wrong dtype or shape");
        if (bad) printf("  %lld of %lld values differ\n", (long long)bad, (long long)count);
    }
}

#include "cases.h"

int main(void) {
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        opgen_arena_init(&arena, memory, sizeof memory);
        cases[i]();
    }
    printf("cortex_m kernels: %d cases exact, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
