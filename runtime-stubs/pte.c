/* The .pte reader (opgen/pte.h). The FlatBuffers binary layout: a u32 offset
 * to the root table at byte 0, the file identifier at bytes 4-7; a table starts
 * with an i32 offset back to its vtable (u16 vtable size, u16 table size, a u16
 * offset per field slot, 0 = absent); tables, vectors and strings are reached
 * through u32 offsets relative to where the offset is stored; a vector is a u32
 * length and its elements; a string is a vector of bytes with a NUL after it. */
#include "opgen/pte.h"
#include <stdio.h>
#include <string.h>

/* Field slots of schema/program.fbs (a union takes two: its type tag, its value). */
enum {
    PROGRAM_VERSION,
    PROGRAM_PLANS,
    PROGRAM_CONSTANT_BUFFER,
    PROGRAM_DELEGATE_DATA,
    PROGRAM_SEGMENTS,
    PROGRAM_CONSTANT_SEGMENT,
    PROGRAM_MUTABLE_SEGMENTS
};
enum {
    PLAN_NAME,
    PLAN_META,
    PLAN_VALUES,
    PLAN_INPUTS,
    PLAN_OUTPUTS,
    PLAN_CHAINS,
    PLAN_OPERATORS,
    PLAN_DELEGATES,
    PLAN_BUFFER_SIZES
};
enum {
    TENSOR_TYPE,
    TENSOR_STORAGE_OFFSET,
    TENSOR_SIZES,
    TENSOR_DIM_ORDER,
    TENSOR_REQUIRES_GRAD,
    TENSOR_DATA_BUFFER,
    TENSOR_ALLOCATION,
    TENSOR_LAYOUT,
    TENSOR_DYNAMISM,
    TENSOR_EXTRA
};

typedef struct reader {
    const opgen_pte *p;
    const uint8_t *b;
    size_t n; /* the flatbuffer's bytes */
    opgen_error *err;
    bool failed;
} reader;

static reader reader_of(const opgen_pte *p, opgen_error *err) { return (reader){p, p->data, p->fb_size, err, false}; }

static bool bad(reader *r, size_t at, const char *what) {
    if (!r->failed)
        opgen_fail_at(r->err, OPGEN_E_FORMAT, r->p->file, 0, 0,
                      "corrupt or truncated program: %s at byte %zu (the file has %zu bytes)", what, at, r->p->size);
    r->failed = true;
    return false;
}

static uint32_t le32(const uint8_t *b) {
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}
static uint64_t le64(const uint8_t *b) { return (uint64_t)le32(b) | (uint64_t)le32(b + 4) << 32; }

static bool u32_at(reader *r, size_t at, uint32_t *v, const char *what) {
    if (at > r->n || r->n - at < 4) return bad(r, at, what);
    *v = le32(r->b + at);
    return true;
}

/* A table with its vtable read once: each field is then one lookup. */
typedef struct tview {
    size_t t, vt;
    uint16_t vsize, tsize;
} tview;

static bool view(reader *r, size_t t, tview *v, const char *what) {
    uint32_t so;
    memset(v, 0, sizeof *v);
    if (!t || !u32_at(r, t, &so, what)) return false;
    int64_t vt = (int64_t)t - (int64_t)(int32_t)so;
    if (vt < 0 || (uint64_t)vt > r->n || r->n - (size_t)vt < 4) return bad(r, t, what);
    uint16_t vsize = (uint16_t)(r->b[vt] | r->b[vt + 1] << 8), tsize = (uint16_t)(r->b[vt + 2] | r->b[vt + 3] << 8);
    if (vsize < 4 || vsize % 2 || r->n - (size_t)vt < vsize || tsize < 4 || r->n - t < tsize) return bad(r, t, what);
    *v = (tview){t, (size_t)vt, vsize, tsize};
    return true;
}

/* The position of field `slot`, or 0 when absent (or when the table was written
 * before the field existed). */
static size_t vfield(reader *r, const tview *v, unsigned slot, const char *what) {
    if (!v->t || 4 + 2 * (size_t)slot + 2 > v->vsize) return 0;
    uint16_t off = (uint16_t)(r->b[v->vt + 4 + 2 * slot] | r->b[v->vt + 5 + 2 * slot] << 8);
    if (!off) return 0;
    if (off < 4 || off >= v->tsize) return bad(r, v->t, what), 0;
    return v->t + off;
}

/* Follows the u32 offset stored at `at` (0: absent). */
static size_t deref(reader *r, size_t at, const char *what) {
    uint32_t o;
    if (!at || !u32_at(r, at, &o, what)) return 0;
    if (o == 0 || o > r->n - at) return bad(r, at, what), 0;
    return at + o;
}

static size_t table_field(reader *r, const tview *v, unsigned slot, const char *what) {
    return deref(r, vfield(r, v, slot, what), what);
}

/* A vector field of elem-byte elements. */
static opgen_pte_vec vec(reader *r, const tview *tv, unsigned slot, size_t elem, const char *what) {
    opgen_pte_vec v = {0, 0};
    size_t at = table_field(r, tv, slot, what);
    uint32_t len;
    if (!at || !u32_at(r, at, &len, what)) return v;
    if ((uint64_t)len * elem > r->n - at - 4) return bad(r, at, what), v;
    v.at = at + 4;
    v.len = len;
    return v;
}

/* The table at element i of a vector of offsets, viewed. */
static bool vec_table(reader *r, opgen_pte_vec v, uint32_t i, tview *out, const char *what) {
    memset(out, 0, sizeof *out);
    if (i >= v.len) return bad(r, v.at, what);
    return view(r, deref(r, v.at + 4 * (size_t)i, what), out, what);
}

/* A string field: NUL-terminated in place (the format writes the NUL). */
static const char *str(reader *r, const tview *v, unsigned slot, uint32_t *len, const char *what) {
    size_t s = table_field(r, v, slot, what);
    uint32_t n;
    if (!s || !u32_at(r, s, &n, what)) return NULL;
    if (n >= r->n - s - 4 || r->b[s + 4 + n] != 0) return bad(r, s, what), NULL;
    if (len) *len = n;
    return (const char *)r->b + s + 4;
}

static uint64_t scalar(reader *r, const tview *v, unsigned slot, unsigned size, uint64_t dflt, const char *what) {
    size_t at = vfield(r, v, slot, what);
    if (!at) return dflt;
    if (size > r->n - at) return bad(r, at, what), dflt;
    return size == 1 ? r->b[at] : size == 4 ? le32(r->b + at) : le64(r->b + at);
}

/* A sub-table field, viewed (absent: an empty view). */
static bool sub(reader *r, const tview *v, unsigned slot, tview *out, const char *what) {
    size_t t = table_field(r, v, slot, what);
    memset(out, 0, sizeof *out);
    return t ? view(r, t, out, what) : false;
}

int32_t opgen_pte_i32(const opgen_pte *p, opgen_pte_vec v, uint32_t i) {
    return (int32_t)le32(p->data + v.at + 4 * (size_t)i);
}
int64_t opgen_pte_i64(const opgen_pte *p, opgen_pte_vec v, uint32_t i) {
    return (int64_t)le64(p->data + v.at + 8 * (size_t)i);
}
uint8_t opgen_pte_u8(const opgen_pte *p, opgen_pte_vec v, uint32_t i) { return p->data[v.at + i]; }
double opgen_pte_f64(const opgen_pte *p, opgen_pte_vec v, uint32_t i) {
    uint64_t u = le64(p->data + v.at + 8 * (size_t)i);
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

bool opgen_pte_is_program(const void *data, size_t size) {
    return size >= 8 && !memcmp((const uint8_t *)data + 4, "ET12", 4);
}

/* The extended header at byte 8: "eh00", u32 length, u64 program_size, u64
 * segment_base_offset (schema/extended_header.h). */
static opgen_status extended_header(opgen_pte *p, opgen_error *err) {
    const uint8_t *h = p->data + 8;
    if (p->size < 32 || memcmp(h, "eh00", 4)) return OPGEN_OK;
    uint32_t hlen = le32(h + 4);
    uint64_t psize = le64(h + 8), base = le64(h + 16);
    if (hlen < 24 || psize < 32 || psize > p->size || base > p->size || (base && base < psize))
        return opgen_fail_at(err, OPGEN_E_FORMAT, p->file, 0, 0,
                             "corrupt extended header: program size %llu, segment base %llu (the file has %zu bytes)",
                             (unsigned long long)psize, (unsigned long long)base, p->size);
    p->has_header = true;
    p->fb_size = (size_t)psize;
    p->segment_base = base;
    return OPGEN_OK;
}

opgen_status opgen_pte_open(opgen_pte *p, const void *data, size_t size, const char *file, opgen_error *err) {
    memset(p, 0, sizeof *p);
    p->data = data;
    p->size = p->fb_size = size;
    p->file = file ? file : "";
    if (!data || size < 8)
        return opgen_fail_at(err, OPGEN_E_FORMAT, p->file, 0, 0,
                             "not an ExecuTorch program: %zu bytes is too short for a FlatBuffers header", size);
    const uint8_t *b = data;
    if (memcmp(b + 4, "ET12", 4)) {
        char id[5];
        for (int i = 0; i < 4; i++) id[i] = b[4 + i] >= 32 && b[4 + i] < 127 ? (char)b[4 + i] : '?';
        id[4] = 0;
        return opgen_fail_at(err, OPGEN_E_FORMAT, p->file, 0, 0,
                             "not an ExecuTorch program: the FlatBuffers file identifier is '%s', expected 'ET12'", id);
    }
    if (extended_header(p, err)) return err->code;
    reader r = reader_of(p, err);
    uint32_t ro;
    if (!u32_at(&r, 0, &ro, "the root table offset") || ro < 8 || ro >= p->fb_size)
        return bad(&r, 0, "the root table offset"), OPGEN_E_FORMAT;
    p->root = ro;
    tview root, cs;
    if (!view(&r, ro, &root, "the Program table")) return OPGEN_E_FORMAT;
    p->version = (uint32_t)scalar(&r, &root, PROGRAM_VERSION, 4, 0, "Program.version");
    p->plans = vec(&r, &root, PROGRAM_PLANS, 4, "Program.execution_plan");
    p->constant_buffer = vec(&r, &root, PROGRAM_CONSTANT_BUFFER, 4, "Program.constant_buffer");
    p->delegate_data = vec(&r, &root, PROGRAM_DELEGATE_DATA, 4, "Program.backend_delegate_data");
    p->segments = vec(&r, &root, PROGRAM_SEGMENTS, 4, "Program.segments");
    if (sub(&r, &root, PROGRAM_CONSTANT_SEGMENT, &cs, "Program.constant_segment") &&
        vec(&r, &cs, 1, 8, "SubsegmentOffsets.offsets").len)
        p->constant_segment =
            cs.t; /* an empty table: the constants are inline (constant_buffer), as ExecuTorch reads it */
    p->mutable_segments = vec(&r, &root, PROGRAM_MUTABLE_SEGMENTS, 4, "Program.mutable_data_segments");
    return r.failed ? OPGEN_E_FORMAT : OPGEN_OK;
}

opgen_status opgen_pte_plan_at(const opgen_pte *p, uint32_t i, opgen_pte_plan *out, opgen_error *err) {
    reader r = reader_of(p, err);
    memset(out, 0, sizeof *out);
    tview t;
    if (!vec_table(&r, p->plans, i, &t, "an ExecutionPlan")) return OPGEN_E_FORMAT;
    out->at = t.t;
    out->name = str(&r, &t, PLAN_NAME, NULL, "ExecutionPlan.name");
    if (!out->name) out->name = "";
    out->values = vec(&r, &t, PLAN_VALUES, 4, "ExecutionPlan.values");
    out->inputs = vec(&r, &t, PLAN_INPUTS, 4, "ExecutionPlan.inputs");
    out->outputs = vec(&r, &t, PLAN_OUTPUTS, 4, "ExecutionPlan.outputs");
    out->chains = vec(&r, &t, PLAN_CHAINS, 4, "ExecutionPlan.chains");
    out->operators = vec(&r, &t, PLAN_OPERATORS, 4, "ExecutionPlan.operators");
    out->delegates = vec(&r, &t, PLAN_DELEGATES, 4, "ExecutionPlan.delegates");
    out->buffer_sizes = vec(&r, &t, PLAN_BUFFER_SIZES, 8, "ExecutionPlan.non_const_buffer_sizes");
    return r.failed ? OPGEN_E_FORMAT : OPGEN_OK;
}

opgen_status opgen_pte_plan_find(const opgen_pte *p, const char *name, opgen_pte_plan *out, opgen_error *err) {
    char names[256] = "";
    size_t n = 0;
    for (uint32_t i = 0; i < p->plans.len; i++) {
        if (opgen_pte_plan_at(p, i, out, err)) return err->code;
        if (!strcmp(out->name, name)) return OPGEN_OK;
        if (OPGEN_ERRMSG && n < sizeof names)
            n += (size_t)snprintf(names + n, sizeof names - n, "%s'%s'", i ? ", " : "", out->name);
    }
    return opgen_fail_at(err, OPGEN_E_NOT_FOUND, p->file, 0, 0, "no method '%s' (the program has %s)", name,
                         p->plans.len ? names : "no methods");
}

const char *opgen_ev_kind_name(int kind) {
    static const char *const names[] = {"None",       "Null",     "Int",        "Bool",
                                        "Double",     "Tensor",   "String",     "IntList",
                                        "DoubleList", "BoolList", "TensorList", "OptionalTensorList"};
    return kind >= 0 && kind < OPGEN_EV_KIND_COUNT ? names[kind] : "an unknown kind";
}

const char *opgen_instr_kind_name(int kind) {
    static const char *const names[] = {"None", "KernelCall", "DelegateCall", "MoveCall", "JumpFalseCall", "FreeCall"};
    return kind >= 0 && kind < OPGEN_INSTR_KIND_COUNT ? names[kind] : "an unknown instruction";
}

static void read_tensor(reader *r, const tview *t, opgen_pte_tensor *x) {
    x->scalar_type = (int8_t)scalar(r, t, TENSOR_TYPE, 1, 0, "Tensor.scalar_type");
    x->storage_offset = (int32_t)scalar(r, t, TENSOR_STORAGE_OFFSET, 4, 0, "Tensor.storage_offset");
    x->sizes = vec(r, t, TENSOR_SIZES, 4, "Tensor.sizes");
    x->dim_order = vec(r, t, TENSOR_DIM_ORDER, 1, "Tensor.dim_order");
    x->data_buffer_idx = (uint32_t)scalar(r, t, TENSOR_DATA_BUFFER, 4, 0, "Tensor.data_buffer_idx");
    x->shape_dynamism = (int8_t)scalar(r, t, TENSOR_DYNAMISM, 1, 0, "Tensor.shape_dynamism");
    tview al, extra;
    if (sub(r, t, TENSOR_ALLOCATION, &al, "Tensor.allocation_info")) {
        x->planned = true;
        x->memory_id = (uint32_t)scalar(r, &al, 0, 4, 0, "AllocationDetails.memory_id");
        x->memory_offset = scalar(r, &al, 1, 4, 0, "AllocationDetails.memory_offset_low") |
                           scalar(r, &al, 2, 4, 0, "AllocationDetails.memory_offset_high") << 32;
    }
    if (sub(r, t, TENSOR_EXTRA, &extra, "Tensor.extra_tensor_info"))
        x->external = scalar(r, &extra, 2, 1, 0, "ExtraTensorInfo.location") == 1;
}

opgen_status opgen_pte_value_at(const opgen_pte *p, const opgen_pte_plan *pl, uint32_t i, opgen_pte_value *v,
                                opgen_error *err) {
    reader r = reader_of(p, err);
    memset(v, 0, sizeof *v);
    if (i >= pl->values.len)
        return opgen_fail_at(err, OPGEN_E_FORMAT, p->file, 0, 0,
                             "value index %u out of range: method '%s' has %u values", (unsigned)i, pl->name,
                             (unsigned)pl->values.len);
    tview ev, xv;
    if (!vec_table(&r, pl->values, i, &ev, "an EValue")) return OPGEN_E_FORMAT;
    v->kind = (int)scalar(&r, &ev, 0, 1, 0, "EValue.val_type");
    bool x = sub(&r, &ev, 1, &xv, "EValue.val");
    const tview *xp = &xv;
    if (r.failed) return OPGEN_E_FORMAT;
    if (v->kind >= OPGEN_EV_KIND_COUNT)
        return opgen_fail_at(err, OPGEN_E_FORMAT, p->file, 0, 0, "value %u of method '%s' has an unknown kind (tag %d)",
                             (unsigned)i, pl->name, v->kind);
    if (v->kind != OPGEN_EV_NONE && v->kind != OPGEN_EV_NULL && !x)
        return opgen_fail_at(err, OPGEN_E_FORMAT, p->file, 0, 0, "value %u of method '%s' is a%s %s without its table",
                             (unsigned)i, pl->name, v->kind == OPGEN_EV_INT ? "n" : "", opgen_ev_kind_name(v->kind));
    switch (v->kind) {
    case OPGEN_EV_INT: v->i = (int64_t)scalar(&r, xp, 0, 8, 0, "Int.int_val"); break;
    case OPGEN_EV_BOOL: v->b = scalar(&r, xp, 0, 1, 0, "Bool.bool_val") != 0; break;
    case OPGEN_EV_DOUBLE: {
        uint64_t u = scalar(&r, xp, 0, 8, 0, "Double.double_val");
        memcpy(&v->f, &u, sizeof v->f);
        break;
    }
    case OPGEN_EV_STRING:
        v->str = str(&r, xp, 0, &v->len, "String.string_val");
        if (!v->str && !r.failed) v->str = "";
        break;
    case OPGEN_EV_INT_LIST: v->items = vec(&r, xp, 0, 8, "IntList.items"); break;
    case OPGEN_EV_DOUBLE_LIST: v->items = vec(&r, xp, 0, 8, "DoubleList.items"); break;
    case OPGEN_EV_BOOL_LIST: v->items = vec(&r, xp, 0, 1, "BoolList.items"); break;
    case OPGEN_EV_TENSOR_LIST:
    case OPGEN_EV_OPT_TENSOR_LIST: v->items = vec(&r, xp, 0, 4, "TensorList.items"); break;
    case OPGEN_EV_TENSOR: read_tensor(&r, xp, &v->t); break;
    default: break;
    }
    return r.failed ? OPGEN_E_FORMAT : OPGEN_OK;
}

opgen_status opgen_pte_chain_at(const opgen_pte *p, const opgen_pte_plan *pl, uint32_t c, opgen_pte_vec *instrs,
                                opgen_error *err) {
    reader r = reader_of(p, err);
    tview t;
    *instrs =
        vec_table(&r, pl->chains, c, &t, "a Chain") ? vec(&r, &t, 2, 4, "Chain.instructions") : (opgen_pte_vec){0, 0};
    return r.failed ? OPGEN_E_FORMAT : OPGEN_OK;
}

opgen_status opgen_pte_instr_at(const opgen_pte *p, const opgen_pte_vec *instrs, uint32_t k, opgen_pte_instr *out,
                                opgen_error *err) {
    reader r = reader_of(p, err);
    memset(out, 0, sizeof *out);
    tview t, xv;
    if (!vec_table(&r, *instrs, k, &t, "an Instruction")) return OPGEN_E_FORMAT;
    out->kind = (int)scalar(&r, &t, 0, 1, 0, "Instruction.instr_args_type");
    bool x = sub(&r, &t, 1, &xv, "Instruction.instr_args");
    if (r.failed) return OPGEN_E_FORMAT;
    if (out->kind <= OPGEN_INSTR_NONE || out->kind >= OPGEN_INSTR_KIND_COUNT || !x)
        return opgen_fail_at(err, OPGEN_E_FORMAT, p->file, 0, 0, "instruction %u: %s", (unsigned)k,
                             out->kind <= 0 || out->kind >= OPGEN_INSTR_KIND_COUNT ? "an unknown instruction kind"
                                                                                   : "its arguments are missing");
    out->a = (int32_t)scalar(&r, &xv, 0, 4, 0, "an instruction's first field");
    if (out->kind == OPGEN_INSTR_KERNEL || out->kind == OPGEN_INSTR_DELEGATE)
        out->args = vec(&r, &xv, 1, 4, "an instruction's args");
    else if (out->kind != OPGEN_INSTR_FREE)
        out->b = (int32_t)scalar(&r, &xv, 1, 4, 0, "an instruction's second field");
    return r.failed ? OPGEN_E_FORMAT : OPGEN_OK;
}

opgen_status opgen_pte_operator_at(const opgen_pte *p, const opgen_pte_plan *pl, uint32_t i, const char **name,
                                   const char **overload, opgen_error *err) {
    reader r = reader_of(p, err);
    if (i >= pl->operators.len)
        return opgen_fail_at(err, OPGEN_E_FORMAT, p->file, 0, 0,
                             "operator index %u out of range: method '%s' has %u operators", (unsigned)i, pl->name,
                             (unsigned)pl->operators.len);
    tview t;
    bool ok = vec_table(&r, pl->operators, i, &t, "an Operator");
    *name = ok ? str(&r, &t, 0, NULL, "Operator.name") : NULL;
    *overload = ok ? str(&r, &t, 1, NULL, "Operator.overload") : NULL;
    if (r.failed) return OPGEN_E_FORMAT;
    if (!*name || !**name)
        return opgen_fail_at(err, OPGEN_E_FORMAT, p->file, 0, 0, "operator %u of method '%s' has no name", (unsigned)i,
                             pl->name);
    if (!*overload) *overload = "";
    return OPGEN_OK;
}

/* Segment i's bytes: [segment_base + offset, + size) of the file. */
static opgen_status segment(const opgen_pte *p, uint32_t i, const uint8_t **data, uint64_t *size, opgen_error *err) {
    reader r = reader_of(p, err);
    if (!p->has_header)
        return opgen_fail_at(err, OPGEN_E_FORMAT, p->file, 0, 0,
                             "the program refers to segment %u but has no extended header placing segments",
                             (unsigned)i);
    tview t;
    vec_table(&r, p->segments, i, &t, "a DataSegment");
    uint64_t off = scalar(&r, &t, 0, 8, 0, "DataSegment.offset"), n = scalar(&r, &t, 1, 8, 0, "DataSegment.size");
    if (r.failed) return OPGEN_E_FORMAT;
    if (off > p->size - p->segment_base || n > p->size - p->segment_base - off)
        return opgen_fail_at(err, OPGEN_E_FORMAT, p->file, 0, 0,
                             "segment %u (%llu bytes at %llu) lies outside the file (%zu bytes)", (unsigned)i,
                             (unsigned long long)n, (unsigned long long)(p->segment_base + off), p->size);
    *data = p->data + p->segment_base + off;
    *size = n;
    return OPGEN_OK;
}

/* Entry idx of a SubsegmentOffsets table (the constant segment, a mutable one). */
static opgen_status subsegment(const opgen_pte *p, size_t at, uint32_t idx, size_t nbytes, const void **data,
                               const char *what, opgen_error *err) {
    reader r = reader_of(p, err);
    tview t;
    view(&r, at, &t, "a SubsegmentOffsets");
    uint32_t seg = (uint32_t)scalar(&r, &t, 0, 4, 0, "SubsegmentOffsets.segment_index");
    opgen_pte_vec offs = vec(&r, &t, 1, 8, "SubsegmentOffsets.offsets");
    if (r.failed) return OPGEN_E_FORMAT;
    if (idx >= offs.len)
        return opgen_fail_at(err, OPGEN_E_FORMAT, p->file, 0, 0, "%s %u out of range: the program has %u", what,
                             (unsigned)idx, (unsigned)offs.len);
    const uint8_t *base;
    uint64_t size, off = (uint64_t)opgen_pte_i64(p, offs, idx);
    if (segment(p, seg, &base, &size, err)) return err->code;
    if (off > size || nbytes > size - off)
        return opgen_fail_at(err, OPGEN_E_FORMAT, p->file, 0, 0,
                             "%s %u: %zu bytes at offset %llu do not fit its segment (%llu bytes)", what, (unsigned)idx,
                             nbytes, (unsigned long long)off, (unsigned long long)size);
    *data = base + off;
    return OPGEN_OK;
}

opgen_status opgen_pte_constant(const opgen_pte *p, uint32_t idx, size_t nbytes, const void **data, opgen_error *err) {
    if (p->constant_segment) return subsegment(p, p->constant_segment, idx, nbytes, data, "constant buffer", err);
    reader r = reader_of(p, err);
    if (idx >= p->constant_buffer.len)
        return opgen_fail_at(err, OPGEN_E_FORMAT, p->file, 0, 0, "constant buffer %u out of range: the program has %u",
                             (unsigned)idx, (unsigned)p->constant_buffer.len);
    tview t;
    vec_table(&r, p->constant_buffer, idx, &t, "a Buffer");
    opgen_pte_vec s = vec(&r, &t, 0, 1, "Buffer.storage");
    if (r.failed) return OPGEN_E_FORMAT;
    if (s.len < nbytes)
        return opgen_fail_at(err, OPGEN_E_FORMAT, p->file, 0, 0,
                             "constant buffer %u holds %u bytes, its tensor needs %zu", (unsigned)idx, (unsigned)s.len,
                             nbytes);
    *data = p->data + s.at;
    return OPGEN_OK;
}

opgen_status opgen_pte_mutable_data(const opgen_pte *p, uint32_t idx, size_t nbytes, const void **data,
                                    opgen_error *err) {
    reader r = reader_of(p, err);
    tview t = {0};
    if (p->mutable_segments.len) vec_table(&r, p->mutable_segments, 0, &t, "a mutable data segment");
    if (r.failed) return OPGEN_E_FORMAT;
    if (!t.t)
        return opgen_fail_at(err, OPGEN_E_FORMAT, p->file, 0, 0,
                             "a planned tensor has initial data %u, but the program has no mutable data segment",
                             (unsigned)idx);
    return subsegment(p, t.t, idx, nbytes, data, "mutable data", err);
}

opgen_status opgen_pte_delegate_at(const opgen_pte *p, const opgen_pte_plan *pl, uint32_t i, opgen_pte_delegate *out,
                                   opgen_error *err) {
    reader r = reader_of(p, err);
    memset(out, 0, sizeof *out);
    if (i >= pl->delegates.len)
        return opgen_fail_at(err, OPGEN_E_FORMAT, p->file, 0, 0,
                             "delegate index %u out of range: method '%s' has %u delegates", (unsigned)i, pl->name,
                             (unsigned)pl->delegates.len);
    tview t, ref, inl;
    vec_table(&r, pl->delegates, i, &t, "a BackendDelegate");
    out->id = str(&r, &t, 0, NULL, "BackendDelegate.id");
    bool has_ref = sub(&r, &t, 1, &ref, "BackendDelegate.processed");
    out->compile_specs = vec(&r, &t, 2, 4, "BackendDelegate.compile_specs");
    if (r.failed) return OPGEN_E_FORMAT;
    if (!out->id) out->id = "";
    if (!has_ref) return OPGEN_OK;
    int location = (int)scalar(&r, &ref, 0, 1, 0, "BackendDelegateDataReference.location");
    uint32_t index = (uint32_t)scalar(&r, &ref, 1, 4, 0, "BackendDelegateDataReference.index");
    if (location == 1) { /* a segment */
        const uint8_t *d;
        uint64_t n;
        if (segment(p, index, &d, &n, err)) return err->code;
        out->data = d, out->size = (size_t)n;
        return OPGEN_OK;
    }
    bool has_inl =
        index < p->delegate_data.len && vec_table(&r, p->delegate_data, index, &inl, "BackendDelegateInlineData");
    opgen_pte_vec d = has_inl ? vec(&r, &inl, 0, 1, "BackendDelegateInlineData.data") : (opgen_pte_vec){0, 0};
    if (r.failed) return OPGEN_E_FORMAT;
    if (!has_inl)
        return opgen_fail_at(err, OPGEN_E_FORMAT, p->file, 0, 0,
                             "delegate '%s': inline data %u out of range (the program has %u)", out->id,
                             (unsigned)index, (unsigned)p->delegate_data.len);
    out->data = p->data + d.at, out->size = d.len;
    return OPGEN_OK;
}

/* "dtype;order" of value i when it is a tensor (the default order when none is
 * written), appended at key + *n; false when it is not a tensor. */
static bool tensor_key(const opgen_pte *p, const opgen_pte_plan *pl, int64_t i, char *key, size_t cap, size_t *n,
                       opgen_error *err, bool *failed) {
    opgen_pte_value v;
    if (i < 0 || i >= pl->values.len) return false;
    if (opgen_pte_value_at(p, pl, (uint32_t)i, &v, err)) return !(*failed = true);
    if (v.kind != OPGEN_EV_TENSOR) return false;
    if (*n < cap) *n += (size_t)snprintf(key + *n, cap - *n, "%s%d;", *n > 3 ? "|" : "", v.t.scalar_type);
    uint32_t len = v.t.dim_order.len ? v.t.dim_order.len : v.t.sizes.len;
    for (uint32_t k = 0; k < len && *n < cap; k++)
        *n += (size_t)snprintf(key + *n, cap - *n, "%s%u", k ? "," : "",
                               (unsigned)(v.t.dim_order.len ? opgen_pte_u8(p, v.t.dim_order, k) : k));
    return true;
}

int64_t opgen_pte_kernel_key(const opgen_pte *p, const opgen_pte_plan *pl, const opgen_pte_instr *in, char *key,
                             size_t cap, opgen_error *err) {
    size_t n = (size_t)snprintf(key, cap, "v1/");
    bool failed = false;
    for (uint32_t x = 0; x < in->args.len && !failed; x++) {
        int32_t i = opgen_pte_i32(p, in->args, x);
        opgen_pte_value v;
        if (i < 0 || (uint32_t)i >= pl->values.len)
            return opgen_fail_at(err, OPGEN_E_FORMAT, p->file, 0, 0,
                                 "a KernelCall argument %d is out of range: method '%s' has %u values", (int)i,
                                 pl->name, (unsigned)pl->values.len),
                   -1;
        if (opgen_pte_value_at(p, pl, (uint32_t)i, &v, err)) return -1;
        if (v.kind == OPGEN_EV_TENSOR) {
            tensor_key(p, pl, i, key, cap, &n, err, &failed);
        } else if (v.kind == OPGEN_EV_TENSOR_LIST ||
                   v.kind == OPGEN_EV_OPT_TENSOR_LIST) { /* its first (present) element */
            for (uint32_t k = 0; k < v.items.len; k++) {
                int32_t item = opgen_pte_i32(p, v.items, k);
                if (item == -1) continue;
                tensor_key(p, pl, item, key, cap, &n, err, &failed);
                break;
            }
        }
    }
    return failed ? -1 : (int64_t)n;
}
