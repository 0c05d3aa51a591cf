/* libFuzzer target: the lowering library, the executor and every kernel. A
 * program that parses is fused, decomposed and verified (each result must print
 * and parse again), then
 * loaded (binding, meta, Edge rows, kernel lookup, memory plan) and, if that
 * succeeds, run on deterministic inputs in a fixed 4 MiB work buffer; any crash,
 * sanitizer report or leak is a bug, errors are fine. Seeds: the kernel cases,
 * the examples and the opgen-rt fixtures. */
#include "opgen/lower.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint8_t work_buf[4 << 20];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size > 1 << 14) return 0;
    opgen_arena a;
    opgen_arena_init_growing(&a);
    opgen_error err = {0};
    opgen_graph g;
    opgen_program *p = NULL;
    if (opgen_graph_parse("f", (const char *)data, size, false, &a, &g, &err)) {
        if (err.code == OPGEN_OK) abort();
        opgen_arena_release(&a);
        return 0;
    }
    opgen_graph lowered, back;
    opgen_error e1 = {0}, e2 = {0}, e3 = {0};
    if (!opgen_fuse(&g, NULL, &a, &lowered, NULL, &e1)) {
        size_t n = opgen_graph_print(&lowered, NULL, 0);
        char *buf = opgen_arena_alloc(&a, n + 1);
        opgen_graph again;
        if (!buf) abort();
        opgen_graph_print(&lowered, buf, n + 1);
        if (opgen_graph_parse("l", buf, n, false, &a, &again, &e3)) abort(); /* fusion writes valid programs */
        if (!opgen_decompose(&lowered, &a, &back, NULL, &e2)) (void)opgen_verify(&back, OPGEN_DIALECT_BACKEND, &a, &e3);
    }
    if (opgen_program_load(&g, &a, &p, &err)) {
        if (err.code == OPGEN_OK) abort(); /* a failure always says why */
        opgen_arena_release(&a);
        return 0;
    }
    opgen_ivalue *in = calloc((size_t)g.ninputs + 1, sizeof *in), *out = calloc((size_t)g.noutputs + 1, sizeof *out);
    bool ok = in && out && opgen_program_plan_bytes(p) <= sizeof work_buf;
    for (int i = 0; ok && i < g.ninputs; i++) {
        const opgen_gvalue *gv = &g.values[g.inputs[i]];
        in[i].kind = gv->kind;
        in[i].i = 1 + i % 3;
        in[i].f = 0.5 * (i + 1);
        in[i].b = i % 2;
        if (gv->kind != OPGEN_GV_TENSOR) continue;
        opgen_tensor t;
        if (opgen_tensor_shape(&t, gv->dtype, gv->dim, gv->sizes, &err) || opgen_numel(&t) > 4096 ||
            opgen_tensor_alloc(&in[i].t, gv->dtype, gv->dim, gv->sizes, &a, &err)) {
            ok = false;
            break;
        }
        uint8_t *bytes = in[i].t.data; /* small values in every byte: a valid bit pattern of every dtype */
        for (size_t k = 0; k < opgen_nbytes(&in[i].t); k++)
            bytes[k] = (uint8_t)((k * 7 + (size_t)i) % (gv->dtype == OPGEN_DTYPE_Bool ? 2 : 5));
    }
    if (ok) {
        opgen_arena work;
        opgen_arena_init(&work, work_buf, sizeof work_buf);
        if (opgen_program_run(p, in, &work, out, &err) && err.code == OPGEN_OK) abort();
    }
    free(in);
    free(out);
    opgen_arena_release(&a);
    return 0;
}
