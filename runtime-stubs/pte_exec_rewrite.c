/* The .pte executor's load-time rewrites of a loaded method: constant views
 * folded, KV cache updates in place, identity copies elided, convolution
 * chains fused (rewrite.c), unread results marked. Each keeps the bytes a run
 * computes; each is off where its conditions cannot be proven at load. */
#include "pte_exec.h"
#include "rewrite.h"
#include <string.h>

/* Whether a step other than `self` writes tensor t. */
static bool written_elsewhere(const opgen_method *m, const instr *self, const opgen_tensor *t) {
    for (int k = 0; k < m->ncode; k++) {
        const opgen_step *s = m->code[k].step;
        for (int r = 0; s && &m->code[k] != self && r < s->nres; r++)
            if (s->res[r] == t) return true;
    }
    return false;
}

/* permute_copy of a constant (the exporter transposes every nn.Linear weight so,
 * at every call) becomes, at load, a view of the constant: its sizes and strides
 * permuted, no bytes copied, its kernel not run. Only where nothing else writes
 * the permuted value and the caller never receives it. */
void pte_fold_constant_views(mloader *L) {
    opgen_method *m = L->m;
    for (int k = 0; k < m->ncode; k++) {
        instr *ins = &m->code[k];
        opgen_step *s = ins->step;
        if (!s || s->npatches || strcmp(opgen_ops[s->kernel_op].qualified, "aten::permute_copy.out") || s->nres != 1)
            continue;
        const opgen_tensor *src = s->args[0].v.t;
        opgen_tensor *out = s->res[0];
        opgen_int_list dims = s->args[1].v.il;
        int32_t si = pte_value_of(L, src), oi = pte_value_of(L, out);
        bool output = false;
        for (int i = 0; i < m->noutputs; i++) output = output || m->outputs[i] == oi;
        if (!(m->flags[si] & V_CONSTANT) || output || dims.len != (size_t)src->dim || out->dtype != src->dtype ||
            written_elsewhere(m, ins, out))
            continue;
        opgen_tensor v = *src;
        bool ok = true, seen[OPGEN_MAX_DIM] = {0};
        for (int32_t d = 0; d < src->dim && ok; d++) {
            int64_t from = dims.data[d] < 0 ? dims.data[d] + src->dim : dims.data[d];
            ok = from >= 0 && from < src->dim && !seen[from];
            if (ok) seen[from] = true, v.sizes[d] = src->sizes[from], v.strides[d] = src->strides[from];
        }
        for (int32_t i = 0; ok && i < src->dim; i++) { /* the dim order its strides give: largest first */
            int32_t pick = 0;
            for (int32_t d = 0; d < src->dim; d++)
                if (seen[d] && (!seen[pick] || v.strides[d] > v.strides[pick])) pick = d;
            v.dim_order[i] = (uint8_t)pick, seen[pick] = false;
        }
        if (!ok) continue; /* the kernel reports a bad dims list at run */
        *out = v;
        m->flags[oi] |= V_CONSTANT;
        ins->folded = FOLDED_VIEW;
    }
}

/* The value whose tensor t is, or -1 (a tensor of the load's own: a view, a
 * list's element copied elsewhere). */
static int value_index(const opgen_method *m, const opgen_tensor *t) {
    uintptr_t at = (uintptr_t)t, lo = (uintptr_t)&m->values[0].t,
              hi = (uintptr_t)&m->values[m->nvalues ? m->nvalues - 1 : 0].t;
    if (!m->nvalues || at < lo || at > hi || (at - lo) % sizeof(opgen_ivalue)) return -1;
    return (int)((at - lo) / sizeof(opgen_ivalue));
}

/* How many times instructions from..to-1 read value v: kernels (tensors and
 * tensor lists), prim ops and delegates, moves and jumps. */
static int reads_in(const opgen_method *m, int v, int from, int to) {
    int uses = 0;
    for (int k = from; k < to; k++) {
        const instr *ins = &m->code[k];
        for (int i = 0; i < ins->ndargs; i++) uses += ins->dargs[i] == &m->values[v];
        if (ins->kind == OPGEN_INSTR_MOVE || ins->kind == OPGEN_INSTR_JUMP_FALSE) uses += ins->a == v;
        const opgen_step *s = ins->step;
        for (int ai = 0; s && !ins->prim && ai < s->nargs; ai++) {
            const opgen_arg *ka = &opgen_args[opgen_ops[s->kernel_op].first_arg + (unsigned)ai];
            if (ka->flags & OPGEN_ARG_OUT || s->args[ai].none) continue;
            if (ka->abi == OPGEN_ABI_TENSOR || ka->abi == OPGEN_ABI_OPT_TENSOR)
                uses += s->args[ai].v.t == &m->values[v].t;
            for (size_t e = 0; ka->abi == OPGEN_ABI_TENSOR_LIST && e < s->args[ai].v.tl.len; e++)
                uses += s->args[ai].v.tl.data[e] == &m->values[v].t;
        }
    }
    return uses;
}
/* How many times value v is read: by the instructions, and (twice) by the caller. */
static int value_reads(const opgen_method *m, int v) {
    int uses = reads_in(m, v, 0, m->ncode);
    for (int i = 0; i < m->noutputs; i++) uses += 2 * (m->outputs[i] == v);
    return uses;
}

/* Whether the run may reach instruction k other than from the one before it. */
static bool jump_target(const opgen_method *m, int k) {
    for (int j = 0; j < m->ncode; j++)
        if (m->code[j].kind == OPGEN_INSTR_JUMP_FALSE && m->code[j].b == k) return true;
    for (int c = 0; c < m->nchains; c++)
        if (m->chain_end[c] == k) return true; /* the first of a chain */
    return false;
}
/* A kernel instruction the run reaches only from the one before it. */
static bool plain_kernel(const opgen_method *m, int k) {
    const instr *ins = &m->code[k];
    return ins->kind == OPGEN_INSTR_KERNEL && !ins->prim && !ins->folded && ins->step && !jump_target(m, k);
}

/* Whether fn(ctx, x) holds for a tensor x kernel step s reads: a tensor
 * argument or a list's item (its outs are its results, s->res). */
static bool any_read(const opgen_step *s, bool (*fn)(const void *ctx, const opgen_tensor *x), const void *ctx) {
    for (int ai = 0; ai < s->nargs; ai++) {
        const opgen_arg *ka = &opgen_args[opgen_ops[s->kernel_op].first_arg + (unsigned)ai];
        if (s->args[ai].none || ka->flags & OPGEN_ARG_OUT) continue;
        if ((ka->abi == OPGEN_ABI_TENSOR || ka->abi == OPGEN_ABI_OPT_TENSOR) && fn(ctx, s->args[ai].v.t)) return true;
        for (size_t e = 0; ka->abi == OPGEN_ABI_TENSOR_LIST && e < s->args[ai].v.tl.len; e++)
            if (s->args[ai].v.tl.data[e] && fn(ctx, s->args[ai].v.tl.data[e])) return true;
    }
    return false;
}
static bool overlaps(const void *t, const opgen_tensor *x) { return opgen_tensors_overlap(x, t); }
/* Whether instruction k reads or writes any of t's bytes. */
static bool touches(const opgen_method *m, int k, const opgen_tensor *t) {
    const instr *ins = &m->code[k];
    for (int i = 0; i < ins->ndargs; i++)
        if (ins->dargs[i]->kind == OPGEN_GV_TENSOR && opgen_tensors_overlap(&ins->dargs[i]->t, t)) return true;
    const opgen_step *s = ins->prim ? NULL : ins->step;
    for (int r = 0; s && r < s->nres; r++)
        if (opgen_tensors_overlap(s->res[r], t)) return true;
    return s && any_read(s, overlaps, t);
}
static bool is_op(const instr *ins, const char *qualified) {
    return ins->kind == OPGEN_INSTR_KERNEL && !ins->prim && !ins->folded && ins->step && !ins->step->npatches &&
           !strcmp(opgen_ops[ins->step->kernel_op].qualified, qualified);
}

static bool other_overlap(const void *t, const opgen_tensor *x) { return x != t && opgen_tensors_overlap(x, t); }
static bool returned(const opgen_method *m, int v) {
    for (int o = 0; o < m->noutputs; o++)
        if (m->outputs[o] == v) return true;
    return false;
}

/* Whether index_put at i -> temporary t, copy_(cache, t) at j can update the
 * cache in place (reinplace_cache_updates). */
static bool reinplaceable(const opgen_method *m, int i, int j, const opgen_tensor *cache, const opgen_tensor *t) {
    const opgen_step *put = m->code[i].step;
    int ti = value_index(m, t), ci = value_index(m, cache);
    if (ti < 0 || ci < 0 || put->relayout || strcmp(put->origin, "opgen") || m->code[i].chain != m->code[j].chain)
        return false;
    if ((m->flags[ti] | m->flags[ci]) & (V_MUTABLE | V_CONSTANT | V_INPUT | V_DYNAMIC) || !cache->data || !t->data)
        return false;
    if (t->dtype != cache->dtype || t->dim != cache->dim ||
        memcmp(t->sizes, cache->sizes, sizeof(int64_t) * (size_t)t->dim) || !opgen_tensor_is_contiguous(cache) ||
        !opgen_tensor_is_contiguous(t))
        return false;
    if (any_read(put, other_overlap, cache)) return false; /* indices and values apart from the cache */
    for (int k = i + 1; k < j; k++)                        /* straight-line code that leaves the cache alone */
        if (m->code[k].kind != OPGEN_INSTR_KERNEL || jump_target(m, k) || touches(m, k, cache)) return false;
    if (jump_target(m, j) || written_elsewhere(m, &m->code[i], t) || returned(m, ti)) return false;
    return reads_in(m, ti, i + 1, j + 1) == value_reads(m, ti); /* none after the copy back */
}

/* An exported KV cache's update runs in place. The exporter writes
 * index_put.out(cache, [.., input_pos], k) to a temporary, which attention reads,
 * and an aten::copy_ at the method's end writes it back to the cache: at every
 * token, two copies of every layer's whole cache for one position's worth of
 * new bytes. Where nothing in between reads or writes the cache, nothing else
 * writes the temporary and nothing after the copy back reads it, the temporary
 * becomes the cache itself (its readers read the cache, which holds the same
 * values), index_put writes into it (checking every index first) and the copy
 * back is not run. */
static void reinplace_cache_updates(opgen_method *m) {
    for (int j = 0; j < m->ncode; j++) {
        if (!is_op(&m->code[j], "aten::copy_")) continue;
        const opgen_step *cp = m->code[j].step;
        if (cp->args[0].none || cp->args[1].none) continue;
        const opgen_tensor *cache = cp->args[0].v.t, *t = cp->args[1].v.t;
        int i = j - 1;
        while (i >= 0 && !(is_op(&m->code[i], "aten::index_put.out") && m->code[i].step->nres == 1 &&
                           m->code[i].step->res[0] == t && m->code[i].step->args[0].v.t == cache))
            i--;
        if (i < 0 || !reinplaceable(m, i, j, cache, t)) continue;
        m->values[value_index(m, t)].t.data = cache->data; /* a value's own tensor (reinplaceable found its index) */
        m->code[j].folded = FOLDED_IN_PLACE;
    }
}

/* Whether value a is an alias of tensor t: the same bytes, contiguous (a view
 * ExecuTorch's memory plan made by placing a value at its source's offset). */
static bool alias_of(const opgen_method *m, int a, const opgen_tensor *t) {
    const opgen_tensor *x = &m->values[a].t;
    return m->evkind[a] == OPGEN_EV_TENSOR && x->data == t->data && opgen_nbytes(x) == opgen_nbytes(t) &&
           opgen_tensor_is_contiguous(x);
}
/* Whether value a is, from copy instruction c up to instruction w (which
 * writes t's bytes again), a name for c's result t: an alias of t that nothing
 * but c writes, read only between the two (a value placed in the same bytes for
 * another lifetime is not). */
static bool window_alias(const opgen_method *m, int a, int c, int w, const opgen_tensor *t) {
    return alias_of(m, a, t) && !reads_in(m, a, 0, c + 1) && !reads_in(m, a, w, m->ncode) && !returned(m, a) &&
           !written_elsewhere(m, &m->code[c], &m->values[a].t);
}
/* Instruction k's reads of t's bytes (its tensor arguments that overlap them):
 * false if one is not a window_alias of copy c's result t; *any if there is
 * one. An instruction load folded reads nothing. */
typedef struct window {
    const opgen_method *m;
    int c, w;
    const opgen_tensor *t;
    bool *any;
} window;
static bool stray_read(const void *ctx, const opgen_tensor *x) {
    const window *win = ctx;
    if (!opgen_tensors_overlap(x, win->t)) return false;
    int a = value_index(win->m, x);
    *win->any = true;
    return a < 0 || !window_alias(win->m, a, win->c, win->w, win->t);
}
static bool reads_through_aliases(const opgen_method *m, int k, int c, int w, const opgen_tensor *t, bool *any) {
    window win = {m, c, w, t, any};
    *any = false;
    return m->code[k].folded || !any_read(m->code[k].step, stray_read, &win);
}
/* Whether instruction k writes any of t's bytes (a result; one load folded writes nothing). */
static bool writes_bytes(const opgen_method *m, int k, const opgen_tensor *t) {
    const opgen_step *s = m->code[k].step;
    for (int r = 0; !m->code[k].folded && r < s->nres; r++)
        if (opgen_tensors_overlap(s->res[r], t)) return true;
    return false;
}

/* The instruction after copy c that next writes res's bytes (or the end). */
static int next_write(const opgen_method *m, int c, const opgen_tensor *res) {
    int w = c + 1;
    while (w < m->ncode && !writes_bytes(m, w, res)) w++;
    return w;
}
/* Whether copy instruction c (src -> res, the same sizes and strides) can be
 * elided: every read of res's bytes until they are next written (at w) goes
 * through a window_alias, and src's bytes stay as they are until the last of
 * those reads. */
static bool elidable(const opgen_method *m, int c, int w, const opgen_tensor *src, const opgen_tensor *res) {
    int last = c;
    for (int k = c + 1; k <= w && k < m->ncode; k++) { /* w itself may read them before it writes */
        bool any;
        if (!reads_through_aliases(m, k, c, w + 1, res, &any)) return false;
        if (any) last = k;
    }
    for (int k = c + 1; k <= last; k++)
        if (writes_bytes(m, k, src)) return false;
    for (int a = 0; a < m->nvalues; a++) /* the caller reads returned values after the run */
        if (alias_of(m, a, res) && returned(m, a) && !written_elsewhere(m, &m->code[c], &m->values[a].t)) return false;
    return window_alias(m, value_index(m, res), c, w + 1, res); /* res itself among them */
}

/* A copy whose result is its source again (expand_copy to the same sizes,
 * clone or _clone_dim_order to the same layout: ExecuTorch's attention makes
 * two to four of a cache's size per layer and token) is not run where
 * elidable says its readers can read the source: the result and its aliases
 * become views of the source's bytes. Only in straight-line code of kernel
 * calls with no fused chains, and with a source whose bytes are fixed at load. */
static void elide_identity_copies(mloader *L) {
    opgen_method *m = L->m;
    if (L->nfusions || m->nchains != 1) return;
    for (int k = 0; k < m->ncode; k++)
        if (m->code[k].kind != OPGEN_INSTR_KERNEL || m->code[k].prim || !m->code[k].step) return;
    for (int c = 0; c < m->ncode; c++) {
        const instr *ins = &m->code[c];
        if (!(is_op(ins, "aten::expand_copy.out") || is_op(ins, "aten::clone.out") ||
              is_op(ins, "dim_order_ops::_clone_dim_order.out")) ||
            ins->step->nres != 1 || ins->step->args[0].none)
            continue;
        const opgen_tensor *src = ins->step->args[0].v.t, *res = ins->step->res[0];
        int si = value_index(m, src), ri = value_index(m, res);
        if (si < 0 || ri < 0 || !src->data || !res->data ||
            (m->flags[si] | m->flags[ri]) & (V_MUTABLE | V_INPUT | V_DYNAMIC) || m->flags[ri] & V_CONSTANT)
            continue;
        if (src->dtype != res->dtype || src->dim != res->dim ||
            memcmp(src->sizes, res->sizes, sizeof(int64_t) * (size_t)src->dim) ||
            memcmp(src->strides, res->strides, sizeof(int64_t) * (size_t)src->dim) ||
            !opgen_tensor_is_contiguous(res) || opgen_tensors_overlap(src, res))
            continue;
        int w = next_write(m, c, res);
        if (!elidable(m, c, w, src, res)) continue;
        opgen_tensor region = *res; /* res is one of the aliases */
        for (int a = 0; a < m->nvalues; a++)
            if (window_alias(m, a, c, w + 1, &region)) {
                m->values[a].t.data = src->data;
                m->flags[a] |= m->flags[si] & V_CONSTANT; /* a constant's bytes, never written */
            }
        m->code[c].folded = FOLDED_IDENTITY;
    }
}

/* The method as rewrite.c's rewrites see it: its instructions, a kernel one
 * plain where the run reaches it only from the one before. */
static opgen_step *seq_plain(void *ctx, int k) {
    mloader *L = ctx;
    return plain_kernel(L->m, k) ? L->m->code[k].step : NULL;
}
static int seq_reads(void *ctx, const opgen_tensor *t) {
    const opgen_method *m = ((mloader *)ctx)->m;
    int v = value_index(m, t);
    return v < 0 ? -1 : value_reads(m, v);
}
static opgen_fusion *seq_slot(void *ctx) {
    mloader *L = ctx;
    return &L->fusions[L->nfusions];
}

static bool seq_constant(void *ctx, const opgen_tensor *t) {
    const opgen_method *m = ((mloader *)ctx)->m;
    int v = value_index(m, t);
    return v >= 0 && (m->flags[v] & V_CONSTANT);
}
static void seq_drop(void *ctx, int k) { ((mloader *)ctx)->m->code[k].folded = FOLDED_Q8; }
static opgen_q8_step *seq_q8(void *ctx, int k) {
    mloader *L = ctx;
    return L->quantizes ? &L->q8s[k] : NULL;
}
static void *seq_mem(void *ctx, size_t n) {
    mloader *L = ctx;
    n = (n + 63) & ~(size_t)63; /* every piece 64-byte aligned (the plan counts the rounding) */
    if (L->q8_cap - L->q8_used < n) return NULL;
    return L->q8_used += n, L->q8_mem + L->q8_used - n;
}

static bool seq_clobbers(void *ctx, int k, const opgen_tensor *t) {
    const opgen_method *m = ((mloader *)ctx)->m;
    const instr *ins = &m->code[k];
    if (ins->folded) return false;
    if (ins->kind != OPGEN_INSTR_KERNEL || ins->prim || !ins->step) return true;
    /* a quantized chain's step writes the chain's result, not its own */
    return ins->step->q8 ? opgen_tensors_overlap(ins->step->q8->y, t) : writes_bytes(m, k, t);
}

/* Quantized chains computed on int8 by one step each (rewrite_q8.c). */
static void fuse_quantized(mloader *L) {
    opgen_method *m = L->m;
    opgen_step_seq q = {L,        m->ncode, seq_plain, seq_reads,   seq_slot, seq_constant,
                        seq_drop, seq_q8,   seq_mem,   seq_clobbers};
    for (int k = 0; k < m->ncode; k++) {
        int n = opgen_rewrite_q8(&q, k);
        k += n;
    }
}

/* Constant filters transformed once for their kernels (rewrite.c). */
static void prepare_filters(mloader *L) {
    opgen_step_seq q = {L, L->m->ncode, seq_plain, seq_reads, seq_slot, seq_constant, NULL, NULL, seq_mem, NULL};
    for (int k = 0; k < L->m->ncode; k++) opgen_rewrite_prepare_filter(&q, k);
}

/* Convolution chains computed by the convolution's kernel (rewrite.c), the
 * other instructions skipped while it does. */
static void fuse_convolutions(mloader *L) {
    opgen_method *m = L->m;
    opgen_step_seq q = {L, m->ncode, seq_plain, seq_reads, seq_slot, NULL, NULL, NULL, NULL, NULL};
    for (int k = 0; k + 1 < m->ncode; k++) {
        const instr *c = &m->code[k];
        if (c->kind != OPGEN_INSTR_KERNEL || c->prim || !c->step ||
            strcmp(opgen_ops[c->step->kernel_op].qualified, "aten::convolution.out"))
            continue; /* before any scan */
        int n = opgen_rewrite_fuse_chain(&q, k);
        L->nfusions += n > 0;
        k += n;
    }
}

/* Results nothing reads (opgen_ctx.unread), found for the kernels that use it
 * (max_pool2d_with_indices' indices): a value the method neither receives, keeps
 * between calls, returns nor reads again. */
static void mark_unread(opgen_method *m) {
    for (int k = 0; k < m->ncode; k++) {
        opgen_step *s = m->code[k].step;
        if (m->code[k].kind != OPGEN_INSTR_KERNEL || m->code[k].prim || !s ||
            strcmp(opgen_ops[s->kernel_op].qualified, "aten::max_pool2d_with_indices.out"))
            continue;
        for (int r = 0; r < s->nres && r < 32; r++) {
            int v = value_index(m, s->res[r]);
            if (v >= 0 && !(m->flags[v] & (V_MUTABLE | V_CONSTANT | V_INPUT)) && !value_reads(m, v))
                s->unread |= 1u << r;
        }
    }
}

/* The rewrites after every kernel's meta check, in the order they depend on:
 * fusion first (elision skips a method with fused chains), the cache update
 * before the copies it makes identities of. */
void pte_rewrite(mloader *L, bool fuse) {
    /* quantized chains are backend ops: --fallbacks runs their patterns */
    if (fuse && OPGEN_Q8 && L->quantizes && !(L->opt->kernels && L->opt->kernels->fallbacks)) fuse_quantized(L);
    if (OPGEN_SPEED_PATHS && OPGEN_SELECTED(aten_convolution_out)) prepare_filters(L); /* not a fusion: unfused too */
    if (fuse && OPGEN_FUSES) fuse_convolutions(L);
    if (fuse && OPGEN_SELECTED(aten_index_put_out) && OPGEN_SELECTED(aten_copy_)) reinplace_cache_updates(L->m);
    if (fuse && OPGEN_SPEED_PATHS) elide_identity_copies(L);
    if (OPGEN_SELECTED(aten_max_pool2d_with_indices_out)) mark_unread(L->m); /* its only reader */
}
