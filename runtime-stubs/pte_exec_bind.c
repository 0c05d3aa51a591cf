/* The .pte executor, stage 2: places values in planned memory and binds each
 * kernel call's arguments to them, checked against the kernel's schema. */
#include "pte_exec.h"
#include <math.h>
#include <string.h>

/* ---- values ---- */

/* A Bool tensor's bytes from the program hold 0 and 1 only (kernels read bool). */
static opgen_status check_bools(mloader *L, int i, const opgen_tensor *t, const void *data) {
    int64_t bad = t->dtype == OPGEN_DTYPE_Bool ? opgen_bool_check(data, opgen_numel(t)) : -1;
    if (bad >= 0)
        return lfail(L, OPGEN_E_FORMAT, "value %d, a Bool tensor, holds %u at element %lld: not 0 or 1", i,
                     ((const unsigned char *)data)[bad], (long long)bad);
    return OPGEN_OK;
}

/* Where a tensor's bytes are: a constant in the program, its planned buffer, or
 * nowhere yet (an input given at run). */
static opgen_status place_tensor(mloader *L, int i, const opgen_pte_tensor *pt, opgen_tensor *t) {
    size_t nbytes = opgen_nbytes(t);
    const void *data = NULL;
    if (pt->planned) {
        if (pt->memory_id < 1 || pt->memory_id > (uint32_t)L->m->nbuffers) /* unsigned: ids past INT_MAX too */
            return lfail(L, OPGEN_E_FORMAT, "value %d is planned in buffer %u, and the method has %d", i,
                         (unsigned)pt->memory_id, L->m->nbuffers);
        size_t size = opgen_method_buffer_bytes(L->p, L->pl, (int)pt->memory_id);
        if (pt->memory_offset > size || nbytes > size - pt->memory_offset)
            return lfail(L, OPGEN_E_FORMAT,
                         "value %d (%zu bytes at offset %llu) lies outside planned buffer %u (%zu bytes)", i, nbytes,
                         (unsigned long long)pt->memory_offset, (unsigned)pt->memory_id, size);
        if (pt->memory_offset % (uint64_t)opgen_dtype_size(t->dtype))
            return lfail(L, OPGEN_E_FORMAT,
                         "value %d is planned at offset %llu, not a multiple of its %d-byte elements", i,
                         (unsigned long long)pt->memory_offset, opgen_dtype_size(t->dtype));
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
            return lfail(
                L, OPGEN_E_INVALID,
                "constant value %d is not aligned to its %d-byte elements: give the program's bytes at an address aligned to 16",
                i, opgen_dtype_size(t->dtype));
        if (check_bools(L, i, t, data)) return L->err->code;
        t->data = (void *)(uintptr_t)data; /* used in place: kernels never write constants (outs must be planned) */
        t->capacity = nbytes;
        L->m->flags[i] |= V_CONSTANT;
    }
    return OPGEN_OK;
}

static opgen_status load_tensor(mloader *L, int i, const opgen_pte_tensor *pt, opgen_tensor *t) {
    if (pt->storage_offset)
        return lfail(L, OPGEN_E_NOT_IMPLEMENTED,
                     "value %d has storage offset %d; only 0 is supported (as in ExecuTorch)", i,
                     (int)pt->storage_offset);
    if (pt->shape_dynamism == OPGEN_PTE_DYNAMIC_UNBOUND)
        return lfail(L, OPGEN_E_NOT_IMPLEMENTED, "value %d has an unbounded dynamic shape", i);
    if (pt->external)
        return lfail(L, OPGEN_E_NOT_IMPLEMENTED,
                     "value %d keeps its data outside the program (a .ptd file), which opgen does not load", i);
    if (pt->scalar_type < 0 || pt->scalar_type >= 32 || !opgen_dtype_size((opgen_dtype)pt->scalar_type))
        return lfail(L, OPGEN_E_DTYPE, "value %d has scalar type %d, which opgen does not know", i, pt->scalar_type);
    if (pt->sizes.len > OPGEN_MAX_DIM)
        return lfail(L, OPGEN_E_SHAPE, "value %d has %u dimensions (at most %d)", i, (unsigned)pt->sizes.len,
                     OPGEN_MAX_DIM);
    if (pt->dim_order.len && pt->dim_order.len != pt->sizes.len)
        return lfail(L, OPGEN_E_FORMAT, "value %d has %u sizes and a dim order of %u", i, (unsigned)pt->sizes.len,
                     (unsigned)pt->dim_order.len);
    int64_t sizes[OPGEN_MAX_DIM];
    uint8_t order[OPGEN_MAX_DIM];
    for (uint32_t d = 0; d < pt->sizes.len; d++) {
        sizes[d] = opgen_pte_i32(L->p, pt->sizes, d);
        order[d] = pt->dim_order.len ? opgen_pte_u8(L->p, pt->dim_order, d) : (uint8_t)d;
    }
    opgen_error e = {0};
    if (opgen_tensor_shape_ordered(t, (opgen_dtype)pt->scalar_type, (int32_t)pt->sizes.len, sizes, order, &e))
        return lfail(L, e.code, "value %d: %s", i, e.msg);
    if (pt->shape_dynamism == OPGEN_PTE_DYNAMIC_BOUND) L->m->flags[i] |= V_DYNAMIC;
    return place_tensor(L, i, pt, t);
}

opgen_status pte_load_values(mloader *L) {
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
opgen_status pte_load_io(mloader *L) {
    opgen_method *m = L->m;
    for (int k = 0; k < 2; k++) {
        opgen_pte_vec v = k ? L->pl->outputs : L->pl->inputs;
        int *dst = k ? m->outputs : m->inputs;
        for (uint32_t j = 0; j < v.len; j++) {
            int32_t i = opgen_pte_i32(L->p, v, j);
            if (i < 0 || i >= m->nvalues)
                return lfail(L, OPGEN_E_FORMAT, "%s %u is value %d, out of range (%d values)", k ? "output" : "input",
                             (unsigned)j, (int)i, m->nvalues);
            int kind = m->values[i].kind;
            if (!k && m->evkind[i] == OPGEN_EV_NULL)
                m->flags[i] |= V_ANY_SCALAR;
            else if (!k && kind != OPGEN_GV_TENSOR && kind != OPGEN_GV_INT && kind != OPGEN_GV_FLOAT &&
                     kind != OPGEN_GV_BOOL)
                return lfail(L, OPGEN_E_NOT_IMPLEMENTED, "input %u is a%s %s; opgen takes tensors and scalars",
                             (unsigned)j, m->evkind[i] == OPGEN_EV_INT_LIST ? "n" : "",
                             opgen_ev_kind_name(m->evkind[i]));
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
bool pte_int_element(mloader *L, int64_t e) {
    if (e < 0 || e >= L->m->nvalues) return false;
    if (L->m->flags[e] & V_ANY_SCALAR) L->m->flags[e] |= V_USED_INT;
    return L->m->evkind[e] == OPGEN_EV_INT || L->m->flags[e] & V_ANY_SCALAR;
}

static opgen_status bind_int_list(mloader *L, opgen_step *s, int ai, int32_t vi, const opgen_arg *ka) {
    opgen_pte_value pv;
    if (opgen_pte_value_at(L->p, L->pl, (uint32_t)vi, &pv, L->err)) return L->err->code;
    int64_t *items = take_list(L, 8 * (size_t)pv.items.len);
    for (uint32_t k = 0; k < pv.items.len; k++) {
        int64_t e = opgen_pte_i64(L->p, pv.items, k);
        if (!pte_int_element(L, e))
            return lfail(L, OPGEN_E_FORMAT, "argument '%s': element %u of list value %d is value %lld, not an Int",
                         ka->name, (unsigned)k, (int)vi, (long long)e);
        items[k] = L->m->values[e].kind == OPGEN_GV_INT ? L->m->values[e].i : 0;
        if (L->m->flags[e] & V_MUTABLE) s->patches[s->npatches++] = (opgen_patch){ai, (int)e, ka->abi, (int)k};
    }
    s->args[ai].v.il = (opgen_int_list){items, pv.items.len};
    return OPGEN_OK;
}

static opgen_status bind_tensor_list(mloader *L, opgen_step *s, int ai, int32_t vi, const opgen_arg *ka) {
    opgen_pte_value pv;
    if (opgen_pte_value_at(L->p, L->pl, (uint32_t)vi, &pv, L->err)) return L->err->code;
    const opgen_tensor **ts = take_list(L, sizeof(void *) * (size_t)pv.items.len);
    for (uint32_t k = 0; k < pv.items.len; k++) {
        int32_t e = opgen_pte_i32(L->p, pv.items, k);
        ts[k] = NULL;
        if (e == -1 && pv.kind == OPGEN_EV_OPT_TENSOR_LIST) continue;
        if (e < 0 || e >= L->m->nvalues || L->m->evkind[e] != OPGEN_EV_TENSOR)
            return lfail(L, OPGEN_E_FORMAT, "argument '%s': element %u of list value %d is value %d, not a Tensor",
                         ka->name, (unsigned)k, (int)vi, (int)e);
        ts[k] = &L->m->values[e].t;
    }
    s->args[ai].v.tl = (opgen_tensor_list){(const opgen_tensor *const *)ts, pv.items.len};
    return OPGEN_OK;
}

static opgen_status bind_scalar_list(mloader *L, opgen_step *s, int ai, int32_t vi, bool doubles) {
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
    static const int32_t of[] = {OPGEN_MEMFMT_CONTIGUOUS, OPGEN_MEMFMT_PRESERVE, OPGEN_MEMFMT_CHANNELS_LAST,
                                 OPGEN_MEMFMT_CHANNELS_LAST_3D};
    return v >= 0 && v < 4 ? of[v] : -1;
}

/* A scalar argument: its value now, refreshed at each call when the method
 * is given it or moves into it. */
static opgen_status bind_scalar(mloader *L, opgen_step *s, int ai, int32_t vi, const opgen_arg *ka, int ev) {
    opgen_value *v = &s->args[ai];
    const opgen_ivalue *iv = &L->m->values[vi];
    int abi = ka->abi;
    bool ok = true;
    switch (abi) {
    case OPGEN_ABI_INT:
    case OPGEN_ABI_OPT_INT:
        ok = ev == OPGEN_EV_INT;
        v->v.i = iv->i;
        break;
    case OPGEN_ABI_FLOAT:
    case OPGEN_ABI_OPT_FLOAT:
        ok = ev == OPGEN_EV_DOUBLE || ev == OPGEN_EV_INT;
        v->v.f = ev == OPGEN_EV_INT ? (double)iv->i : iv->f;
        break;
    case OPGEN_ABI_BOOL:
    case OPGEN_ABI_OPT_BOOL:
        ok = ev == OPGEN_EV_BOOL;
        v->v.b = iv->b;
        break;
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
        return ok ? OPGEN_OK
                  : lfail(L, OPGEN_E_INVALID, "argument '%s' (%s) is value %d, not a known ScalarType", ka->name,
                          ka->type, (int)vi);
    case OPGEN_ABI_ENUM:
    case OPGEN_ABI_OPT_ENUM:
        ok = ev == OPGEN_EV_INT;
        v->v.e = strstr(ka->type, "MemoryFormat") ? memory_format(iv->i) : (int32_t)iv->i;
        ok = ok && v->v.e >= 0;
        break;
    default: ok = false; break;
    }
    if (!ok)
        return lfail(L, OPGEN_E_INVALID, "argument '%s' (%s) is value %d, a%s %s", ka->name, ka->type, (int)vi,
                     ev == OPGEN_EV_INT ? "n" : "", opgen_ev_kind_name(ev));
    if (L->m->flags[vi] & V_MUTABLE && abi != OPGEN_ABI_DTYPE && abi != OPGEN_ABI_OPT_DTYPE && abi != OPGEN_ABI_ENUM &&
        abi != OPGEN_ABI_OPT_ENUM)
        s->patches[s->npatches++] = (opgen_patch){ai, vi, abi, -1};
    return OPGEN_OK;
}

/* An argument from a Null-declared scalar input: patched from the value each run
 * gives (an Int 0 until then: what the meta step at load sees); the kinds its
 * uses accept are noted for the run to check. */
static opgen_status bind_any_scalar(mloader *L, opgen_step *s, int ai, int32_t vi, const opgen_arg *ka) {
    opgen_value *v = &s->args[ai];
    uint8_t *f = &L->m->flags[vi];
    switch (ka->abi) {
    case OPGEN_ABI_SCALAR:
    case OPGEN_ABI_OPT_SCALAR:
        v->v.s.dtype = OPGEN_DTYPE_Long, v->v.s.v.i = 0;
        *f |= V_USED_INT | V_USED_FLOAT | V_USED_BOOL;
        break;
    case OPGEN_ABI_INT:
    case OPGEN_ABI_OPT_INT:
        v->v.i = 0;
        *f |= V_USED_INT;
        break;
    case OPGEN_ABI_FLOAT:
    case OPGEN_ABI_OPT_FLOAT:
        v->v.f = 0;
        *f |= V_USED_INT | V_USED_FLOAT;
        break;
    case OPGEN_ABI_BOOL:
    case OPGEN_ABI_OPT_BOOL:
        v->v.b = false;
        *f |= V_USED_BOOL;
        break;
    default:
        return lfail(
            L, OPGEN_E_NOT_IMPLEMENTED,
            "argument '%s' (%s) is value %d, a scalar input declared Null; opgen takes those as Scalar, int, float or bool arguments",
            ka->name, ka->type, (int)vi);
    }
    s->patches[s->npatches++] = (opgen_patch){ai, vi, ka->abi, -1};
    return OPGEN_OK;
}

static opgen_status bind_arg(mloader *L, opgen_step *s, int ai, int32_t vi) {
    const opgen_arg *ka = &opgen_args[opgen_ops[s->kernel_op].first_arg + (unsigned)ai];
    if (vi < 0 || vi >= L->m->nvalues)
        return lfail(L, OPGEN_E_FORMAT, "argument '%s' is value %d, out of range (%d values)", ka->name, (int)vi,
                     L->m->nvalues);
    int ev = L->m->evkind[vi], abi = ka->abi;
    opgen_value *v = &s->args[ai];
    if (L->m->flags[vi] & V_ANY_SCALAR) return bind_any_scalar(L, s, ai, vi, ka);
    if (ev == OPGEN_EV_NULL || ev == OPGEN_EV_NONE) {
        if (!opgen_abi_optional(abi))
            return lfail(L, OPGEN_E_INVALID, "argument '%s' (%s) cannot be None", ka->name, ka->type);
        v->none = true;
        return OPGEN_OK;
    }
    switch (abi) {
    case OPGEN_ABI_TENSOR:
    case OPGEN_ABI_OPT_TENSOR:
        if (ev != OPGEN_EV_TENSOR) break;
        v->v.t = &L->m->values[vi].t;
        return OPGEN_OK;
    case OPGEN_ABI_TENSOR_LIST:
        return ev == OPGEN_EV_TENSOR_LIST || ev == OPGEN_EV_OPT_TENSOR_LIST
                   ? bind_tensor_list(L, s, ai, vi, ka)
                   : lfail(L, OPGEN_E_INVALID, "argument '%s' (%s) is value %d, a %s", ka->name, ka->type, (int)vi,
                           opgen_ev_kind_name(ev));
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
    return lfail(L, OPGEN_E_INVALID, "argument '%s' (%s) is value %d, a%s %s", ka->name, ka->type, (int)vi,
                 ev == OPGEN_EV_INT || ev == OPGEN_EV_INT_LIST ? "n" : "", opgen_ev_kind_name(ev));
}

/* Value a is value b, or a tensor of the same type over the same planned bytes, or
 * a list of such (the emitter gives an in-place op's result, and a list out's, a
 * value of its own). */
static bool same_tensor(const mloader *L, int32_t a, int32_t b) {
    if (a == b) return true;
    if (a < 0 || a >= L->m->nvalues || b < 0 || b >= L->m->nvalues) return false;
    if (L->m->evkind[a] == OPGEN_EV_TENSOR_LIST &&
        L->m->evkind[b] == OPGEN_EV_TENSOR_LIST) { /* a list out, returned as a list of its own */
        opgen_pte_value x, y;
        opgen_error e = {0};
        if (opgen_pte_value_at(L->p, L->pl, (uint32_t)a, &x, &e) ||
            opgen_pte_value_at(L->p, L->pl, (uint32_t)b, &y, &e) || x.items.len != y.items.len)
            return false;
        for (uint32_t k = 0; k < x.items.len; k++)
            if (!same_tensor(L, opgen_pte_i32(L->p, x.items, k), opgen_pte_i32(L->p, y.items, k))) return false;
        return true;
    }
    if (L->m->evkind[a] != OPGEN_EV_TENSOR || L->m->evkind[b] != OPGEN_EV_TENSOR) return false;
    const opgen_tensor *x = &L->m->values[a].t, *y = &L->m->values[b].t;
    return x->data && x->data == y->data && x->dtype == y->dtype && x->dim == y->dim &&
           !memcmp(x->sizes, y->sizes, sizeof(int64_t) * (size_t)x->dim);
}

/* The returned values after the arguments: the outs again (an in-place op's:
 * what it writes), or (several results) one TensorList of them. */
static opgen_status check_returns(mloader *L, const opgen_pte_instr *in, const opgen_op *kop) {
    uint32_t n = kop->nargs, extra = in->args.len - n;
    int nouts = 0, outs[16];
    unsigned writes =
        kop->kind == OPGEN_KIND_INPLACE ? OPGEN_ARG_WRITE : OPGEN_ARG_OUT; /* an in-place op returns what it writes */
    for (int ai = 0; ai < kop->nargs; ai++)
        if (opgen_args[kop->first_arg + (unsigned)ai].flags & writes && nouts < 16)
            outs[nouts++] = opgen_pte_i32(L->p, in->args, (uint32_t)ai);
    if (extra == (uint32_t)nouts) {
        for (uint32_t r = 0; r < extra; r++)
            if (!same_tensor(L, opgen_pte_i32(L->p, in->args, n + r), outs[r]))
                return lfail(L, OPGEN_E_FORMAT, "returned value %u is value %d, not its out (value %d)", (unsigned)r,
                             (int)(opgen_pte_i32(L->p, in->args, n + r)), outs[r]);
        return OPGEN_OK;
    }
    int32_t ri = opgen_pte_i32(L->p, in->args, n);
    opgen_pte_value pv;
    if (extra != 1 || ri < 0 || ri >= L->m->nvalues || opgen_pte_value_at(L->p, L->pl, (uint32_t)ri, &pv, L->err) ||
        pv.kind != OPGEN_EV_TENSOR_LIST || pv.items.len != (uint32_t)nouts)
        return L->err->code ? L->err->code
                            : lfail(L, OPGEN_E_FORMAT, "%u arguments; %s takes %d and returns %d",
                                    (unsigned)in->args.len, kop->qualified, kop->nargs, nouts);
    for (int r = 0; r < nouts; r++)
        if (opgen_pte_i32(L->p, pv.items, (uint32_t)r) != outs[r])
            return lfail(L, OPGEN_E_FORMAT, "the returned list's element %d is not its out (value %d)", r, outs[r]);
    return OPGEN_OK;
}

/* The index of the value holding tensor t (a list's element). */
opgen_status pte_value_of(const mloader *L, const opgen_tensor *t) {
    return (int32_t)((const opgen_ivalue *)(const void *)((const char *)t - offsetof(opgen_ivalue, t)) - L->m->values);
}

/* A tensor a kernel reads has bytes: a constant's, planned ones, or (given at
 * run) an input's. */
static opgen_status has_memory(mloader *L, const opgen_step *s, int ai, int32_t vi) {
    const opgen_arg *ka = &opgen_args[opgen_ops[s->kernel_op].first_arg + (unsigned)ai];
    const opgen_value *v = &s->args[ai];
    if (ka->flags & OPGEN_ARG_OUT || v->none) return OPGEN_OK;
    if ((ka->abi == OPGEN_ABI_TENSOR || ka->abi == OPGEN_ABI_OPT_TENSOR) && !v->v.t->data &&
        !(L->m->flags[vi] & V_INPUT))
        return lfail(L, OPGEN_E_FORMAT,
                     "it reads value %d, which has no memory (neither a constant, nor planned, nor an input)", (int)vi);
    for (size_t k = 0; ka->abi == OPGEN_ABI_TENSOR_LIST && k < v->v.tl.len; k++) {
        const opgen_tensor *t = v->v.tl.data[k];
        if (t && !t->data && !(L->m->flags[pte_value_of(L, t)] & V_INPUT))
            return lfail(L, OPGEN_E_FORMAT, "its list argument '%s' holds value %d, which has no memory", ka->name,
                         (int)(pte_value_of(L, t)));
    }
    return OPGEN_OK;
}

/* An out: a planned tensor, or (Tensor(a!)[]) a list of them, each planned on its
 * own; each becomes a result the step writes. */
static opgen_status bind_out(mloader *L, opgen_step *s, int ai, int32_t vi) {
    const char *name = opgen_args[opgen_ops[s->kernel_op].first_arg + (unsigned)ai].name;
    const opgen_value *v = &s->args[ai];
    bool list = opgen_args[opgen_ops[s->kernel_op].first_arg + (unsigned)ai].abi == OPGEN_ABI_TENSOR_LIST;
    size_t n = list ? v->v.tl.len : 1;
    for (size_t k = 0; k < n; k++) {
        const opgen_tensor *t = list ? v->v.tl.data[k] : v->none ? NULL : v->v.t;
        int32_t ti = list && t ? pte_value_of(L, t) : vi;
        if (!t || !t->data || L->m->flags[ti] & V_CONSTANT) {
            if (list)
                return lfail(L, OPGEN_E_INVALID,
                             "its out '%s' (value %d): its tensor %zu (value %d) has no planned memory to write", name,
                             (int)vi, k, (int)ti);
            return lfail(L, OPGEN_E_INVALID, "its out '%s' (value %d) has no planned memory to write", name, (int)vi);
        }
        s->res[s->nres++] = (opgen_tensor *)(uintptr_t)t;
    }
    return OPGEN_OK;
}

opgen_status pte_load_kernel_call(mloader *L, instr *ins, const opgen_pte_instr *in) {
    int kid = 0;
    if (pte_kernel_op(L->p, L->pl, ins, in->a, &kid, &ins->op, L->err)) return L->err->code;
    const opgen_op *kop = &opgen_ops[kid];
    opgen_step *s = ins->step;
    s->name = ins->op;
    s->rng = &L->m->rng;
    s->par = L->opt->kernels ? L->opt->kernels->parallel : NULL;
    s->op = opgen_functional_of(kid);
    s->scalar = opgen_is_scalar_op(kid);
    if (s->scalar) return lfail(L, OPGEN_E_NOT_IMPLEMENTED, "scalar prims are not run from .pte programs yet");
    if (in->args.len < kop->nargs)
        return lfail(L, OPGEN_E_FORMAT, "%u arguments; %s takes %d and returns %d", (unsigned)in->args.len,
                     kop->qualified, kop->nargs, kop->nrets);
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
            return lfail(L, OPGEN_E_INVALID, "it writes '%s' (value %d) in place, a constant",
                         opgen_args[kop->first_arg + (unsigned)ai].name, (int)vi);
        if (!(flags & OPGEN_ARG_OUT)) continue;
        if (bind_out(L, s, ai, vi)) return L->err->code;
    }
    L->res += s->nres;
    L->patches += s->npatches;
    return check_returns(L, in, kop);
}

/* ---- instructions ---- */

opgen_status pte_load_control(mloader *L, instr *ins, const opgen_pte_instr *in, int chain_len, int base) {
    opgen_method *m = L->m;
    int n = m->nvalues;
    switch (in->kind) {
    case OPGEN_INSTR_MOVE:
        if (in->a < 0 || in->a >= n || in->b < 0 || in->b >= n)
            return lfail(L, OPGEN_E_FORMAT, "moves value %d to value %d (the method has %d)", (int)in->a, (int)in->b,
                         n);
        if (m->evkind[in->a] != m->evkind[in->b])
            return lfail(L, OPGEN_E_FORMAT, "moves a%s %s into a%s %s", m->evkind[in->a] == OPGEN_EV_INT ? "n" : "",
                         opgen_ev_kind_name(m->evkind[in->a]), m->evkind[in->b] == OPGEN_EV_INT ? "n" : "",
                         opgen_ev_kind_name(m->evkind[in->b]));
        if (m->flags[in->b] & V_CONSTANT) return lfail(L, OPGEN_E_FORMAT, "moves into constant value %d", (int)in->b);
        if (m->evkind[in->a] == OPGEN_EV_TENSOR && !m->values[in->a].t.data && !(m->flags[in->a] & V_INPUT))
            return lfail(L, OPGEN_E_FORMAT,
                         "moves value %d, which has no memory (neither a constant, nor planned, nor an input)",
                         (int)in->a);
        return OPGEN_OK;
    case OPGEN_INSTR_JUMP_FALSE:
        if (in->a < 0 || in->a >= n ||
            (m->evkind[in->a] != OPGEN_EV_BOOL &&
             !(m->evkind[in->a] == OPGEN_EV_TENSOR && m->values[in->a].t.dtype == OPGEN_DTYPE_Bool)))
            return lfail(L, OPGEN_E_FORMAT, "its condition, value %d, is not a Bool or a Bool tensor", (int)in->a);
        if (in->b < 0 || in->b > chain_len)
            return lfail(L, OPGEN_E_FORMAT, "jumps to instruction %d, past the end of its chain (%d instructions)",
                         (int)in->b, chain_len);
        ins->b = base + in->b;
        return OPGEN_OK;
    case OPGEN_INSTR_FREE:
        if (in->a < 0 || in->a >= n || m->evkind[in->a] != OPGEN_EV_TENSOR)
            return lfail(L, OPGEN_E_FORMAT, "frees value %d, which is not a tensor", (int)in->a);
        return OPGEN_OK;
    case OPGEN_INSTR_DELEGATE:
        if (in->a < 0 || in->a >= m->ndelegates)
            return lfail(L, OPGEN_E_FORMAT, "delegate index %d out of range (the method has %d)", (int)in->a,
                         m->ndelegates);
        ins->dargs = (opgen_ivalue **)(uintptr_t)L->lists; /* placeholder, replaced below */
        return OPGEN_OK;
    default: return lfail(L, OPGEN_E_FORMAT, "an unknown instruction kind %d", in->kind);
    }
}
