/* Load-time rewrites both executors run (rewrite.h). */
#include "rewrite.h"
#include <string.h>

static int reads(const opgen_step_seq *q, const opgen_tensor *t) { return q->reads(q->ctx, t); }
static opgen_step *plain(const opgen_step_seq *q, int k) { return k < q->n ? q->plain(q->ctx, k) : NULL; }

int opgen_rewrite_fuse_chain(const opgen_step_seq *q, int k) {
    opgen_step *c = plain(q, k), *b = plain(q, k + 1);
    if (!c || !b || c->q8 || strcmp(opgen_ops[c->kernel_op].qualified, "aten::convolution.out") || c->nres != 1 ||
        b->nres != 3)
        return 0;
    if (reads(q, c->res[0]) != 1 || reads(q, b->res[0]) < 0 || reads(q, b->res[1]) || reads(q, b->res[2])) return 0;
    opgen_fusion *slot = q->slot(q->ctx);
    if (!slot) return 0;
    /* conv -> bn -> add (a residual, computed before the convolution: steps run
     * in order) -> act, or without the add */
    bool bn_once = reads(q, b->res[0]) == 1;
    opgen_step *r = bn_once ? plain(q, k + 2) : NULL;
    opgen_step *add = r && opgen_step_residual(r, b->res[0]) ? r : NULL;
    opgen_step *act = add && reads(q, add->res[0]) == 1 ? plain(q, k + 3) : NULL;
    if (add && act && opgen_step_fuse(c, b, add, act, slot)) return 3;
    if (add && opgen_step_fuse(c, b, add, NULL, slot)) return 2;
    if (r && opgen_step_fuse(c, b, NULL, r, slot)) return 2;
    return opgen_step_fuse(c, b, NULL, NULL, slot) ? 1 : 0;
}

bool opgen_rewrite_prepare_filter(const opgen_step_seq *q, int k) {
    opgen_step *c = plain(q, k);
    size_t n = c && !c->q8 && q->constant && q->mem ? opgen_step_prepared_bytes(c) : 0; /* 0: not such a convolution */
    if (!n || !q->constant(q->ctx, c->args[1].v.t)) return false;                       /* its weight: argument 1 */
    void *mem = q->mem(q->ctx, n);
    if (mem) opgen_step_prepare_filter(c, mem);
    return mem != NULL;
}
