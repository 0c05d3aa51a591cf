/* One kernel call of a loaded program (step.h). */
#include "step.h"
#include "kernels/conv.h"
#include "opgen/loops.h"
#include <stdio.h>
#include <string.h>

const char *opgen_selection(void) { return OPGEN_SELECTION; }
bool opgen_selective(void) { return OPGEN_SELECTION[0] != 0; }

static void split_decide(opgen_step *s);

/* The value kind of a scalar result (abi of an op's return), or -1 if not a scalar. */
static int scalar_kind(int abi) {
    return abi == OPGEN_ABI_INT     ? OPGEN_GV_INT
           : abi == OPGEN_ABI_FLOAT ? OPGEN_GV_FLOAT
           : abi == OPGEN_ABI_BOOL  ? OPGEN_GV_BOOL
                                    : -1;
}

bool opgen_abi_optional(int abi) {
    return abi == OPGEN_ABI_OPT_TENSOR || abi == OPGEN_ABI_OPT_INT || abi == OPGEN_ABI_OPT_INT_LIST ||
           abi == OPGEN_ABI_OPT_FLOAT || abi == OPGEN_ABI_OPT_FLOAT_LIST || abi == OPGEN_ABI_OPT_BOOL ||
           abi == OPGEN_ABI_OPT_SCALAR || abi == OPGEN_ABI_OPT_DTYPE || abi == OPGEN_ABI_OPT_STR ||
           abi == OPGEN_ABI_OPT_ENUM || abi == OPGEN_ABI_OPAQUE;
}

bool opgen_is_scalar_op(int id) {
    const opgen_op *op = &opgen_ops[id];
    if (op->out_variant >= 0 || !op->nrets || !opgen_registry[id].fn) return false;
    for (int r = 0; r < op->nrets; r++)
        if (scalar_kind(opgen_rets[op->first_ret + (unsigned)r].abi) < 0) return false;
    return true;
}

int opgen_functional_of(int kid) {
    for (int i = 0; i < OPGEN_OP_COUNT; i++)
        if (opgen_ops[i].kind == OPGEN_KIND_FUNCTIONAL && opgen_ops[i].out_variant == kid) return i;
    return kid;
}

int opgen_step_ncandidates(int kid, const opgen_load_options *opt) {
    int nc = 1;
    for (int k = 0; k < OPGEN_KEYED_COUNT; k++) nc += opgen_keyed_kernels[k].op == kid;
    for (int v = 0; opt && v < opt->nvendors; v++)
        for (int k = 0; k < opt->vendors[v]->nkernels; k++)
            nc += !strcmp(opt->vendors[v]->kernels[k].op, opgen_ops[kid].qualified);
    return nc;
}

opgen_status opgen_step_kernels(opgen_step *s, int kid, const opgen_load_options *opt, opgen_candidate *cands,
                                opgen_error *err) {
    const opgen_op *kop = &opgen_ops[kid];
    s->kernel_op = kid;
    s->kernel = &opgen_registry[kid];
    for (int i = 0; opt && opt->fallbacks && i < OPGEN_FALLBACK_COUNT; i++) /* the pattern, not a native kernel */
        if (opgen_fallbacks[i].op == kid) s->kernel = &opgen_fallbacks[i].kernel;
    s->cands = cands;
    s->ncands = 0;
    for (int v = 0; opt && v < opt->nvendors; v++)
        for (int k = 0; k < opt->vendors[v]->nkernels; k++)
            if (!strcmp(opt->vendors[v]->kernels[k].op, kop->qualified) && opt->vendors[v]->kernels[k].kernel.fn)
                s->cands[s->ncands++] =
                    (opgen_candidate){&opt->vendors[v]->kernels[k].kernel, opt->vendors[v]->name, NULL};
    for (int k = 0; k < OPGEN_KEYED_COUNT; k++) /* the kernel yaml's keyed kernels, in its order */
        if (opgen_keyed_kernels[k].op == kid)
            s->cands[s->ncands++] = (opgen_candidate){&opgen_keyed_kernels[k].kernel, "opgen", &opgen_keyed_kernels[k]};
    if (s->kernel->fn) s->cands[s->ncands++] = (opgen_candidate){s->kernel, "opgen", NULL};
    if (s->ncands) s->kernel = s->cands[0].kernel, s->origin = s->cands[0].origin;
    if (s->kernel->fn) return OPGEN_OK;
    bool same = !strcmp(s->name, kop->qualified); /* a .pte calls the kernel's op itself */
    if (opgen_selective())                        /* a selective build: say which selection left it out */
        return same ? opgen_fail(err, OPGEN_E_NOT_FOUND, "%s is left out of this build's selection (%s)",
                                 kop->qualified, OPGEN_SELECTION)
                    : opgen_fail(err, OPGEN_E_NOT_FOUND, "%s needs %s, which this build's selection (%s) leaves out",
                                 s->name, kop->qualified, OPGEN_SELECTION);
    return same ? opgen_fail(err, OPGEN_E_NOT_FOUND, "no kernel for %s", kop->qualified)
                : opgen_fail(err, OPGEN_E_NOT_FOUND, "no kernel for %s (needed by %s)", kop->qualified, s->name);
}

static void apply_patches(opgen_step *s, const opgen_ivalue *values) {
    for (int k = 0; k < s->npatches; k++) {
        const opgen_patch *pt = &s->patches[k];
        const opgen_ivalue *iv = &values[pt->value];
        opgen_value *v = &s->args[pt->arg];
        v->none = false;
        if (pt->elem >= 0) { /* the list's storage is the loader's own */
            ((int64_t *)(uintptr_t)v->v.il.data)[pt->elem] = iv->i;
            continue;
        }
        switch (pt->abi) {
        case OPGEN_ABI_SCALAR:
        case OPGEN_ABI_OPT_SCALAR:
            if (iv->kind == OPGEN_GV_INT) v->v.s.dtype = OPGEN_DTYPE_Long, v->v.s.v.i = iv->i;
            if (iv->kind == OPGEN_GV_FLOAT) v->v.s.dtype = OPGEN_DTYPE_Double, v->v.s.v.f = iv->f;
            if (iv->kind == OPGEN_GV_BOOL) v->v.s.dtype = OPGEN_DTYPE_Bool, v->v.s.v.b = iv->b;
            break;
        case OPGEN_ABI_FLOAT:
        case OPGEN_ABI_OPT_FLOAT: v->v.f = iv->kind == OPGEN_GV_INT ? (double)iv->i : iv->f; break;
        case OPGEN_ABI_BOOL:
        case OPGEN_ABI_OPT_BOOL: v->v.b = iv->b; break;
        default: v->v.i = iv->i; break;
        }
    }
}

/* Kernels whose results take a size the data gives (within a planned bound):
 * a build without them keeps the plain stand-ins (and is no larger for these). */
#define DATA_SIZED \
    (OPGEN_SELECTED(aten_nonzero_out) || OPGEN_SELECTED(aten_index_Tensor_out) || OPGEN_SELECTED(aten_index_put_out))

/* Whether t needs no contiguous stand-in: laid out in its dimensions' order
 * (a data-sized result shrunk to one element may look contiguous in another). */
static bool in_order(const opgen_tensor *t) {
    if (!DATA_SIZED) return opgen_tensor_is_contiguous(t);
    for (int32_t i = 0; i < t->dim; i++)
        if (t->dim_order[i] != i) return false;
    return true;
}
/* A stand-in as large as its out: a data-sized result may grow to its bound. */
static size_t standin_bytes(const opgen_tensor *t) {
    return DATA_SIZED && t->capacity > opgen_nbytes(t) ? t->capacity : opgen_nbytes(t);
}

opgen_status opgen_step_call(opgen_step *s, const opgen_ivalue *values, opgen_arena *arena, bool meta,
                             opgen_error *err) {
    opgen_ctx ctx = {arena,  err,    s->name, meta,      0,          false, s->has_dtype ? (int32_t)s->dtype : -1,
                     s->rng, s->par, NULL,    s->unread, s->prepared};
    apply_patches(s, values);
    opgen_status st = s->kernel->call(&ctx, s->kernel->fn, s->args);
    if (st && err->code == OPGEN_OK) opgen_fail(err, st, "%s failed (%s)", ctx.op, opgen_status_text(st));
    if (meta && !st) { /* results the meta step sized itself (the plan places them) are not scratch */
        size_t own = 0;
        for (int r = 0; r < s->nres; r++)
            if (!s->res[r]->capacity && !s->res[r]->data) own += opgen_arena_cost(opgen_nbytes(s->res[r]));
        s->scratch = ctx.scratch > own ? ctx.scratch - own : 0;
        s->relayout = ctx.relayout;
        for (int r = 0; s->relayout && r < s->nres; r++) /* the contiguous stand-ins */
            if (!in_order(s->res[r])) s->scratch += opgen_arena_cost(standin_bytes(s->res[r]));
    }
    return st;
}

opgen_status opgen_step_run(opgen_step *s, const opgen_ivalue *values, opgen_arena *arena, opgen_error *err) {
    if (!s->relayout) return opgen_step_call(s, values, arena, false, err);
    opgen_tensor saved[8];
    int n = s->nres < 8 ? s->nres : 8;
    for (int r = 0; r < n; r++) { /* a contiguous stand-in for each out in another order */
        saved[r] = *s->res[r];
        if (in_order(s->res[r])) continue;
        opgen_tensor *t = s->res[r];
        if (opgen_tensor_shape(t, t->dtype, t->dim, t->sizes, err)) return err->code;
        t->capacity = standin_bytes(&saved[r]);
        t->data = opgen_arena_alloc(arena, t->capacity);
        if (!t->data)
            return opgen_fail(err, OPGEN_E_NO_MEMORY, "%s: out of memory for a contiguous stand-in of its result",
                              s->name);
    }
    opgen_status st = opgen_step_call(s, values, arena, false, err);
    opgen_ctx ctx = {arena, err, s->name, false, 0, false, -1, NULL, NULL, NULL, 0, NULL};
    for (int r = 0; r < n; r++) {
        opgen_tensor standin = *s->res[r];
        *s->res[r] = saved[r];
        if (st || standin.data == saved[r].data) continue;
        /* the kernel may have resized its result (a data-dependent size, within the bound) */
        if (DATA_SIZED && (standin.dim != saved[r].dim ||
                           memcmp(standin.sizes, saved[r].sizes, sizeof(int64_t) * (size_t)standin.dim)))
            st = opgen_tensor_shape_ordered(s->res[r], standin.dtype, standin.dim, standin.sizes,
                                            standin.dim == saved[r].dim ? saved[r].dim_order : NULL, err);
        if (!st) st = opgen_copy_same(&ctx, s->res[r], &standin);
    }
    return st;
}

/* The dtype a kernel argument carries for the Edge constraint check, or -1. */
static int arg_dtype(const opgen_step *s, const opgen_ivalue *values, int ai) {
    const opgen_arg *ka = &opgen_args[opgen_ops[s->kernel_op].first_arg + ai];
    const opgen_value *v = &s->args[ai];
    for (int k = 0; k < s->npatches; k++) /* a scalar the program gives or computes */
        if (s->patches[k].arg == ai && s->patches[k].elem < 0) {
            int kind = values[s->patches[k].value].kind;
            return kind == OPGEN_GV_INT     ? OPGEN_DTYPE_Long
                   : kind == OPGEN_GV_FLOAT ? OPGEN_DTYPE_Double
                   : kind == OPGEN_GV_BOOL  ? OPGEN_DTYPE_Bool
                                            : -1; /* -1: a Null input, given at run */
        }
    if (v->none) return -1;
    switch (ka->abi) {
    case OPGEN_ABI_TENSOR:
    case OPGEN_ABI_OPT_TENSOR: return v->v.t ? (int)v->v.t->dtype : -1;
    case OPGEN_ABI_TENSOR_LIST: return v->v.tl.len && v->v.tl.data[0] ? (int)v->v.tl.data[0]->dtype : -1;
    case OPGEN_ABI_SCALAR:
    case OPGEN_ABI_OPT_SCALAR: return v->v.s.dtype;
    case OPGEN_ABI_DTYPE:
    case OPGEN_ABI_OPT_DTYPE: return v->v.d;
    default: return -1;
    }
}

/* ExecuTorch's rule over the generated rows: some row accepts every dtype, and
 * columns sharing an alias in it carry one dtype. */
static opgen_status check_rows(const opgen_step *s, const opgen_ivalue *values, opgen_error *err) {
    const opgen_op *op = &opgen_ops[s->op], *kop = &opgen_ops[s->kernel_op];
    if (!op->ncols) return OPGEN_OK;
    int nc = op->ncols < 64 ? op->ncols : 64; /* no Edge op comes near 64 columns */
    int dt[64];
    const char *names[64];
    char retname[64][12];
    for (int c = 0; c < nc; c++) {
        int col = opgen_cols[op->first_col + (unsigned)c];
        dt[c] = -1;
        if (col >= 0) {
            names[c] = opgen_args[op->first_arg + (unsigned)col].name;
            for (int ai = 0; ai < kop->nargs; ai++)
                if (!strcmp(opgen_args[kop->first_arg + (unsigned)ai].name, names[c])) dt[c] = arg_dtype(s, values, ai);
            if (dt[c] < 0 && s->has_dtype && !strcmp(names[c], "dtype")) dt[c] = s->dtype;
        } else {
            int r = -col - 1;
            const char *rn = opgen_rets[op->first_ret + (unsigned)r].name;
            char *q = retname[c] + 6; /* "__ret_N" without printf: a build for size has none */
            memcpy(retname[c], "__ret_", 6);
            if (r >= 10) *q++ = (char)('0' + r / 10 % 10);
            *q++ = (char)('0' + r % 10), *q = 0;
            names[c] = rn && *rn ? rn : retname[c]; /* Edge names unnamed returns __ret_N */
            if (r < s->nres) dt[c] = s->res[r]->dtype;
        }
    }
    for (int r = 0; r < op->nrows; r++) {
        const uint8_t *row = &opgen_cells[op->first_cell + (unsigned)(r * op->ncols)];
        bool ok = true;
        for (int c = 0; c < nc && ok; c++) {
            if (dt[c] < 0) continue;
            if (!(opgen_alias_sets[op->first_alias + row[c]] >> dt[c] & 1u)) ok = false;
            for (int b = 0; b < c && ok; b++)
                if (dt[b] >= 0 && row[b] == row[c] && dt[b] != dt[c]) ok = false;
        }
        if (ok) return OPGEN_OK;
    }
    if (!OPGEN_ERRMSG) return opgen_fail_code(err, OPGEN_E_DTYPE);
    char msg[384];
    int n = snprintf(msg, sizeof msg, "%s: no Edge constraint row allows (", op->qualified);
    for (int c = 0, first = 1; c < nc && n < (int)sizeof msg; c++) {
        if (dt[c] < 0) continue;
        n += snprintf(msg + n, sizeof msg - (size_t)n, "%s%s=%s", first ? "" : ", ", names[c],
                      opgen_dtype_name((opgen_dtype)dt[c]));
        first = 0;
    }
    if (n < (int)sizeof msg) snprintf(msg + n, sizeof msg - (size_t)n, ")");
    return opgen_fail(err, OPGEN_E_DTYPE, "%s", msg);
}

/* A dtype the kernel exists for but this selective build left out: the op, the
 * dtypes of the call's tensors and the selection, in one message. */
static opgen_status selection_fail(const opgen_step *s, const opgen_ivalue *values, opgen_error *err) {
    if (!OPGEN_ERRMSG) return opgen_fail_code(err, OPGEN_E_NOT_FOUND);
    const opgen_op *kop = &opgen_ops[s->kernel_op];
    char msg[384];
    int n = snprintf(msg, sizeof msg, "%s: this build's selection (%s) keeps no kernel for ", s->name, OPGEN_SELECTION);
    bool first = true;
    for (int ai = 0; ai < kop->nargs && n < (int)sizeof msg; ai++) {
        const opgen_arg *ka = &opgen_args[kop->first_arg + (unsigned)ai];
        if (ka->flags & OPGEN_ARG_OUT ||
            (ka->abi != OPGEN_ABI_TENSOR && ka->abi != OPGEN_ABI_OPT_TENSOR && ka->abi != OPGEN_ABI_TENSOR_LIST))
            continue;
        int dt = arg_dtype(s, values, ai);
        if (dt < 0) continue;
        n += snprintf(msg + n, sizeof msg - (size_t)n, "%s%s=%s", first ? "" : ", ", ka->name,
                      opgen_dtype_name((opgen_dtype)dt));
        first = false;
    }
    return opgen_fail(err, OPGEN_E_NOT_FOUND, "%s", msg);
}

/* Whether a call falls under a keyed kernel's key: each keyed argument a tensor
 * of one of its dtypes (shared with the arguments of its type alias) in exactly
 * its dim order. An out the program has not given yet (a graph program's, sized
 * by the kernel) is not checked. */
static bool key_matches(const opgen_step *s, const opgen_keyed_kernel *k) {
    const opgen_op *kop = &opgen_ops[s->kernel_op];
    for (int i = 0; i < k->nargs; i++) {
        const opgen_key_arg *ka = &k->args[i];
        const opgen_value *v = &s->args[ka->arg];
        const opgen_tensor *t = v->none ? NULL : v->v.t;
        bool out = opgen_args[kop->first_arg + (unsigned)ka->arg].flags & OPGEN_ARG_OUT;
        if (!t) return false;
        if (out && !t->data && !t->capacity && t->dim == 0) continue;
        if (!(ka->dtypes >> t->dtype & 1u) || t->dim != ka->ndim || memcmp(t->dim_order, ka->dim_order, ka->ndim))
            return false;
        if (ka->same_as >= 0 && s->args[k->args[ka->same_as].arg].v.t &&
            s->args[k->args[ka->same_as].arg].v.t->dtype != t->dtype)
            return false;
    }
    return true;
}

/* No candidate takes the call's key: the op, the call's tensors and the keys
 * this build has. */
static opgen_status key_fail(const opgen_step *s, opgen_error *err) {
    if (!OPGEN_ERRMSG) return opgen_fail_code(err, OPGEN_E_NOT_FOUND);
    const opgen_op *kop = &opgen_ops[s->kernel_op];
    char msg[512];
    int n = snprintf(msg, sizeof msg, "%s: no kernel for this call's key (", s->name);
    for (int ai = 0, first = 1; ai < kop->nargs && n > 0 && n < (int)sizeof msg; ai++) {
        const opgen_value *v = &s->args[ai];
        const opgen_arg *ka = &opgen_args[kop->first_arg + (unsigned)ai];
        if (v->none || (ka->abi != OPGEN_ABI_TENSOR && ka->abi != OPGEN_ABI_OPT_TENSOR) || !v->v.t) continue;
        n += snprintf(msg + n, sizeof msg - (size_t)n, "%s%s %s ", first ? "" : "; ", ka->name,
                      opgen_dtype_name(v->v.t->dtype));
        for (int d = 0; d < v->v.t->dim && n < (int)sizeof msg; d++)
            n += snprintf(msg + n, sizeof msg - (size_t)n, "%s%d", d ? "," : "", v->v.t->dim_order[d]);
        first = 0;
    }
    for (int c = 0, first = 1; c < s->ncands && n > 0 && n < (int)sizeof msg; c++)
        if (s->cands[c].keyed)
            n += snprintf(msg + n, sizeof msg - (size_t)n, "%s%s", first ? "); this build has it only for: " : " or ",
                          s->cands[c].keyed->key),
                first = 0;
    return opgen_fail(err, OPGEN_E_NOT_FOUND, "%s", msg);
}

opgen_status opgen_step_prepare(opgen_step *s, const opgen_ivalue *values, opgen_arena *a, opgen_error *err) {
    if (s->scalar)
        return opgen_step_call(s, values, a, false, err); /* a prim computes its value, which later shapes may need */
    opgen_tensor initial[8];                              /* each candidate starts from the results as given */
    int n = s->nres < 8 ? s->nres : 8;
    for (int r = 0; r < n; r++) initial[r] = *s->res[r];
    opgen_error merr = {0};
    opgen_status st = OPGEN_E_NOT_IMPLEMENTED;
    bool eligible = false;
    for (int c = 0; c < s->ncands; c++) { /* the first kernel that takes the call */
        if (s->cands[c].keyed && !key_matches(s, s->cands[c].keyed)) continue;
        eligible = true;
        s->kernel = s->cands[c].kernel;
        s->origin = s->cands[c].origin;
        for (int r = 0; r < n; r++) *s->res[r] = initial[r];
        memset(&merr, 0, sizeof merr);
        st = opgen_step_call(s, values, a, true, &merr);
        bool declined = st == OPGEN_E_NOT_IMPLEMENTED || (st == OPGEN_E_DTYPE && c + 1 < s->ncands);
        if (!declined) break;
    }
    if (!eligible) return key_fail(s, err);
    if (st == OPGEN_E_DTYPE && opgen_selective()) return selection_fail(s, values, err);
    if (st) return opgen_fail(err, st, "%s", merr.msg);
    if ((st = check_rows(s, values, err))) return st;
    if (!s->nres) return OPGEN_OK;
    opgen_dtype d = s->res[0]->dtype;
    if (!(s->kernel->dtypes >> d & 1u) && opgen_selective()) return selection_fail(s, values, err);
    if (!(s->kernel->dtypes >> d & 1u))
        return opgen_fail(err, OPGEN_E_NOT_FOUND, "no kernel for %s with dtype %s (needed by %s)",
                          opgen_ops[s->kernel_op].qualified, opgen_dtype_name(d), s->name);
    split_decide(s);
    return OPGEN_OK;
}

/* ---- a call split across threads ----
 * Elementwise kernels (and batch norm, per channel) compute each output element
 * from the same elements of their inputs, so a call on the whole tensors equals
 * calls on slices of them along the outermost dimension that has more than one
 * element: each part calls the kernel on its slice, with its own copies of the
 * tensors, and every element is computed as on one thread. Only kernels that take
 * no arena memory are split (the arena is not shared between threads). */
enum { SPLIT_ELEMENTWISE = 1, SPLIT_CHANNELS = 2 };
static const struct {
    const char *op;
    int how;
} splittable[] = {
    {"aten::relu.out", SPLIT_ELEMENTWISE},        {"aten::hardtanh.out", SPLIT_ELEMENTWISE},
    {"aten::clamp.out", SPLIT_ELEMENTWISE},       {"aten::add.out", SPLIT_ELEMENTWISE},
    {"aten::sub.out", SPLIT_ELEMENTWISE},         {"aten::mul.out", SPLIT_ELEMENTWISE},
    {"aten::div.out", SPLIT_ELEMENTWISE},         {"aten::sigmoid.out", SPLIT_ELEMENTWISE},
    {"aten::tanh.out", SPLIT_ELEMENTWISE},        {"aten::exp.out", SPLIT_ELEMENTWISE},
    {"aten::gelu.out", SPLIT_ELEMENTWISE},        {"aten::hardswish.out", SPLIT_ELEMENTWISE},
    {"aten::hardsigmoid.out", SPLIT_ELEMENTWISE}, {"aten::_native_batch_norm_legit_no_training.out", SPLIT_CHANNELS}};
enum { SPLIT_MIN_ELEMENTS = 32768, SPLIT_MAX_ARGS = 16 };

static void split_decide(opgen_step *s) {
    s->split = 0;
    if (!OPGEN_SPLITS || opgen_parallel_parts(s->par) < 2 || s->scratch || s->npatches || s->relayout || s->scalar ||
        s->nres < 1 || s->nargs > SPLIT_MAX_ARGS)
        return;
    for (size_t i = 0; i < sizeof splittable / sizeof *splittable; i++)
        if (!strcmp(opgen_ops[s->kernel_op].qualified, splittable[i].op) && !strcmp(s->origin, "opgen"))
            s->split = (uint8_t)splittable[i].how;
}

typedef struct split_job {
    opgen_step *s;
    int dim, parts;
    int32_t status[64];
    opgen_error errs[64];
} split_job;

/* The slice [lo, hi) along out's dimension d of a tensor argument: an operand as
 * big as out there is cut, one broadcast along it (size 1, or absent) is not; a
 * channel op's 1-d parameters are cut when d is the channel dimension. */
static void slice_of(const opgen_tensor *t, const opgen_tensor *out, int d, int how, int64_t lo, int64_t hi,
                     opgen_tensor *v) {
    *v = *t;
    int td = how == SPLIT_CHANNELS && t->dim == 1 && out->dim > 1 ? (d == 1 ? 0 : -1) : d - (out->dim - t->dim);
    if (td < 0 || t->sizes[td] != out->sizes[d]) return;
    v->sizes[td] = hi - lo;
    v->data = (char *)t->data + lo * t->strides[td] * opgen_dtype_size(t->dtype);
    v->capacity = opgen_nbytes(v);
}

static void split_part(void *arg, int part) {
    split_job *j = arg;
    opgen_step *s = j->s;
    const opgen_tensor *out = s->res[0];
    int64_t n = out->sizes[j->dim], lo = n * part / j->parts, hi = n * (part + 1) / j->parts;
    opgen_value args[SPLIT_MAX_ARGS];
    opgen_tensor ts[SPLIT_MAX_ARGS];
    for (int a = 0; a < s->nargs; a++) {
        args[a] = s->args[a];
        const opgen_arg *ka = &opgen_args[opgen_ops[s->kernel_op].first_arg + (unsigned)a];
        if ((ka->abi == OPGEN_ABI_TENSOR || ka->abi == OPGEN_ABI_OPT_TENSOR) && !args[a].none && args[a].v.t) {
            slice_of(args[a].v.t, out, j->dim, j->s->split, lo, hi, &ts[a]);
            args[a].v.t = &ts[a];
        }
    }
    opgen_arena none; /* split kernels take no arena memory: one that asked would fail, not share */
    opgen_arena_init(&none, NULL, 0);
    opgen_ctx ctx = {
        &none,  &j->errs[part], s->name, false,     0,          false, s->has_dtype ? (int32_t)s->dtype : -1,
        s->rng, NULL,           NULL,    s->unread, s->prepared};
    j->status[part] = lo < hi ? s->kernel->call(&ctx, s->kernel->fn, args) : OPGEN_OK;
}

/* A run's call of a split step: slices across the threads when the tensors are
 * large and shaped as at load (a dynamic program's resized call runs whole). */
opgen_status opgen_step_split_run(opgen_step *s, opgen_arena *arena, opgen_error *err) {
    const opgen_tensor *out = s->res[0];
    int d = 0;
    while (d < out->dim && out->sizes[d] == 1) d++;
    bool ok = d < out->dim && opgen_parallel_parts_for(s->par, (double)opgen_numel(out), SPLIT_MIN_ELEMENTS) > 1 &&
              (s->split == SPLIT_ELEMENTWISE || d <= 1);
    /* out already has the shape this call gives it (the inputs broadcast to it), as
     * it does unless a dynamic program's inputs changed size since the last run */
    bool covered[OPGEN_MAX_DIM] = {false};
    for (int a = 0; ok && a < s->nargs; a++) {
        const opgen_arg *ka = &opgen_args[opgen_ops[s->kernel_op].first_arg + (unsigned)a];
        const opgen_tensor *t = (ka->abi == OPGEN_ABI_TENSOR || ka->abi == OPGEN_ABI_OPT_TENSOR) && !s->args[a].none
                                    ? s->args[a].v.t
                                    : NULL;
        if (!t || ka->flags & OPGEN_ARG_OUT || (s->split == SPLIT_CHANNELS && t->dim == 1 && out->dim > 1)) continue;
        if (t->dim > out->dim) ok = false;
        for (int i = 0; ok && i < t->dim; i++) {
            int o = i + out->dim - t->dim;
            ok = t->sizes[i] == out->sizes[o] || t->sizes[i] == 1;
            covered[o] |= t->sizes[i] == out->sizes[o];
        }
    }
    for (int o = 0; ok && o < out->dim; o++) ok = covered[o] || out->sizes[o] == 1;
    if (!ok) {
        uint8_t split = s->split;
        s->split = 0; /* this call whole */
        opgen_status st = opgen_step_exec(s, NULL, arena, err);
        s->split = split;
        return st;
    }
    split_job j;
    j.s = s, j.dim = d, j.parts = opgen_parallel_parts(s->par);
    if (j.parts > 64) j.parts = 64;
    if (j.parts > out->sizes[d]) j.parts = (int)out->sizes[d];
    for (int p = 0; p < j.parts; p++) j.status[p] = OPGEN_OK, memset(&j.errs[p], 0, sizeof j.errs[p]);
    opgen_parallel_for(s->par, j.parts, split_part, &j);
    for (int p = 0; p < j.parts; p++)
        if (j.status[p]) {
            *err = j.errs[p];
            return err->code == OPGEN_OK
                       ? opgen_fail(err, j.status[p], "%s failed (%s)", s->name, opgen_status_text(j.status[p]))
                       : j.status[p];
        }
    return OPGEN_OK;
}

/* ---- a convolution fused with the batch norm and activation after it ---- */

/* The index of kernel argument `name` of step s, or -1. */
static int arg_named(const opgen_step *s, const char *name) {
    const opgen_op *kop = &opgen_ops[s->kernel_op];
    for (int a = 0; a < kop->nargs && a < s->nargs; a++)
        if (!strcmp(opgen_args[kop->first_arg + (unsigned)a].name, name)) return a;
    return -1;
}
static bool is_opgen(const opgen_step *s, const char *op) {
    return !strcmp(opgen_ops[s->kernel_op].qualified, op) && !strcmp(s->origin, "opgen") && !s->npatches &&
           !s->relayout;
}
static const opgen_tensor *tensor_arg(const opgen_step *s, const char *name) {
    int a = arg_named(s, name);
    return a < 0 || s->args[a].none ? NULL : s->args[a].v.t;
}

/* Whether out, written by conv's fused call, overlaps what it reads: its
 * inputs or the batch norm's (a residual the kernel checks itself). */
static bool fused_out_clashes(const opgen_step *conv, const opgen_post *post, const opgen_tensor *out) {
    bool clash = opgen_tensors_overlap(out, post->weight) || opgen_tensors_overlap(out, post->bias) ||
                 opgen_tensors_overlap(out, post->mean) || opgen_tensors_overlap(out, post->var);
    for (int a = 0; a < conv->nargs && !clash; a++) {
        const opgen_arg *ka = &opgen_args[opgen_ops[conv->kernel_op].first_arg + (unsigned)a];
        if ((ka->abi == OPGEN_ABI_TENSOR || ka->abi == OPGEN_ABI_OPT_TENSOR) && !(ka->flags & OPGEN_ARG_OUT) &&
            !conv->args[a].none)
            clash = opgen_tensors_overlap(out, conv->args[a].v.t);
    }
    return clash;
}

/* A Scalar of value 1 (add's alpha: the sum a plain a + b). */
static bool scalar_one(const opgen_scalar *s) {
    return (s->dtype == OPGEN_DTYPE_Long && s->v.i == 1) || (s->dtype == OPGEN_DTYPE_Double && s->v.f == 1.0);
}
const opgen_tensor *opgen_step_residual(const opgen_step *add, const opgen_tensor *t) {
    if (!add || !is_opgen(add, "aten::add.out") || add->nres != 1) return NULL;
    const opgen_tensor *a = tensor_arg(add, "self"), *b = tensor_arg(add, "other");
    int al = arg_named(add, "alpha");
    if (al >= 0 && !add->args[al].none && !scalar_one(&add->args[al].v.s)) return NULL;
    return a == t && b && b != t ? b : b == t && a && a != t ? a : NULL;
}
/* Whether r has y's shape, dtype and (contiguous) strides. */
static bool same_contiguous(const opgen_tensor *r, const opgen_tensor *y) {
    if (r->dtype != y->dtype || r->dim != y->dim) return false;
    int64_t st = 1;
    for (int d = r->dim - 1; d >= 0; st *= r->sizes[d], d--)
        if (r->sizes[d] != y->sizes[d] || (r->sizes[d] > 1 && (r->strides[d] != st || y->strides[d] != st)))
            return false;
    return true;
}
static bool residual_fits(const opgen_tensor *r, const opgen_tensor *y) { return r->dim == 4 && same_contiguous(r, y); }

/* A fixed stride, padding or dilation list as its two values (one: both). */
static bool pair_of(const opgen_step *s, const char *name, int64_t v[2]) {
    int a = arg_named(s, name);
    if (a < 0 || (s->args[a].v.il.len != 1 && s->args[a].v.il.len != 2)) return false;
    v[0] = s->args[a].v.il.data[0], v[1] = s->args[a].v.il.data[s->args[a].v.il.len - 1];
    return true;
}

size_t opgen_step_prepared_bytes(const opgen_step *s) {
    int64_t st[2], pd[2], dl[2];
    int tr = arg_named(s, "transposed"), gr = arg_named(s, "groups");
    const opgen_tensor *w = tensor_arg(s, "weight");
    if (!OPGEN_SPEED_PATHS || !is_opgen(s, "aten::convolution.out") || s->prepared || !w || w->dim != 4 || tr < 0 ||
        s->args[tr].v.b || gr < 0 || !pair_of(s, "stride", st) || !pair_of(s, "padding", pd) ||
        !pair_of(s, "dilation", dl))
        return 0;
    return opgen_conv_prepared_bytes(w->dtype, w->sizes[0], w->sizes[1], w->sizes[2], w->sizes[3], st, pd, dl,
                                     s->args[gr].v.i);
}

void opgen_step_prepare_filter(opgen_step *s, void *mem) {
    opgen_conv_prepare(tensor_arg(s, "weight"), mem);
    s->prepared = mem;
}

bool opgen_step_fuse(opgen_step *conv, opgen_step *bn, opgen_step *add, opgen_step *act, opgen_fusion *f) {
    if (!is_opgen(conv, "aten::convolution.out") || !is_opgen(bn, "aten::_native_batch_norm_legit_no_training.out") ||
        conv->fusion || conv->nres != 1 || bn->nres != 3)
        return false;
    const opgen_tensor *x = tensor_arg(conv, "input"), *y = conv->res[0];
    int tr = arg_named(conv, "transposed"), eps = arg_named(bn, "eps");
    if (!x || (x->dim != 3 && x->dim != 4) || tr < 0 || conv->args[tr].v.b || eps < 0 || tensor_arg(bn, "input") != y)
        return false;
    if ((y->dtype != OPGEN_DTYPE_Float && y->dtype != OPGEN_DTYPE_Double) || bn->res[0]->dtype != y->dtype ||
        !tensor_arg(bn, "running_mean") || !tensor_arg(bn, "running_var"))
        return false;
    /* a residual added to the batch norm's result: of y's layout, so the kernel reads it where it writes */
    const opgen_tensor *res = add ? opgen_step_residual(add, bn->res[0]) : NULL;
    if (add && (!res || !residual_fits(res, y) || add->res[0]->dtype != y->dtype)) return false;
    if (add && opgen_tensors_overlap(res, act ? act->res[0] : add->res[0]))
        return false;                                   /* planned memory (a .pte's) the result shares */
    opgen_tensor *pre = add ? add->res[0] : bn->res[0]; /* what the activation reads */
    opgen_post_act kind = OPGEN_POST_NONE;
    if (act) {
        if (act->nres != 1 || act->res[0]->dtype != y->dtype) return false;
        if (is_opgen(act, "aten::relu.out") && tensor_arg(act, "self") == pre)
            kind = OPGEN_POST_RELU;
        else if (is_opgen(act, "aten::hardtanh.out") && tensor_arg(act, "self") == pre)
            kind = OPGEN_POST_CLAMP;
        else
            return false;
    }
    memset(f, 0, sizeof *f);
    f->post = (opgen_post){tensor_arg(bn, "weight"),
                           tensor_arg(bn, "bias"),
                           tensor_arg(bn, "running_mean"),
                           tensor_arg(bn, "running_var"),
                           bn->args[eps].v.f,
                           kind,
                           NULL,
                           NULL,
                           false,
                           res,
                           res && tensor_arg(add, "self") == res};
    if (kind == OPGEN_POST_CLAMP)
        f->post.lo = &act->args[arg_named(act, "min_val")].v.s, f->post.hi = &act->args[arg_named(act, "max_val")].v.s;
    f->nabsorbed = 0;
    f->absorbed[f->nabsorbed++] = bn;
    if (add) f->absorbed[f->nabsorbed++] = add;
    if (act) f->absorbed[f->nabsorbed++] = act;
    f->out = act ? act->res[0] : pre;
    /* where memory is already placed (a .pte's plan) and the chain's result shares
     * what the convolution reads (the planner reuses a convolution's input, dead
     * after it, for what follows: ResNet's batch norm after a block's second 3x3,
     * its relu after a residual add), the chain writes the convolution's own
     * result and copies it there (a copy moves the bytes that pass would, and the
     * chain stays one step); else a shorter chain (the caller's next try) may
     * not clash */
    bool clashes = fused_out_clashes(conv, &f->post, f->out);
    f->via_conv_out = clashes && !fused_out_clashes(conv, &f->post, y) && same_contiguous(f->out, y) &&
                      !opgen_tensors_overlap(f->out, y) && !(res && opgen_tensors_overlap(res, y));
    if ((add || act) && clashes && !f->via_conv_out) return false;
    f->out_arg = arg_named(conv, "out");
    if (f->out_arg < 0) return false;
    conv->fusion = f;
    conv->scratch += 2 * (size_t)y->sizes[1] * (size_t)opgen_dtype_size(y->dtype) + 16; /* the batch norm's factors */
    return true;
}

/* The fused call writes the last absorbed step's result directly, unless its
 * memory overlaps what the convolution reads (a planner may reuse the input's
 * bytes for it), or the kernel does not apply it: then the steps run as written. */
opgen_status opgen_step_fused_run(opgen_step *s, opgen_arena *arena, opgen_error *err) {
    opgen_fusion *f = s->fusion;
    opgen_value saved = s->args[f->out_arg];
    opgen_tensor *target = f->via_conv_out ? saved.v.t : f->out;
    bool clash = fused_out_clashes(s, &f->post, target) ||
                 (f->via_conv_out && (!same_contiguous(f->out, target) || opgen_tensors_overlap(f->out, target)));
    if (!clash) {
        s->args[f->out_arg].v.t = target;
        f->post.applied = false;
        opgen_ctx ctx = {arena,  err,    s->name,  false,     0,          false, s->has_dtype ? (int32_t)s->dtype : -1,
                         s->rng, s->par, &f->post, s->unread, s->prepared};
        opgen_status st = s->kernel->call(&ctx, s->kernel->fn, s->args);
        s->args[f->out_arg] = saved;
        if (st)
            return err->code == OPGEN_OK ? opgen_fail(err, st, "%s failed (%s)", s->name, opgen_status_text(st)) : st;
        if (f->post.applied) {
            if (target != f->out) memcpy(f->out->data, target->data, opgen_nbytes(f->out));
            for (int k = 0; k < f->nabsorbed; k++) f->absorbed[k]->absorbed = true;
            return OPGEN_OK;
        }
    }
    s->fusion = NULL; /* as written */
    opgen_status st = opgen_step_exec(s, NULL, arena, err);
    s->fusion = f;
    return st;
}

/* "dtype;d,i,m" of a tensor, appended to key (ExecuTorch's kernel key entry). */
static void key_entry(char *key, size_t cap, size_t *n, const opgen_tensor *t) {
    if (*n >= cap) return;
    *n += (size_t)snprintf(key + *n, cap - *n, "%s%d;", key[*n - 1] == '/' ? "" : "|", (int)t->dtype);
    for (int32_t d = 0; d < t->dim && *n < cap; d++)
        *n += (size_t)snprintf(key + *n, cap - *n, "%s%u", d ? "," : "", t->dim_order[d]);
}

size_t opgen_step_kernel_key(const opgen_step *s, char *key, size_t cap) {
    const opgen_op *kop = &opgen_ops[s->kernel_op];
    size_t len = (size_t)snprintf(key, cap, "v1/");
    for (int ai = 0; ai < kop->nargs; ai++) {
        const opgen_arg *ka = &opgen_args[kop->first_arg + (unsigned)ai];
        const opgen_value *v = &s->args[ai];
        if ((ka->abi == OPGEN_ABI_TENSOR || ka->abi == OPGEN_ABI_OPT_TENSOR) && !v->none && v->v.t)
            key_entry(key, cap, &len, v->v.t);
        else if (ka->abi == OPGEN_ABI_TENSOR_LIST && v->v.tl.len && v->v.tl.data[0])
            key_entry(key, cap, &len, v->v.tl.data[0]);
    }
    for (int r = 0; r < s->nres; r++) key_entry(key, cap, &len, s->res[r]); /* the returned values */
    return len;
}

double opgen_step_flops(const opgen_step *s) {
    const char *op = opgen_ops[s->kernel_op].qualified;
    bool addmm = !strcmp(op, "aten::addmm.out"), mm = addmm || !strcmp(op, "aten::mm.out"),
         bmm = !strcmp(op, "aten::bmm.out");
    if (mm || bmm) { /* [B,] N x K by K x M */
        const opgen_tensor *a = s->args[addmm].v.t, *b = s->args[addmm + 1].v.t;
        return 2.0 * (double)opgen_numel(a) * (double)b->sizes[b->dim - 1];
    }
    if (strcmp(op, "aten::convolution.out") || s->nres != 1) return 0;
    const opgen_tensor *in = s->args[0].v.t, *w = s->args[1].v.t;
    double taps =
        (double)opgen_numel(w) / (double)w->sizes[0]; /* per output (input, transposed) element: Cg (Og) x kernel */
    return 2.0 * taps * (double)(s->args[6].v.b ? opgen_numel(in) : opgen_numel(s->res[0]));
}
