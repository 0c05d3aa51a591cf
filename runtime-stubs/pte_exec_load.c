/* The .pte executor, stage 3: loads a method (opgen_method_load): its arrays
 * from the caller's arena, values, instructions, delegates, then the kernels'
 * meta checks and the load-time rewrites (pte_exec_rewrite.c). */
#include "pte_exec.h"
#include <string.h>

/* MoveCall destinations first: scalars among them are read at each call. */
static opgen_status scan_moves(mloader *L) {
    opgen_method *m = L->m;
    for (uint32_t ch = 0; ch < L->pl->chains.len; ch++) {
        opgen_pte_vec instrs;
        if (opgen_pte_chain_at(L->p, L->pl, ch, &instrs, L->err)) return L->err->code;
        for (uint32_t k = 0; k < instrs.len; k++) {
            opgen_pte_instr in;
            if (opgen_pte_instr_at(L->p, &instrs, k, &in, L->err)) return L->err->code;
            if (in.kind != OPGEN_INSTR_MOVE || in.b < 0 || in.b >= m->nvalues) continue;
            m->flags[in.b] |= V_MUTABLE;
            m->moved[m->nmoved++] = in.b;
        }
    }
    return OPGEN_OK;
}

/* et_view's sizes: the Int values its list names (a prim may compute them at run). */
static opgen_status view_sizes(mloader *L, int32_t vi, opgen_ivalue ***dargs) {
    opgen_pte_value pv;
    if (opgen_pte_value_at(L->p, L->pl, (uint32_t)vi, &pv, L->err)) return L->err->code;
    if (pv.kind != OPGEN_EV_INT_LIST)
        return lfail(L, OPGEN_E_INVALID, "its sizes are value %d, a %s, not an int list", (int)vi,
                     opgen_ev_kind_name(pv.kind));
    for (uint32_t k = 0; k < pv.items.len; k++) {
        int64_t e = opgen_pte_i64(L->p, pv.items, k);
        if (!pte_int_element(L, e))
            return lfail(L, OPGEN_E_FORMAT, "size %u of the view is value %lld, not an Int", (unsigned)k, (long long)e);
        *(*dargs)++ = &L->m->values[e];
    }
    return OPGEN_OK;
}

/* A prim op's call: its values in order (et_view's size list as its elements),
 * checked for kind, its result marked as written at run; then run once, so the
 * kernels after it are bound and sized with the values it gives at the bound. */
static opgen_status load_prim(mloader *L, instr *ins, const opgen_pte_instr *in, opgen_ivalue ***dargs) {
    opgen_method *m = L->m;
    const opgen_prim_op *pr = ins->prim;
    ins->op = pr->name;
    if ((int)in->args.len != pr->nargs)
        return lfail(L, OPGEN_E_FORMAT, "%u arguments; %s takes %d", (unsigned)in->args.len, pr->name, pr->nargs);
    ins->dargs = *dargs;
    for (uint32_t x = 0; x < in->args.len; x++) {
        int32_t vi = opgen_pte_i32(L->p, in->args, x);
        if (vi < 0 || vi >= m->nvalues)
            return lfail(L, OPGEN_E_FORMAT, "argument %u is value %d, out of range (%d values)", (unsigned)x, (int)vi,
                         m->nvalues);
        bool tensor =
            (x == 0 && pr->flags & (OPGEN_PRIM_SIZE | OPGEN_PRIM_VIEW)) || (x == 2 && pr->flags & OPGEN_PRIM_VIEW);
        if (tensor != (m->evkind[vi] == OPGEN_EV_TENSOR))
            return lfail(L, OPGEN_E_INVALID, "argument %u is value %d, a%s %s", (unsigned)x, (int)vi,
                         tensor ? " non-tensor" : "", opgen_ev_kind_name(m->evkind[vi]));
        if (x == 1 && pr->flags & OPGEN_PRIM_VIEW) continue; /* the sizes, after the result */
        *(*dargs)++ = &m->values[vi];
    }
    int32_t out = opgen_pte_i32(L->p, in->args, in->args.len - 1);
    m->flags[out] |= V_MUTABLE; /* kernels reading it take its value at each call */
    if (pr->flags & OPGEN_PRIM_VIEW) {
        m->flags[out] |= V_INPUT; /* its bytes are given at run: self's */
        if (view_sizes(L, opgen_pte_i32(L->p, in->args, 1), dargs)) return L->err->code;
    }
    ins->ndargs = (int)(*dargs - ins->dargs);
    opgen_error e = {0};
    if (pr->fn(pr->name, ins->dargs, ins->ndargs, &e)) return lfail(L, e.code, "%s", e.msg);
    return OPGEN_OK;
}

static opgen_status load_instructions(mloader *L, opgen_step *steps, opgen_ivalue **dargs) {
    opgen_method *m = L->m;
    int nk = 0;
    for (uint32_t ch = 0; ch < L->pl->chains.len; ch++) {
        opgen_pte_vec instrs;
        if (opgen_pte_chain_at(L->p, L->pl, ch, &instrs, L->err)) return L->err->code;
        int base = m->ncode;
        for (uint32_t k = 0; k < instrs.len; k++) {
            opgen_pte_instr in;
            instr *ins = &m->code[m->ncode];
            L->at = NULL;
            if (opgen_pte_instr_at(L->p, &instrs, k, &in, L->err)) return L->err->code;
            *ins = (instr){(uint8_t)in.kind, in.a, in.b, NULL, NULL, NULL, 0, NULL, (int)ch, m->ncode, false};
            m->ncode++;
            L->at = ins;
            if (in.kind == OPGEN_INSTR_KERNEL && (ins->prim = pte_call_prim(L->p, L->pl, &in)) != NULL) {
                if (load_prim(L, ins, &in, &dargs)) return L->err->code;
                continue;
            }
            if (in.kind == OPGEN_INSTR_KERNEL) {
                ins->step = &steps[nk++];
                int kid; /* a build of no op refuses every call here: the binding code links out */
                if (!HAS_OPS) return pte_kernel_op(L->p, L->pl, ins, in.a, &kid, &ins->op, L->err);
                if (pte_load_kernel_call(L, ins, &in)) return L->err->code;
                continue;
            }
            if (pte_load_control(L, ins, &in, (int)instrs.len, base)) return L->err->code;
            if (in.kind != OPGEN_INSTR_DELEGATE) continue;
            ins->dargs = dargs;
            ins->ndargs = (int)in.args.len;
            for (uint32_t x = 0; x < in.args.len; x++) {
                int32_t vi = opgen_pte_i32(L->p, in.args, x);
                if (vi < 0 || vi >= m->nvalues)
                    return lfail(L, OPGEN_E_FORMAT, "argument %u is value %d, out of range (%d values)", (unsigned)x,
                                 (int)vi, m->nvalues);
                *dargs++ = &m->values[vi];
            }
        }
        m->chain_end[ch] = m->ncode;
    }
    L->at = NULL;
    return OPGEN_OK;
}

/* Every delegate needs a handler registered for its backend id. */
static opgen_status load_delegates(mloader *L) {
    opgen_method *m = L->m;
    for (int d = 0; d < m->ndelegates; d++) {
        opgen_pte_delegate pd;
        if (opgen_pte_delegate_at(L->p, L->pl, (uint32_t)d, &pd, L->err)) return L->err->code;
        const opgen_delegate_handler *h = NULL;
        for (int k = 0; k < L->opt->ndelegates && !h; k++)
            if (L->opt->delegates[k].id && !strcmp(L->opt->delegates[k].id, pd.id)) h = &L->opt->delegates[k];
        if (!h)
            return lfail(
                L, OPGEN_E_NOT_IMPLEMENTED,
                "delegate %d runs on backend '%s', and no handler for it is registered (opgen_method_options.delegates)",
                d, pd.id);
        m->handlers[d] = h;
        m->handles[d] = NULL;
        opgen_error derr = {0};
        if (h->init && h->init(h->user, L->p, &pd, &m->handles[d], &derr))
            return lfail(L, derr.code ? derr.code : OPGEN_E_INVALID, "delegate %d (backend '%s'): %s", d, pd.id,
                         derr.msg);
    }
    return OPGEN_OK;
}

/* Each kernel's meta step, in order: dtypes, shapes against the planned outs,
 * Edge rows, the kernel for the dtype; the scratch a run needs. */
static opgen_status check_kernels(mloader *L, opgen_arena *a, bool fuse) {
    opgen_method *m = L->m;
    size_t most = 0;
    for (int k = 0; k < m->ncode; k++) {
        instr *ins = &m->code[k];
        if (!HAS_OPS || ins->kind != OPGEN_INSTR_KERNEL || ins->prim || ins->folded) continue;
        L->at = ins;
        opgen_error e = {0};
        if (opgen_step_prepare(ins->step, m->values, a, &e)) return lfail(L, e.code, "%s", e.msg);
    }
    L->at = NULL;
    if (HAS_OPS) pte_rewrite(L, fuse);
    for (int k = 0; k < m->ncode; k++)
        if (m->code[k].step && m->code[k].step->scratch > most) most = m->code[k].step->scratch;
    m->work = opgen_arena_cost(most) + 64;
    for (int i = 0; i < m->ninputs; i++) { /* inputs with nowhere planned, given in another layout */
        const opgen_ivalue *iv = &m->values[m->inputs[i]];
        if (iv->kind == OPGEN_GV_TENSOR && !iv->t.data) m->work += opgen_arena_cost(opgen_nbytes(&iv->t));
    }
    return OPGEN_OK;
}

/* ---- load ---- */

/* The method's arrays, from one sequence of arena allocations (METHOD_ARRAYS). */
static opgen_status take_arrays(opgen_method **out, const counts *c, opgen_arena *a, mloader *L, opgen_step **steps,
                                opgen_ivalue ***dargs, opgen_error *err) {
    void *blk[28];
    int nb = 0;
    bool ok = true;
#define TAKE(bytes)                                   \
    if (ok) {                                         \
        size_t n_ = (bytes);                          \
        blk[nb] = opgen_arena_zalloc(a, n_ ? n_ : 1); \
        ok = blk[nb++] != NULL;                       \
    }
    METHOD_ARRAYS(TAKE, c)
#undef TAKE
    if (!ok)
        return opgen_fail(err, OPGEN_E_NO_MEMORY,
                          "out of memory loading the method: it takes %zu bytes (opgen_method_memory_of)",
                          pte_load_bytes(c, L->p, L->pl, L->opt->buffers != NULL));
    opgen_method *m = blk[0];
    m->values = blk[1], m->evkind = blk[2], m->flags = blk[3], m->code = blk[4], m->chain_end = blk[5];
    m->inputs = blk[6], m->outputs = blk[7], m->moved = blk[8], m->moved_init = blk[9], m->buffers = blk[10];
    m->handles = blk[11], m->handlers = blk[12];
    *steps = blk[13];
    L->args = blk[14], L->patches = blk[15], L->res = blk[16], L->cands = blk[17], L->lists = blk[18];
    *dargs = blk[19];
    m->bounds = blk[20];
    L->fusions = blk[21];
    L->q8s = blk[22], L->quantizes = c->quantizes;
    L->q8_mem = blk[23], L->q8_cap = (c->quantizes ? c->q8_bytes : 0) + c->prep_bytes;
    m->nvalues = (int)c->nvalues;
    m->nchains = (int)c->nchains;
    m->nbuffers = c->nbuffers;
    m->ndelegates = (int)c->ndelegates;
    *out = m;
    return OPGEN_OK;
}

static opgen_status take_buffers(mloader *L, opgen_arena *a) {
    opgen_method *m = L->m;
    if (L->opt->buffers && L->opt->nbuffers != m->nbuffers)
        return lfail(L, OPGEN_E_INVALID, "%d planned buffers were given, the method plans %d", L->opt->nbuffers,
                     m->nbuffers);
    for (int b = 0; b < m->nbuffers; b++) {
        size_t n = opgen_method_buffer_bytes(L->p, L->pl, b + 1);
        m->buffers[b] = L->opt->buffers ? L->opt->buffers[b] : opgen_arena_zalloc(a, n ? n : 1);
        if (!m->buffers[b])
            return lfail(L, L->opt->buffers ? OPGEN_E_INVALID : OPGEN_E_NO_MEMORY,
                         "no memory for planned buffer %d (%zu bytes)", b + 1, n);
        if ((uintptr_t)m->buffers[b] % 16)
            return lfail(L, OPGEN_E_INVALID, "planned buffer %d is not aligned to 16 bytes", b + 1);
        if (L->opt->buffers) memset(m->buffers[b], 0, n); /* state (mutable buffers) starts at zero, as in ExecuTorch */
    }
    return OPGEN_OK;
}

opgen_status opgen_method_load(const opgen_pte *p, const char *method, const opgen_method_options *opt, opgen_arena *a,
                               opgen_method **out, opgen_error *err) {
    opgen_pte_plan pl;
    counts c;
    if (!opt) opt = &pte_no_options;
    if (opgen_pte_plan_find(p, method, &pl, err) || pte_count_method(p, &pl, opt, &c, err)) return err->code;
    mloader L = {.p = p, .pl = &pl, .opt = opt, .err = err};
    opgen_step *steps = NULL;
    opgen_ivalue **dargs = NULL;
    if (take_arrays(&L.m, &c, a, &L, &steps, &dargs, err) || take_buffers(&L, a)) return err->code;
    opgen_method *m = L.m;
    m->pte = p;
    m->rng = opt && opt->kernels ? opt->kernels->seed : 0;
    m->plan = pl;
    m->plan.name = pl.name;
    L.pl = &m->plan;
    if (pte_load_values(&L) || pte_load_io(&L) || scan_moves(&L) || load_delegates(&L) ||
        load_instructions(&L, steps, dargs))
        return err->code;
    if (HAS_OPS) pte_fold_constant_views(&L);
    if (check_kernels(&L, a, !(opt && opt->kernels && opt->kernels->unfused))) return err->code;
    for (int i = 0; i < m->nmoved; i++) m->moved_init[i] = m->values[m->moved[i]];
    uint64_t budget = 1000 * (uint64_t)(m->ncode + 1);
    m->probe = opt->probe, m->probe_user = opt->probe_user;
    m->max_steps = opt->max_steps ? opt->max_steps : budget > (1u << 20) ? budget : (1u << 20);
    *out = m;
    return OPGEN_OK;
}
