/* The .pte executor's internals, shared by its stages: plan (what a method
 * holds), bind (values and arguments), load, rewrite (load-time rewrites) and
 * run. Not installed: the API is opgen/method.h. */
#ifndef OPGEN_PTE_EXEC_H
#define OPGEN_PTE_EXEC_H
#include "opgen/method.h"
#include "opgen/loops.h"
#include "prim_ops.h"
#include "step.h"
#include <stddef.h>
#include <stdarg.h>

/* Why load leaves an instruction out of the run (opgen_method_instructions says). */
enum { FOLDED_VIEW = 1, FOLDED_IN_PLACE, FOLDED_IDENTITY, FOLDED_Q8 };

typedef struct instr {
    uint8_t kind;              /* enum opgen_instr_kind */
    int32_t a, b;              /* as opgen_pte_instr; a JumpFalseCall's b is absolute */
    opgen_step *step;          /* KernelCall */
    const opgen_prim_op *prim; /* KernelCall of an ExecuTorch prim op (no step: on dargs) */
    opgen_ivalue **dargs;      /* DelegateCall, prim op */
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
    uint8_t *evkind; /* enum opgen_ev_kind per value */
    uint8_t *flags;  /* per value: V_MUTABLE, V_CONSTANT */
    instr *code;     /* every chain's instructions, one after another */
    int ncode;
    int *chain_end; /* per chain: the index after its last instruction */
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
    /* a program that quantizes (quantize_per_tensor): a record per instruction
     * (the step that computes a quantized chain, or copies its input), and room
     * for the filters and copies (rewrite_q8.c) */
    bool quantizes;
    size_t q8_bytes;
    size_t prep_bytes; /* constant filters transformed at load (rewrite.c), 64-byte pieces */
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
    const instr *at;    /* the instruction being loaded, for messages */
    opgen_q8_step *q8s; /* one per instruction */
    bool quantizes;
    uint8_t *q8_mem; /* the packed (rewrite_q8.c) and transformed (rewrite.c) filters' memory */
    size_t q8_used, q8_cap;
} mloader;

/* A build trimmed to no op loads no KernelCall (each is refused by name): the
 * code that binds and runs them compiles out. */
#define HAS_OPS (OPGEN_OP_COUNT > 0)

/* The options of a load given none. */
extern const opgen_method_options pte_no_options;

/* Errors name the method and instruction: "method 'forward', instruction 9
 * (aten::add.out): ..." (pte_exec_plan.c). */
#ifdef OPGEN_NO_ERRMSG
#define lfail(L, code, ...) opgen_fail_quiet((L)->err, (code), __VA_ARGS__)
#else
opgen_status pte_vfail(const opgen_pte *p, const opgen_pte_plan *pl, const instr *at, opgen_error *err,
                       opgen_status code, const char *fmt, va_list ap);
opgen_status pte_lfail(mloader *L, opgen_status code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
#define lfail pte_lfail
#endif

/* The arrays load takes, in the order it takes them (each an arena allocation). */
#define METHOD_ARRAYS(X, c)                                     \
    X(sizeof(opgen_method))                                     \
    X(sizeof(opgen_ivalue) * (c)->nvalues)                      \
    X((size_t)(c)->nvalues)                                     \
    X((size_t)(c)->nvalues)                                     \
    X(sizeof(instr) * (c)->ninstr)                              \
    X(sizeof(int) * (c)->nchains)                               \
    X(sizeof(int) * (c)->ninputs)                               \
    X(sizeof(int) * (c)->noutputs)                              \
    X(sizeof(int) * (c)->nmoves)                                \
    X(sizeof(opgen_ivalue) * (c)->nmoves)                       \
    X(sizeof(uint8_t *) * (size_t)(c)->nbuffers)                \
    X(sizeof(void *) * (c)->ndelegates)                         \
    X(sizeof(void *) * (c)->ndelegates)                         \
    X(sizeof(opgen_step) * (c)->nkernels)                       \
    X(sizeof(opgen_value) * (c)->nargs)                         \
    X(sizeof(opgen_patch) * (c)->npatches)                      \
    X(sizeof(opgen_tensor *) * (c)->nres)                       \
    X(sizeof(opgen_candidate) * (c)->ncands)                    \
    X((c)->list_bytes)                                          \
    X(sizeof(opgen_ivalue *) * (c)->ndargs)                     \
    X(sizeof(opgen_tensor) * (c)->ninputs)                      \
    X(sizeof(opgen_fusion) * (c)->nconvs)                       \
    X((c)->quantizes ? sizeof(opgen_q8_step) * (c)->ninstr : 0) \
    X(((c)->quantizes ? (c)->q8_bytes : 0) + (c)->prep_bytes)

/* A list's bytes in the method's list pool: whole 8-byte pieces. */
static inline size_t list_piece(size_t n) { return (n + 7) & ~(size_t)7; }

/* plan */
opgen_status pte_count_method(const opgen_pte *p, const opgen_pte_plan *pl, const opgen_method_options *opt, counts *c,
                              opgen_error *err);
size_t pte_load_bytes(const counts *c, const opgen_pte *p, const opgen_pte_plan *pl, bool buffers_given);
opgen_status pte_kernel_op(const opgen_pte *p, const opgen_pte_plan *pl, const instr *at, int32_t opi, int *kid,
                           const char **qualified, opgen_error *err);
const opgen_prim_op *pte_call_prim(const opgen_pte *p, const opgen_pte_plan *pl, const opgen_pte_instr *in);
/* bind */
opgen_status pte_load_values(mloader *L);
opgen_status pte_load_io(mloader *L);
opgen_status pte_load_kernel_call(mloader *L, instr *ins, const opgen_pte_instr *in);
opgen_status pte_load_control(mloader *L, instr *ins, const opgen_pte_instr *in, int chain_len, int base);
opgen_status pte_value_of(const mloader *L, const opgen_tensor *t);
bool pte_int_element(mloader *L, int64_t e);
/* rewrite */
void pte_fold_constant_views(mloader *L);
void pte_rewrite(mloader *L, bool fuse);

#endif
