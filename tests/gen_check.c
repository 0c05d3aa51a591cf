/* Compiled against a generated folder (as C11 and as C++17, -Wall -Wextra -Werror
 * -pedantic) and run: every operator is found by name in O(1) under its own id,
 * unknown names are not, and the tables agree with the X-macros. */
#define OPGEN_RUNTIME_TABLES_VERSION 3
#define OPGEN_IMPLEMENTATION
#include "opgen_kernels.h"

#include <stdio.h>
#include <string.h>

/* the X-macro expands to data, not code: a 3,000-op list stays quick to compile */
#define NAME_ROW(id, ident, name) {id, OPGEN_OP_##ident, name},
static const struct {
    int id, enum_id;
    const char *name;
} listed[] = {OPGEN_OPS(NAME_ROW){-1, -1, NULL}};
#undef NAME_ROW

int main(void) {
    int bad = 0, n = 0;
    for (; listed[n].name; n++) {
        int id = listed[n].id;
        if (opgen_op_lookup(listed[n].name) != id || listed[n].enum_id != id ||
            strcmp(opgen_ops[id].qualified, listed[n].name) != 0) {
            printf("FAIL: %s (id %d) looks up as %d\n", listed[n].name, id, opgen_op_lookup(listed[n].name));
            bad++;
        }
    }
    if (n != OPGEN_OP_COUNT) {
        printf("FAIL: OPGEN_OPS lists %d ops, OPGEN_OP_COUNT is %d\n", n, OPGEN_OP_COUNT);
        bad++;
    }
    const char *unknown[] = {"", "aten::", "aten::no_such_op", "add.Tensor", "aten::add.Tensor ", "xaten::add.Tensor"};
    for (size_t i = 0; i < sizeof unknown / sizeof *unknown; i++) {
        if (opgen_op_lookup(unknown[i]) != -1) {
            printf("FAIL: unknown name '%s' found\n", unknown[i]);
            bad++;
        }
    }
#define KERNEL_ROW(id, fn) id,
    static const int kernel_ops[] = {OPGEN_KERNELS(KERNEL_ROW) - 1};
#undef KERNEL_ROW
    int kernels = 0;
    for (; kernel_ops[kernels] >= 0; kernels++) {
        const opgen_op *op = &opgen_ops[kernel_ops[kernels]];
        bool prim = op->out_variant < 0 && op->nrets > 0; /* a scalar prim's kernel computes it directly */
        for (int r = 0; prim && r < op->nrets; r++) {
            int abi = opgen_rets[op->first_ret + (unsigned)r].abi;
            prim = abi == OPGEN_ABI_INT || abi == OPGEN_ABI_FLOAT || abi == OPGEN_ABI_BOOL;
        }
        if (op->kind != OPGEN_KIND_OUT && !prim) {
            printf("FAIL: kernel of %s is neither an out= op nor a scalar prim\n", op->qualified);
            bad++;
        }
    }
    /* every op's out_variant is an out= op of the same name */
    for (int id = 0; id < OPGEN_OP_COUNT; id++) {
        int o = opgen_ops[id].out_variant;
        if (o >= 0 && (o >= OPGEN_OP_COUNT || opgen_ops[o].kind != OPGEN_KIND_OUT)) {
            printf("FAIL: %s has out variant %d\n", opgen_ops[id].qualified, o);
            bad++;
        }
    }
    printf("gen_check: %d ops, %d out kernels, %d failed\n", n, kernels, bad);
    return bad ? 1 : 0;
}
