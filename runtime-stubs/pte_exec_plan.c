/* The .pte executor, stage 1: counts what a method holds before any memory is
 * given (opgen_method_memory_of), so load takes arrays of exactly those sizes. */
#include "pte_exec.h"
#include "kernels/conv.h"
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#ifndef OPGEN_NO_ERRMSG
opgen_status pte_vfail(const opgen_pte *p, const opgen_pte_plan *pl, const instr *at, opgen_error *err,
                       opgen_status code, const char *fmt, va_list ap) {
    char where[160];
    if (at && at->op)
        snprintf(where, sizeof where, "method '%s', instruction %d (%s): ", pl->name, at->index, at->op);
    else if (at)
        snprintf(where, sizeof where, "method '%s', instruction %d (%s): ", pl->name, at->index,
                 opgen_instr_kind_name(at->kind));
    else
        snprintf(where, sizeof where, "method '%s': ", pl->name);
    return opgen_failv(err, code, p->file, 0, 0, where, fmt, ap);
}

opgen_status pte_lfail(mloader *L, opgen_status code, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    pte_vfail(L->p, L->pl, L->at, L->err, code, fmt, ap);
    va_end(ap);
    return code;
}
#endif

const opgen_method_options pte_no_options = {NULL, NULL, 0, NULL, 0, 0, NULL, NULL};

size_t opgen_method_buffer_bytes(const opgen_pte *p, const opgen_pte_plan *pl, int id) {
    if (id < 1 || (uint32_t)id >= pl->buffer_sizes.len) return 0;
    int64_t n = opgen_pte_i64(p, pl->buffer_sizes, (uint32_t)id);
    return n > 0 ? (size_t)n : 0;
}

/* ---- resolving an operator ---- */

/* A KernelCall's operator as "ns::name.overload" (256 bytes at full). */
static opgen_status operator_name(const opgen_pte *p, const opgen_pte_plan *pl, const instr *at, int32_t opi,
                                  char *full, opgen_error *err) {
    const char *name, *overload;
    if (opi < 0 || opgen_pte_operator_at(p, pl, (uint32_t)opi, &name, &overload, err)) {
        if (opi < 0)
            opgen_fail_at(err, OPGEN_E_FORMAT, p->file, 0, 0,
                          "method '%s', instruction %d: op_index %d is out of range", pl->name, at->index, (int)opi);
        return OPGEN_E_FORMAT;
    }
    size_t n = strlen(name), o = strlen(overload);
    if (n + o + 2 > 256)
        return opgen_fail_at(err, OPGEN_E_NOT_FOUND, p->file, 0, 0,
                             "method '%s', instruction %d: an operator name of %zu bytes", pl->name, at->index, n + o);
    memcpy(full, name, n);
    full[n] = '.';
    memcpy(full + n + (o ? 1 : 0), overload, o + 1);
    return OPGEN_OK;
}

/* The prim op a KernelCall calls (aten::sym_size.int, executorch_prim::...), or NULL. */
const opgen_prim_op *pte_call_prim(const opgen_pte *p, const opgen_pte_plan *pl, const opgen_pte_instr *in) {
    char full[256];
    opgen_error e = {0};
    instr at = {0};
    return operator_name(p, pl, &at, in->a, full, &e) ? NULL : opgen_prim_find(full);
}

/* The kernel op of a KernelCall: its out= variant, an in-place op with a kernel
 * (aten::copy_, as the exporter writes mutated buffers back), or a scalar prim. */
opgen_status pte_kernel_op(const opgen_pte *p, const opgen_pte_plan *pl, const instr *at, int32_t opi, int *kid,
                           const char **qualified, opgen_error *err) {
    char full[256];
    opgen_status st = operator_name(p, pl, at, opi, full, err);
    if (st) return st;
    int id = HAS_OPS ? opgen_node_op(full) : -1;
    if (id < 0) { /* the code returned as a constant: a build of no op sees every call fail here */
        if (opgen_selective())
            opgen_fail_at(err, OPGEN_E_NOT_FOUND, p->file, 0, 0,
                          "method '%s', instruction %d (%s): %s is left out of this build's selection (%s)", pl->name,
                          at->index, full, full, opgen_selection());
        else
            opgen_fail_at(err, OPGEN_E_NOT_FOUND, p->file, 0, 0, "method '%s', instruction %d: unknown operator %s",
                          pl->name, at->index, full);
        return OPGEN_E_NOT_FOUND;
    }
    bool inplace = opgen_ops[id].kind == OPGEN_KIND_INPLACE && opgen_registry[id].fn;
    if (opgen_ops[id].kind != OPGEN_KIND_OUT && !inplace && !opgen_is_scalar_op(id))
        return opgen_fail_at(err, OPGEN_E_INVALID, p->file, 0, 0,
                             "method '%s', instruction %d: %s is not an out= variant; ExecuTorch programs call those",
                             pl->name, at->index, full);
    *kid = id;
    *qualified = opgen_ops[id].qualified;
    return OPGEN_OK;
}

/* Argument ai of a call: its value, or false. */
static bool arg_value(const opgen_pte *p, const opgen_pte_plan *pl, const opgen_pte_instr *in, uint32_t ai,
                      opgen_pte_value *v) {
    opgen_error e = {0};
    int32_t vi = ai < in->args.len ? opgen_pte_i32(p, in->args, ai) : -1;
    return vi >= 0 && (uint32_t)vi < pl->values.len && !opgen_pte_value_at(p, pl, (uint32_t)vi, v, &e);
}
/* The sizes of tensor argument ai of a call, or false. */
static bool arg_sizes(const opgen_pte *p, const opgen_pte_plan *pl, const opgen_pte_instr *in, uint32_t ai,
                      int64_t sz[4], bool transposed) {
    opgen_pte_value v;
    if (!arg_value(p, pl, in, ai, &v) || v.kind != OPGEN_EV_TENSOR || v.t.sizes.len < 2) return false;
    int64_t n = 1;
    for (uint32_t d = 0; d < v.t.sizes.len; d++) {
        int32_t s = opgen_pte_i32(p, v.t.sizes, d);
        if (s < 0 || s > (1 << 24)) return false;
        n *= s;
    }
    /* O, C, KH, KW (a linear layer's [K, O]: O, K, 1, 1) */
    sz[0] = opgen_pte_i32(p, v.t.sizes, transposed ? 1 : 0), sz[1] = opgen_pte_i32(p, v.t.sizes, transposed ? 0 : 1);
    sz[2] = v.t.sizes.len == 4 ? opgen_pte_i32(p, v.t.sizes, 2) : 1;
    sz[3] = v.t.sizes.len == 4 ? opgen_pte_i32(p, v.t.sizes, 3) : 1;
    return n <= ((int64_t)1 << 32) && (v.t.sizes.len == 4 || v.t.sizes.len == 2);
}

/* What rewrite_q8.c may take for a call: a record, and a convolution's or
 * linear layer's packed filter (at most its weight's size, padded). */
static void count_q8(const opgen_pte *p, const opgen_pte_plan *pl, const opgen_pte_instr *in, const char *q,
                     counts *c) {
    int64_t sz[4];
    c->quantizes |= !strcmp(q, "quantized_decomposed::quantize_per_tensor.out");
    if (!strcmp(q, "aten::convolution.out") && arg_sizes(p, pl, in, 1, sz, false))
        c->q8_bytes += opgen_q8_filter_bytes(sz[0], sz[1], sz[2], sz[3], false);
    if (!strcmp(q, "aten::addmm.out") && arg_sizes(p, pl, in, 2, sz, true))
        c->q8_bytes += opgen_q8_filter_bytes(sz[0], sz[1], 1, 1, false);
    /* a private copy of a dequantized int8 input whose planned bytes are reused
     * before the chain that reads it runs */
    if (!strcmp(q, "quantized_decomposed::dequantize_per_tensor.out") && arg_sizes(p, pl, in, 0, sz, false))
        c->q8_bytes += (size_t)(sz[0] * sz[1] * sz[2] * sz[3]) + sizeof(opgen_tensor) + 128;
    if (!strcmp(q, "aten::relu.out") || !strcmp(q, "aten::hardtanh.out")) c->q8_bytes += 256 + 64; /* a table */
}

/* Int list argument ai's two values (one: both), or false. */
static bool arg_pair(const opgen_pte *p, const opgen_pte_plan *pl, const opgen_pte_instr *in, uint32_t ai,
                     int64_t pair[2]) {
    opgen_pte_value v, e;
    if (!arg_value(p, pl, in, ai, &v) || v.kind != OPGEN_EV_INT_LIST || (v.items.len != 1 && v.items.len != 2))
        return false;
    for (uint32_t k = 0; k < 2; k++) {
        int64_t ei = opgen_pte_i64(p, v.items, k < v.items.len ? k : 0);
        opgen_error err = {0};
        if (ei < 0 || (uint64_t)ei >= pl->values.len || opgen_pte_value_at(p, pl, (uint32_t)ei, &e, &err) ||
            e.kind != OPGEN_EV_INT)
            return false;
        pair[k] = e.i;
    }
    return true;
}

/* What a convolution's filter takes transformed at load (rewrite.c's
 * opgen_rewrite_prepare_filter): a constant float weight, of a geometry whose
 * path reads one (convolution.out: input, weight, bias, stride, padding,
 * dilation, transposed, output_padding, groups, out). */
static void count_prepared(const opgen_pte *p, const opgen_pte_plan *pl, const opgen_pte_instr *in, counts *c) {
    opgen_pte_value w, tr, gr;
    int64_t sz[4], st[2], pd[2], dl[2];
    if (!arg_value(p, pl, in, 1, &w) || w.kind != OPGEN_EV_TENSOR || w.t.planned || !w.t.data_buffer_idx ||
        !arg_sizes(p, pl, in, 1, sz, false) || !arg_pair(p, pl, in, 3, st) || !arg_pair(p, pl, in, 4, pd) ||
        !arg_pair(p, pl, in, 5, dl) || !arg_value(p, pl, in, 6, &tr) || tr.kind != OPGEN_EV_BOOL || tr.b ||
        !arg_value(p, pl, in, 8, &gr) || gr.kind != OPGEN_EV_INT)
        return;
    size_t n = opgen_conv_prepared_bytes(w.t.scalar_type, sz[0], sz[1], sz[2], sz[3], st, pd, dl, gr.i);
    c->prep_bytes += n ? (n + 63) & ~(size_t)63 : 0;
}

/* A kernel call's arguments, results and kernels, counted. */
static opgen_status count_kernel_call(const opgen_pte *p, const opgen_pte_plan *pl, const opgen_pte_instr *in,
                                      const instr *at, const opgen_method_options *opt, counts *c, opgen_error *err) {
    int kid = 0; /* set by kernel_op (a compiler may not see it never fails with 0) */
    const char *q = "";
    if (pte_kernel_op(p, pl, at, in->a, &kid, &q, err)) return err->code;
    if (!HAS_OPS) return OPGEN_E_NOT_FOUND; /* refused above: what follows links out */
    const opgen_op *kop = &opgen_ops[kid];
    c->nkernels++;
    c->nconvs += !strcmp(q, "aten::convolution.out"); /* each may fuse what follows it (opgen_fusion) */
    if (OPGEN_Q8) count_q8(p, pl, in, q, c);
    if (OPGEN_SPEED_PATHS && !strcmp(q, "aten::convolution.out")) count_prepared(p, pl, in, c);
    c->nargs += (size_t)kop->nargs + (opgen_is_scalar_op(kid) ? kop->nrets : 0) + 1;
    c->npatches += (size_t)kop->nargs + 1;
    c->ncands += (size_t)opgen_step_ncandidates(kid, opt->kernels);
    for (int ai = 0; ai < kop->nargs && (uint32_t)ai < in->args.len; ai++) {
        const opgen_arg *ka = &opgen_args[kop->first_arg + (unsigned)ai];
        c->nres += (ka->flags & OPGEN_ARG_OUT) != 0; /* a list out: its items, below */
        if (ka->abi != OPGEN_ABI_INT_LIST && ka->abi != OPGEN_ABI_OPT_INT_LIST && ka->abi != OPGEN_ABI_FLOAT_LIST &&
            ka->abi != OPGEN_ABI_OPT_FLOAT_LIST && ka->abi != OPGEN_ABI_BOOL_LIST && ka->abi != OPGEN_ABI_TENSOR_LIST)
            continue; /* only lists take memory of their own */
        int32_t vi = opgen_pte_i32(p, in->args, (uint32_t)ai);
        opgen_pte_value v;
        if (vi < 0 || (uint32_t)vi >= pl->values.len || opgen_pte_value_at(p, pl, (uint32_t)vi, &v, err))
            continue; /* reported when bound */
        if (v.kind == OPGEN_EV_INT_LIST)
            c->list_bytes += list_piece(8 * (size_t)v.items.len), c->npatches += v.items.len;
        if (v.kind == OPGEN_EV_DOUBLE_LIST) c->list_bytes += list_piece(8 * (size_t)v.items.len);
        if (v.kind == OPGEN_EV_BOOL_LIST) c->list_bytes += list_piece(v.items.len);
        if (v.kind == OPGEN_EV_TENSOR_LIST || v.kind == OPGEN_EV_OPT_TENSOR_LIST)
            c->list_bytes += list_piece(sizeof(void *) * (size_t)v.items.len);
        if ((v.kind == OPGEN_EV_TENSOR_LIST || v.kind == OPGEN_EV_OPT_TENSOR_LIST) && ka->flags & OPGEN_ARG_OUT)
            c->nres += v.items.len;
    }
    return OPGEN_OK;
}

/* The elements of a prim call's int list arguments (et_view's sizes). */
static size_t count_list_items(const opgen_pte *p, const opgen_pte_plan *pl, const opgen_pte_instr *in) {
    size_t n = 0;
    for (uint32_t k = 0; k < in->args.len; k++) {
        opgen_pte_value v;
        opgen_error e = {0};
        int32_t vi = opgen_pte_i32(p, in->args, k);
        if (vi >= 0 && (uint32_t)vi < pl->values.len && !opgen_pte_value_at(p, pl, (uint32_t)vi, &v, &e) &&
            v.kind == OPGEN_EV_INT_LIST)
            n += v.items.len;
    }
    return n;
}

opgen_status pte_count_method(const opgen_pte *p, const opgen_pte_plan *pl, const opgen_method_options *opt, counts *c,
                              opgen_error *err) {
    memset(c, 0, sizeof *c);
    c->nvalues = pl->values.len;
    c->nchains = pl->chains.len;
    c->ndelegates = pl->delegates.len;
    c->ninputs = pl->inputs.len;
    c->noutputs = pl->outputs.len;
    c->nbuffers = pl->buffer_sizes.len > 1 ? (int)pl->buffer_sizes.len - 1 : 0; /* entry 0 is reserved */
    for (int b = 1; b <= c->nbuffers; b++) {
        int64_t n = opgen_pte_i64(p, pl->buffer_sizes, (uint32_t)b);
        if (n < 0 || (uint64_t)n > SIZE_MAX / 4)
            return opgen_fail_at(err, OPGEN_E_FORMAT, p->file, 0, 0, "method '%s': planned buffer %d has size %lld",
                                 pl->name, b, (long long)n);
        c->planned += (size_t)n;
    }
    for (uint32_t ch = 0; ch < pl->chains.len; ch++) {
        opgen_pte_vec instrs;
        if (opgen_pte_chain_at(p, pl, ch, &instrs, err)) return err->code;
        for (uint32_t k = 0; k < instrs.len; k++) {
            opgen_pte_instr in;
            instr at = {0};
            at.index = (int)(c->ninstr);
            if (opgen_pte_instr_at(p, &instrs, k, &in, err)) return err->code;
            at.kind = (uint8_t)in.kind;
            c->ninstr++;
            if (in.kind == OPGEN_INSTR_MOVE) c->nmoves++;
            if (in.kind == OPGEN_INSTR_DELEGATE) c->ndargs += in.args.len;
            if (in.kind == OPGEN_INSTR_KERNEL && pte_call_prim(p, pl, &in)) {
                c->ndargs += in.args.len + count_list_items(p, pl, &in);
                continue;
            }
            if (in.kind == OPGEN_INSTR_KERNEL && count_kernel_call(p, pl, &in, &at, opt, c, err)) return err->code;
        }
    }
    return OPGEN_OK;
}

size_t pte_load_bytes(const counts *c, const opgen_pte *p, const opgen_pte_plan *pl, bool buffers_given) {
    size_t n = 0;
#define ADD_COST(bytes) n += opgen_arena_cost(bytes);
    METHOD_ARRAYS(ADD_COST, c)
#undef ADD_COST
    for (int b = 1; !buffers_given && b <= c->nbuffers; b++) n += opgen_arena_cost(opgen_method_buffer_bytes(p, pl, b));
    return n;
}

opgen_status opgen_method_memory_of(const opgen_pte *p, const char *method, const opgen_method_options *opt,
                                    opgen_method_memory *mem, opgen_error *err) {
    opgen_pte_plan pl;
    counts c;
    if (!opt) opt = &pte_no_options;
    memset(mem, 0, sizeof *mem);
    if (opgen_pte_plan_find(p, method, &pl, err) || pte_count_method(p, &pl, opt, &c, err)) return err->code;
    mem->load_bytes = pte_load_bytes(&c, p, &pl, opt->buffers != NULL);
    mem->planned_bytes = c.planned;
    mem->nbuffers = c.nbuffers;
    return OPGEN_OK;
}
