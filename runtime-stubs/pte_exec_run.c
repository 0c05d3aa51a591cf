/* The .pte executor, stage 4: runs a loaded method (opgen_method_run): inputs
 * checked and placed, instructions executed in order, outputs returned. */
#include "pte_exec.h"
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

size_t opgen_method_work_bytes(const opgen_method *m) { return m->work; }
opgen_status opgen_method_reset(opgen_method *m, opgen_error *err) {
    for (int b = 0; b < m->nbuffers; b++) memset(m->buffers[b], 0, opgen_method_buffer_bytes(m->pte, &m->plan, b + 1));
    for (int i = 0; i < m->nvalues; i++) { /* a mutable buffer's initial data, as load placed it */
        opgen_pte_value v;
        const void *data;
        if (m->evkind[i] != OPGEN_EV_TENSOR) continue;
        if (opgen_pte_value_at(m->pte, &m->plan, (uint32_t)i, &v, err)) return err->code;
        if (!v.t.planned || !v.t.data_buffer_idx) continue;
        if (opgen_pte_mutable_data(m->pte, v.t.data_buffer_idx, opgen_nbytes(&m->values[i].t), &data, err))
            return err->code;
        memcpy(m->values[i].t.data, data, opgen_nbytes(&m->values[i].t));
    }
    return OPGEN_OK;
}

int opgen_method_ninputs(const opgen_method *m) { return m->ninputs; }
int opgen_method_noutputs(const opgen_method *m) { return m->noutputs; }
const opgen_tensor *opgen_method_input_bound(const opgen_method *m, int i) {
    return i >= 0 && i < m->ninputs && m->flags[m->inputs[i]] & V_DYNAMIC ? &m->bounds[i] : NULL;
}
bool opgen_method_input_is_null(const opgen_method *m, int i) {
    return i >= 0 && i < m->ninputs && m->flags[m->inputs[i]] & V_ANY_SCALAR;
}
const opgen_ivalue *opgen_method_input(const opgen_method *m, int i) {
    return i >= 0 && i < m->ninputs ? &m->values[m->inputs[i]] : NULL;
}
const opgen_ivalue *opgen_method_output(const opgen_method *m, int i) {
    return i >= 0 && i < m->noutputs ? &m->values[m->outputs[i]] : NULL;
}

/* ---- run ---- */

#ifdef OPGEN_NO_ERRMSG
#define rfail(m, at, err, code, ...) opgen_fail_quiet((err), (code), (m), (at), __VA_ARGS__)
#else
static opgen_status rfail(const opgen_method *m, const instr *at, opgen_error *err, opgen_status code, const char *fmt,
                          ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;
static opgen_status rfail(const opgen_method *m, const instr *at, opgen_error *err, opgen_status code, const char *fmt,
                          ...) {
    va_list ap;
    va_start(ap, fmt);
    pte_vfail(m->pte, &m->plan, at, err, code, fmt, ap);
    va_end(ap);
    return code;
}
#endif

static const char *kind_text(int kind) {
    return kind == OPGEN_GV_TENSOR  ? "a tensor"
           : kind == OPGEN_GV_INT   ? "an int"
           : kind == OPGEN_GV_FLOAT ? "a float"
           : kind == OPGEN_GV_BOOL  ? "a bool"
                                    : "another kind of value";
}

/* Input i's tensor takes the sizes given: the declared ones, or for a dynamic
 * input any within its bound (its planned bytes hold the bound). */
static opgen_status shape_input(opgen_method *m, int i, const opgen_tensor *in, opgen_error *err) {
    const opgen_tensor *b = &m->bounds[i];
    opgen_tensor *t = &m->values[m->inputs[i]].t;
    bool dynamic = m->flags[m->inputs[i]] & V_DYNAMIC, ok = in->dtype == b->dtype && in->dim == b->dim;
    for (int32_t d = 0; ok && d < b->dim; d++)
        ok = dynamic ? in->sizes[d] >= 0 && in->sizes[d] <= b->sizes[d] : in->sizes[d] == b->sizes[d];
    if (!ok) {
        if (!OPGEN_ERRMSG) return opgen_fail_code(err, OPGEN_E_SHAPE);
        char want[160], got[160];
        opgen_type_format(want, sizeof want, b->dtype, b->dim, b->sizes);
        opgen_type_format(got, sizeof got, in->dtype, in->dim, in->sizes);
        return rfail(m, NULL, err, OPGEN_E_SHAPE,
                     dynamic ? "input %d is dynamic, planned at most %s, got %s" : "input %d is declared %s, got %s", i,
                     want, got);
    }
    if (!dynamic) return OPGEN_OK;
    void *data = t->data;
    size_t cap = t->capacity;
    opgen_tensor_shape_ordered(t, b->dtype, b->dim, in->sizes, b->dim_order, err);
    t->data = data, t->capacity = cap;
    return OPGEN_OK;
}

/* A Null-declared scalar input takes a value of a kind its uses accept. */
static opgen_status set_any_scalar(opgen_method *m, int i, const opgen_ivalue *in, opgen_error *err) {
    opgen_ivalue *iv = &m->values[m->inputs[i]];
    uint8_t f = m->flags[m->inputs[i]];
    bool ok = (in->kind == OPGEN_GV_INT && f & V_USED_INT) || (in->kind == OPGEN_GV_FLOAT && f & V_USED_FLOAT) ||
              (in->kind == OPGEN_GV_BOOL && f & V_USED_BOOL);
    if (!ok && !(f & (V_USED_INT | V_USED_FLOAT | V_USED_BOOL)) &&
        (in->kind == OPGEN_GV_INT || in->kind == OPGEN_GV_FLOAT || in->kind == OPGEN_GV_BOOL))
        ok = true; /* unused */
    if (!ok)
        return rfail(m, NULL, err, OPGEN_E_INVALID, "input %d is a scalar the program uses as %s, got %s", i,
                     f & V_USED_FLOAT ? "an int or a float"
                     : f & V_USED_INT ? "an int"
                                      : "a bool",
                     kind_text(in->kind));
    iv->kind = in->kind; /* only the field of its kind: the others may be unset */
    if (in->kind == OPGEN_GV_INT) iv->i = in->i;
    if (in->kind == OPGEN_GV_FLOAT) iv->f = in->f;
    if (in->kind == OPGEN_GV_BOOL) iv->b = in->b;
    return OPGEN_OK;
}

/* A scalar input the program declares with a value was specialised at export:
 * ExecuTorch takes only that value, and so does opgen (any other would be
 * computed with the exported one). */
static opgen_status check_fixed_scalar(const opgen_method *m, int i, const opgen_ivalue *iv, const opgen_ivalue *in,
                                       opgen_error *err) {
    bool same = iv->kind == OPGEN_GV_INT    ? in->i == iv->i
                : iv->kind == OPGEN_GV_BOOL ? in->b == iv->b
                                            : (in->f == iv->f || (isnan(in->f) && isnan(iv->f)));
    if (same) return OPGEN_OK;
    if (!OPGEN_ERRMSG) return opgen_fail_code(err, OPGEN_E_INVALID);
    char want[48], got[48];
    if (iv->kind == OPGEN_GV_INT)
        snprintf(want, sizeof want, "%lld", (long long)iv->i), snprintf(got, sizeof got, "%lld", (long long)in->i);
    if (iv->kind == OPGEN_GV_BOOL)
        snprintf(want, sizeof want, "%s", iv->b ? "True" : "False"),
            snprintf(got, sizeof got, "%s", in->b ? "True" : "False");
    if (iv->kind == OPGEN_GV_FLOAT)
        snprintf(want, sizeof want, "%.17g", iv->f), snprintf(got, sizeof got, "%.17g", in->f);
    return rfail(
        m, NULL, err, OPGEN_E_INVALID,
        "input %d was fixed at %s when the program was exported (a specialised scalar): it takes only that value, not %s",
        i, want, got);
}

static opgen_status set_input(opgen_method *m, int i, const opgen_ivalue *in, opgen_arena *work, opgen_error *err) {
    opgen_ivalue *iv = &m->values[m->inputs[i]];
    if (m->flags[m->inputs[i]] & V_ANY_SCALAR) return set_any_scalar(m, i, in, err);
    if (in->kind != iv->kind)
        return rfail(m, NULL, err, OPGEN_E_INVALID, "input %d is %s, got %s", i, kind_text(iv->kind),
                     kind_text(in->kind));
    if (iv->kind != OPGEN_GV_TENSOR) return check_fixed_scalar(m, i, iv, in, err);
    opgen_tensor *t = &iv->t;
    if (shape_input(m, i, &in->t, err)) return err->code;
    static uint64_t nothing; /* where an empty tensor given without data points */
    if (!in->t.data && opgen_numel(t)) return rfail(m, NULL, err, OPGEN_E_INVALID, "input %d has no data", i);
    if (in->t.data == t->data && t->data) return OPGEN_OK; /* filled in place */
    if (!opgen_numel(t)) {
        if (!t->data) t->data = &nothing;
        return OPGEN_OK;
    }
    if (!t->capacity) { /* nowhere planned: the caller's bytes when laid out as the program's */
        if (!memcmp(in->t.strides, t->strides, sizeof(int64_t) * (size_t)t->dim) &&
            !((uintptr_t)in->t.data % (uintptr_t)opgen_dtype_size(t->dtype))) {
            t->data = in->t.data;
            return OPGEN_OK;
        }
        t->data = opgen_arena_alloc(work, opgen_nbytes(t));
        if (!t->data)
            return rfail(m, NULL, err, OPGEN_E_NO_MEMORY, "out of memory for input %d (the run takes %zu bytes)", i,
                         m->work);
    }
    opgen_ctx ctx = {work, err, "input", false, 0, false, -1, NULL, NULL, NULL, 0, NULL};
    return opgen_copy_same(&ctx, t, &in->t);
}

/* A JumpFalseCall's condition: a Bool, or a Bool tensor all true. */
static bool holds(const opgen_ivalue *v) {
    if (v->kind == OPGEN_GV_BOOL) return v->b;
    const bool *b = v->t.data;
    for (int64_t k = 0, n = opgen_numel(&v->t); k < n; k++)
        if (!b[k]) return false;
    return true;
}

static opgen_status execute(opgen_method *m, opgen_arena *work, opgen_error *err) {
    uint64_t steps = 0;
    opgen_arena_mark mark = opgen_arena_save(work); /* each kernel's temporaries are given back after it */
    opgen_error kerr = {0}; /* zeroed once: a run stops at the first error (half a KB a step would cost) */
    for (int ch = 0; ch < m->nchains; ch++) {
        int pc = ch ? m->chain_end[ch - 1] : 0, end = m->chain_end[ch];
        while (pc < end) {
            const instr *ins = &m->code[pc++];
            if (++steps > m->max_steps)
                return rfail(m, ins, err, OPGEN_E_INVALID,
                             "the run executed %llu instructions without ending (a loop that never ends?)",
                             (unsigned long long)m->max_steps);
            int at = pc - 1;
            if (m->probe) m->probe(m->probe_user, at, 0);
            if (ins->prim) {
                if (ins->prim->fn(ins->op, ins->dargs, ins->ndargs, &kerr))
                    return rfail(m, ins, err, kerr.code, "%s", kerr.msg);
            } else if (HAS_OPS && ins->kind == OPGEN_INSTR_KERNEL && !ins->folded) {
                opgen_status st = opgen_step_exec(ins->step, m->values, work, &kerr);
                opgen_arena_restore(work, mark);
                if (st) return rfail(m, ins, err, kerr.code ? kerr.code : st, "%s", kerr.msg);
            } else if (ins->kind == OPGEN_INSTR_MOVE) {
                m->values[ins->b] = m->values[ins->a];
            } else if (ins->kind == OPGEN_INSTR_JUMP_FALSE) {
                if (!holds(&m->values[ins->a])) pc = ins->b;
            } else if (ins->kind == OPGEN_INSTR_DELEGATE) {
                const opgen_delegate_handler *h = m->handlers[ins->a];
                opgen_error derr = {0};
                if (h->execute && h->execute(h->user, m->handles[ins->a], ins->dargs, ins->ndargs, &derr))
                    return rfail(m, ins, err, derr.code ? derr.code : OPGEN_E_INVALID, "backend '%s': %s", h->id,
                                 derr.msg);
            } /* FreeCall: planned memory is the plan's; nothing to give back */
            if (m->probe) m->probe(m->probe_user, at, 1);
        }
    }
    return OPGEN_OK;
}

opgen_status opgen_method_run(opgen_method *m, const opgen_ivalue *inputs, opgen_arena *work, opgen_ivalue *outputs,
                              opgen_error *err) {
    for (int i = 0; i < m->nmoved; i++)
        m->values[m->moved[i]] = m->moved_init[i]; /* as loaded: moves do not outlive a run */
    for (int i = 0; i < m->ninputs; i++)
        if (set_input(m, i, &inputs[i], work, err)) return err->code;
    if (execute(m, work, err)) return err->code;
    for (int i = 0; i < m->noutputs; i++) outputs[i] = m->values[m->outputs[i]];
    return OPGEN_OK;
}

int opgen_method_ninstructions(const opgen_method *m) { return m->ncode; }

double opgen_method_instruction_flops(const opgen_method *m, int k) {
    if (k < 0 || k >= m->ncode || !m->code[k].step || m->code[k].folded) return 0;
    return opgen_step_flops(m->code[k].step);
}

void opgen_method_instructions(const opgen_method *m, void (*fn)(void *ctx, const opgen_instr_info *info), void *ctx) {
    for (int k = 0; k < m->ncode; k++) {
        const instr *ins = &m->code[k];
        char key[1024] = "";
        opgen_instr_info info = {ins->chain, ins->index, ins->kind, ins->op, NULL, NULL, key, ins->a, ins->b};
        if (ins->prim) info.kernel = "a prim op", info.origin = "opgen";
        if (ins->step && ins->folded)
            info.kernel =
                ins->folded == FOLDED_VIEW ? "folded at load (a view of a constant)"
                : ins->folded == FOLDED_Q8 ? "folded at load (part of a quantized chain an integer kernel computes)"
                : ins->folded == FOLDED_IN_PLACE ? "folded at load (its index_put wrote the cache in place)"
                                                 : "folded at load (an identity copy: its readers read its source)",
            info.origin = "opgen";
        else if (OPGEN_Q8 && ins->step && ins->step->q8)
            info.kernel = opgen_q8_kernel_name(ins->step->q8), info.origin = "opgen";
        else if (ins->step) {
            info.kernel = ins->step->kernel && ins->step->kernel->name ? ins->step->kernel->name : "?";
            if (ins->step->prepared) /* only opgen's convolution's (rewrite.c) */
                info.kernel = "opgen_portable_convolution_out, its filter transformed at load";
            info.origin = ins->step->origin ? ins->step->origin : "opgen";
            opgen_step_kernel_key(ins->step, key, sizeof key);
        }
        fn(ctx, &info);
    }
}
