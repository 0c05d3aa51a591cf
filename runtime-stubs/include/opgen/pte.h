/* ExecuTorch programs (.pte files): a reader of their FlatBuffers layout
 * (pytorch/executorch schema/program.fbs), shared by the runtime's loader
 * (opgen/method.h) and the generator's selection (`opgen select --pte`).
 *
 * Nothing is copied and nothing is allocated: the views below point into the
 * caller's buffer. Every offset, length and index is checked against the buffer
 * before it is followed, so a truncated or corrupt file is an error naming the
 * byte ("m.pte: error: corrupt or truncated program: Tensor.sizes at byte 812
 * (the file has 900 bytes)"), never a read outside it. FlatBuffers offsets only
 * point forward, so no chain of them can loop. */
#ifndef OPGEN_PTE_H
#define OPGEN_PTE_H
#include "opgen/rt.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A vector in the buffer: its first element's byte position and its length
 * (position 0: absent, length 0). Its elements are known to lie in the buffer. */
typedef struct opgen_pte_vec {
    size_t at;
    uint32_t len;
} opgen_pte_vec;

typedef struct opgen_pte {
    const uint8_t *data;
    size_t size;           /* the file's bytes */
    size_t fb_size;        /* the flatbuffer's (the extended header's program_size, or size) */
    uint64_t segment_base; /* where segment data starts (extended header), 0 if no header */
    bool has_header;       /* an extended header ("eh00") was found */
    const char *file;      /* names the program in errors */
    size_t root;
    uint32_t version;
    opgen_pte_vec plans, constant_buffer, delegate_data, segments, mutable_segments;
    size_t constant_segment; /* the SubsegmentOffsets table, or 0 */
} opgen_pte;

/* Checks the FlatBuffers header, the file identifier (ET12) and the extended
 * header, and finds the root. `file` is kept (not copied) for messages. */
opgen_status opgen_pte_open(opgen_pte *p, const void *data, size_t size, const char *file, opgen_error *err);
/* Whether data starts like a .pte program (the ET12 identifier at byte 4). */
bool opgen_pte_is_program(const void *data, size_t size);

/* ---- methods (execution plans) ---- */
typedef struct opgen_pte_plan {
    size_t at;
    const char *name; /* "" when absent */
    opgen_pte_vec values, inputs, outputs, chains, operators, delegates, buffer_sizes;
} opgen_pte_plan;

opgen_status opgen_pte_plan_at(const opgen_pte *p, uint32_t i, opgen_pte_plan *out, opgen_error *err);
/* The method called name; OPGEN_E_NOT_FOUND (naming the methods there are) if none. */
opgen_status opgen_pte_plan_find(const opgen_pte *p, const char *name, opgen_pte_plan *out, opgen_error *err);

/* ---- values (EValues) ---- */
enum opgen_ev_kind {
    OPGEN_EV_NONE, /* no value written */
    OPGEN_EV_NULL,
    OPGEN_EV_INT,
    OPGEN_EV_BOOL,
    OPGEN_EV_DOUBLE,
    OPGEN_EV_TENSOR,
    OPGEN_EV_STRING,
    OPGEN_EV_INT_LIST,        /* items: i64 indices of Int values (boxed) */
    OPGEN_EV_DOUBLE_LIST,     /* items: f64 */
    OPGEN_EV_BOOL_LIST,       /* items: u8 */
    OPGEN_EV_TENSOR_LIST,     /* items: i32 indices of Tensor values */
    OPGEN_EV_OPT_TENSOR_LIST, /* the same, -1 for None */
    OPGEN_EV_KIND_COUNT
};
const char *opgen_ev_kind_name(int kind);

enum { OPGEN_PTE_STATIC, OPGEN_PTE_DYNAMIC_BOUND, OPGEN_PTE_DYNAMIC_UNBOUND };

typedef struct opgen_pte_tensor {
    int scalar_type;
    int32_t storage_offset;
    opgen_pte_vec sizes;      /* i32 */
    opgen_pte_vec dim_order;  /* u8; absent: the default order */
    uint32_t data_buffer_idx; /* constant data (> 0), or initial data of a planned tensor */
    bool planned;             /* allocation_info present: */
    uint32_t memory_id;       /*   1-based buffer (non_const_buffer_sizes index) */
    uint64_t memory_offset;   /*   bytes into it */
    int shape_dynamism;
    bool external; /* its data lives outside the program (a .ptd file) */
} opgen_pte_tensor;

typedef struct opgen_pte_value {
    int kind; /* enum opgen_ev_kind */
    int64_t i;
    bool b;
    double f;
    const char *str; /* STRING: NUL-terminated in the buffer */
    uint32_t len;
    opgen_pte_vec items; /* the lists */
    opgen_pte_tensor t;
} opgen_pte_value;

opgen_status opgen_pte_value_at(const opgen_pte *p, const opgen_pte_plan *pl, uint32_t i, opgen_pte_value *v,
                                opgen_error *err);

/* ---- instructions ---- */
enum opgen_instr_kind {
    OPGEN_INSTR_NONE,
    OPGEN_INSTR_KERNEL,
    OPGEN_INSTR_DELEGATE,
    OPGEN_INSTR_MOVE,
    OPGEN_INSTR_JUMP_FALSE,
    OPGEN_INSTR_FREE,
    OPGEN_INSTR_KIND_COUNT
};
const char *opgen_instr_kind_name(int kind);

typedef struct opgen_pte_instr {
    int kind;  /* enum opgen_instr_kind */
    int32_t a; /* KERNEL: op_index; DELEGATE: delegate_index; MOVE: from; JUMP_FALSE: cond value; FREE: value */
    int32_t b; /* MOVE: to; JUMP_FALSE: destination instruction */
    opgen_pte_vec args; /* KERNEL, DELEGATE: i32 value indices */
} opgen_pte_instr;

/* Chain c's instructions (a vector of tables: read them with opgen_pte_instr_at). */
opgen_status opgen_pte_chain_at(const opgen_pte *p, const opgen_pte_plan *pl, uint32_t c, opgen_pte_vec *instrs,
                                opgen_error *err);
opgen_status opgen_pte_instr_at(const opgen_pte *p, const opgen_pte_vec *instrs, uint32_t k, opgen_pte_instr *out,
                                opgen_error *err);
/* Operator i: name ("aten::add") and overload ("out", "" when absent). */
opgen_status opgen_pte_operator_at(const opgen_pte *p, const opgen_pte_plan *pl, uint32_t i, const char **name,
                                   const char **overload, opgen_error *err);

/* A backend delegate: its backend id, its processed blob, its compile specs. */
typedef struct opgen_pte_delegate {
    const char *id;
    const void *data; /* the processed payload (inline data or a segment), or NULL */
    size_t size;
    opgen_pte_vec compile_specs; /* tables: key (string), value ([ubyte]) */
} opgen_pte_delegate;
opgen_status opgen_pte_delegate_at(const opgen_pte *p, const opgen_pte_plan *pl, uint32_t i, opgen_pte_delegate *out,
                                   opgen_error *err);

/* The bytes of constant buffer idx (> 0): from the constant segment, or from the
 * legacy inline constant_buffer; at least nbytes of them. */
opgen_status opgen_pte_constant(const opgen_pte *p, uint32_t idx, size_t nbytes, const void **data, opgen_error *err);
/* The initial bytes of a planned tensor (mutable_data_segments[0], entry idx). */
opgen_status opgen_pte_mutable_data(const opgen_pte *p, uint32_t idx, size_t nbytes, const void **data,
                                    opgen_error *err);

/* ExecuTorch's kernel key of a KernelCall into key: "v1/" then, per tensor
 * argument in order (a TensorList's first element, an OptionalTensorList's first
 * present one), "dtype;dim,order" joined by "|" ("v1/6;0,1|6;0,1|6;0,1|6;0,1").
 * Returns its length (>= cap: cut short), or -1 on a corrupt program. */
int64_t opgen_pte_kernel_key(const opgen_pte *p, const opgen_pte_plan *pl, const opgen_pte_instr *in, char *key,
                             size_t cap, opgen_error *err);

/* Elements of checked vectors (little-endian, any alignment). */
int32_t opgen_pte_i32(const opgen_pte *p, opgen_pte_vec v, uint32_t i);
int64_t opgen_pte_i64(const opgen_pte *p, opgen_pte_vec v, uint32_t i);
double opgen_pte_f64(const opgen_pte *p, opgen_pte_vec v, uint32_t i);
uint8_t opgen_pte_u8(const opgen_pte *p, opgen_pte_vec v, uint32_t i);

#ifdef __cplusplus
}
#endif
#endif
