/* The graph-text executor's load-time rewrites: values nothing reads marked,
 * convolution chains fused (rewrite.c), transposed and same-bytes copies run as
 * views of their inputs. */
#include "graph_exec.h"
/* Convolution -> batch norm (-> relu or hardtanh) chains whose intermediate
 * results nothing else reads: the convolution's kernel computes the chain. */
/* How many times each value is read: by nodes, and (twice) by the caller. */
int *gx_count_uses(const opgen_graph *g, opgen_arena *a) {
    int *uses = opgen_arena_zalloc(a, sizeof(int) * (size_t)(g->nvalues ? g->nvalues : 1));
    if (!uses) return NULL;
    for (int n = 0; n < g->nnodes; n++)
        for (int k = 0; k < g->nodes[n].nargs; k++) {
            const opgen_garg *x = &g->nodes[n].args[k];
            if (x->kind == OPGEN_GA_VALUE) uses[x->i]++;
            for (int i = 0; x->kind == OPGEN_GA_LIST && i < x->nitems; i++)
                if (x->items[i].kind == OPGEN_GA_VALUE) uses[x->items[i].i]++;
        }
    for (int i = 0; i < g->noutputs; i++) uses[g->outputs[i]] += 2; /* the caller reads it */
    return uses;
}

/* Each step's results nothing reads (opgen_ctx.unread): its kernel may skip them. */
void gx_mark_unread(opgen_program *p, const int *uses) {
    for (int n = 0; n < p->nsteps; n++) {
        gstep *s = &p->steps[n];
        for (int r = 0; r < s->nresults && r < s->s.nres && r < 32; r++)
            if (!uses[s->results[r]]) s->s.unread |= 1u << r;
    }
}

/* The program as rewrite.c's rewrites see it: its steps, each plain unless
 * dynamic; a tensor's reads are its value's uses (gx_count_uses). */
typedef struct fuse_ctx {
    opgen_program *p;
    const int *uses;
    opgen_arena *a;
    opgen_fusion *slot; /* taken from the arena when needed, kept until a fusion uses it */
} fuse_ctx;
static opgen_step *seq_plain(void *ctx, int k) {
    gstep *s = &((fuse_ctx *)ctx)->p->steps[k];
    return s->dynamic ? NULL : &s->s;
}
static int seq_reads(void *ctx, const opgen_tensor *t) {
    const fuse_ctx *f = ctx;
    const opgen_ivalue *v = f->p->values;
    uintptr_t at = (uintptr_t)t, lo = (uintptr_t)&v[0].t;
    size_t n = (size_t)f->p->g->nvalues;
    if (!n || at < lo || (at - lo) % sizeof *v || (at - lo) / sizeof *v >= n) return -1;
    return f->uses[(at - lo) / sizeof *v];
}
static opgen_fusion *seq_slot(void *ctx) {
    fuse_ctx *f = ctx;
    if (!f->slot) f->slot = opgen_arena_zalloc(f->a, sizeof *f->slot);
    return f->slot;
}

/* Convolution chains computed by the convolution's kernel (rewrite.c). */
void gx_fuse(opgen_program *p, const int *uses, opgen_arena *a) {
    fuse_ctx f = {p, uses, a, NULL};
    opgen_step_seq q = {&f, p->nsteps, seq_plain, seq_reads, seq_slot, NULL, NULL, NULL, NULL, NULL};
    for (int n = 0; n + 1 < p->nsteps; n++) {
        gstep *c = &p->steps[n];
        if (strcmp(opgen_ops[c->s.kernel_op].qualified, "aten::convolution.out")) continue;
        c->fused = opgen_rewrite_fuse_chain(&q, n);
        if (c->s.scratch > p->scratch) p->scratch = c->s.scratch;
        if (c->fused) f.slot = NULL;
        n += c->fused;
    }
}

/* Whether value v is among the n values at vs (a graph's inputs or outputs). */
bool gx_among(const int *vs, int n, int v) {
    for (int i = 0; i < n; i++)
        if (vs[i] == v) return true;
    return false;
}

/* Whether step n's kernel is opgen's for op `qualified` ("aten::mm.out"). */
static bool opgen_kernel_of(const gstep *s, const char *qualified) {
    return !strcmp(opgen_ops[s->s.kernel_op].qualified, qualified) && !strcmp(s->s.origin, "opgen");
}

/* A matrix's permute_copy (dims [1, 0]) of a program input, read only by matrix
 * products (mm, addmm: opgen's kernels, which take operands of any strides), is
 * run as a view: its result points at the input, strides swapped, and is never
 * written (the transposed weight of every linear layer, 5 MB for MobileNetV2's
 * classifier). The input outlives the run, so nothing can overwrite it first. */
void gx_transposed_views(opgen_program *p) {
    const opgen_graph *g = p->g;
    for (int n = 0; n < p->nsteps; n++) {
        gstep *s = &p->steps[n];
        const opgen_gnode *nd = s->node;
        s->view_of = -1;
        if (s->dynamic || s->nresults != 1 || !opgen_kernel_of(s, "aten::permute_copy.out") || nd->nargs < 2 ||
            nd->args[0].kind != OPGEN_GA_VALUE)
            continue;
        int in = (int)nd->args[0].i, r = s->results[0];
        const opgen_tensor *x = &p->values[in].t;
        opgen_int_list dims = s->s.args[1].v.il;
        bool ok = p->values[in].kind == OPGEN_GV_TENSOR && x->dim == 2 && dims.len == 2 &&
                  (dims.data[0] == 1 || dims.data[0] == -1) && !gx_among(g->outputs, g->noutputs, r);
        for (int m = n + 1; ok && m < p->nsteps; m++) /* every reader a matrix product */
            for (int k = 0; k < p->steps[m].node->nargs; k++) {
                const opgen_garg *arg = &p->steps[m].node->args[k];
                bool reads = arg->kind == OPGEN_GA_VALUE && arg->i == r;
                for (int i = 0; arg->kind == OPGEN_GA_LIST && i < arg->nitems; i++)
                    reads |= arg->items[i].kind == OPGEN_GA_VALUE && arg->items[i].i == r;
                if (reads && !opgen_kernel_of(&p->steps[m], "aten::mm.out") &&
                    !opgen_kernel_of(&p->steps[m], "aten::addmm.out"))
                    ok = false;
            }
        if (ok && gx_among(g->inputs, g->ninputs, in)) s->view_of = in;
    }
}

/* A copy whose result has its input's bytes (a contiguous input, the same dtype
 * and element count, a contiguous result: view_copy, squeeze and unsqueeze, clone,
 * alias_copy, expand_copy to the same sizes) is run as a view: its result points
 * at the input's bytes. Programs are functional (no step writes a value another
 * step made), so the bytes stay as they were until the last reader of the view,
 * to which the plan keeps its root alive (graph_exec.c: plan). A view of a program input has
 * memory planned too: the caller's tensor may be strided, and is then copied.
 * Not for a returned result (the caller's outputs stay apart from each other and
 * from its inputs) nor in a dynamic program (planned as it runs). A llama decode
 * step's reshapes of its caches cost a copy each otherwise. */
static const char *const same_bytes_ops[] = {"aten::view_copy.out",
                                             "aten::squeeze_copy.out",
                                             "aten::squeeze_copy.dim_out",
                                             "aten::squeeze_copy.dims_out",
                                             "aten::unsqueeze_copy.out",
                                             "aten::alias_copy.out",
                                             "aten::clone.out",
                                             "aten::expand_copy.out",
                                             "dim_order_ops::_clone_dim_order.out"};
void gx_same_bytes_views(opgen_program *p) {
    const opgen_graph *g = p->g;
    for (int n = 0; n < p->nsteps && !p->dynamic; n++) {
        gstep *s = &p->steps[n];
        const opgen_gnode *nd = s->node;
        if (s->view_of >= 0 || s->fused || s->nresults != 1 || nd->nargs < 1 || nd->args[0].kind != OPGEN_GA_VALUE)
            continue;
        bool listed = false;
        for (size_t i = 0; i < sizeof same_bytes_ops / sizeof *same_bytes_ops; i++)
            listed |= opgen_kernel_of(s, same_bytes_ops[i]);
        int in = (int)nd->args[0].i, r = s->results[0];
        const opgen_tensor *x = &p->values[in].t, *y = &p->values[r].t;
        bool ok = listed && p->values[in].kind == OPGEN_GV_TENSOR && p->values[r].kind == OPGEN_GV_TENSOR &&
                  x->dtype == y->dtype && opgen_numel(x) == opgen_numel(y) && opgen_tensor_is_contiguous(x) &&
                  opgen_tensor_is_contiguous(y) && !gx_among(g->outputs, g->noutputs, r);
        for (int m = 0; ok && m < n; m++) /* not a transposed view's bytes (strided) */
            ok = !(p->steps[m].view_of >= 0 && !p->steps[m].reshaped && p->steps[m].nresults == 1 &&
                   p->steps[m].results[0] == in);
        if (ok) s->view_of = in, s->reshaped = true, s->own_bytes = gx_among(g->inputs, g->ninputs, in);
    }
}

/* The view a transposing step stands for (gx_transposed_views). */
void gx_transposed_view(opgen_tensor *t, const opgen_tensor *x) {
    *t = *x;
    t->sizes[0] = x->sizes[1], t->sizes[1] = x->sizes[0];
    t->strides[0] = x->strides[1], t->strides[1] = x->strides[0];
    t->dim_order[0] = x->dim_order[1], t->dim_order[1] = x->dim_order[0];
}
