/* ExecuTorch methods: load and run (opgen/method.h). Load reads the program twice:
 * once to count what it holds (so opgen_method_memory_of can say, before any
 * memory is given, what load will take), then to fill arrays of exactly those
 * sizes, taken from the caller's arena in one sequence. */
#include "opgen/method.h"
#include "opgen/loops.h"
#include "prim_ops.h"
#include "step.h"
#include <math.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Why load leaves an instruction out of the run (opgen_method_instructions says). */
enum { FOLDED_VIEW = 1, FOLDED_IN_PLACE, FOLDED_IDENTITY };

typedef struct instr {
    uint8_t kind;   /* enum opgen_instr_kind */
    int32_t a, b;   /* as opgen_pte_instr; a JumpFalseCall's b is absolute */
    opgen_step *step;      /* KernelCall */
    const opgen_prim_op *prim; /* KernelCall of an ExecuTorch prim op (no step: on dargs) */
    opgen_ivalue **dargs;  /* DelegateCall, prim op */
    int ndargs;
    const char *op; /* KernelCall: "aten::add.out", for messages */
    int chain, index;
    uint8_t folded; /* not run: FOLDED_VIEW, FOLDED_IN_PLACE (or 0: run) */
} instr;

struct opgen_method {
    const opgen_pte *pte;
    uint64_t rng; /* random ops' generator (the kernels options' seed) */
    opgen_pte_plan plan;
    int nvalues;
    opgen_ivalue *values;
    uint8_t *evkind;   /* enum opgen_ev_kind per value */
    uint8_t *flags;    /* per value: V_MUTABLE, V_CONSTANT */
    instr *code;       /* every chain's instructions, one after another */
    int ncode;
    int *chain_end;    /* per chain: the index after its last instruction */
    int nchains;
    int *inputs, *outputs;
    int ninputs, noutputs;
    int *moved; /* MoveCall destinations, and their values as loaded (restored by each run) */
    opgen_ivalue *moved_init;
    int nmoved;
    uint8_t **buffers;
    int nbuffers;
    void **handles; /* per delegate: its handler's handle */
    const opgen_delegate_handler **handlers;
    int ndelegates;
    size_t work;
    uint64_t max_steps;
    opgen_tensor *bounds; /* per input: the tensor as declared (a dynamic one's sizes are its bound) */
    void (*probe)(void *user, int instruction, int phase);
    void *probe_user;
};

/* A value the method is given or moves into (kernels read it at every call);
 * a tensor whose bytes are the program's (never written). */
enum { V_MUTABLE = 1, V_CONSTANT = 2, V_INPUT = 4 };
/* A scalar input the program declares as Null (a SymInt the exporter left
 * dynamic): it takes the value a run gives, of the kinds its uses accept. */
enum { V_ANY_SCALAR = 8, V_USED_INT = 16, V_USED_FLOAT = 32, V_USED_BOOL = 64 };
/* A tensor input planned at its upper bound (DYNAMIC_BOUND): a run may give it
 * any sizes within the bound, and each kernel sizes its out from its inputs. */
enum { V_DYNAMIC = 128 };

/* What a method holds, counted before anything is allocated. */
typedef struct counts {
    uint32_t nvalues, ninstr, nchains, nkernels, ndelegates, ninputs, noutputs, nmoves, nconvs;
    size_t nargs, npatches, nres, ncands, list_bytes, ndargs;
    int nbuffers;
    size_t planned;
} counts;

typedef struct mloader {
    const opgen_pte *p;
    const opgen_pte_plan *pl;
    const opgen_method_options *opt;
    opgen_method *m;
    opgen_error *err;
    /* pools the kernel calls take their arrays from (sized by counts) */
    opgen_fusion *fusions; /* one per convolution */
    int nfusions;
    opgen_value *args;
    opgen_patch *patches;
    opgen_tensor **res;
    opgen_candidate *cands;
    uint8_t *lists;
    size_t list_used;
    const instr *at; /* the instruction being loaded, for messages */
} mloader;

/* A build trimmed to no op loads no KernelCall (each is refused by name): the
 * code that binds and runs them compiles out. */
#define HAS_OPS (OPGEN_OP_COUNT > 0)

static const opgen_method_options no_options = {NULL, NULL, 0, NULL, 0, 0, NULL, NULL};

#ifdef OPGEN_NO_ERRMSG
#define lfail(L, code, ...) opgen_fail_quiet((L)->err, (code), __VA_ARGS__)
#else
static int32_t vfail(const opgen_pte *p, const opgen_pte_plan *pl, const instr *at, opgen_error *err, int32_t code, const char *fmt, va_list ap) {
    char msg[384], where[160];
    vsnprintf(msg, sizeof msg, fmt, ap);
    if (at && at->op)
        snprintf(where, sizeof where, "method '%s', instruction %d (%s): ", pl->name, at->index, at->op);
    else if (at)
        snprintf(where, sizeof where, "method '%s', instruction %d (%s): ", pl->name, at->index, opgen_instr_kind_name(at->kind));
    else
        snprintf(where, sizeof where, "method '%s': ", pl->name);
    return opgen_fail_at(err, code, p->file, 0, 0, "%s%s", where, msg);
}

static int32_t lfail(mloader *L, int32_t code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static int32_t lfail(mloader *L, int32_t code, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vfail(L->p, L->pl, L->at, L->err, code, fmt, ap);
    va_end(ap);
    return code;
}
#endif

size_t opgen_method_buffer_bytes(const opgen_pte *p, const opgen_pte_plan *pl, int id) {
    if (id < 1 || (uint32_t)id >= pl->buffer_sizes.len) return 0;
    int64_t n = opgen_pte_i64(p, pl->buffer_sizes, (uint32_t)id);
    return n > 0 ? (size_t)n : 0;
}

/* ---- resolving an operator ---- */


/* A KernelCall's operator as "ns::name.overload" (256 bytes at full). */
static int32_t operator_name(const opgen_pte *p, const opgen_pte_plan *pl, const instr *at, int32_t opi, char *full, opgen_error *err) {
    const char *name, *overload;
    if (opi < 0 || opgen_pte_operator_at(p, pl, (uint32_t)opi, &name, &overload, err)) {
        if (opi < 0) opgen_fail_at(err, OPGEN_E_FORMAT, p->file, 0, 0, "method '%s', instruction %d: op_index %d is out of range", pl->name, at->index, (int)opi);
        return OPGEN_E_FORMAT;
    }
    size_t n = strlen(name), o = strlen(overload);
    if (n + o + 2 > 256) return opgen_fail_at(err, OPGEN_E_NOT_FOUND, p->file, 0, 0, "method '%s', instruction %d: an operator name of %zu bytes", pl->name, at->index, n + o);
    memcpy(full, name, n);
    full[n] = '.';
    memcpy(full + n + (o ? 1 : 0), overload, o + 1);
    return OPGEN_OK;
}

/* The prim op a KernelCall calls (aten::sym_size.int, executorch_prim::...), or NULL. */
static const opgen_prim_op *call_prim(const opgen_pte *p, const opgen_pte_plan *pl, const opgen_pte_instr *in) {
    char full[256];
    opgen_error e = {0};
    instr at = {0};
    return operator_name(p, pl, &at, in->a, full, &e) ? NULL : opgen_prim_find(full);
}

/* The kernel op of a KernelCall: its out= variant, an in-place op with a kernel
 * (aten::copy_, as the exporter writes mutated buffers back), or a scalar prim. */
static int32_t kernel_op(const opgen_pte *p, const opgen_pte_plan *pl, const instr *at, int32_t opi, int *kid, const char **qualified, opgen_error *err) {
    char full[256];
    int32_t st = operator_name(p, pl, at, opi, full, err);
    if (st) return st;
    int id = HAS_OPS ? opgen_node_op(full) : -1;
    if (id < 0) { /* the code returned as a constant: a build of no op sees every call fail here */
        if (opgen_selective())
            opgen_fail_at(err, OPGEN_E_NOT_FOUND, p->file, 0, 0, "method '%s', instruction %d (%s): %s is left out of this build's selection (%s)", pl->name, at->index, full, full, opgen_selection());
        else
            opgen_fail_at(err, OPGEN_E_NOT_FOUND, p->file, 0, 0, "method '%s', instruction %d: unknown operator %s", pl->name, at->index, full);
        return OPGEN_E_NOT_FOUND;
    }
    bool inplace = opgen_ops[id].kind == OPGEN_KIND_INPLACE && opgen_registry[id].fn;
    if (opgen_ops[id].kind != OPGEN_KIND_OUT && !inplace && !opgen_is_scalar_op(id))
        return opgen_fail_at(err, OPGEN_E_INVALID, p->file, 0, 0, "method '%s', instruction %d: %s is not an out= variant; ExecuTorch programs call those", pl->name, at->index, full);
    *kid = id;
    *qualified = opgen_ops[id].qualified;
    return OPGEN_OK;
}

/* Bytes a list argument takes from the lists pool (8-aligned pieces). */
static size_t list_piece(size_t n) { return (n + 7) & ~(size_t)7; }

static int32_t count_kernel_call(const opgen_pte *p, const opgen_pte_plan *pl, const opgen_pte_instr *in, const instr *at, const opgen_method_options *opt, counts *c, opgen_error *err) {
    int kid = 0; /* set by kernel_op (a compiler may not see it never fails with 0) */
    const char *q = "";
    if (kernel_op(p, pl, at, in->a, &kid, &q, err)) return err->code;
    const opgen_op *kop = &opgen_ops[kid];
    c->nkernels++;
    c->nconvs += !strcmp(q, "aten::convolution.out"); /* each may fuse what follows it (opgen_fusion) */
    c->nargs += (size_t)kop->nargs + (opgen_is_scalar_op(kid) ? kop->nrets : 0) + 1;
    c->npatches += (size_t)kop->nargs + 1;
    c->ncands += (size_t)opgen_step_ncandidates(kid, opt->kernels);
    for (int ai = 0; ai < kop->nargs && (uint32_t)ai < in->args.len; ai++) {
        const opgen_arg *ka = &opgen_args[kop->first_arg + (unsigned)ai];
        c->nres += (ka->flags & OPGEN_ARG_OUT) != 0; /* a list out: its items, below */
        if (ka->abi != OPGEN_ABI_INT_LIST && ka->abi != OPGEN_ABI_OPT_INT_LIST && ka->abi != OPGEN_ABI_FLOAT_LIST && ka->abi != OPGEN_ABI_OPT_FLOAT_LIST &&
            ka->abi != OPGEN_ABI_BOOL_LIST && ka->abi != OPGEN_ABI_TENSOR_LIST)
            continue; /* only lists take memory of their own */
        int32_t vi = opgen_pte_i32(p, in->args, (uint32_t)ai);
        opgen_pte_value v;
        if (vi < 0 || (uint32_t)vi >= pl->values.len || opgen_pte_value_at(p, pl, (uint32_t)vi, &v, err)) continue; /* reported when bound */
        if (v.kind == OPGEN_EV_INT_LIST) c->list_bytes += list_piece(8 * (size_t)v.items.len), c->npatches += v.items.len;
        if (v.kind == OPGEN_EV_DOUBLE_LIST) c->list_bytes += list_piece(8 * (size_t)v.items.len);
        if (v.kind == OPGEN_EV_BOOL_LIST) c->list_bytes += list_piece(v.items.len);
        if (v.kind == OPGEN_EV_TENSOR_LIST || v.kind == OPGEN_EV_OPT_TENSOR_LIST) c->list_bytes += list_piece(sizeof(void *) * (size_t)v.items.len);
        if ((v.kind == OPGEN_EV_TENSOR_LIST || v.kind == OPGEN_EV_OPT_TENSOR_LIST) && ka->flags & OPGEN_ARG_OUT) c->nres += v.items.len;
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
        if (vi >= 0 && (uint32_t)vi < pl->values.len && !opgen_pte_value_at(p, pl, (uint32_t)vi, &v, &e) && v.kind == OPGEN_EV_INT_LIST) n += v.items.len;
    }
    return n;
}

static int32_t count_method(const opgen_pte *p, const opgen_pte_plan *pl, const opgen_method_options *opt, counts *c, opgen_error *err) {
    memset(c, 0, sizeof *c);
    c->nvalues = pl->values.len;
    c->nchains = pl->chains.len;
    c->ndelegates = pl->delegates.len;
    c->ninputs = pl->inputs.len;
    c->noutputs = pl->outputs.len;
    c->nbuffers = pl->buffer_sizes.len > 1 ? (int)pl->buffer_sizes.len - 1 : 0; /* entry 0 is reserved */
    for (int b = 1; b <= c->nbuffers; b++) {
        int64_t n = opgen_pte_i64(p, pl->buffer_sizes, (uint32_t)b);
        if (n < 0 || (uint64_t)n > SIZE_MAX / 4) return opgen_fail_at(err, OPGEN_E_FORMAT, p->file, 0, 0, "method '%s': planned buffer %d has size %lld", pl->name, b, (long long)n);
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
            if (in.kind == OPGEN_INSTR_KERNEL && call_prim(p, pl, &in)) {
                c->ndargs += in.args.len + count_list_items(p, pl, &in);
                continue;
            }
            if (in.kind == OPGEN_INSTR_KERNEL && count_kernel_call(p, pl, &in, &at, opt, c, err)) return err->code;
        }
    }
    return OPGEN_OK;
}

/* The arrays load takes, in the order it takes them (each an arena allocation). */
#define METHOD_ARRAYS(X, c)                                          \
    X(sizeof(opgen_method))                                          \
    X(sizeof(opgen_ivalue) * (c)->nvalues)                           \
    X((size_t)(c)->nvalues)                                          \
    X((size_t)(c)->nvalues)                                          \
    X(sizeof(instr) * (c)->ninstr)                                   \
    X(sizeof(int) * (c)->nchains)                                    \
    X(sizeof(int) * (c)->ninputs)                                    \
    X(sizeof(int) * (c)->noutputs)                                   \
    X(sizeof(int) * (c)->nmoves)                                     \
    X(sizeof(opgen_ivalue) * (c)->nmoves)                            \
    X(sizeof(uint8_t *) * (size_t)(c)->nbuffers)                     \
    X(sizeof(void *) * (c)->ndelegates)                              \
    X(sizeof(void *) * (c)->ndelegates)                              \
    X(sizeof(opgen_step) * (c)->nkernels)                            \
    X(sizeof(opgen_value) * (c)->nargs)                              \
    X(sizeof(opgen_patch) * (c)->npatches)                           \
    X(sizeof(opgen_tensor *) * (c)->nres)                            \
    X(sizeof(opgen_candidate) * (c)->ncands)                         \
    X((c)->list_bytes)                                               \
    X(sizeof(opgen_ivalue *) * (c)->ndargs)                          \
    X(sizeof(opgen_tensor) * (c)->ninputs)                           \
    X(sizeof(opgen_fusion) * (c)->nconvs)

static size_t load_bytes(const counts *c, const opgen_pte *p, const opgen_pte_plan *pl, bool buffers_given) {
    size_t n = 0;
#define ADD_COST(bytes) n += opgen_arena_cost(bytes);
    METHOD_ARRAYS(ADD_COST, c)
#undef ADD_COST
    for (int b = 1; !buffers_given && b <= c->nbuffers; b++) n += opgen_arena_cost(opgen_method_buffer_bytes(p, pl, b));
    return n;
}

int32_t opgen_method_memory_of(const opgen_pte *p, const char *method, const opgen_method_options *opt, opgen_method_memory *mem, opgen_error *err) {
    opgen_pte_plan pl;
    counts c;
    if (!opt) opt = &no_options;
    memset(mem, 0, sizeof *mem);
    if (opgen_pte_plan_find(p, method, &pl, err) || count_method(p, &pl, opt, &c, err)) return err->code;
    mem->load_bytes = load_bytes(&c, p, &pl, opt->buffers != NULL);
    mem->planned_bytes = c.planned;
    mem->nbuffers = c.nbuffers;
    return OPGEN_OK;
}

/* ---- values ---- */

/* A Bool tensor's bytes from the program hold 0 and 1 only (kernels read bool). */
static int32_t check_bools(mloader *L, int i, const opgen_tensor *t, const void *data) {
    int64_t bad = t->dtype == OPGEN_DTYPE_Bool ? opgen_bool_check(data, opgen_numel(t)) : -1;
    if (bad >= 0) return lfail(L, OPGEN_E_FORMAT, "value %d, a Bool tensor, holds %u at element %lld: not 0 or 1", i, ((const unsigned char *)data)[bad], (long long)bad);
    return OPGEN_OK;
}

/* Where a tensor's bytes are: a constant in the program, its planned buffer, or
 * nowhere yet (an input given at run). */
static int32_t place_tensor(mloader *L, int i, const opgen_pte_tensor *pt, opgen_tensor *t) {
    size_t nbytes = opgen_nbytes(t);
    const void *data = NULL;
    if (pt->planned) {
        if (pt->memory_id < 1 || pt->memory_id > (uint32_t)L->m->nbuffers) /* unsigned: ids past INT_MAX too */
            return lfail(L, OPGEN_E_FORMAT, "value %d is planned in buffer %u, and the method has %d", i, (unsigned)pt->memory_id, L->m->nbuffers);
        size_t size = opgen_method_buffer_bytes(L->p, L->pl, (int)pt->memory_id);
        if (pt->memory_offset > size || nbytes > size - pt->memory_offset)
            return lfail(L, OPGEN_E_FORMAT, "value %d (%zu bytes at offset %llu) lies outside planned buffer %u (%zu bytes)", i, nbytes, (unsigned long long)pt->memory_offset, (unsigned)pt->memory_id, size);
        if (pt->memory_offset % (uint64_t)opgen_dtype_size(t->dtype))
            return lfail(L, OPGEN_E_FORMAT, "value %d is planned at offset %llu, not a multiple of its %d-byte elements", i, (unsigned long long)pt->memory_offset, opgen_dtype_size(t->dtype));
        t->data = L->m->buffers[pt->memory_id - 1] + pt->memory_offset;
        t->capacity = nbytes;
        if (pt->data_buffer_idx) { /* initial contents (a mutable buffer) */
            if (opgen_pte_mutable_data(L->p, pt->data_buffer_idx, nbytes, &data, L->err)) return L->err->code;
            if (check_bools(L, i, t, data)) return L->err->code;
            memcpy(t->data, data, nbytes);
        }
    } else if (pt->data_buffer_idx) {
        if (opgen_pte_constant(L->p, pt->data_buffer_idx, nbytes, &data, L->err)) return L->err->code;
        if ((uintptr_t)data % (uintptr_t)opgen_dtype_size(t->dtype))
            return lfail(L, OPGEN_E_INVALID, "constant value %d is not aligned to its %d-byte elements: give the program's bytes at an address aligned to 16", i, opgen_dtype_size(t->dtype));
        if (check_bools(L, i, t, data)) return L->err->code;
        t->data = (void *)(uintptr_t)data; /* used in place: kernels never write constants (outs must be planned) */
        t->capacity = nbytes;
        L->m->flags[i] |= V_CONSTANT;
    }
    return OPGEN_OK;
}

static int32_t load_tensor(mloader *L, int i, const opgen_pte_tensor *pt, opgen_tensor *t) {
    if (pt->storage_offset) return lfail(L, OPGEN_E_NOT_IMPLEMENTED, "value %d has storage offset %d; only 0 is supported (as in ExecuTorch)", i, (int)pt->storage_offset);
    if (pt->shape_dynamism == OPGEN_PTE_DYNAMIC_UNBOUND) return lfail(L, OPGEN_E_NOT_IMPLEMENTED, "value %d has an unbounded dynamic shape", i);
    if (pt->external) return lfail(L, OPGEN_E_NOT_IMPLEMENTED, "value %d keeps its data outside the program (a .ptd file), which opgen does not load", i);
    if (pt->scalar_type < 0 || pt->scalar_type >= 32 || !opgen_dtype_size((opgen_dtype)pt->scalar_type))
        return lfail(L, OPGEN_E_DTYPE, "value %d has scalar type %d, which opgen does not know", i, pt->scalar_type);
    if (pt->sizes.len > OPGEN_MAX_DIM) return lfail(L, OPGEN_E_SHAPE, "value %d has %u dimensions (at most %d)", i, (unsigned)pt->sizes.len, OPGEN_MAX_DIM);
    if (pt->dim_order.len && pt->dim_order.len != pt->sizes.len)
        return lfail(L, OPGEN_E_FORMAT, "value %d has %u sizes and a dim order of %u", i, (unsigned)pt->sizes.len, (unsigned)pt->dim_order.len);
    int64_t sizes[OPGEN_MAX_DIM];
    uint8_t order[OPGEN_MAX_DIM];
    for (uint32_t d = 0; d < pt->sizes.len; d++) {
        sizes[d] = opgen_pte_i32(L->p, pt->sizes, d);
        order[d] = pt->dim_order.len ? opgen_pte_u8(L->p, pt->dim_order, d) : (uint8_t)d;
    }
    opgen_error e = {0};
    if (opgen_tensor_shape_ordered(t, (opgen_dtype)pt->scalar_type, (int32_t)pt->sizes.len, sizes, order, &e)) return lfail(L, e.code, "value %d: %s", i, e.msg);
    if (pt->shape_dynamism == OPGEN_PTE_DYNAMIC_BOUND) L->m->flags[i] |= V_DYNAMIC;
    return place_tensor(L, i, pt, t);
}

static int32_t load_values(mloader *L) {
    opgen_method *m = L->m;
    for (int i = 0; i < m->nvalues; i++) {
        opgen_pte_value v;
        if (opgen_pte_value_at(L->p, L->pl, (uint32_t)i, &v, L->err)) return L->err->code;
        opgen_ivalue *iv = &m->values[i];
        m->evkind[i] = (uint8_t)v.kind;
        iv->kind = OPGEN_GV_OTHER;
        if (v.kind == OPGEN_EV_INT) iv->kind = OPGEN_GV_INT, iv->i = v.i;
        if (v.kind == OPGEN_EV_BOOL) iv->kind = OPGEN_GV_BOOL, iv->b = v.b;
        if (v.kind == OPGEN_EV_DOUBLE) iv->kind = OPGEN_GV_FLOAT, iv->f = v.f;
        if (v.kind == OPGEN_EV_TENSOR) {
            iv->kind = OPGEN_GV_TENSOR;
            if (load_tensor(L, i, &v.t, &iv->t)) return L->err->code;
        }
    }
    return OPGEN_OK;
}

/* Values the method is given or moves into: kernels read them at every call. */
static int32_t load_io(mloader *L) {
    opgen_method *m = L->m;
    for (int k = 0; k < 2; k++) {
        opgen_pte_vec v = k ? L->pl->outputs : L->pl->inputs;
        int *dst = k ? m->outputs : m->inputs;
        for (uint32_t j = 0; j < v.len; j++) {
            int32_t i = opgen_pte_i32(L->p, v, j);
            if (i < 0 || i >= m->nvalues) return lfail(L, OPGEN_E_FORMAT, "%s %u is value %d, out of range (%d values)", k ? "output" : "input", (unsigned)j, (int)i, m->nvalues);
            int kind = m->values[i].kind;
            if (!k && m->evkind[i] == OPGEN_EV_NULL) m->flags[i] |= V_ANY_SCALAR;
            else if (!k && kind != OPGEN_GV_TENSOR && kind != OPGEN_GV_INT && kind != OPGEN_GV_FLOAT && kind != OPGEN_GV_BOOL)
                return lfail(L, OPGEN_E_NOT_IMPLEMENTED, "input %u is a%s %s; opgen takes tensors and scalars", (unsigned)j, m->evkind[i] == OPGEN_EV_INT_LIST ? "n" : "", opgen_ev_kind_name(m->evkind[i]));
            dst[j] = i;
            if (!k) m->flags[i] |= V_MUTABLE | V_INPUT, m->bounds[j] = m->values[i].t;
        }
    }
    m->ninputs = (int)L->pl->inputs.len;
    m->noutputs = (int)L->pl->outputs.len;
    return OPGEN_OK;
}

/* ---- binding a KernelCall's arguments ---- */

static void *take_list(mloader *L, size_t n) {
    void *p = L->lists + L->list_used;
    L->list_used += list_piece(n);
    return p;
}

/* Value e may stand in an int list: an Int, or a Null input (an int each run,
 * noted so a run refuses another kind). */
static bool int_element(mloader *L, int64_t e) {
    if (e < 0 || e >= L->m->nvalues) return false;
    if (L->m->flags[e] & V_ANY_SCALAR) L->m->flags[e] |= V_USED_INT;
    return L->m->evkind[e] == OPGEN_EV_INT || L->m->flags[e] & V_ANY_SCALAR;
}

static int32_t bind_int_list(mloader *L, opgen_step *s, int ai, int32_t vi, const opgen_arg *ka) {
    opgen_pte_value pv;
    if (opgen_pte_value_at(L->p, L->pl, (uint32_t)vi, &pv, L->err)) return L->err->code;
    int64_t *items = take_list(L, 8 * (size_t)pv.items.len);
    for (uint32_t k = 0; k < pv.items.len; k++) {
        int64_t e = opgen_pte_i64(L->p, pv.items, k);
        if (!int_element(L, e)) return lfail(L, OPGEN_E_FORMAT, "argument '%s': element %u of list value %d is value %lld, not an Int", ka->name, (unsigned)k, (int)vi, (long long)e);
        items[k] = L->m->values[e].kind == OPGEN_GV_INT ? L->m->values[e].i : 0;
        if (L->m->flags[e] & V_MUTABLE) s->patches[s->npatches++] = (opgen_patch){ai, (int)e, ka->abi, (int)k};
    }
    s->args[ai].v.il = (opgen_int_list){items, pv.items.len};
    return OPGEN_OK;
}

static int32_t bind_tensor_list(mloader *L, opgen_step *s, int ai, int32_t vi, const opgen_arg *ka) {
    opgen_pte_value pv;
    if (opgen_pte_value_at(L->p, L->pl, (uint32_t)vi, &pv, L->err)) return L->err->code;
    const opgen_tensor **ts = take_list(L, sizeof(void *) * (size_t)pv.items.len);
    for (uint32_t k = 0; k < pv.items.len; k++) {
        int32_t e = opgen_pte_i32(L->p, pv.items, k);
        ts[k] = NULL;
        if (e == -1 && pv.kind == OPGEN_EV_OPT_TENSOR_LIST) continue;
        if (e < 0 || e >= L->m->nvalues || L->m->evkind[e] != OPGEN_EV_TENSOR)
            return lfail(L, OPGEN_E_FORMAT, "argument '%s': element %u of list value %d is value %d, not a Tensor", ka->name, (unsigned)k, (int)vi, (int)e);
        ts[k] = &L->m->values[e].t;
    }
    s->args[ai].v.tl = (opgen_tensor_list){(const opgen_tensor *const *)ts, pv.items.len};
    return OPGEN_OK;
}

static int32_t bind_scalar_list(mloader *L, opgen_step *s, int ai, int32_t vi, bool doubles) {
    opgen_pte_value pv;
    if (opgen_pte_value_at(L->p, L->pl, (uint32_t)vi, &pv, L->err)) return L->err->code;
    if (doubles) {
        double *d = take_list(L, 8 * (size_t)pv.items.len);
        for (uint32_t k = 0; k < pv.items.len; k++) d[k] = opgen_pte_f64(L->p, pv.items, k);
        s->args[ai].v.fl = (opgen_float_list){d, pv.items.len};
    } else {
        bool *b = take_list(L, pv.items.len);
        for (uint32_t k = 0; k < pv.items.len; k++) b[k] = opgen_pte_u8(L->p, pv.items, k) != 0;
        s->args[ai].v.bl = (opgen_bool_list){b, pv.items.len};
    }
    return OPGEN_OK;
}

/* c10's MemoryFormat numbering (Contiguous 0, Preserve 1, ChannelsLast 2,
 * ChannelsLast3d 3) as the graph format's. */
static int32_t memory_format(int64_t v) {
    static const int32_t of[] = {OPGEN_MEMFMT_CONTIGUOUS, OPGEN_MEMFMT_PRESERVE, OPGEN_MEMFMT_CHANNELS_LAST, OPGEN_MEMFMT_CHANNELS_LAST_3D};
    return v >= 0 && v < 4 ? of[v] : -1;
}

/* A scalar argument: its value now, refreshed at each call when the method
 * is given it or moves into it. */
static int32_t bind_scalar(mloader *L, opgen_step *s, int ai, int32_t vi, const opgen_arg *ka, int ev) {
    opgen_value *v = &s->args[ai];
    const opgen_ivalue *iv = &L->m->values[vi];
    int abi = ka->abi;
    bool ok = true;
    switch (abi) {
    case OPGEN_ABI_INT: case OPGEN_ABI_OPT_INT: ok = ev == OPGEN_EV_INT; v->v.i = iv->i; break;
    case OPGEN_ABI_FLOAT: case OPGEN_ABI_OPT_FLOAT: ok = ev == OPGEN_EV_DOUBLE || ev == OPGEN_EV_INT; v->v.f = ev == OPGEN_EV_INT ? (double)iv->i : iv->f; break;
    case OPGEN_ABI_BOOL: case OPGEN_ABI_OPT_BOOL: ok = ev == OPGEN_EV_BOOL; v->v.b = iv->b; break;
    case OPGEN_ABI_SCALAR:
    case OPGEN_ABI_OPT_SCALAR:
        ok = ev == OPGEN_EV_INT || ev == OPGEN_EV_DOUBLE || ev == OPGEN_EV_BOOL;
        if (ev == OPGEN_EV_INT) v->v.s.dtype = OPGEN_DTYPE_Long, v->v.s.v.i = iv->i;
        if (ev == OPGEN_EV_DOUBLE) v->v.s.dtype = OPGEN_DTYPE_Double, v->v.s.v.f = iv->f;
        if (ev == OPGEN_EV_BOOL) v->v.s.dtype = OPGEN_DTYPE_Bool, v->v.s.v.b = iv->b;
        break;
    case OPGEN_ABI_DTYPE:
    case OPGEN_ABI_OPT_DTYPE:
        ok = ev == OPGEN_EV_INT && iv->i >= 0 && iv->i < 32 && opgen_dtype_size((opgen_dtype)iv->i);
        v->v.d = (opgen_dtype)iv->i;
        return ok ? OPGEN_OK : lfail(L, OPGEN_E_INVALID, "argument '%s' (%s) is value %d, not a known ScalarType", ka->name, ka->type, (int)vi);
    case OPGEN_ABI_ENUM:
    case OPGEN_ABI_OPT_ENUM:
        ok = ev == OPGEN_EV_INT;
        v->v.e = strstr(ka->type, "MemoryFormat") ? memory_format(iv->i) : (int32_t)iv->i;
        ok = ok && v->v.e >= 0;
        break;
    default: ok = false; break;
    }
    if (!ok) return lfail(L, OPGEN_E_INVALID, "argument '%s' (%s) is value %d, a%s %s", ka->name, ka->type, (int)vi, ev == OPGEN_EV_INT ? "n" : "", opgen_ev_kind_name(ev));
    if (L->m->flags[vi] & V_MUTABLE && abi != OPGEN_ABI_DTYPE && abi != OPGEN_ABI_OPT_DTYPE && abi != OPGEN_ABI_ENUM && abi != OPGEN_ABI_OPT_ENUM)
        s->patches[s->npatches++] = (opgen_patch){ai, vi, abi, -1};
    return OPGEN_OK;
}

/* An argument from a Null-declared scalar input: patched from the value each run
 * gives (an Int 0 until then: what the meta step at load sees); the kinds its
 * uses accept are noted for the run to check. */
static int32_t bind_any_scalar(mloader *L, opgen_step *s, int ai, int32_t vi, const opgen_arg *ka) {
    opgen_value *v = &s->args[ai];
    uint8_t *f = &L->m->flags[vi];
    switch (ka->abi) {
    case OPGEN_ABI_SCALAR: case OPGEN_ABI_OPT_SCALAR: v->v.s.dtype = OPGEN_DTYPE_Long, v->v.s.v.i = 0; *f |= V_USED_INT | V_USED_FLOAT | V_USED_BOOL; break;
    case OPGEN_ABI_INT: case OPGEN_ABI_OPT_INT: v->v.i = 0; *f |= V_USED_INT; break;
    case OPGEN_ABI_FLOAT: case OPGEN_ABI_OPT_FLOAT: v->v.f = 0; *f |= V_USED_INT | V_USED_FLOAT; break;
    case OPGEN_ABI_BOOL: case OPGEN_ABI_OPT_BOOL: v->v.b = false; *f |= V_USED_BOOL; break;
    default: return lfail(L, OPGEN_E_NOT_IMPLEMENTED, "argument '%s' (%s) is value %d, a scalar input declared Null; opgen takes those as Scalar, int, float or bool arguments", ka->name, ka->type, (int)vi);
    }
    s->patches[s->npatches++] = (opgen_patch){ai, vi, ka->abi, -1};
    return OPGEN_OK;
}

static int32_t bind_arg(mloader *L, opgen_step *s, int ai, int32_t vi) {
    const opgen_arg *ka = &opgen_args[opgen_ops[s->kernel_op].first_arg + (unsigned)ai];
    if (vi < 0 || vi >= L->m->nvalues) return lfail(L, OPGEN_E_FORMAT, "argument '%s' is value %d, out of range (%d values)", ka->name, (int)vi, L->m->nvalues);
    int ev = L->m->evkind[vi], abi = ka->abi;
    opgen_value *v = &s->args[ai];
    if (L->m->flags[vi] & V_ANY_SCALAR) return bind_any_scalar(L, s, ai, vi, ka);
    if (ev == OPGEN_EV_NULL || ev == OPGEN_EV_NONE) {
        if (!opgen_abi_optional(abi)) return lfail(L, OPGEN_E_INVALID, "argument '%s' (%s) cannot be None", ka->name, ka->type);
        v->none = true;
        return OPGEN_OK;
    }
    switch (abi) {
    case OPGEN_ABI_TENSOR:
    case OPGEN_ABI_OPT_TENSOR:
        if (ev != OPGEN_EV_TENSOR) break;
        v->v.t = &L->m->values[vi].t;
        return OPGEN_OK;
    case OPGEN_ABI_TENSOR_LIST: return ev == OPGEN_EV_TENSOR_LIST || ev == OPGEN_EV_OPT_TENSOR_LIST ? bind_tensor_list(L, s, ai, vi, ka) : lfail(L, OPGEN_E_INVALID, "argument '%s' (%s) is value %d, a %s", ka->name, ka->type, (int)vi, opgen_ev_kind_name(ev));
    case OPGEN_ABI_INT_LIST:
    case OPGEN_ABI_OPT_INT_LIST:
        if (ev == OPGEN_EV_INT_LIST) return bind_int_list(L, s, ai, vi, ka);
        break;
    case OPGEN_ABI_FLOAT_LIST:
    case OPGEN_ABI_OPT_FLOAT_LIST:
        if (ev == OPGEN_EV_DOUBLE_LIST) return bind_scalar_list(L, s, ai, vi, true);
        break;
    case OPGEN_ABI_BOOL_LIST:
        if (ev == OPGEN_EV_BOOL_LIST) return bind_scalar_list(L, s, ai, vi, false);
        break;
    case OPGEN_ABI_STR:
    case OPGEN_ABI_OPT_STR: {
        opgen_pte_value pv;
        if (ev != OPGEN_EV_STRING) break;
        if (opgen_pte_value_at(L->p, L->pl, (uint32_t)vi, &pv, L->err)) return L->err->code;
        v->v.str = pv.str;
        return OPGEN_OK;
    }
    case OPGEN_ABI_SCALAR_LIST:
    case OPGEN_ABI_OPAQUE: break;
    default: return bind_scalar(L, s, ai, vi, ka, ev);
    }
    return lfail(L, OPGEN_E_INVALID, "argument '%s' (%s) is value %d, a%s %s", ka->name, ka->type, (int)vi, ev == OPGEN_EV_INT || ev == OPGEN_EV_INT_LIST ? "n" : "", opgen_ev_kind_name(ev));
}

/* Value a is value b, or a tensor of the same type over the same planned bytes, or
 * a list of such (the emitter gives an in-place op's result, and a list out's, a
 * value of its own). */
static bool same_tensor(const mloader *L, int32_t a, int32_t b) {
    if (a == b) return true;
    if (a < 0 || a >= L->m->nvalues || b < 0 || b >= L->m->nvalues) return false;
    if (L->m->evkind[a] == OPGEN_EV_TENSOR_LIST && L->m->evkind[b] == OPGEN_EV_TENSOR_LIST) { /* a list out, returned as a list of its own */
        opgen_pte_value x, y;
        opgen_error e = {0};
        if (opgen_pte_value_at(L->p, L->pl, (uint32_t)a, &x, &e) || opgen_pte_value_at(L->p, L->pl, (uint32_t)b, &y, &e) || x.items.len != y.items.len) return false;
        for (uint32_t k = 0; k < x.items.len; k++)
            if (!same_tensor(L, opgen_pte_i32(L->p, x.items, k), opgen_pte_i32(L->p, y.items, k))) return false;
        return true;
    }
    if (L->m->evkind[a] != OPGEN_EV_TENSOR || L->m->evkind[b] != OPGEN_EV_TENSOR) return false;
    const opgen_tensor *x = &L->m->values[a].t, *y = &L->m->values[b].t;
    return x->data && x->data == y->data && x->dtype == y->dtype && x->dim == y->dim && !memcmp(x->sizes, y->sizes, sizeof(int64_t) * (size_t)x->dim);
}

/* The returned values after the arguments: the outs again (an in-place op's:
 * what it writes), or (several results) one TensorList of them. */
static int32_t check_returns(mloader *L, const opgen_pte_instr *in, const opgen_op *kop) {
    uint32_t n = kop->nargs, extra = in->args.len - n;
    int nouts = 0, outs[16];
    unsigned writes = kop->kind == OPGEN_KIND_INPLACE ? OPGEN_ARG_WRITE : OPGEN_ARG_OUT; /* an in-place op returns what it writes */
    for (int ai = 0; ai < kop->nargs; ai++)
        if (opgen_args[kop->first_arg + (unsigned)ai].flags & writes && nouts < 16) outs[nouts++] = opgen_pte_i32(L->p, in->args, (uint32_t)ai);
    if (extra == (uint32_t)nouts) {
        for (uint32_t r = 0; r < extra; r++)
            if (!same_tensor(L, opgen_pte_i32(L->p, in->args, n + r), outs[r]))
                return lfail(L, OPGEN_E_FORMAT, "returned value %u is value %d, not its out (value %d)", (unsigned)r, (int)(opgen_pte_i32(L->p, in->args, n + r)), outs[r]);
        return OPGEN_OK;
    }
    int32_t ri = opgen_pte_i32(L->p, in->args, n);
    opgen_pte_value pv;
    if (extra != 1 || ri < 0 || ri >= L->m->nvalues || opgen_pte_value_at(L->p, L->pl, (uint32_t)ri, &pv, L->err) || pv.kind != OPGEN_EV_TENSOR_LIST || pv.items.len != (uint32_t)nouts)
        return L->err->code ? L->err->code : lfail(L, OPGEN_E_FORMAT, "%u arguments; %s takes %d and returns %d", (unsigned)in->args.len, kop->qualified, kop->nargs, nouts);
    for (int r = 0; r < nouts; r++)
        if (opgen_pte_i32(L->p, pv.items, (uint32_t)r) != outs[r]) return lfail(L, OPGEN_E_FORMAT, "the returned list's element %d is not its out (value %d)", r, outs[r]);
    return OPGEN_OK;
}

/* The index of the value holding tensor t (a list's element). */
static int32_t value_of(const mloader *L, const opgen_tensor *t) { return (int32_t)((const opgen_ivalue *)(const void *)((const char *)t - offsetof(opgen_ivalue, t)) - L->m->values); }

/* A tensor a kernel reads has bytes: a constant's, planned ones, or (given at
 * run) an input's. */
static int32_t has_memory(mloader *L, const opgen_step *s, int ai, int32_t vi) {
    const opgen_arg *ka = &opgen_args[opgen_ops[s->kernel_op].first_arg + (unsigned)ai];
    const opgen_value *v = &s->args[ai];
    if (ka->flags & OPGEN_ARG_OUT || v->none) return OPGEN_OK;
    if ((ka->abi == OPGEN_ABI_TENSOR || ka->abi == OPGEN_ABI_OPT_TENSOR) && !v->v.t->data && !(L->m->flags[vi] & V_INPUT))
        return lfail(L, OPGEN_E_FORMAT, "it reads value %d, which has no memory (neither a constant, nor planned, nor an input)", (int)vi);
    for (size_t k = 0; ka->abi == OPGEN_ABI_TENSOR_LIST && k < v->v.tl.len; k++) {
        const opgen_tensor *t = v->v.tl.data[k];
        if (t && !t->data && !(L->m->flags[value_of(L, t)] & V_INPUT))
            return lfail(L, OPGEN_E_FORMAT, "its list argument '%s' holds value %d, which has no memory", ka->name, (int)(value_of(L, t)));
    }
    return OPGEN_OK;
}

/* An out: a planned tensor, or (Tensor(a!)[]) a list of them, each planned on its
 * own; each becomes a result the step writes. */
static int32_t bind_out(mloader *L, opgen_step *s, int ai, int32_t vi) {
    const char *name = opgen_args[opgen_ops[s->kernel_op].first_arg + (unsigned)ai].name;
    const opgen_value *v = &s->args[ai];
    bool list = opgen_args[opgen_ops[s->kernel_op].first_arg + (unsigned)ai].abi == OPGEN_ABI_TENSOR_LIST;
    size_t n = list ? v->v.tl.len : 1;
    for (size_t k = 0; k < n; k++) {
        const opgen_tensor *t = list ? v->v.tl.data[k] : v->none ? NULL : v->v.t;
        int32_t ti = list && t ? value_of(L, t) : vi;
        if (!t || !t->data || L->m->flags[ti] & V_CONSTANT) {
            if (list) return lfail(L, OPGEN_E_INVALID, "its out '%s' (value %d): its tensor %zu (value %d) has no planned memory to write", name, (int)vi, k, (int)ti);
            return lfail(L, OPGEN_E_INVALID, "its out '%s' (value %d) has no planned memory to write", name, (int)vi);
        }
        s->res[s->nres++] = (opgen_tensor *)(uintptr_t)t;
    }
    return OPGEN_OK;
}

static int32_t load_kernel_call(mloader *L, instr *ins, const opgen_pte_instr *in) {
    int kid = 0;
    if (kernel_op(L->p, L->pl, ins, in->a, &kid, &ins->op, L->err)) return L->err->code;
    const opgen_op *kop = &opgen_ops[kid];
    opgen_step *s = ins->step;
    s->name = ins->op;
    s->rng = &L->m->rng;
    s->par = L->opt->kernels ? L->opt->kernels->parallel : NULL;
    s->op = opgen_functional_of(kid);
    s->scalar = opgen_is_scalar_op(kid);
    if (s->scalar) return lfail(L, OPGEN_E_NOT_IMPLEMENTED, "scalar prims are not run from .pte programs yet");
    if (in->args.len < kop->nargs) return lfail(L, OPGEN_E_FORMAT, "%u arguments; %s takes %d and returns %d", (unsigned)in->args.len, kop->qualified, kop->nargs, kop->nrets);
    opgen_error kerr = {0};
    if (opgen_step_kernels(s, kid, L->opt->kernels, L->cands, &kerr)) return lfail(L, kerr.code, "%s", kerr.msg);
    L->cands += s->ncands;
    s->args = L->args, L->args += kop->nargs + 1;
    s->patches = L->patches; /* the pool holds enough for every argument and list element */
    s->res = L->res;
    s->nargs = kop->nargs;
    for (int ai = 0; ai < kop->nargs; ai++) {
        int32_t vi = opgen_pte_i32(L->p, in->args, (uint32_t)ai);
        if (bind_arg(L, s, ai, vi) || has_memory(L, s, ai, vi)) return L->err->code;
        unsigned flags = opgen_args[kop->first_arg + (unsigned)ai].flags;
        if (flags & OPGEN_ARG_WRITE && !(flags & OPGEN_ARG_OUT) && !s->args[ai].none && L->m->flags[vi] & V_CONSTANT)
            return lfail(L, OPGEN_E_INVALID, "it writes '%s' (value %d) in place, a constant", opgen_args[kop->first_arg + (unsigned)ai].name, (int)vi);
        if (!(flags & OPGEN_ARG_OUT)) continue;
        if (bind_out(L, s, ai, vi)) return L->err->code;
    }
    L->res += s->nres;
    L->patches += s->npatches;
    return check_returns(L, in, kop);
}

/* ---- instructions ---- */

static int32_t load_control(mloader *L, instr *ins, const opgen_pte_instr *in, int chain_len, int base) {
    opgen_method *m = L->m;
    int n = m->nvalues;
    switch (in->kind) {
    case OPGEN_INSTR_MOVE:
        if (in->a < 0 || in->a >= n || in->b < 0 || in->b >= n) return lfail(L, OPGEN_E_FORMAT, "moves value %d to value %d (the method has %d)", (int)in->a, (int)in->b, n);
        if (m->evkind[in->a] != m->evkind[in->b])
            return lfail(L, OPGEN_E_FORMAT, "moves a%s %s into a%s %s", m->evkind[in->a] == OPGEN_EV_INT ? "n" : "", opgen_ev_kind_name(m->evkind[in->a]), m->evkind[in->b] == OPGEN_EV_INT ? "n" : "", opgen_ev_kind_name(m->evkind[in->b]));
        if (m->flags[in->b] & V_CONSTANT) return lfail(L, OPGEN_E_FORMAT, "moves into constant value %d", (int)in->b);
        if (m->evkind[in->a] == OPGEN_EV_TENSOR && !m->values[in->a].t.data && !(m->flags[in->a] & V_INPUT))
            return lfail(L, OPGEN_E_FORMAT, "moves value %d, which has no memory (neither a constant, nor planned, nor an input)", (int)in->a);
        return OPGEN_OK;
    case OPGEN_INSTR_JUMP_FALSE:
        if (in->a < 0 || in->a >= n || (m->evkind[in->a] != OPGEN_EV_BOOL && !(m->evkind[in->a] == OPGEN_EV_TENSOR && m->values[in->a].t.dtype == OPGEN_DTYPE_Bool)))
            return lfail(L, OPGEN_E_FORMAT, "its condition, value %d, is not a Bool or a Bool tensor", (int)in->a);
        if (in->b < 0 || in->b > chain_len) return lfail(L, OPGEN_E_FORMAT, "jumps to instruction %d, past the end of its chain (%d instructions)", (int)in->b, chain_len);
        ins->b = base + in->b;
        return OPGEN_OK;
    case OPGEN_INSTR_FREE:
        if (in->a < 0 || in->a >= n || m->evkind[in->a] != OPGEN_EV_TENSOR) return lfail(L, OPGEN_E_FORMAT, "frees value %d, which is not a tensor", (int)in->a);
        return OPGEN_OK;
    case OPGEN_INSTR_DELEGATE:
        if (in->a < 0 || in->a >= m->ndelegates) return lfail(L, OPGEN_E_FORMAT, "delegate index %d out of range (the method has %d)", (int)in->a, m->ndelegates);
        ins->dargs = (opgen_ivalue **)(uintptr_t)L->lists; /* placeholder, replaced below */
        return OPGEN_OK;
    default: return lfail(L, OPGEN_E_FORMAT, "an unknown instruction kind %d", in->kind);
    }
}

/* MoveCall destinations first: scalars among them are read at each call. */
static int32_t scan_moves(mloader *L) {
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
static int32_t view_sizes(mloader *L, int32_t vi, opgen_ivalue ***dargs) {
    opgen_pte_value pv;
    if (opgen_pte_value_at(L->p, L->pl, (uint32_t)vi, &pv, L->err)) return L->err->code;
    if (pv.kind != OPGEN_EV_INT_LIST) return lfail(L, OPGEN_E_INVALID, "its sizes are value %d, a %s, not an int list", (int)vi, opgen_ev_kind_name(pv.kind));
    for (uint32_t k = 0; k < pv.items.len; k++) {
        int64_t e = opgen_pte_i64(L->p, pv.items, k);
        if (!int_element(L, e)) return lfail(L, OPGEN_E_FORMAT, "size %u of the view is value %lld, not an Int", (unsigned)k, (long long)e);
        *(*dargs)++ = &L->m->values[e];
    }
    return OPGEN_OK;
}

/* A prim op's call: its values in order (et_view's size list as its elements),
 * checked for kind, its result marked as written at run; then run once, so the
 * kernels after it are bound and sized with the values it gives at the bound. */
static int32_t load_prim(mloader *L, instr *ins, const opgen_pte_instr *in, opgen_ivalue ***dargs) {
    opgen_method *m = L->m;
    const opgen_prim_op *pr = ins->prim;
    ins->op = pr->name;
    if ((int)in->args.len != pr->nargs) return lfail(L, OPGEN_E_FORMAT, "%u arguments; %s takes %d", (unsigned)in->args.len, pr->name, pr->nargs);
    ins->dargs = *dargs;
    for (uint32_t x = 0; x < in->args.len; x++) {
        int32_t vi = opgen_pte_i32(L->p, in->args, x);
        if (vi < 0 || vi >= m->nvalues) return lfail(L, OPGEN_E_FORMAT, "argument %u is value %d, out of range (%d values)", (unsigned)x, (int)vi, m->nvalues);
        bool tensor = (x == 0 && pr->flags & (OPGEN_PRIM_SIZE | OPGEN_PRIM_VIEW)) || (x == 2 && pr->flags & OPGEN_PRIM_VIEW);
        if (tensor != (m->evkind[vi] == OPGEN_EV_TENSOR)) return lfail(L, OPGEN_E_INVALID, "argument %u is value %d, a%s %s", (unsigned)x, (int)vi, tensor ? " non-tensor" : "", opgen_ev_kind_name(m->evkind[vi]));
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

static int32_t load_instructions(mloader *L, opgen_step *steps, opgen_ivalue **dargs) {
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
            if (in.kind == OPGEN_INSTR_KERNEL && (ins->prim = call_prim(L->p, L->pl, &in)) != NULL) {
                if (load_prim(L, ins, &in, &dargs)) return L->err->code;
                continue;
            }
            if (in.kind == OPGEN_INSTR_KERNEL) {
                ins->step = &steps[nk++];
                if (load_kernel_call(L, ins, &in)) return L->err->code;
                continue;
            }
            if (load_control(L, ins, &in, (int)instrs.len, base)) return L->err->code;
            if (in.kind != OPGEN_INSTR_DELEGATE) continue;
            ins->dargs = dargs;
            ins->ndargs = (int)in.args.len;
            for (uint32_t x = 0; x < in.args.len; x++) {
                int32_t vi = opgen_pte_i32(L->p, in.args, x);
                if (vi < 0 || vi >= m->nvalues) return lfail(L, OPGEN_E_FORMAT, "argument %u is value %d, out of range (%d values)", (unsigned)x, (int)vi, m->nvalues);
                *dargs++ = &m->values[vi];
            }
        }
        m->chain_end[ch] = m->ncode;
    }
    L->at = NULL;
    return OPGEN_OK;
}

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
static void fold_constant_views(mloader *L) {
    opgen_method *m = L->m;
    for (int k = 0; k < m->ncode; k++) {
        instr *ins = &m->code[k];
        opgen_step *s = ins->step;
        if (!s || s->npatches || strcmp(opgen_ops[s->kernel_op].qualified, "aten::permute_copy.out") || s->nres != 1) continue;
        const opgen_tensor *src = s->args[0].v.t;
        opgen_tensor *out = s->res[0];
        opgen_int_list dims = s->args[1].v.il;
        int32_t si = value_of(L, src), oi = value_of(L, out);
        bool output = false;
        for (int i = 0; i < m->noutputs; i++) output = output || m->outputs[i] == oi;
        if (!(m->flags[si] & V_CONSTANT) || output || dims.len != (size_t)src->dim || out->dtype != src->dtype || written_elsewhere(m, ins, out)) continue;
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

/* Every delegate needs a handler registered for its backend id. */
static int32_t load_delegates(mloader *L) {
    opgen_method *m = L->m;
    for (int d = 0; d < m->ndelegates; d++) {
        opgen_pte_delegate pd;
        if (opgen_pte_delegate_at(L->p, L->pl, (uint32_t)d, &pd, L->err)) return L->err->code;
        const opgen_delegate_handler *h = NULL;
        for (int k = 0; k < L->opt->ndelegates && !h; k++)
            if (L->opt->delegates[k].id && !strcmp(L->opt->delegates[k].id, pd.id)) h = &L->opt->delegates[k];
        if (!h) return lfail(L, OPGEN_E_NOT_IMPLEMENTED, "delegate %d runs on backend '%s', and no handler for it is registered (opgen_method_options.delegates)", d, pd.id);
        m->handlers[d] = h;
        m->handles[d] = NULL;
        opgen_error derr = {0};
        if (h->init && h->init(h->user, L->p, &pd, &m->handles[d], &derr)) return lfail(L, derr.code ? derr.code : OPGEN_E_INVALID, "delegate %d (backend '%s'): %s", d, pd.id, derr.msg);
    }
    return OPGEN_OK;
}

/* The value whose tensor t is, or -1 (a tensor of the load's own: a view, a
 * list's element copied elsewhere). */
static int value_index(const opgen_method *m, const opgen_tensor *t) {
    uintptr_t at = (uintptr_t)t, lo = (uintptr_t)&m->values[0].t, hi = (uintptr_t)&m->values[m->nvalues ? m->nvalues - 1 : 0].t;
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
            if (ka->abi == OPGEN_ABI_TENSOR || ka->abi == OPGEN_ABI_OPT_TENSOR) uses += s->args[ai].v.t == &m->values[v].t;
            for (size_t e = 0; ka->abi == OPGEN_ABI_TENSOR_LIST && e < s->args[ai].v.tl.len; e++) uses += s->args[ai].v.tl.data[e] == &m->values[v].t;
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

/* The bytes a tensor's elements span (0 for none). */
static size_t extent(const opgen_tensor *t) {
    int64_t last = 0;
    for (int32_t d = 0; d < t->dim; d++) {
        if (!t->sizes[d]) return 0;
        last += (t->sizes[d] - 1) * t->strides[d];
    }
    return (size_t)(last + 1) * (size_t)opgen_dtype_size(t->dtype);
}
static bool bytes_overlap(const opgen_tensor *a, const opgen_tensor *b) {
    uintptr_t a0 = (uintptr_t)a->data, b0 = (uintptr_t)b->data;
    return a->data && b->data && a0 < b0 + extent(b) && b0 < a0 + extent(a);
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
static bool overlaps(const void *t, const opgen_tensor *x) { return bytes_overlap(x, t); }
/* Whether instruction k reads or writes any of t's bytes. */
static bool touches(const opgen_method *m, int k, const opgen_tensor *t) {
    const instr *ins = &m->code[k];
    for (int i = 0; i < ins->ndargs; i++)
        if (ins->dargs[i]->kind == OPGEN_GV_TENSOR && bytes_overlap(&ins->dargs[i]->t, t)) return true;
    const opgen_step *s = ins->prim ? NULL : ins->step;
    for (int r = 0; s && r < s->nres; r++)
        if (bytes_overlap(s->res[r], t)) return true;
    return s && any_read(s, overlaps, t);
}
static bool is_op(const instr *ins, const char *qualified) { return ins->kind == OPGEN_INSTR_KERNEL && !ins->prim && !ins->folded && ins->step && !ins->step->npatches && !strcmp(opgen_ops[ins->step->kernel_op].qualified, qualified); }

static bool other_overlap(const void *t, const opgen_tensor *x) { return x != t && bytes_overlap(x, t); }
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
    if (ti < 0 || ci < 0 || put->relayout || strcmp(put->origin, "opgen") || m->code[i].chain != m->code[j].chain) return false;
    if ((m->flags[ti] | m->flags[ci]) & (V_MUTABLE | V_CONSTANT | V_INPUT | V_DYNAMIC) || !cache->data || !t->data) return false;
    if (t->dtype != cache->dtype || t->dim != cache->dim || memcmp(t->sizes, cache->sizes, sizeof(int64_t) * (size_t)t->dim) || !opgen_tensor_is_contiguous(cache) || !opgen_tensor_is_contiguous(t))
        return false;
    if (any_read(put, other_overlap, cache)) return false; /* indices and values apart from the cache */
    for (int k = i + 1; k < j; k++) /* straight-line code that leaves the cache alone */
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
        while (i >= 0 && !(is_op(&m->code[i], "aten::index_put.out") && m->code[i].step->nres == 1 && m->code[i].step->res[0] == t && m->code[i].step->args[0].v.t == cache)) i--;
        if (i < 0 || !reinplaceable(m, i, j, cache, t)) continue;
        m->values[value_index(m, t)].t.data = cache->data; /* a value's own tensor (reinplaceable found its index) */
        m->code[j].folded = FOLDED_IN_PLACE;
    }
}

/* Whether value a is an alias of tensor t: the same bytes, contiguous (a view
 * ExecuTorch's memory plan made by placing a value at its source's offset). */
static bool alias_of(const opgen_method *m, int a, const opgen_tensor *t) {
    const opgen_tensor *x = &m->values[a].t;
    return m->evkind[a] == OPGEN_EV_TENSOR && x->data == t->data && opgen_nbytes(x) == opgen_nbytes(t) && opgen_tensor_is_contiguous(x);
}
/* Whether value a is, from copy instruction c up to instruction w (which
 * writes t's bytes again), a name for c's result t: an alias of t that nothing
 * but c writes, read only between the two (a value placed in the same bytes for
 * another lifetime is not). */
static bool window_alias(const opgen_method *m, int a, int c, int w, const opgen_tensor *t) {
    return alias_of(m, a, t) && !reads_in(m, a, 0, c + 1) && !reads_in(m, a, w, m->ncode) && !returned(m, a) && !written_elsewhere(m, &m->code[c], &m->values[a].t);
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
    if (!bytes_overlap(x, win->t)) return false;
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
        if (bytes_overlap(s->res[r], t)) return true;
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
        if (!(is_op(ins, "aten::expand_copy.out") || is_op(ins, "aten::clone.out") || is_op(ins, "dim_order_ops::_clone_dim_order.out")) || ins->step->nres != 1 || ins->step->args[0].none) continue;
        const opgen_tensor *src = ins->step->args[0].v.t, *res = ins->step->res[0];
        int si = value_index(m, src), ri = value_index(m, res);
        if (si < 0 || ri < 0 || !src->data || !res->data || (m->flags[si] | m->flags[ri]) & (V_MUTABLE | V_INPUT | V_DYNAMIC) || m->flags[ri] & V_CONSTANT) continue;
        if (src->dtype != res->dtype || src->dim != res->dim || memcmp(src->sizes, res->sizes, sizeof(int64_t) * (size_t)src->dim) || memcmp(src->strides, res->strides, sizeof(int64_t) * (size_t)src->dim) ||
            !opgen_tensor_is_contiguous(res) || bytes_overlap(src, res))
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

/* Convolution -> batch norm (-> relu or hardtanh) instructions whose
 * intermediate results nothing else reads: the convolution's kernel computes the
 * chain (opgen_step_fuse), the others are skipped while it does. */
static void fuse_convolutions(mloader *L) {
    opgen_method *m = L->m;
    for (int k = 0; k + 1 < m->ncode; k++) {
        instr *c = &m->code[k];
        if (c->kind != OPGEN_INSTR_KERNEL || c->prim || !c->step || strcmp(opgen_ops[c->step->kernel_op].qualified, "aten::convolution.out")) continue; /* before any scan */
        if (!plain_kernel(m, k) || !plain_kernel(m, k + 1) || c->step->nres != 1 || m->code[k + 1].step->nres != 3) continue;
        opgen_step *b = m->code[k + 1].step, *r = k + 2 < m->ncode && plain_kernel(m, k + 2) ? m->code[k + 2].step : NULL;
        int y = value_index(m, c->step->res[0]), u = value_index(m, b->res[0]), s1 = value_index(m, b->res[1]), s2 = value_index(m, b->res[2]);
        if (y < 0 || u < 0 || s1 < 0 || s2 < 0 || value_reads(m, y) != 1 || value_reads(m, s1) || value_reads(m, s2)) continue;
        int n = 0;
        opgen_fusion *slot = &L->fusions[L->nfusions];
        /* conv -> bn -> add (a residual, computed before: instructions run in
         * order) -> act, or without the add */
        opgen_step *add = r && value_reads(m, u) == 1 && opgen_step_residual(r, b->res[0]) ? r : NULL;
        int a = add ? value_index(m, add->res[0]) : -1;
        opgen_step *act = add && a >= 0 && value_reads(m, a) == 1 && k + 3 < m->ncode && plain_kernel(m, k + 3) ? m->code[k + 3].step : NULL;
        if (add && act && opgen_step_fuse(c->step, b, add, act, slot))
            n = 3;
        else if (add && opgen_step_fuse(c->step, b, add, NULL, slot))
            n = 2;
        else if (r && value_reads(m, u) == 1 && opgen_step_fuse(c->step, b, NULL, r, slot))
            n = 2;
        else if (opgen_step_fuse(c->step, b, NULL, NULL, slot))
            n = 1;
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
        if (m->code[k].kind != OPGEN_INSTR_KERNEL || m->code[k].prim || !s || strcmp(opgen_ops[s->kernel_op].qualified, "aten::max_pool2d_with_indices.out")) continue;
        for (int r = 0; r < s->nres && r < 32; r++) {
            int v = value_index(m, s->res[r]);
            if (v >= 0 && !(m->flags[v] & (V_MUTABLE | V_CONSTANT | V_INPUT)) && !value_reads(m, v)) s->unread |= 1u << r;
        }
    }
}

/* Each kernel's meta step, in order: dtypes, shapes against the planned outs,
 * Edge rows, the kernel for the dtype; the scratch a run needs. */
static int32_t check_kernels(mloader *L, opgen_arena *a, bool fuse) {
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
    if (fuse && OPGEN_FUSES) fuse_convolutions(L);
    if (fuse && OPGEN_SELECTED(aten_index_put_out) && OPGEN_SELECTED(aten_copy_)) reinplace_cache_updates(m);
    if (fuse && OPGEN_SPEED_PATHS) elide_identity_copies(L);
    if (OPGEN_SELECTED(aten_max_pool2d_with_indices_out)) mark_unread(m); /* its only reader */
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
static int32_t take_arrays(opgen_method **out, const counts *c, opgen_arena *a, mloader *L, opgen_step **steps, opgen_ivalue ***dargs, opgen_error *err) {
    void *blk[26];
    int nb = 0;
    bool ok = true;
#define TAKE(bytes)                                                     \
    if (ok) {                                                           \
        size_t n_ = (bytes);                                            \
        blk[nb] = opgen_arena_zalloc(a, n_ ? n_ : 1);                   \
        ok = blk[nb++] != NULL;                                         \
    }
    METHOD_ARRAYS(TAKE, c)
#undef TAKE
    if (!ok) return opgen_fail(err, OPGEN_E_NO_MEMORY, "out of memory loading the method: it takes %zu bytes (opgen_method_memory_of)", load_bytes(c, L->p, L->pl, L->opt->buffers != NULL));
    opgen_method *m = blk[0];
    m->values = blk[1], m->evkind = blk[2], m->flags = blk[3], m->code = blk[4], m->chain_end = blk[5];
    m->inputs = blk[6], m->outputs = blk[7], m->moved = blk[8], m->moved_init = blk[9], m->buffers = blk[10];
    m->handles = blk[11], m->handlers = blk[12];
    *steps = blk[13];
    L->args = blk[14], L->patches = blk[15], L->res = blk[16], L->cands = blk[17], L->lists = blk[18];
    *dargs = blk[19];
    m->bounds = blk[20];
    L->fusions = blk[21];
    m->nvalues = (int)c->nvalues;
    m->nchains = (int)c->nchains;
    m->nbuffers = c->nbuffers;
    m->ndelegates = (int)c->ndelegates;
    *out = m;
    return OPGEN_OK;
}

static int32_t take_buffers(mloader *L, opgen_arena *a) {
    opgen_method *m = L->m;
    if (L->opt->buffers && L->opt->nbuffers != m->nbuffers)
        return lfail(L, OPGEN_E_INVALID, "%d planned buffers were given, the method plans %d", L->opt->nbuffers, m->nbuffers);
    for (int b = 0; b < m->nbuffers; b++) {
        size_t n = opgen_method_buffer_bytes(L->p, L->pl, b + 1);
        m->buffers[b] = L->opt->buffers ? L->opt->buffers[b] : opgen_arena_zalloc(a, n ? n : 1);
        if (!m->buffers[b]) return lfail(L, L->opt->buffers ? OPGEN_E_INVALID : OPGEN_E_NO_MEMORY, "no memory for planned buffer %d (%zu bytes)", b + 1, n);
        if ((uintptr_t)m->buffers[b] % 16) return lfail(L, OPGEN_E_INVALID, "planned buffer %d is not aligned to 16 bytes", b + 1);
        if (L->opt->buffers) memset(m->buffers[b], 0, n); /* state (mutable buffers) starts at zero, as in ExecuTorch */
    }
    return OPGEN_OK;
}

int32_t opgen_method_load(const opgen_pte *p, const char *method, const opgen_method_options *opt, opgen_arena *a, opgen_method **out, opgen_error *err) {
    opgen_pte_plan pl;
    counts c;
    if (!opt) opt = &no_options;
    if (opgen_pte_plan_find(p, method, &pl, err) || count_method(p, &pl, opt, &c, err)) return err->code;
    mloader L = {p, &pl, opt, NULL, err, NULL, 0, NULL, NULL, NULL, NULL, NULL, 0, NULL};
    opgen_step *steps = NULL;
    opgen_ivalue **dargs = NULL;
    if (take_arrays(&L.m, &c, a, &L, &steps, &dargs, err) || take_buffers(&L, a)) return err->code;
    opgen_method *m = L.m;
    m->pte = p;
    m->rng = opt && opt->kernels ? opt->kernels->seed : 0;
    m->plan = pl;
    m->plan.name = pl.name;
    L.pl = &m->plan;
    if (load_values(&L) || load_io(&L) || scan_moves(&L) || load_delegates(&L) || load_instructions(&L, steps, dargs)) return err->code;
    fold_constant_views(&L);
    if (check_kernels(&L, a, !(opt && opt->kernels && opt->kernels->unfused))) return err->code;
    for (int i = 0; i < m->nmoved; i++) m->moved_init[i] = m->values[m->moved[i]];
    uint64_t budget = 1000 * (uint64_t)(m->ncode + 1);
    m->probe = opt->probe, m->probe_user = opt->probe_user;
    m->max_steps = opt->max_steps ? opt->max_steps : budget > (1u << 20) ? budget : (1u << 20);
    *out = m;
    return OPGEN_OK;
}

size_t opgen_method_work_bytes(const opgen_method *m) { return m->work; }
int32_t opgen_method_reset(opgen_method *m, opgen_error *err) {
    for (int b = 0; b < m->nbuffers; b++) memset(m->buffers[b], 0, opgen_method_buffer_bytes(m->pte, &m->plan, b + 1));
    for (int i = 0; i < m->nvalues; i++) { /* a mutable buffer's initial data, as load placed it */
        opgen_pte_value v;
        const void *data;
        if (m->evkind[i] != OPGEN_EV_TENSOR) continue;
        if (opgen_pte_value_at(m->pte, &m->plan, (uint32_t)i, &v, err)) return err->code;
        if (!v.t.planned || !v.t.data_buffer_idx) continue;
        if (opgen_pte_mutable_data(m->pte, v.t.data_buffer_idx, opgen_nbytes(&m->values[i].t), &data, err)) return err->code;
        memcpy(m->values[i].t.data, data, opgen_nbytes(&m->values[i].t));
    }
    return OPGEN_OK;
}

int opgen_method_ninputs(const opgen_method *m) { return m->ninputs; }
int opgen_method_noutputs(const opgen_method *m) { return m->noutputs; }
const opgen_tensor *opgen_method_input_bound(const opgen_method *m, int i) {
    return i >= 0 && i < m->ninputs && m->flags[m->inputs[i]] & V_DYNAMIC ? &m->bounds[i] : NULL;
}
bool opgen_method_input_is_null(const opgen_method *m, int i) { return i >= 0 && i < m->ninputs && m->flags[m->inputs[i]] & V_ANY_SCALAR; }
const opgen_ivalue *opgen_method_input(const opgen_method *m, int i) { return i >= 0 && i < m->ninputs ? &m->values[m->inputs[i]] : NULL; }
const opgen_ivalue *opgen_method_output(const opgen_method *m, int i) { return i >= 0 && i < m->noutputs ? &m->values[m->outputs[i]] : NULL; }

/* ---- run ---- */

#ifdef OPGEN_NO_ERRMSG
#define rfail(m, at, err, code, ...) opgen_fail_quiet((err), (code), (m), (at), __VA_ARGS__)
#else
static int32_t rfail(const opgen_method *m, const instr *at, opgen_error *err, int32_t code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;
static int32_t rfail(const opgen_method *m, const instr *at, opgen_error *err, int32_t code, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vfail(m->pte, &m->plan, at, err, code, fmt, ap);
    va_end(ap);
    return code;
}
#endif

static const char *kind_text(int kind) {
    return kind == OPGEN_GV_TENSOR ? "a tensor" : kind == OPGEN_GV_INT ? "an int" : kind == OPGEN_GV_FLOAT ? "a float" : kind == OPGEN_GV_BOOL ? "a bool" : "another kind of value";
}

/* Input i's tensor takes the sizes given: the declared ones, or for a dynamic
 * input any within its bound (its planned bytes hold the bound). */
static int32_t shape_input(opgen_method *m, int i, const opgen_tensor *in, opgen_error *err) {
    const opgen_tensor *b = &m->bounds[i];
    opgen_tensor *t = &m->values[m->inputs[i]].t;
    bool dynamic = m->flags[m->inputs[i]] & V_DYNAMIC, ok = in->dtype == b->dtype && in->dim == b->dim;
    for (int32_t d = 0; ok && d < b->dim; d++) ok = dynamic ? in->sizes[d] >= 0 && in->sizes[d] <= b->sizes[d] : in->sizes[d] == b->sizes[d];
    if (!ok) {
        if (!OPGEN_ERRMSG) return opgen_fail_code(err, OPGEN_E_SHAPE);
        char want[160], got[160];
        opgen_type_format(want, sizeof want, b->dtype, b->dim, b->sizes);
        opgen_type_format(got, sizeof got, in->dtype, in->dim, in->sizes);
        return rfail(m, NULL, err, OPGEN_E_SHAPE, dynamic ? "input %d is dynamic, planned at most %s, got %s" : "input %d is declared %s, got %s", i, want, got);
    }
    if (!dynamic) return OPGEN_OK;
    void *data = t->data;
    size_t cap = t->capacity;
    opgen_tensor_shape_ordered(t, b->dtype, b->dim, in->sizes, b->dim_order, err);
    t->data = data, t->capacity = cap;
    return OPGEN_OK;
}

/* A Null-declared scalar input takes a value of a kind its uses accept. */
static int32_t set_any_scalar(opgen_method *m, int i, const opgen_ivalue *in, opgen_error *err) {
    opgen_ivalue *iv = &m->values[m->inputs[i]];
    uint8_t f = m->flags[m->inputs[i]];
    bool ok = (in->kind == OPGEN_GV_INT && f & V_USED_INT) || (in->kind == OPGEN_GV_FLOAT && f & V_USED_FLOAT) || (in->kind == OPGEN_GV_BOOL && f & V_USED_BOOL);
    if (!ok && !(f & (V_USED_INT | V_USED_FLOAT | V_USED_BOOL)) && (in->kind == OPGEN_GV_INT || in->kind == OPGEN_GV_FLOAT || in->kind == OPGEN_GV_BOOL)) ok = true; /* unused */
    if (!ok)
        return rfail(m, NULL, err, OPGEN_E_INVALID, "input %d is a scalar the program uses as %s, got %s", i,
                     f & V_USED_FLOAT ? "an int or a float" : f & V_USED_INT ? "an int" : "a bool", kind_text(in->kind));
    iv->kind = in->kind; /* only the field of its kind: the others may be unset */
    if (in->kind == OPGEN_GV_INT) iv->i = in->i;
    if (in->kind == OPGEN_GV_FLOAT) iv->f = in->f;
    if (in->kind == OPGEN_GV_BOOL) iv->b = in->b;
    return OPGEN_OK;
}

/* A scalar input the program declares with a value was specialised at export:
 * ExecuTorch takes only that value, and so does opgen (any other would be
 * computed with the exported one). */
static int32_t check_fixed_scalar(const opgen_method *m, int i, const opgen_ivalue *iv, const opgen_ivalue *in, opgen_error *err) {
    bool same = iv->kind == OPGEN_GV_INT ? in->i == iv->i : iv->kind == OPGEN_GV_BOOL ? in->b == iv->b : (in->f == iv->f || (isnan(in->f) && isnan(iv->f)));
    if (same) return OPGEN_OK;
    if (!OPGEN_ERRMSG) return opgen_fail_code(err, OPGEN_E_INVALID);
    char want[48], got[48];
    if (iv->kind == OPGEN_GV_INT) snprintf(want, sizeof want, "%lld", (long long)iv->i), snprintf(got, sizeof got, "%lld", (long long)in->i);
    if (iv->kind == OPGEN_GV_BOOL) snprintf(want, sizeof want, "%s", iv->b ? "True" : "False"), snprintf(got, sizeof got, "%s", in->b ? "True" : "False");
    if (iv->kind == OPGEN_GV_FLOAT) snprintf(want, sizeof want, "%.17g", iv->f), snprintf(got, sizeof got, "%.17g", in->f);
    return rfail(m, NULL, err, OPGEN_E_INVALID, "input %d was fixed at %s when the program was exported (a specialised scalar): it takes only that value, not %s", i, want, got);
}

static int32_t set_input(opgen_method *m, int i, const opgen_ivalue *in, opgen_arena *work, opgen_error *err) {
    opgen_ivalue *iv = &m->values[m->inputs[i]];
    if (m->flags[m->inputs[i]] & V_ANY_SCALAR) return set_any_scalar(m, i, in, err);
    if (in->kind != iv->kind) return rfail(m, NULL, err, OPGEN_E_INVALID, "input %d is %s, got %s", i, kind_text(iv->kind), kind_text(in->kind));
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
        if (!memcmp(in->t.strides, t->strides, sizeof(int64_t) * (size_t)t->dim) && !((uintptr_t)in->t.data % (uintptr_t)opgen_dtype_size(t->dtype))) {
            t->data = in->t.data;
            return OPGEN_OK;
        }
        t->data = opgen_arena_alloc(work, opgen_nbytes(t));
        if (!t->data) return rfail(m, NULL, err, OPGEN_E_NO_MEMORY, "out of memory for input %d (the run takes %zu bytes)", i, m->work);
    }
    opgen_ctx ctx = {work, err, "input", false, 0, false, -1, NULL, NULL, NULL, 0};
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

static int32_t execute(opgen_method *m, opgen_arena *work, opgen_error *err) {
    uint64_t steps = 0;
    opgen_arena_mark mark = opgen_arena_save(work); /* each kernel's temporaries are given back after it */
    opgen_error kerr = {0}; /* zeroed once: a run stops at the first error (half a KB a step would cost) */
    for (int ch = 0; ch < m->nchains; ch++) {
        int pc = ch ? m->chain_end[ch - 1] : 0, end = m->chain_end[ch];
        while (pc < end) {
            const instr *ins = &m->code[pc++];
            if (++steps > m->max_steps) return rfail(m, ins, err, OPGEN_E_INVALID, "the run executed %llu instructions without ending (a loop that never ends?)", (unsigned long long)m->max_steps);
            int at = pc - 1;
            if (m->probe) m->probe(m->probe_user, at, 0);
            if (ins->prim) {
                if (ins->prim->fn(ins->op, ins->dargs, ins->ndargs, &kerr)) return rfail(m, ins, err, kerr.code, "%s", kerr.msg);
            } else if (HAS_OPS && ins->kind == OPGEN_INSTR_KERNEL && !ins->folded) {
                int32_t st = opgen_step_exec(ins->step, m->values, work, &kerr);
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
                    return rfail(m, ins, err, derr.code ? derr.code : OPGEN_E_INVALID, "backend '%s': %s", h->id, derr.msg);
            } /* FreeCall: planned memory is the plan's; nothing to give back */
            if (m->probe) m->probe(m->probe_user, at, 1);
        }
    }
    return OPGEN_OK;
}

int32_t opgen_method_run(opgen_method *m, const opgen_ivalue *inputs, opgen_arena *work, opgen_ivalue *outputs, opgen_error *err) {
    for (int i = 0; i < m->nmoved; i++) m->values[m->moved[i]] = m->moved_init[i]; /* as loaded: moves do not outlive a run */
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
            info.kernel = ins->folded == FOLDED_VIEW        ? "folded at load (a view of a constant)"
                          : ins->folded == FOLDED_IN_PLACE ? "folded at load (its index_put wrote the cache in place)"
                                                           : "folded at load (an identity copy: its readers read its source)",
            info.origin = "opgen";
        else if (ins->step) {
            info.kernel = ins->step->kernel && ins->step->kernel->name ? ins->step->kernel->name : "?";
            info.origin = ins->step->origin ? ins->step->origin : "opgen";
            opgen_step_kernel_key(ins->step, key, sizeof key);
        }
        fn(ctx, &info);
    }
}
