/* The graph-text executor: loads a parsed graph program (opgen/graph.h) into
 * steps bound to its values, plans their memory, rewrites (graph_exec_rewrite.c)
 * and runs it (opgen/exec.h). The .pte executor is pte_exec_*.c. */
#include "graph_exec.h"

size_t opgen_program_plan_bytes(const opgen_program *p) { return p->plan_bytes; }
size_t opgen_program_work_bytes(const opgen_program *p) { return opgen_arena_cost(p->plan_bytes) + p->scratch + 16; }
int opgen_program_ninputs(const opgen_program *p) { return p->g->ninputs; }
int opgen_program_noutputs(const opgen_program *p) { return p->g->noutputs; }
int opgen_program_nsteps(const opgen_program *p) { return p->nsteps; }
void opgen_program_set_probe(opgen_program *p, void (*probe)(void *user, int step, int phase), void *user) {
    p->probe = probe, p->probe_user = user;
}
double opgen_program_step_flops(const opgen_program *p, int step) {
    return step < 0 || step >= p->nsteps || p->steps[step].view_of >= 0 ? 0 : opgen_step_flops(&p->steps[step].s);
}

static opgen_status node_fail(opgen_error *err, const opgen_graph *g, unsigned line, unsigned col, opgen_status code,
                              const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 6, 7)))
#endif
    ;
static opgen_status node_fail(opgen_error *err, const opgen_graph *g, unsigned line, unsigned col, opgen_status code,
                              const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    opgen_failv(err, code, g->file, line, col, NULL, fmt, ap);
    va_end(ap);
    return code;
}

static int list_len_of_type(const char *type) { /* "int[2]" -> 2, "int[]" -> 0 */
    const char *b = strchr(type, '[');
    return b ? atoi(b + 1) : 0;
}

/* ---- binding a graph argument to a kernel argument ---- */

typedef struct loader {
    opgen_program *p;
    const opgen_graph *g;
    opgen_arena *a;
    opgen_error *err;
    const opgen_load_options *opt;
} loader;

/* The value kind of a scalar result (abi of an op's return), or -1 if not a scalar. */
static int scalar_kind(int abi) {
    return abi == OPGEN_ABI_INT     ? OPGEN_GV_INT
           : abi == OPGEN_ABI_FLOAT ? OPGEN_GV_FLOAT
           : abi == OPGEN_ABI_BOOL  ? OPGEN_GV_BOOL
                                    : -1;
}

static bool value_is(const loader *L, int v, int kind) { return L->p->values[v].kind == kind; }

/* A list argument: ints (an int input among them patched in at run), numbers
 * or booleans. */
static opgen_status bind_list(loader *L, gstep *gs, int ai, const opgen_arg *arg, const opgen_garg *x) {
    opgen_step *s = &gs->s;
    opgen_value *v = &s->args[ai];
    const opgen_graph *g = L->g;
    const opgen_gnode *node = gs->node;
    int abi = arg->abi;
    switch (abi) {
    case OPGEN_ABI_INT_LIST:
    case OPGEN_ABI_OPT_INT_LIST: {
        if (x->kind == OPGEN_GA_INT) { /* int[2] x=1 means [1, 1] */
            int n = list_len_of_type(arg->type);
            int64_t *vals = opgen_arena_alloc(L->a, sizeof(int64_t) * (size_t)(n < 1 ? 1 : n));
            if (!vals) return opgen_fail(L->err, OPGEN_E_NO_MEMORY, "out of memory");
            for (int k = 0; k < (n < 1 ? 1 : n); k++) vals[k] = x->i;
            v->v.il.data = vals;
            v->v.il.len = (size_t)(n < 1 ? 1 : n);
            return OPGEN_OK;
        }
        if (x->kind != OPGEN_GA_LIST)
            return node_fail(L->err, g, x->line, x->col, OPGEN_E_INVALID,
                             "%s: argument '%s' (%s) takes a list of integers", node->op, arg->name, arg->type);
        int64_t *vals = opgen_arena_alloc(L->a, sizeof(int64_t) * (size_t)(x->nitems ? x->nitems : 1));
        if (!vals) return opgen_fail(L->err, OPGEN_E_NO_MEMORY, "out of memory");
        for (int k = 0; k < x->nitems; k++) {
            const opgen_garg *it = &x->items[k];
            if (it->kind == OPGEN_GA_VALUE && value_is(L, (int)it->i, OPGEN_GV_INT)) { /* a SymInt: [%n, 4] */
                s->patches[s->npatches++] = (opgen_patch){ai, (int)it->i, abi, k};
                continue;
            }
            if (it->kind != OPGEN_GA_INT)
                return node_fail(L->err, g, it->line, it->col, OPGEN_E_INVALID,
                                 "%s: argument '%s': expected an integer or an int input", node->op, arg->name);
            vals[k] = it->i;
        }
        v->v.il.data = vals;
        v->v.il.len = (size_t)x->nitems;
        return OPGEN_OK;
    }
    case OPGEN_ABI_FLOAT_LIST:
    case OPGEN_ABI_OPT_FLOAT_LIST: {
        if (x->kind != OPGEN_GA_LIST)
            return node_fail(L->err, g, x->line, x->col, OPGEN_E_INVALID,
                             "%s: argument '%s' (%s) takes a list of numbers", node->op, arg->name, arg->type);
        double *vals = opgen_arena_zalloc(L->a, sizeof(double) * (size_t)(x->nitems ? x->nitems : 1));
        if (!vals) return opgen_fail(L->err, OPGEN_E_NO_MEMORY, "out of memory");
        for (int k = 0; k < x->nitems; k++) {
            const opgen_garg *it = &x->items[k];
            if (it->kind != OPGEN_GA_FLOAT && it->kind != OPGEN_GA_INT)
                return node_fail(L->err, g, it->line, it->col, OPGEN_E_INVALID, "%s: argument '%s': expected a number",
                                 node->op, arg->name);
            vals[k] = it->kind == OPGEN_GA_INT ? (double)it->i : it->f;
        }
        v->v.fl.data = vals;
        v->v.fl.len = (size_t)x->nitems;
        return OPGEN_OK;
    }
    case OPGEN_ABI_BOOL_LIST: {
        if (x->kind != OPGEN_GA_LIST)
            return node_fail(L->err, g, x->line, x->col, OPGEN_E_INVALID, "%s: argument '%s' takes a list of booleans",
                             node->op, arg->name);
        bool *vals = opgen_arena_zalloc(L->a, sizeof(bool) * (size_t)x->nitems);
        if (!vals) return opgen_fail(L->err, OPGEN_E_NO_MEMORY, "out of memory");
        for (int k = 0; k < x->nitems; k++) {
            if (x->items[k].kind != OPGEN_GA_BOOL)
                return node_fail(L->err, g, x->items[k].line, x->items[k].col, OPGEN_E_INVALID,
                                 "%s: argument '%s': expected True or False", node->op, arg->name);
            vals[k] = x->items[k].i != 0;
        }
        v->v.bl.data = vals;
        v->v.bl.len = (size_t)x->nitems;
        return OPGEN_OK;
    }
    default: return OPGEN_E_INVALID;
    }
}

static opgen_status bind(loader *L, gstep *gs, int ai, const opgen_arg *arg, const opgen_garg *x) {
    opgen_step *s = &gs->s;
    opgen_value *v = &s->args[ai];
    const opgen_graph *g = L->g;
    const opgen_gnode *node = gs->node;
    int abi = arg->abi;
    bool opt = opgen_abi_optional(abi);
    if (x->kind == OPGEN_GA_NONE) {
        if (!opt)
            return node_fail(L->err, g, x->line, x->col, OPGEN_E_INVALID, "%s: argument '%s' (%s) cannot be None",
                             node->op, arg->name, arg->type);
        v->none = true;
        return OPGEN_OK;
    }
    /* a scalar input of the graph: filled in at run time */
    if (x->kind == OPGEN_GA_VALUE && !value_is(L, (int)x->i, OPGEN_GV_TENSOR)) {
        int kind = L->p->values[x->i].kind;
        bool ok = ((abi == OPGEN_ABI_INT || abi == OPGEN_ABI_OPT_INT) && kind == OPGEN_GV_INT) ||
                  ((abi == OPGEN_ABI_FLOAT || abi == OPGEN_ABI_OPT_FLOAT) && kind != OPGEN_GV_BOOL) ||
                  ((abi == OPGEN_ABI_BOOL || abi == OPGEN_ABI_OPT_BOOL) && kind == OPGEN_GV_BOOL) ||
                  abi == OPGEN_ABI_SCALAR || abi == OPGEN_ABI_OPT_SCALAR;
        if (!ok)
            return node_fail(L->err, g, x->line, x->col, OPGEN_E_INVALID, "%s: argument '%s' (%s) cannot take %%%s",
                             node->op, arg->name, arg->type, g->values[x->i].name);
        s->patches[s->npatches++] = (opgen_patch){ai, (int)x->i, abi, -1};
        return OPGEN_OK;
    }
    switch (abi) {
    case OPGEN_ABI_TENSOR:
    case OPGEN_ABI_OPT_TENSOR:
        if (x->kind != OPGEN_GA_VALUE)
            return node_fail(L->err, g, x->line, x->col, OPGEN_E_INVALID,
                             "%s: argument '%s' is a tensor: pass a %%value", node->op, arg->name);
        v->v.t = &L->p->values[x->i].t;
        return OPGEN_OK;
    case OPGEN_ABI_TENSOR_LIST: {
        if (x->kind != OPGEN_GA_LIST)
            return node_fail(L->err, g, x->line, x->col, OPGEN_E_INVALID,
                             "%s: argument '%s' is a list of tensors: pass [%%a, %%b]", node->op, arg->name);
        opgen_tensor **ts = opgen_arena_zalloc(L->a, sizeof *ts * (size_t)x->nitems);
        if (!ts) return opgen_fail(L->err, OPGEN_E_NO_MEMORY, "out of memory");
        for (int k = 0; k < x->nitems; k++) {
            const opgen_garg *it = &x->items[k];
            if (it->kind == OPGEN_GA_NONE && strchr(arg->type, '?')) continue; /* Tensor?[]: an element may be None */
            if (it->kind != OPGEN_GA_VALUE || !value_is(L, (int)it->i, OPGEN_GV_TENSOR))
                return node_fail(L->err, g, it->line, it->col, OPGEN_E_INVALID,
                                 "%s: argument '%s': every element must be a tensor %%value", node->op, arg->name);
            ts[k] = &L->p->values[it->i].t;
        }
        v->v.tl.data = (const opgen_tensor *const *)ts;
        v->v.tl.len = (size_t)x->nitems;
        return OPGEN_OK;
    }
    case OPGEN_ABI_INT:
    case OPGEN_ABI_OPT_INT:
        if (x->kind != OPGEN_GA_INT)
            return node_fail(L->err, g, x->line, x->col, OPGEN_E_INVALID, "%s: argument '%s' (%s) takes an integer",
                             node->op, arg->name, arg->type);
        v->v.i = x->i;
        return OPGEN_OK;
    case OPGEN_ABI_FLOAT:
    case OPGEN_ABI_OPT_FLOAT:
        if (x->kind != OPGEN_GA_FLOAT && x->kind != OPGEN_GA_INT)
            return node_fail(L->err, g, x->line, x->col, OPGEN_E_INVALID, "%s: argument '%s' (%s) takes a number",
                             node->op, arg->name, arg->type);
        v->v.f = x->kind == OPGEN_GA_INT ? (double)x->i : x->f;
        return OPGEN_OK;
    case OPGEN_ABI_BOOL:
    case OPGEN_ABI_OPT_BOOL:
        if (x->kind != OPGEN_GA_BOOL)
            return node_fail(L->err, g, x->line, x->col, OPGEN_E_INVALID, "%s: argument '%s' (%s) takes True or False",
                             node->op, arg->name, arg->type);
        v->v.b = x->i != 0;
        return OPGEN_OK;
    case OPGEN_ABI_SCALAR:
    case OPGEN_ABI_OPT_SCALAR:
        if (x->kind == OPGEN_GA_INT)
            v->v.s.dtype = OPGEN_DTYPE_Long, v->v.s.v.i = x->i;
        else if (x->kind == OPGEN_GA_FLOAT)
            v->v.s.dtype = OPGEN_DTYPE_Double, v->v.s.v.f = x->f;
        else if (x->kind == OPGEN_GA_BOOL)
            v->v.s.dtype = OPGEN_DTYPE_Bool, v->v.s.v.b = x->i != 0;
        else
            return node_fail(L->err, g, x->line, x->col, OPGEN_E_INVALID,
                             "%s: argument '%s' (Scalar) takes a number or a boolean", node->op, arg->name);
        return OPGEN_OK;
    case OPGEN_ABI_DTYPE:
    case OPGEN_ABI_OPT_DTYPE:
        if (x->kind != OPGEN_GA_DTYPE)
            return node_fail(L->err, g, x->line, x->col, OPGEN_E_INVALID,
                             "%s: argument '%s' takes a dtype such as torch.float32", node->op, arg->name);
        v->v.d = (opgen_dtype)x->i;
        return OPGEN_OK;
    case OPGEN_ABI_STR:
    case OPGEN_ABI_OPT_STR:
        if (x->kind != OPGEN_GA_STR)
            return node_fail(L->err, g, x->line, x->col, OPGEN_E_INVALID, "%s: argument '%s' takes a string", node->op,
                             arg->name);
        v->v.str = x->s;
        return OPGEN_OK;
    case OPGEN_ABI_ENUM:
    case OPGEN_ABI_OPT_ENUM:
        if (x->kind != OPGEN_GA_MEMFMT)
            return node_fail(L->err, g, x->line, x->col, OPGEN_E_INVALID,
                             "%s: argument '%s' (%s) takes a memory format such as torch.contiguous_format", node->op,
                             arg->name, arg->type);
        v->v.e = (int32_t)x->i;
        return OPGEN_OK;
    case OPGEN_ABI_INT_LIST:
    case OPGEN_ABI_OPT_INT_LIST:
    case OPGEN_ABI_FLOAT_LIST:
    case OPGEN_ABI_OPT_FLOAT_LIST:
    case OPGEN_ABI_BOOL_LIST: return bind_list(L, gs, ai, arg, x);
    default:
        return node_fail(L->err, g, x->line, x->col, OPGEN_E_NOT_IMPLEMENTED,
                         "%s: argument '%s' (%s) cannot be given in a program yet", node->op, arg->name, arg->type);
    }
}

/* ---- loading ---- */

int opgen_node_op(const char *name) {
    int id = opgen_op_lookup(name);
    size_t len = strlen(name);
    if (id < 0 && len > 8 &&
        !strcmp(name + len - 8, ".default")) { /* "aten::relu.default" names the default overload */
        char buf[256];
        size_t n = len - 8 < sizeof buf - 1 ? len - 8 : sizeof buf - 1;
        memcpy(buf, name, n), buf[n] = 0;
        id = opgen_op_lookup(buf);
    }
    return id;
}

opgen_status opgen_bind_node(const opgen_graph *g, const opgen_gnode *nd, int id, const opgen_garg **given,
                             opgen_error *err, opgen_arena *a) {
    const opgen_op *op = &opgen_ops[id];
    const char **names = opgen_arena_alloc(a, sizeof *names * (size_t)(op->nargs + 1));
    if (!names) return opgen_fail(err, OPGEN_E_NO_MEMORY, "out of memory");
    int npos = 0;
    for (int i = 0; i < op->nargs; i++) {
        const opgen_arg *arg = &opgen_args[op->first_arg + (unsigned)i];
        names[i] = arg->name;
        npos += !(arg->flags & OPGEN_ARG_KWARG_ONLY);
    }
    return opgen_bind_args(g, nd, names, op->nargs, npos, given, err);
}

/* A Tensor(a!)[] out (split_with_sizes_copy): the node's results from here on,
 * each a result of the step (load_node sized the step's result slots for them). */
static opgen_status bind_out_list(loader *L, gstep *gs, const opgen_gnode *nd, int ai) {
    opgen_step *s = &gs->s;
    int nl = nd->nresults - gs->nresults;
    opgen_tensor **ts = opgen_arena_zalloc(L->a, sizeof *ts * (size_t)(nl > 0 ? nl : 1));
    if (!ts) return opgen_fail(L->err, OPGEN_E_NO_MEMORY, "out of memory");
    for (int k = 0; k < nl; k++) {
        int v = nd->results[gs->nresults];
        gs->results[gs->nresults++] = v;
        L->p->values[v].kind = OPGEN_GV_TENSOR;
        ts[k] = &L->p->values[v].t;
        s->res[s->nres++] = ts[k];
    }
    s->args[ai].v.tl.data = (const opgen_tensor *const *)ts;
    s->args[ai].v.tl.len = (size_t)nl;
    return OPGEN_OK;
}

static bool kernel_has_arg(const opgen_op *kop, const char *name) {
    for (int ai = 0; ai < kop->nargs; ai++)
        if (!strcmp(opgen_args[kop->first_arg + (unsigned)ai].name, name)) return true;
    return false;
}

static opgen_status load_node(loader *L, int n) {
    const opgen_graph *g = L->g;
    const opgen_gnode *nd = &g->nodes[n];
    gstep *gs = &L->p->steps[n];
    opgen_step *s = &gs->s;
    gs->node = nd;
    s->name = nd->op;
    s->rng = &L->p->rng;
    s->par = L->opt ? L->opt->parallel : NULL;
    int id = opgen_node_op(nd->op);
    if (id < 0 && opgen_selective())
        return node_fail(L->err, g, nd->line, nd->col, OPGEN_E_NOT_FOUND,
                         "%s is left out of this build's selection (%s)", nd->op, opgen_selection());
    if (id < 0) return node_fail(L->err, g, nd->line, nd->col, OPGEN_E_NOT_FOUND, "unknown operator %s", nd->op);
    const opgen_op *op = &opgen_ops[id];
    /* an out= op with no functional form (a vendor's custom op, declared only as
     * .out as ExecuTorch's kernel yamls do) is called by its name, without its out
     * arguments: they are its results */
    bool out_only = op->kind == OPGEN_KIND_OUT && opgen_functional_of(id) == id;
    if (op->kind == OPGEN_KIND_OUT && !out_only)
        return node_fail(L->err, g, nd->line, nd->col, OPGEN_E_INVALID,
                         "%s is an out= variant; call its functional form and let the runtime place results", nd->op);
    if (op->kind == OPGEN_KIND_INPLACE ||
        op->kind == OPGEN_KIND_MUTABLE) { /* results are fresh values: mutation would be lost */
        const char *functional = NULL;
        for (int i = 0; i < OPGEN_OP_COUNT && op->out_variant >= 0; i++)
            if (opgen_ops[i].kind == OPGEN_KIND_FUNCTIONAL && opgen_ops[i].out_variant == op->out_variant)
                functional = opgen_ops[i].qualified;
        return node_fail(L->err, g, nd->line, nd->col, OPGEN_E_INVALID,
                         "%s writes to its input; programs are functional%s%s", nd->op, functional ? ": call " : "",
                         functional ? functional : "");
    }
    s->scalar = opgen_is_scalar_op(id);
    if (op->out_variant < 0 && !s->scalar && !out_only)
        return node_fail(L->err, g, nd->line, nd->col, OPGEN_E_NOT_FOUND,
                         "%s has no out= variant, so no kernel can run it", nd->op);
    int kid = s->scalar || out_only ? id : op->out_variant;
    const opgen_op *kop = &opgen_ops[kid];
    opgen_error kerr = {0};
    opgen_candidate *cands = opgen_arena_zalloc(L->a, sizeof *cands * (size_t)opgen_step_ncandidates(kid, L->opt));
    if (!cands) return opgen_fail(L->err, OPGEN_E_NO_MEMORY, "out of memory");
    if (opgen_step_kernels(s, kid, L->opt, cands, &kerr))
        return node_fail(L->err, g, nd->line, nd->col, kerr.code, "%s", kerr.msg);
    s->op = id;
    s->nargs = kop->nargs + (s->scalar ? kop->nrets : 0); /* a prim's results follow its arguments */
    s->args = opgen_arena_zalloc(L->a, sizeof *s->args * (size_t)(s->nargs ? s->nargs : 1));
    size_t npatch = kop->nargs; /* one per argument, plus one per list element */
    for (int k = 0; k < nd->nargs; k++) npatch += (size_t)(nd->args[k].kind == OPGEN_GA_LIST ? nd->args[k].nitems : 0);
    s->patches = opgen_arena_zalloc(L->a, sizeof *s->patches * npatch);
    int nslots =
        (s->nargs > nd->nresults ? s->nargs : nd->nresults) + 1; /* a list out takes one slot per node result */
    gs->results = opgen_arena_zalloc(L->a, sizeof(int) * (size_t)nslots);
    s->res = opgen_arena_zalloc(L->a, sizeof *s->res * (size_t)nslots);
    if (!s->args || !s->patches || !gs->results || !s->res)
        return opgen_fail(L->err, OPGEN_E_NO_MEMORY, "out of memory");
    /* which graph argument goes to which parameter of the functional schema */
    const opgen_arg *fargs = &opgen_args[op->first_arg];
    const opgen_garg **given = opgen_arena_zalloc(L->a, sizeof *given * (op->nargs + 1u));
    if (!given) return opgen_fail(L->err, OPGEN_E_NO_MEMORY, "out of memory");
    int32_t bst = opgen_bind_node(g, nd, id, given, L->err, L->a);
    if (bst) return bst;
    for (int i = 0; out_only && i < op->nargs; i++)
        if (given[i] && fargs[i].flags & OPGEN_ARG_OUT)
            return node_fail(L->err, g, nd->line, nd->col, OPGEN_E_INVALID, "%s: '%s' is a result, not an argument",
                             nd->op, fargs[i].name);
    /* the kernel's parameters: the functional's, by name, then the outs */
    const opgen_arg *kargs = &opgen_args[kop->first_arg];
    for (int ai = 0; ai < kop->nargs; ai++) {
        const opgen_arg *ka = &kargs[ai];
        if (ka->flags & OPGEN_ARG_OUT &&
            ka->abi == OPGEN_ABI_TENSOR_LIST) { /* Tensor(a!)[]: the node's remaining results */
            opgen_status st = bind_out_list(L, gs, nd, ai);
            if (st) return st;
            continue;
        }
        if (ka->flags & OPGEN_ARG_OUT) {
            int r = gs->nresults++;
            if (r >= nd->nresults)
                return node_fail(L->err, g, nd->line, nd->col, OPGEN_E_INVALID,
                                 "%s returns %d value%s, the node names %d", nd->op, op->nrets,
                                 op->nrets == 1 ? "" : "s", nd->nresults);
            int v = nd->results[r];
            gs->results[r] = v;
            L->p->values[v].kind = OPGEN_GV_TENSOR;
            s->args[ai].v.t = &L->p->values[v].t;
            s->res[s->nres++] = &L->p->values[v].t;
            continue;
        }
        int fi = -1;
        for (int i = 0; i < op->nargs; i++)
            if (!strcmp(fargs[i].name, ka->name)) fi = i;
        if (fi < 0)
            return node_fail(L->err, g, nd->line, nd->col, OPGEN_E_INVALID,
                             "%s: the kernel's argument '%s' has no counterpart", nd->op, ka->name);
        if (given[fi]) {
            opgen_status st = bind(L, gs, ai, ka, given[fi]);
            if (st) return st;
        } else if (fargs[fi].dflt) { /* the default, as if written */
            opgen_garg x;
            if (!opgen_garg_parse_default(L->a, fargs[fi].dflt, &x) || bind(L, gs, ai, ka, &x))
                return node_fail(L->err, g, nd->line, nd->col, OPGEN_E_NOT_IMPLEMENTED,
                                 "%s: cannot use the default '%s' of argument '%s'", nd->op, fargs[fi].dflt, ka->name);
        } else {
            return node_fail(L->err, g, nd->line, nd->col, OPGEN_E_INVALID, "%s: missing argument '%s' (%s)", nd->op,
                             ka->name, ka->type);
        }
    }
    for (int i = 0; i < op->nargs; i++) /* a factory's dtype, which its out= schema leaves to the out */
        if (given[i] && given[i]->kind == OPGEN_GA_DTYPE && !strcmp(fargs[i].name, "dtype") &&
            !kernel_has_arg(kop, "dtype")) {
            s->has_dtype = true;
            s->dtype = (opgen_dtype)given[i]->i;
        }
    if (s->scalar) { /* results are scalar values, written through pointers */
        if (nd->nresults != op->nrets)
            return node_fail(L->err, g, nd->line, nd->col, OPGEN_E_INVALID, "%s returns %d value%s, the node names %d",
                             nd->op, op->nrets, op->nrets == 1 ? "" : "s", nd->nresults);
        for (int r = 0; r < op->nrets; r++) {
            int v = nd->results[r], kind = scalar_kind(opgen_rets[op->first_ret + (unsigned)r].abi);
            opgen_ivalue *iv = &L->p->values[v];
            iv->kind = kind;
            gs->results[gs->nresults++] = v;
            s->args[kop->nargs + r].v.ret = kind == OPGEN_GV_INT     ? (void *)&iv->i
                                            : kind == OPGEN_GV_FLOAT ? (void *)&iv->f
                                                                     : (void *)&iv->b;
        }
    }
    if (gs->nresults != nd->nresults)
        return node_fail(L->err, g, nd->line, nd->col, OPGEN_E_INVALID, "%s returns %d value%s, the node names %d",
                         nd->op, gs->nresults, gs->nresults == 1 ? "" : "s", nd->nresults);
    return OPGEN_OK;
}

/* What load knows of a step once its inputs' dtypes and shapes are: results are
 * sized afresh by the meta step, the Edge rows checked, the kernel found. */
static opgen_status prepare(opgen_program *p, gstep *gs, opgen_arena *a, opgen_error *err) {
    for (int r = 0; r < gs->s.nres; r++) {
        gs->s.res[r]->data = NULL;
        gs->s.res[r]->capacity = 0;
    }
    opgen_error serr = {0};
    opgen_status st = opgen_step_prepare(&gs->s, p->values, a, &serr);
    if (st) return node_fail(err, p->g, gs->node->line, gs->node->col, st, "%s", serr.msg);
    if (gs->s.scratch > p->scratch) p->scratch = gs->s.scratch;
    return OPGEN_OK;
}

/* Memory plan: every result gets an offset in one block; a value's space is free
 * again after its last use (graph outputs live to the end). First fit. */
typedef struct span {
    size_t off, size;
} span;

/* Whether value v is a result of fused step n's chain. */
static bool chain_result(const opgen_program *p, int n, int v) {
    for (int q = n; q <= n + p->steps[n].fused; q++)
        for (int r = 0; r < p->steps[q].nresults; r++)
            if (p->steps[q].results[r] == v) return true;
    return false;
}

static opgen_status plan(opgen_program *p, opgen_arena *a, opgen_error *err) {
    const opgen_graph *g = p->g;
    int *last = opgen_arena_zalloc(a, sizeof(int) * (size_t)g->nvalues);
    span *live = opgen_arena_zalloc(a, sizeof(span) * (size_t)g->nvalues);
    int *live_v = opgen_arena_zalloc(a, sizeof(int) * (size_t)g->nvalues);
    p->offset = opgen_arena_zalloc(a, sizeof(size_t) * (size_t)g->nvalues);
    p->size = opgen_arena_zalloc(a, sizeof(size_t) * (size_t)g->nvalues);
    if (!last || !live || !live_v || !p->offset || !p->size)
        return opgen_fail(err, OPGEN_E_NO_MEMORY, "out of memory planning memory");
    for (int v = 0; v < g->nvalues; v++) last[v] = -1;
    for (int n = 0; n < p->nsteps; n++) /* the values each node reads, alone or in lists */
        for (int k = 0; k < g->nodes[n].nargs; k++) {
            const opgen_garg *x = &g->nodes[n].args[k];
            if (x->kind == OPGEN_GA_VALUE) last[x->i] = n;
            for (int i = 0; x->kind == OPGEN_GA_LIST && i < x->nitems; i++)
                if (x->items[i].kind == OPGEN_GA_VALUE) last[x->items[i].i] = n;
        }
    for (int i = 0; i < g->noutputs; i++) last[g->outputs[i]] = p->nsteps;
    /* a fused step's inputs, and those its chain takes from before it (a
     * residual), live until its result is written: the result never takes their
     * memory (the chain's own intermediates keep their spans: placing the result
     * past them would put it in memory no earlier step warmed) */
    for (int n = 0; n < p->nsteps; n++)
        for (int q = n; q <= n + p->steps[n].fused && p->steps[n].fused; q++)
            for (int k = 0; k < g->nodes[q].nargs; k++) {
                const opgen_garg *x = &g->nodes[q].args[k];
                if (x->kind == OPGEN_GA_VALUE && !chain_result(p, n, x->i) && last[x->i] < n + p->steps[n].fused &&
                    last[x->i] != p->nsteps)
                    last[x->i] = n + p->steps[n].fused;
            }
    /* a view's bytes are its root's (gx_same_bytes_views): the root lives until the
     * view's last reader, and the view takes no memory of its own */
    int *root = opgen_arena_zalloc(a, sizeof(int) * (size_t)g->nvalues);
    if (!root) return opgen_fail(err, OPGEN_E_NO_MEMORY, "out of memory planning memory");
    for (int v = 0; v < g->nvalues; v++) root[v] = v;
    for (int n = 0; n < p->nsteps; n++) { /* in step order: a view's source has its root already */
        if (!p->steps[n].reshaped || p->steps[n].own_bytes) continue;
        int v = p->steps[n].results[0];
        root[v] = root[p->steps[n].view_of];
        if (last[v] > last[root[v]]) last[root[v]] = last[v];
    }
    int nlive = 0;
    size_t top = 0;
    for (int n = 0; n < p->nsteps; n++) {
        gstep *s = &p->steps[n];
        for (int r = 0; r < s->nresults && !(s->reshaped && !s->own_bytes); r++) {
            int v = s->results[r];
            if (p->values[v].kind != OPGEN_GV_TENSOR) continue; /* a prim's scalar */
            size_t need = (opgen_nbytes(&p->values[v].t) + 63) & ~(size_t)63;
            if (!need) need = 64;
            /* first fit among the gaps between live spans (kept sorted by offset) */
            size_t at = 0;
            int pos = 0;
            for (; pos < nlive; pos++) {
                if (live[pos].off >= at + need) break;
                if (live[pos].off + live[pos].size > at) at = live[pos].off + live[pos].size;
            }
            memmove(live + pos + 1, live + pos, sizeof(span) * (size_t)(nlive - pos));
            memmove(live_v + pos + 1, live_v + pos, sizeof(int) * (size_t)(nlive - pos));
            live[pos] = (span){at, need};
            live_v[pos] = v;
            nlive++;
            p->offset[v] = at;
            p->size[v] = need;
            if (at + need > top) top = at + need;
        }
        /* values whose last use is this step die */
        for (int k = 0; k < nlive;) {
            if (last[live_v[k]] <= n && last[live_v[k]] != p->nsteps) {
                memmove(live + k, live + k + 1, sizeof(span) * (size_t)(nlive - k - 1));
                memmove(live_v + k, live_v + k + 1, sizeof(int) * (size_t)(nlive - k - 1));
                nlive--;
            } else {
                k++;
            }
        }
    }
    p->plan_bytes = top;
    return OPGEN_OK;
}

opgen_status opgen_program_load(const opgen_graph *g, opgen_arena *a, opgen_program **out, opgen_error *err) {
    return opgen_program_load_with(g, a, NULL, out, err);
}

opgen_status opgen_program_load_with(const opgen_graph *g, opgen_arena *a, const opgen_load_options *opt,
                                     opgen_program **out, opgen_error *err) {
    opgen_program *p = opgen_arena_zalloc(a, sizeof *p);
    if (!p) return opgen_fail(err, OPGEN_E_NO_MEMORY, "out of memory");
    p->g = g;
    p->values = opgen_arena_zalloc(a, sizeof *p->values * (size_t)(g->nvalues ? g->nvalues : 1));
    p->steps = opgen_arena_zalloc(a, sizeof *p->steps * (size_t)(g->nnodes ? g->nnodes : 1));
    if (!p->values || !p->steps) return opgen_fail(err, OPGEN_E_NO_MEMORY, "out of memory");
    p->nsteps = g->nnodes;
    for (int i = 0; i < g->ninputs; i++) {
        const opgen_gvalue *gv = &g->values[g->inputs[i]];
        opgen_ivalue *v = &p->values[g->inputs[i]];
        v->kind = gv->kind;
        if (gv->kind == OPGEN_GV_TENSOR && opgen_tensor_shape(&v->t, gv->dtype, gv->dim, gv->sizes, err))
            return err->code;
        if (gv->kind == OPGEN_GV_FREE)
            return node_fail(err, g, gv->line, gv->col, OPGEN_E_INVALID,
                             "a pattern is not a program: %%%s is not defined", gv->name);
    }
    p->rng = opt ? opt->seed : 0;
    loader L = {p, g, a, err, opt};
    bool *dyn = opgen_arena_zalloc(
        a, sizeof(bool) * (size_t)(g->nvalues ? g->nvalues : 1)); /* values that depend on a scalar input */
    if (!dyn) return opgen_fail(err, OPGEN_E_NO_MEMORY, "out of memory");
    for (int n = 0; n < g->nnodes; n++) {
        opgen_status st = load_node(&L, n);
        if (st) return st;
        gstep *s = &p->steps[n];
        s->dynamic = s->s.npatches > 0 || s->s.scalar; /* a prim's value is known only when it runs */
        for (int k = 0; k < s->node->nargs && !s->dynamic; k++) {
            const opgen_garg *x = &s->node->args[k];
            if (x->kind == OPGEN_GA_VALUE) s->dynamic = dyn[x->i];
            for (int i = 0; x->kind == OPGEN_GA_LIST && i < x->nitems; i++)
                if (x->items[i].kind == OPGEN_GA_VALUE && dyn[x->items[i].i]) s->dynamic = true;
        }
        for (int r = 0; r < s->nresults; r++) dyn[s->results[r]] = s->dynamic;
        p->dynamic |= s->dynamic;
        /* Scalar inputs are still unknown (zero): a dynamic step that fails here is
         * checked again, with the real values, when the program runs. */
        opgen_error serr = {0};
        st = prepare(p, s, a, &serr);
        if (st && !s->dynamic) {
            *err = serr;
            return st;
        }
    }
    int *uses = gx_count_uses(g, a);
    if (uses && OPGEN_FUSES && !(opt && opt->unfused)) gx_fuse(p, uses, a);
    if (uses) gx_mark_unread(p, uses);
    gx_transposed_views(p);
    if (OPGEN_SPEED_PATHS) gx_same_bytes_views(p);
    if (!p->dynamic) {
        opgen_status st = plan(p, a, err);
        if (st) return st;
    }
    *out = p;
    return OPGEN_OK;
}

opgen_status opgen_program_kernel_keys(const opgen_program *p, void (*fn)(void *ctx, const char *op, const char *key),
                                       void *ctx, opgen_error *err) {
    for (int n = 0; n < p->nsteps; n++) {
        const gstep *s = &p->steps[n];
        char key[1024];
        if (opgen_step_kernel_key(&s->s, key, sizeof key) >= sizeof key)
            return opgen_fail_at(err, OPGEN_E_INVALID, p->g->file, s->node->line, s->node->col,
                                 "%s: its kernel key is too long", s->node->op);
        fn(ctx, opgen_ops[s->s.kernel_op].qualified, key);
    }
    return OPGEN_OK;
}

void opgen_program_kernels(const opgen_program *p,
                           void (*fn)(void *ctx, const opgen_gnode *node, const char *kernel, const char *origin),
                           void *ctx) {
    for (int n = 0; n < p->nsteps; n++) {
        const gstep *s = &p->steps[n];
        const char *k = s->view_of >= 0                    ? (s->reshaped ? "none: a view of its input's bytes"
                                                                          : "none: a transposed view of its input")
                        : s->s.kernel && s->s.kernel->name ? s->s.kernel->name
                                                           : "?";
        fn(ctx, s->node, k, s->s.origin ? s->s.origin : "opgen");
    }
}

static const char *input_kind(const opgen_gvalue *gv) {
    return gv->kind == OPGEN_GV_TENSOR  ? "a tensor"
           : gv->kind == OPGEN_GV_INT   ? "an int"
           : gv->kind == OPGEN_GV_FLOAT ? "a float"
                                        : "a bool";
}

opgen_status opgen_program_run(opgen_program *p, const opgen_ivalue *inputs, opgen_arena *work, opgen_ivalue *outputs,
                               opgen_error *err) {
    const opgen_graph *g = p->g;
    for (int i = 0; i < g->ninputs; i++) {
        const opgen_gvalue *gv = &g->values[g->inputs[i]];
        opgen_ivalue *v = &p->values[g->inputs[i]];
        const opgen_ivalue *in = &inputs[i];
        if (in->kind != gv->kind)
            return opgen_fail_at(err, OPGEN_E_INVALID, g->file, gv->line, gv->col, "input %%%s: expected %s", gv->name,
                                 input_kind(gv));
        if (gv->kind == OPGEN_GV_TENSOR) {
            if (in->t.dtype != gv->dtype || in->t.dim != gv->dim ||
                memcmp(in->t.sizes, gv->sizes, sizeof(int64_t) * (size_t)gv->dim)) {
                char want[160], got[160];
                return opgen_fail_at(err, OPGEN_E_SHAPE, g->file, gv->line, gv->col,
                                     "input %%%s is declared %s, got %s", gv->name,
                                     opgen_type_format(want, sizeof want, gv->dtype, gv->dim, gv->sizes),
                                     opgen_type_format(got, sizeof got, in->t.dtype, in->t.dim, in->t.sizes));
            }
            v->t = in->t;
        } else {
            *v = *in;
        }
    }
    if (p->dynamic) { /* shapes follow the scalar inputs: infer and plan them now */
        for (int n = 0; n < p->nsteps; n++) {
            gstep *s = &p->steps[n];
            if (!s->dynamic) continue;
            opgen_status st = prepare(p, s, work, err);
            if (st) return st;
        }
        opgen_status st = plan(p, work, err);
        if (st) return st;
    }
    uint8_t *block = p->plan_bytes ? opgen_arena_alloc(work, p->plan_bytes) : NULL;
    if (p->plan_bytes && !block)
        return opgen_fail(err, OPGEN_E_NO_MEMORY, "out of memory: the program needs %zu bytes",
                          opgen_program_work_bytes(p));
    opgen_arena_mark mark = opgen_arena_save(work); /* each step's temporaries are given back after it */
    opgen_error kerr = {0};                         /* zeroed once: a run stops at the first error */
    for (int n = 0; n < p->nsteps; n++) {
        gstep *s = &p->steps[n];
        for (int q = n; q <= n + s->fused;
             q++) /* results live where the plan put them (a fused step writes its chain's) */
            for (int r = 0; r < p->steps[q].nresults; r++) {
                int v = p->steps[q].results[r];
                if (p->values[v].kind != OPGEN_GV_TENSOR) continue;
                opgen_tensor *t = &p->values[v].t;
                t->data = block + p->offset[v];
                t->capacity = p->size[v];
            }
        if (p->probe) p->probe(p->probe_user, n, 0);
        opgen_status st = OPGEN_OK;
        if (s->reshaped && opgen_tensor_is_contiguous(&p->values[s->view_of].t)) {
            opgen_tensor *t = &p->values[s->results[0]].t;
            t->data = p->values[s->view_of].t.data, t->capacity = p->values[s->view_of].t.capacity;
        } else if (s->reshaped && !s->own_bytes) /* a step's result strided: cannot be in a static plan */
            st = opgen_fail(&kerr, OPGEN_E_INVALID,
                            "%s: its input's bytes are strided, and it has no memory of its own", s->node->op);
        else if (s->view_of >= 0 && !s->reshaped)
            gx_transposed_view(&p->values[s->results[0]].t, &p->values[s->view_of].t);
        else
            st = opgen_step_exec(&s->s, p->values, work, &kerr);
        if (p->probe) p->probe(p->probe_user, n, 1);
        opgen_arena_restore(work, mark);
        if (st) return node_fail(err, g, s->node->line, s->node->col, kerr.code, "%s", kerr.msg);
    }
    for (int i = 0; i < g->noutputs; i++) outputs[i] = p->values[g->outputs[i]];
    return OPGEN_OK;
}
