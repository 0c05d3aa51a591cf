/* The test suite's own .pte writer: ExecuTorch programs (schema/program.fbs)
 * from a plain description, so tests build every EValue kind, every instruction
 * kind, several methods, constants in a segment or inline (the legacy
 * constant_buffer), planned memory, delegates, and corrupt variants of each,
 * without flatc or Python. FlatBuffers written front to back: every table,
 * vector and string after whatever points at it, as the format requires. */
#ifndef PTEW_H
#define PTEW_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum {
    PW_NONE,
    PW_NULL,
    PW_INT,
    PW_BOOL,
    PW_DOUBLE,
    PW_TENSOR,
    PW_STRING,
    PW_INT_LIST,
    PW_DOUBLE_LIST,
    PW_BOOL_LIST,
    PW_TENSOR_LIST,
    PW_OPT_TENSOR_LIST
};
enum { PW_KERNEL = 1, PW_DELEGATE, PW_MOVE, PW_JUMP_FALSE, PW_FREE };

typedef struct pw_value {
    int kind;
    int64_t i;     /* INT */
    double f;      /* DOUBLE */
    bool b;        /* BOOL */
    const char *s; /* STRING */
    /* TENSOR */
    int dtype; /* scalar_type; -1: not written (Byte) */
    int dim;
    int32_t sizes[8];
    const uint8_t *order; /* dim_order; NULL: 0..dim-1 written; see no_order */
    bool no_order;        /* write no dim_order at all */
    uint32_t data;        /* data_buffer_idx */
    int mem_id;           /* allocation_info.memory_id; 0: not planned */
    uint64_t mem_off;
    int32_t storage_offset;
    int dynamism;
    /* lists: items (Int value indices, tensor value indices) or doubles/bools */
    int n;
    int64_t items[16];
    double d[16];
} pw_value;

typedef struct pw_instr {
    int kind;
    int32_t a, b; /* op/delegate index; move from/to; jump cond/destination; free value */
    int n;
    int32_t args[24];
} pw_instr;

typedef struct pw_plan {
    const char *name;
    const pw_value *values;
    int nvalues;
    int32_t inputs[8], outputs[8];
    int ninputs, noutputs;
    const char *ops[16][2]; /* name, overload */
    int nops;
    const pw_instr *code;
    int ncode;
    int64_t buffers[4]; /* non_const_buffer_sizes (entry 0 reserved) */
    int nbuffers;
    const char *delegates[4]; /* backend ids */
    int ndelegates;
} pw_plan;

typedef struct pw_program {
    const pw_plan *plans;
    int nplans;
    const void *constants[16]; /* constant buffer 1..n (0 is the reserved empty one) */
    size_t constant_sizes[16];
    int nconstants;
    bool legacy; /* constants inline in constant_buffer; else in a segment after the flatbuffer */
} pw_program;

/* The program's bytes (malloc'd, *len of them). */
uint8_t *pw_build(const pw_program *prog, size_t *len);

/* Shorthands for values. */
pw_value pw_tensor(int dtype, int dim, const int32_t *sizes, int mem_id, uint64_t mem_off, uint32_t data);
pw_value pw_int(int64_t v);
pw_value pw_double(double v);
pw_value pw_bool(bool v);
pw_value pw_null(void);
pw_value pw_string(const char *s);
pw_value pw_list(int kind, int n, const int64_t *items);
#endif
