/* A .pte method as graph text (opgen_pte_graph_text): each KernelCall as its
 * functional op, its outs as results; method inputs %x0, %x1, ...; constants
 * as inputs %c<value>; other tensors %v<value>. A tensor an instruction reads
 * that nothing wrote is a view the exporter removed (it shares the planned bytes
 * of a value written before): it becomes a view_copy of that value; or, when no
 * instruction writes those bytes at all, a kernel's scratch buffer (CMSIS-NN's):
 * an input %s<value> whose contents do not matter. */
#include "opgen/method.h"
#include "step.h"
#include <stdio.h>
#include <string.h>

typedef struct gtext {
    const opgen_pte *p;
    const opgen_pte_plan *pl;
    char *buf;
    size_t cap, n;
    uint8_t *state;         /* per value: 0 unknown, 1 defined, 2 constant, 3 method input, 4 scratch */
    const uint8_t *written; /* per value: some KernelCall writes it */
    uint8_t *scratch;       /* per value: read, never written, no view of anything (found in a first pass) */
    opgen_error *err;
    bool failed;
} gtext;

static void put(gtext *t, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
#include <stdarg.h>
static void put(gtext *t, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(t->n < t->cap ? t->buf + t->n : NULL, t->n < t->cap ? t->cap - t->n : 0, fmt, ap);
    va_end(ap);
    if (k > 0) t->n += (size_t)k;
}

static bool fail(gtext *t, opgen_status code, const char *msg, int index) {
    if (!t->failed)
        opgen_fail_at(t->err, code, t->p->file, 0, 0, "method '%s', instruction %d: %s", t->pl->name, index, msg);
    t->failed = true;
    return false;
}

static bool value(gtext *t, uint32_t i, opgen_pte_value *v) {
    if (i >= t->pl->values.len)
        return !(t->failed = true) ||
               opgen_fail_at(t->err, OPGEN_E_FORMAT, t->p->file, 0, 0, "value %u out of range", (unsigned)i) == 0;
    if (opgen_pte_value_at(t->p, t->pl, i, v, t->err)) return !(t->failed = true);
    return true;
}

/* %x<position> for the method's inputs, %c<value> for constants, %v<value> else. */
static void name(gtext *t, uint32_t i) {
    if (t->state[i] == 3)
        for (uint32_t k = 0; k < t->pl->inputs.len; k++)
            if ((uint32_t)opgen_pte_i32(t->p, t->pl->inputs, k) == i) return put(t, "%%x%u", (unsigned)k);
    put(t, t->state[i] == 2 ? "%%c%u" : t->state[i] == 4 ? "%%s%u" : "%%v%u", (unsigned)i);
}

static void type(gtext *t, const opgen_pte_value *v) {
    put(t, "%s[", opgen_dtype_abbrev((opgen_dtype)v->t.scalar_type));
    for (uint32_t d = 0; d < v->t.sizes.len; d++)
        put(t, "%s%d", d ? ", " : "", (int)(opgen_pte_i32(t->p, v->t.sizes, d)));
    put(t, "]");
}

/* Elements of a tensor value; -1 for sizes that are negative or overflow. */
static int64_t numel(const gtext *t, const opgen_pte_value *v) {
    int64_t n = 1;
    for (uint32_t d = 0; d < v->t.sizes.len; d++) {
        int64_t s = opgen_pte_i32(t->p, v->t.sizes, d);
        if (s < 0 || (s && n > INT64_MAX / s)) return -1;
        n *= s;
    }
    return n;
}

/* A tensor read before anything wrote it: the value last defined at the same
 * planned bytes with as many elements, as a view_copy line; false if none. */
static bool define_view(gtext *t, uint32_t i, int index) {
    opgen_pte_value v, w;
    if (!value(t, i, &v)) return false;
    for (uint32_t j = 0; v.t.planned && j < t->pl->values.len; j++) {
        if (t->state[j] != 1 || !value(t, j, &w) || w.kind != OPGEN_EV_TENSOR || !w.t.planned) continue;
        if (w.t.memory_id != v.t.memory_id || w.t.memory_offset != v.t.memory_offset || numel(t, &w) < 0 ||
            numel(t, &w) != numel(t, &v) || w.t.scalar_type != v.t.scalar_type)
            continue;
        put(t, "  %%v%u = aten::view_copy(%%v%u, [", (unsigned)i, (unsigned)j);
        for (uint32_t d = 0; d < v.t.sizes.len; d++)
            put(t, "%s%d", d ? ", " : "", (int)(opgen_pte_i32(t->p, v.t.sizes, d)));
        put(t, "])\n");
        t->state[i] = 1;
        return true;
    }
    if (v.t.planned && !t->written[i]) { /* nothing ever writes it: a kernel's scratch */
        t->scratch[i] = 1;
        t->state[i] = 4;
        return true;
    }
    char msg[128];
    snprintf(msg, sizeof msg, "value %u is read before anything writes it", (unsigned)i);
    return fail(t, OPGEN_E_INVALID, msg, index);
}

static void literal_double(gtext *t, double f) {
    if (f != f)
        put(t, "nan");
    else if (f == 1.0 / 0.0 || f == -1.0 / 0.0)
        put(t, f > 0 ? "inf" : "-inf");
    else {
        char b[40];
        snprintf(b, sizeof b, "%.17g", f);
        put(t, "%s%s", b, strpbrk(b, ".eE") ? "" : ".0");
    }
}

/* An argument's text: a value name, a literal, a list. */
static bool argument(gtext *t, const opgen_arg *ka, uint32_t i, int index) {
    opgen_pte_value v, e;
    if (!value(t, i, &v)) return false;
    switch (v.kind) {
    case OPGEN_EV_NULL:
    case OPGEN_EV_NONE: put(t, "None"); return true;
    case OPGEN_EV_BOOL: put(t, v.b ? "True" : "False"); return true;
    case OPGEN_EV_DOUBLE: literal_double(t, v.f); return true;
    case OPGEN_EV_STRING: put(t, "\"%s\"", v.str); return true;
    case OPGEN_EV_INT:
        if (ka->abi == OPGEN_ABI_DTYPE || ka->abi == OPGEN_ABI_OPT_DTYPE)
            put(t, "%s", opgen_dtype_torch_name((opgen_dtype)v.i));
        else if (strstr(ka->type, "MemoryFormat"))
            put(t, "%s",
                v.i == 2   ? "torch.channels_last"
                : v.i == 1 ? "torch.preserve_format"
                           : "torch.contiguous_format");
        else
            put(t, "%lld", (long long)v.i);
        return true;
    case OPGEN_EV_TENSOR: name(t, i); return true;
    default: break;
    }
    put(t, "[");
    for (uint32_t k = 0; k < v.items.len; k++) {
        put(t, "%s", k ? ", " : "");
        if (v.kind == OPGEN_EV_INT_LIST) {
            int64_t x = opgen_pte_i64(t->p, v.items, k);
            if (x < 0 || !value(t, (uint32_t)x, &e) || e.kind != OPGEN_EV_INT)
                return fail(t, OPGEN_E_FORMAT, "an int list holds a value that is not an Int", index);
            put(t, "%lld", (long long)e.i);
        } else if (v.kind == OPGEN_EV_DOUBLE_LIST) {
            literal_double(t, opgen_pte_f64(t->p, v.items, k));
        } else if (v.kind == OPGEN_EV_BOOL_LIST) {
            put(t, opgen_pte_u8(t->p, v.items, k) ? "True" : "False");
        } else {
            int32_t x = opgen_pte_i32(t->p, v.items, k);
            if (x == -1) {
                put(t, "None");
                continue;
            }
            if (x < 0 || (uint32_t)x >= t->pl->values.len)
                return fail(t, OPGEN_E_FORMAT, "a tensor list holds a value out of range", index);
            name(t, (uint32_t)x);
        }
    }
    put(t, "]");
    return true;
}

/* Every tensor an argument reads is defined: views the exporter removed first. */
static bool define_reads(gtext *t, const opgen_pte_instr *in, const opgen_op *kop, int index) {
    for (int ai = 0; ai < kop->nargs; ai++) {
        if (opgen_args[kop->first_arg + (unsigned)ai].flags & OPGEN_ARG_OUT) continue;
        opgen_pte_value v;
        uint32_t i = (uint32_t)opgen_pte_i32(t->p, in->args, (uint32_t)ai);
        if (!value(t, i, &v)) return false;
        if (v.kind == OPGEN_EV_TENSOR && !t->state[i] && !define_view(t, i, index)) return false;
        for (uint32_t k = 0; (v.kind == OPGEN_EV_TENSOR_LIST || v.kind == OPGEN_EV_OPT_TENSOR_LIST) && k < v.items.len;
             k++) {
            int32_t x = opgen_pte_i32(t->p, v.items, k);
            if (x >= 0 && (uint32_t)x < t->pl->values.len && !t->state[x] && !define_view(t, (uint32_t)x, index))
                return false;
        }
    }
    return true;
}

/* "  %v3 = aten::add.Tensor(%in0, %c1, alpha=1)": the functional op (or an out=
 * op that has none, a vendor's), its arguments by that schema (keyword-only ones
 * by name). */
/* A KernelCall's operator as "ns::name.overload" into full, and its op id: -1
 * when unknown, -2 when op_index is bad. */
static int op_of(gtext *t, const opgen_pte_instr *in, char *full, size_t cap) {
    const char *nm, *ov;
    if (in->a < 0 || opgen_pte_operator_at(t->p, t->pl, (uint32_t)in->a, &nm, &ov, t->err)) return -2;
    snprintf(full, cap, "%s%s%s", nm, *ov ? "." : "", ov);
    return opgen_node_op(full);
}

static bool kernel_call(gtext *t, const opgen_pte_instr *in, int index) {
    char full[256], msg[300];
    int kid = op_of(t, in, full, sizeof full);
    if (kid == -2) return fail(t, OPGEN_E_FORMAT, "a bad op_index", index);
    int fid = kid >= 0 ? opgen_functional_of(kid) : -1;
    if (kid < 0 || (fid == kid && opgen_ops[kid].kind !=
                                      OPGEN_KIND_OUT)) { /* an out= op with no functional form is called by its name */
        snprintf(msg, sizeof msg, "%s %s", full,
                 kid < 0 ? "is an unknown operator" : "has no functional form to print");
        return fail(t, OPGEN_E_NOT_FOUND, msg, index);
    }
    const opgen_op *kop = &opgen_ops[kid], *fop = &opgen_ops[fid];
    if (in->args.len < kop->nargs) return fail(t, OPGEN_E_FORMAT, "fewer arguments than its schema", index);
    if (!define_reads(t, in, kop, index)) return false;
    put(t, "  ");
    int nres = 0;
    for (int ai = 0; ai < kop->nargs; ai++) {
        if (!(opgen_args[kop->first_arg + (unsigned)ai].flags & OPGEN_ARG_OUT)) continue;
        uint32_t o = (uint32_t)opgen_pte_i32(t->p, in->args, (uint32_t)ai);
        if (o >= t->pl->values.len) return fail(t, OPGEN_E_FORMAT, "an out out of range", index);
        put(t, "%s", nres++ ? ", " : "");
        t->state[o] = 1;
        name(t, o);
    }
    put(t, " = %s(", fop->qualified);
    bool first = true;
    for (int fi = 0; fi < fop->nargs; fi++) {
        const opgen_arg *fa = &opgen_args[fop->first_arg + (unsigned)fi];
        for (int ai = 0; ai < kop->nargs; ai++) {
            const opgen_arg *ka = &opgen_args[kop->first_arg + (unsigned)ai];
            if (ka->flags & OPGEN_ARG_OUT || strcmp(ka->name, fa->name)) continue;
            bool kw = fa->flags & OPGEN_ARG_KWARG_ONLY;
            put(t, "%s%s%s", first ? "" : ", ", kw ? fa->name : "", kw ? "=" : "");
            first = false;
            if (!argument(t, ka, (uint32_t)opgen_pte_i32(t->p, in->args, (uint32_t)ai), index)) return false;
        }
    }
    put(t, ")\n");
    return true;
}

/* The KernelCall instruction k of chain ch's op and its out= op (NULL: not one). */
static const opgen_op *call_op(gtext *t, const opgen_pte_instr *in) {
    char full[256];
    int kid = in->kind == OPGEN_INSTR_KERNEL ? op_of(t, in, full, sizeof full) : -1;
    return kid >= 0 && in->args.len >= opgen_ops[kid].nargs ? &opgen_ops[kid] : NULL;
}

/* Marks in written[] every value a KernelCall writes (an out). */
static bool mark_written(gtext *t, uint8_t *written) {
    for (uint32_t ch = 0; ch < t->pl->chains.len; ch++) {
        opgen_pte_vec instrs;
        if (opgen_pte_chain_at(t->p, t->pl, ch, &instrs, t->err)) return !(t->failed = true);
        for (uint32_t k = 0; k < instrs.len; k++) {
            opgen_pte_instr in;
            if (opgen_pte_instr_at(t->p, &instrs, k, &in, t->err)) return !(t->failed = true);
            const opgen_op *op = call_op(t, &in);
            memset(t->err, 0, sizeof *t->err); /* a bad call is reported where it is printed */
            for (int ai = 0; op && ai < op->nargs; ai++) {
                uint32_t x = (uint32_t)opgen_pte_i32(t->p, in.args, (uint32_t)ai);
                if (opgen_args[op->first_arg + (unsigned)ai].flags & OPGEN_ARG_OUT && x < t->pl->values.len)
                    written[x] = 1;
            }
        }
    }
    return true;
}

/* graph(%in0: f32[2, 16], ..., %c1: f32[16, 32], ...): the method's inputs, then
 * its constants, then scratch tensors. */
static bool header(gtext *t) {
    opgen_pte_value v;
    put(t, "# method '%s' of %s\n", t->pl->name, t->p->file);
    for (uint32_t i = 0, n = 0; i < t->pl->values.len; i++)
        if (t->scratch[i] && !n++)
            put(t, "# %%s<value>: planned tensors no instruction writes (kernels' scratch buffers); any contents do\n");
    put(t, "graph(");
    int n = 0;
    for (uint32_t k = 0; k < t->pl->inputs.len; k++) {
        int32_t i = opgen_pte_i32(t->p, t->pl->inputs, k);
        if (i < 0 || !value(t, (uint32_t)i, &v)) return fail(t, OPGEN_E_FORMAT, "an input out of range", -1);
        t->state[i] = 3;
        put(t, "%s", n++ ? ", " : "");
        name(t, (uint32_t)i);
        if (v.kind == OPGEN_EV_TENSOR)
            put(t, ": "), type(t, &v);
        else
            put(t, ": %s", v.kind == OPGEN_EV_INT ? "int" : v.kind == OPGEN_EV_DOUBLE ? "float" : "bool");
    }
    for (uint32_t i = 0; i < t->pl->values.len; i++) {
        if (!value(t, i, &v)) return false;
        if (v.kind != OPGEN_EV_TENSOR || v.t.planned || !v.t.data_buffer_idx || t->state[i]) continue;
        t->state[i] = 2;
        put(t, "%s", n++ ? ",\n      " : "");
        name(t, i);
        put(t, ": ");
        type(t, &v);
    }
    for (uint32_t i = 0; i < t->pl->values.len; i++) {
        if (!t->scratch[i] || !value(t, i, &v)) continue;
        t->state[i] = 4;
        put(t, "%s", n++ ? ",\n      " : "");
        name(t, i);
        put(t, ": ");
        type(t, &v);
    }
    put(t, "):\n");
    return true;
}

static bool body(gtext *t) {
    int index = 0;
    for (uint32_t ch = 0; ch < t->pl->chains.len; ch++) {
        opgen_pte_vec instrs;
        if (opgen_pte_chain_at(t->p, t->pl, ch, &instrs, t->err)) return !(t->failed = true);
        for (uint32_t k = 0; k < instrs.len; k++, index++) {
            opgen_pte_instr in;
            if (opgen_pte_instr_at(t->p, &instrs, k, &in, t->err)) return !(t->failed = true);
            if (in.kind == OPGEN_INSTR_FREE) continue;
            if (in.kind != OPGEN_INSTR_KERNEL) {
                char msg[160];
                snprintf(msg, sizeof msg, "a %s, which graph text cannot express (%s)", opgen_instr_kind_name(in.kind),
                         in.kind == OPGEN_INSTR_DELEGATE ? "a delegated part" : "control flow");
                return fail(t, OPGEN_E_NOT_IMPLEMENTED, msg, index);
            }
            if (!kernel_call(t, &in, index)) return false;
        }
    }
    put(t, "  return ");
    put(t, t->pl->outputs.len == 1 ? "" : "(");
    for (uint32_t k = 0; k < t->pl->outputs.len; k++) {
        int32_t i = opgen_pte_i32(t->p, t->pl->outputs, k);
        if (i < 0 || (uint32_t)i >= t->pl->values.len) return fail(t, OPGEN_E_FORMAT, "an output out of range", index);
        if (!t->state[i] && !define_view(t, (uint32_t)i, index)) return false;
        put(t, "%s", k ? ", " : "");
        name(t, (uint32_t)i);
    }
    put(t, t->pl->outputs.len == 1 ? "\n" : ")\n");
    return true;
}

opgen_status opgen_pte_graph_text(const opgen_pte *p, const char *method, opgen_arena *a, char **text, size_t *len,
                                  opgen_error *err) {
    opgen_pte_plan pl;
    if (opgen_pte_plan_find(p, method, &pl, err)) return err->code;
    gtext t = {
        p,   &pl,  NULL, 0, 0, opgen_arena_zalloc(a, pl.values.len + 1), NULL, opgen_arena_zalloc(a, pl.values.len + 1),
        err, false};
    uint8_t *written = opgen_arena_zalloc(a, pl.values.len + 1);
    if (!t.state || !t.scratch || !written) return opgen_fail(err, OPGEN_E_NO_MEMORY, "out of memory");
    t.written = written;
    if (!mark_written(&t, written)) return err->code ? err->code : OPGEN_E_INVALID;
    for (int pass = 0; pass < 3; pass++) { /* find the scratch tensors, measure, write */
        memset(t.state, 0, pl.values.len + 1);
        t.n = 0;
        if (!header(&t) || !body(&t)) return err->code ? err->code : OPGEN_E_INVALID;
        if (pass == 2) break;
        if (pass == 0) continue;
        t.cap = t.n + 1;
        t.buf = opgen_arena_alloc(a, t.cap);
        if (!t.buf) return opgen_fail(err, OPGEN_E_NO_MEMORY, "out of memory");
    }
    *text = t.buf;
    *len = t.n;
    return OPGEN_OK;
}
