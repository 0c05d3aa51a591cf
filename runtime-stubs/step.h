/* One kernel call of a loaded program: what the graph executor (exec.c) and the
 * .pte loader (method.c) share. Choosing the kernel (backends' first, then
 * opgen's), its meta step at load, the Edge constraint rows, the selection's
 * refusals, and the call itself. Internal to the runtime. */
#ifndef OPGEN_STEP_H
#define OPGEN_STEP_H
#include "opgen/exec.h"
#include "opgen/kernel.h"
#include "kernels/q8.h"

/* What a build compiles in for quantized programs: the integer kernels where it
 * keeps quantize_per_tensor and dequantize_per_tensor (rewrite_q8.c). */
#define OPGEN_Q8                                                     \
    (OPGEN_SELECTED(quantized_decomposed_quantize_per_tensor_out) && \
     OPGEN_SELECTED(quantized_decomposed_dequantize_per_tensor_out))

/* An argument (or, with elem >= 0, one element of an int list) refreshed from
 * values[value] before every call: a scalar the program computes or is given. */
typedef struct opgen_patch {
    int arg, value, abi, elem;
} opgen_patch;

/* A kernel that may serve a step, and where it comes from. */
typedef struct opgen_candidate {
    const opgen_kernel_entry *kernel;
    const char *origin;              /* a backend's name, or "opgen" */
    const opgen_keyed_kernel *keyed; /* a keyed kernel: the calls it is for; else NULL */
} opgen_candidate;

typedef struct opgen_step {
    int op;                           /* the op the program names (a graph's functional op) */
    int kernel_op;                    /* the op its kernel computes (the out= variant) */
    const char *name;                 /* what messages call it: "aten::add.Tensor" */
    const opgen_kernel_entry *kernel; /* the one chosen */
    const char *origin;
    opgen_candidate *cands; /* backends' kernels first, then keyed ones, then the default */
    int ncands;
    opgen_value *args; /* the kernel's arguments, in its schema's order */
    int nargs;
    opgen_patch *patches;
    int npatches;
    opgen_tensor **res; /* its tensor results (the out arguments), in order */
    int nres;
    bool scalar;               /* a scalar prim: its kernel computes the op itself, writing scalar values */
    bool relayout;             /* its kernel writes contiguous results into outs of another dim order:
                                  it gets contiguous stand-ins, copied into the outs after it */
    size_t scratch;            /* arena bytes its kernel takes beyond its results */
    uint64_t *rng;             /* the program's random generator */
    const opgen_parallel *par; /* threads its kernel may use, or NULL */
    bool has_dtype;            /* a graph's functional gave a dtype its out= schema lacks */
    uint8_t split;             /* with threads: how its kernel's call may be split into slices (step.c), or 0 */
    bool absorbed;             /* this run, a fused step before it computed its result: it is skipped once */
    opgen_dtype dtype;
    struct opgen_fusion *fusion; /* a convolution that also applies the next steps (step.c), or NULL */
    uint32_t unread;             /* results nothing reads (opgen_ctx.unread): bit i for res[i] */
    struct opgen_q8_step *q8;    /* a quantized chain it computes on int8 (rewrite_q8.c), or NULL */
    const void *prepared;        /* what its kernel reads of its constant filter, made at load, or NULL */
} opgen_step;

/* A step that computes a quantized chain on int8 tensors (rewrite_q8.c): the
 * chain's other steps do not run. */
enum { OPGEN_Q8_CONV = 1, OPGEN_Q8_ADD, OPGEN_Q8_LOOKUP, OPGEN_Q8_MAX_POOL, OPGEN_Q8_COPY, OPGEN_Q8_MEAN };
typedef struct opgen_q8_step {
    int kind;
    const opgen_tensor *x, *x2; /* the int8 inputs (dequantize's inputs) */
    opgen_tensor *y;            /* the int8 result (the quantize's out) */
    opgen_q8_filter f;          /* CONV (a linear layer: 1x1 pixels) */
    opgen_q8_conv_geom g;
    opgen_q8_requant rq;
    float sa, sb; /* ADD: the operands' scales and zero points (MEAN: sa, za the input's) */
    int32_t za, zb;
    int64_t pool[4][2]; /* MAX_POOL: kernel, stride, padding, dilation */
    int8_t *table;      /* LOOKUP: 256 bytes of the planned memory */
    int8_t *stage;      /* CONV: where y is computed when it is planned over x (then copied), or NULL */
} opgen_q8_step;

/* A convolution step that stores its result through the batch norm (the
 * residual add, the activation) of the steps after it, which then do not run
 * (opgen_step_fuse). */
typedef struct opgen_fusion {
    opgen_post post;
    opgen_step *absorbed[3];
    int nabsorbed;
    opgen_tensor *out; /* the last absorbed step's result, which the fused call writes */
    int out_arg;       /* the convolution's out argument */
    bool via_conv_out; /* out shares the convolution's input: written to the convolution's own
                        * result (none reads it but the batch norm), then copied to out */
} opgen_fusion;

/* This build's tables were trimmed to a selection, and its names ("add.yaml,
 * mobilenet.pte"): an op it left out is not even a name to such a build. */
bool opgen_selective(void);
const char *opgen_selection(void);
/* An argument kind that may be None (Tensor?, int?, ..., and opaque ones). */
bool opgen_abi_optional(int abi);
/* An op whose kernel computes it directly and returns scalars (a scalar prim). */
bool opgen_is_scalar_op(int id);
/* The step's kernels for op kid into cands (opgen_step_ncandidates of them):
 * backends' (opt->vendors, in order), then opgen's (or, with opt->fallbacks, a
 * backend op's fallback). Fails when there is none, naming the op and, in a
 * trimmed build, the selection. */
int opgen_step_ncandidates(int kid, const opgen_load_options *opt);
opgen_status opgen_step_kernels(opgen_step *s, int kid, const opgen_load_options *opt, opgen_candidate *cands,
                                opgen_error *err);
/* The functional op whose out= variant kid is (its Edge rows apply), or kid. */
int opgen_functional_of(int kid);
/* Runs the kernel: its meta step (meta) or the computation. values: the
 * program's values the patches read. */
opgen_status opgen_step_call(opgen_step *s, const opgen_ivalue *values, opgen_arena *arena, bool meta,
                             opgen_error *err);
/* Load's checks once the inputs' dtypes and shapes are known: the meta step of
 * the first kernel that takes the call (its results get dtypes and shapes), the
 * Edge rows, a kernel for the dtype. Messages name the step (s->name), not where
 * it is: the caller adds that. */
opgen_status opgen_step_prepare(opgen_step *s, const opgen_ivalue *values, opgen_arena *a, opgen_error *err);
/* The call with contiguous stand-ins for outs in another dim order (s->relayout). */
opgen_status opgen_step_run(opgen_step *s, const opgen_ivalue *values, opgen_arena *arena, opgen_error *err);
/* A run's call of a step: straight through the kernel's trampoline when nothing
 * is patched or stood in for (most steps), else opgen_step_run. Inline: it is
 * most of what an executor adds to a kernel. */
opgen_status opgen_step_split_run(opgen_step *s, opgen_arena *arena, opgen_error *err);
/* Consecutive steps conv -> bn (-> add) (-> act), add and act NULL when absent,
 * where the convolution's result is read only by the batch norm and each
 * result after only by the next step (the executor checks that, that nothing
 * jumps between them, and that the add's other operand, the residual, is
 * computed before the convolution runs): records in conv, in slot, that its
 * kernel applies the others (opgen_post), when the kernels are opgen's and the
 * ops, dtypes and layouts allow. */
bool opgen_step_fuse(opgen_step *conv, opgen_step *bn, opgen_step *add, opgen_step *act, opgen_fusion *slot);
/* For a convolution step of opgen's kernel whose weight is constant (the
 * executor knows): the bytes of the filter transformed once for its kernel
 * (kernels/conv.h), or 0. */
size_t opgen_step_prepared_bytes(const opgen_step *conv);
/* Transforms it into mem, of those bytes: every call then reads it. */
void opgen_step_prepare_filter(opgen_step *conv, void *mem);
/* The operand of add.Tensor step add that is not t (its residual), or NULL. */
const opgen_tensor *opgen_step_residual(const opgen_step *add, const opgen_tensor *t);
opgen_status opgen_step_fused_run(opgen_step *s, opgen_arena *arena, opgen_error *err);
/* What a build compiles in: fusion where it keeps aten::convolution.out (whose
 * kernel applies the chain), calls split across threads where it has a pool. */
#define OPGEN_FUSES OPGEN_SELECTED(aten_convolution_out)
#if OPGEN_HAVE_POOL
#define OPGEN_SPLITS 1
#else
#define OPGEN_SPLITS 0
#endif
opgen_status opgen_q8_step_run(opgen_step *s, opgen_arena *arena, opgen_error *err);
/* What runs such a step, for traces and profiles: "opgen_q8_conv (int8, avx512-vnni)". */
const char *opgen_q8_kernel_name(const struct opgen_q8_step *r);
static inline opgen_status opgen_step_exec(opgen_step *s, const opgen_ivalue *values, opgen_arena *arena,
                                           opgen_error *err) {
    if (s->absorbed) return s->absorbed = false, OPGEN_OK;
    if (OPGEN_Q8 && s->q8) return opgen_q8_step_run(s, arena, err);
    if (OPGEN_FUSES && s->fusion) return opgen_step_fused_run(s, arena, err);
    if (s->npatches || s->relayout) return opgen_step_run(s, values, arena, err);
    if (OPGEN_SPLITS && s->split) return opgen_step_split_run(s, arena, err);
    opgen_ctx ctx = {arena,  err,    s->name, false,     0,          false, s->has_dtype ? (int32_t)s->dtype : -1,
                     s->rng, s->par, NULL,    s->unread, s->prepared};
    opgen_status st = s->kernel->call(&ctx, s->kernel->fn, s->args);
    return st && err->code == OPGEN_OK ? opgen_fail(err, st, "%s failed (%s)", s->name, opgen_status_text(st)) : st;
}
/* The floating-point operations of the call with its last shapes: 2 per
 * multiply-add of a matrix product or convolution, 0 for other ops. */
double opgen_step_flops(const opgen_step *s);
/* "v1/6;0,1|6;0,1|..." of the call: ExecuTorch's kernel key (tensor arguments in
 * order, then the results). Returns its length (>= cap: too long). */
size_t opgen_step_kernel_key(const opgen_step *s, char *key, size_t cap);
#endif
