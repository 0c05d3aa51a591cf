/* libFuzzer target: ExecuTorch programs from arbitrary bytes, through all the
 * runtime does with them: the reader, every KernelCall's kernel key (what a
 * selection records), the method as graph text, the memory query, load into
 * exactly that memory, and a run on zero inputs (an instruction budget keeps a
 * looping program short). An error or a result; never a read outside the
 * buffer (ASan), undefined behaviour (UBSan), a leak, or a hang. */
#include "opgen/method.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static _Alignas(16) uint8_t copy[1 << 20], load_mem[1 << 21], work_mem[1 << 21];

static void keys(const opgen_pte *p, const opgen_pte_plan *pl) {
    opgen_error err = {0};
    for (uint32_t c = 0; c < pl->chains.len; c++) {
        opgen_pte_vec instrs;
        if (opgen_pte_chain_at(p, pl, c, &instrs, &err)) return;
        for (uint32_t k = 0; k < instrs.len; k++) {
            opgen_pte_instr in;
            char key[256];
            if (opgen_pte_instr_at(p, &instrs, k, &in, &err)) return;
            if (in.kind == OPGEN_INSTR_KERNEL) opgen_pte_kernel_key(p, pl, &in, key, sizeof key, &err);
        }
    }
}

/* Zero inputs of the declared kinds and shapes, when they are small. */
static bool inputs(const opgen_method *m, opgen_arena *a, opgen_ivalue *in, int cap) {
    int n = opgen_method_ninputs(m);
    if (n > cap) return false;
    for (int i = 0; i < n; i++) {
        const opgen_ivalue *want = opgen_method_input(m, i);
        memset(&in[i], 0, sizeof in[i]);
        in[i].kind = want->kind;
        if (want->kind != OPGEN_GV_TENSOR) continue;
        opgen_error err = {0};
        if (opgen_nbytes(&want->t) > (1u << 16) ||
            opgen_tensor_alloc(&in[i].t, want->t.dtype, want->t.dim, want->t.sizes, a, &err))
            return false;
    }
    return true;
}

static void method(const opgen_pte *p, const opgen_pte_plan *pl) {
    opgen_error err = {0};
    opgen_arena a, w;
    opgen_arena_init(&a, load_mem, sizeof load_mem);
    char *text;
    size_t len;
    keys(p, pl);
    opgen_pte_graph_text(p, pl->name, &a, &text, &len, &err);
    opgen_arena_reset(&a);
    opgen_method_options opt = {NULL, NULL, 0, NULL, 0, 20000, NULL, NULL};
    opgen_method_memory mem;
    opgen_method *m;
    memset(&err, 0, sizeof err);
    if (opgen_method_memory_of(p, pl->name, &opt, &mem, &err) || mem.load_bytes > sizeof load_mem / 2) return;
    if (opgen_method_load(p, pl->name, &opt, &a, &m, &err) || opgen_method_work_bytes(m) > sizeof work_mem / 2) return;
    opgen_arena_init(&w, work_mem, sizeof work_mem);
    opgen_ivalue in[16], out[64];
    if (inputs(m, &w, in, 16) && opgen_method_noutputs(m) <= 64) opgen_method_run(m, in, &w, out, &err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size > sizeof copy) return 0;
    memcpy(copy, data, size); /* 16-aligned, as a program is given */
    opgen_pte p;
    opgen_error err = {0};
    if (opgen_pte_open(&p, copy, size, "f.pte", &err)) return 0;
    for (uint32_t i = 0; i < p.plans.len && i < 8; i++) {
        opgen_pte_plan pl;
        memset(&err, 0, sizeof err);
        if (!opgen_pte_plan_at(&p, i, &pl, &err)) method(&p, &pl);
    }
    return 0;
}
