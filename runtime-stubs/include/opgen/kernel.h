/* What portable kernels are written with: the context, output preparation (a
 * kernel's meta step), type promotion, broadcasting, dtype switches over
 * compile-time dtype sets (unselected dtypes compile to nothing), element access. */
#ifndef OPGEN_KERNEL_H
#define OPGEN_KERNEL_H
#define OPGEN_RUNTIME_TABLES_VERSION 3
#include <math.h>
#include <string.h>

#include "opgen/parallel.h"
#include "opgen/rt.h"
#include "opgen_kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What an executor asks a kernel to apply to its result as it stores it, where
 * the program allows (a convolution whose result only a batch norm reads, whose
 * result only an activation reads: fused at load): per channel c,
 * out = act(out * alpha[c] + beta[c]), alpha and beta as the batch norm kernel
 * computes them, act as relu's or hardtanh's kernel does, so the result is the
 * same bytes as the three kernels'. With a residual (a ResNet block's add
 * between the batch norm and the relu), out = act((out * alpha[c] + beta[c]) +
 * residual), the add.Tensor kernel's sum (alpha 1) in its operands' order. A
 * kernel that applies it sets applied; one that cannot (or does not know it)
 * leaves it, and the executor runs the ops. */
typedef enum { OPGEN_POST_NONE, OPGEN_POST_RELU, OPGEN_POST_CLAMP } opgen_post_act;
typedef struct opgen_post {
    const opgen_tensor *weight, *bias, *mean, *var; /* the batch norm's (weight, bias may be NULL) */
    double eps;
    opgen_post_act act;
    const opgen_scalar *lo, *hi; /* OPGEN_POST_CLAMP's bounds */
    bool applied;
    /* added after the batch norm, or NULL: the result's shape and strides; may be
     * the result itself (each value read before it is written) */
    const opgen_tensor *residual;
    bool residual_first; /* the add's self, the batch norm's result its other */
} opgen_post;

/* The context of one kernel call. In meta mode (program load) a kernel checks its
 * inputs, sets its outputs' dtypes and shapes through opgen_out, and returns;
 * tensors then carry no data. */
struct opgen_ctx {
    opgen_arena *arena;
    opgen_error *err;
    const char *op; /* for messages: the program's op, "aten::add.Tensor" */
    bool meta;
    /* Meta mode counts here the arena bytes the call will take beyond its given
     * outputs (temporaries, unallocated outputs), so a run can be sized in advance. */
    size_t scratch;
    /* Set by opgen_out in meta mode when a given out is laid out in another dim
     * order than the contiguous one the kernel writes: the executor then gives
     * the kernel a contiguous stand-in and copies it into the out. */
    bool relayout;
    /* The result dtype a graph program's functional asks for (the dtype argument
     * of a factory or of _to_copy, which the out= schema cannot carry), or -1:
     * read through opgen_result_dtype. */
    int32_t dtype;
    /* The program's random generator (a counter it advances), or NULL where no
     * program runs the kernel: random ops then fail. */
    uint64_t *rng;
    /* Threads the kernel may split its work across (opgen/parallel.h), or NULL. */
    const opgen_parallel *par;
    /* What to apply to the result as it is stored (see opgen_post), or NULL. */
    opgen_post *post;
    /* Bit i set: nothing reads the kernel's i-th result (its i-th out argument) and
     * the caller never receives it, so the kernel may leave it unwritten
     * (max_pool2d_with_indices' indices, under a model that takes only the values).
     * The executors set it; 0 means every result is read. */
    uint32_t unread;
    /* What the executor prepared from the kernel's constant arguments at load
     * for it to read at every call (a convolution's transformed filter,
     * runtime-stubs/kernels/conv.h), or NULL. */
    const void *prepared;
};

/* The next 64 random bits of the program's generator: SplitMix64 over a
 * counter seeded by opgen_load_options.seed. */
static inline uint64_t opgen_random_bits(opgen_ctx *ctx) {
    uint64_t z = (*ctx->rng += 0x9E3779B97F4A7C15u);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}
/* A uniform double in [0, 1) with 53 random bits. */
static inline double opgen_random_unit(opgen_ctx *ctx) { return (double)(opgen_random_bits(ctx) >> 11) * 0x1p-53; }

/* The dtype of a result that the inputs do not determine (factories, _to_copy):
 * a given out's own (a .pte plans it), else the one the program asks for
 * (ctx->dtype), else dflt (ATen's default when the argument is None). */
static inline opgen_dtype opgen_result_dtype(const opgen_ctx *ctx, const opgen_tensor *out, opgen_dtype dflt) {
    if (out->capacity || out->data) return out->dtype;
    return ctx->dtype >= 0 ? (opgen_dtype)ctx->dtype : dflt;
}

/* Prepares an out tensor: an unallocated one (capacity 0) takes dtype and sizes
 * (and memory, outside meta mode); a given one (planned memory, a program's dim
 * order) must have the dtype and room for the sizes, and keeps its dim order.
 * opgen_out is for kernels that write their result contiguously: a given out in
 * another order gets a contiguous stand-in (ctx->relayout); opgen_out_any for
 * kernels that write through the iterator (opgen/loops.h) or opgen_copy, which
 * handle any dense order. */
opgen_status opgen_out(opgen_ctx *ctx, opgen_tensor *out, opgen_dtype dtype, int32_t dim, const int64_t *sizes);
opgen_status opgen_out_any(opgen_ctx *ctx, opgen_tensor *out, opgen_dtype dtype, int32_t dim, const int64_t *sizes);
/* opgen_out_any in a given dim order (NULL: the out's own, or contiguous): an
 * unallocated out takes it, a given one must have it. */
opgen_status opgen_out_ordered(opgen_ctx *ctx, opgen_tensor *out, opgen_dtype dtype, int32_t dim, const int64_t *sizes,
                               const uint8_t *dim_order);
/* The result of a factory (empty, full, rand, ...): the size list checked (the op
 * named), the dtype opgen_result_dtype gives (dflt: ATen's default) checked
 * against mask, out shaped as opgen_out_any does. */
opgen_status opgen_factory_out(opgen_ctx *ctx, uint32_t mask, opgen_int_list size, opgen_dtype dflt, opgen_tensor *out);
/* Temporary memory from the call's arena; in meta mode it is only counted
 * (ctx->scratch) and NULL is returned. */
void *opgen_scratch(opgen_ctx *ctx, size_t n);
/* What an allocation of n bytes takes from an arena (16-byte aligned). */
static inline size_t opgen_arena_cost(size_t n) { return ((n ? n : 1) + 15) & ~(size_t)15; }
/* t's elements in logical (contiguous) order: t itself when it is contiguous,
 * else a copy in scratch memory (counted in meta mode whatever the layout). */
opgen_status opgen_contiguous(opgen_ctx *ctx, const opgen_tensor *t, opgen_tensor *c);
/* Half and BFloat16 through a kernel's float body, as ATen's CPU kernels compute
 * them (in float, each result rounded once): opgen_widen gives t itself unless it
 * is Half or BFloat16 (or NULL), else a contiguous float copy in scratch (counted
 * in meta mode); opgen_narrow shapes out (dtype: the op's reduced dtype) as the
 * float result f and, in a run, rounds f into it. An unshaped f (zeroed, dtype
 * Float) is the float body's out: it takes its memory from scratch. */
opgen_status opgen_widen(opgen_ctx *ctx, const opgen_tensor *t, opgen_tensor *f);
opgen_status opgen_narrow(opgen_ctx *ctx, opgen_tensor *out, opgen_dtype dtype, const opgen_tensor *f);
static inline void opgen_standin(opgen_tensor *f) {
    memset(f, 0, sizeof *f);
    f->dtype = OPGEN_DTYPE_Float;
}
/* A kernel's mask with Float where it holds Half or BFloat16 (its float body
 * then serves their widened copies); a float-only build's mask as it was. */
#define OPGEN_WITH_FLOAT(MASK) ((MASK) | (((MASK)&OPGEN_REDUCED_DTYPES) ? (1u << OPGEN_DTYPE_Float) : 0u))
/* The mask a float body of a reduced-precision call runs with. */
#define OPGEN_AS_FLOAT(MASK) (((MASK) & ~OPGEN_REDUCED_DTYPES) | (1u << OPGEN_DTYPE_Float))
#define OPGEN_FAIL(ctx, code, ...) opgen_fail((ctx)->err, (code), __VA_ARGS__)
/* What a stub case of a skeleton kernel returns: the step then goes to the next
 * kernel that serves the op (opgen's own), or fails naming op and dtype. */
#define opgen_not_implemented(ctx, dtype) \
    OPGEN_FAIL(ctx, OPGEN_E_NOT_IMPLEMENTED, "%s: not implemented for %s (a stub)", (ctx)->op, opgen_dtype_name(dtype))

/* ATen's type promotion of two tensors' dtypes, and of a tensor with a Scalar. */
opgen_dtype opgen_promote(opgen_dtype a, opgen_dtype b);
opgen_dtype opgen_promote_scalar(opgen_dtype t, const opgen_scalar *s);
/* ATen's result_type over tensors (NULL ones skipped; 0-d tensors rank below
 * dimensioned ones) and Scalars (a float Scalar counts as Float). */
opgen_dtype opgen_result_type(const opgen_tensor *const *ts, int nt, const opgen_scalar *const *ss, int ns);
bool opgen_is_float(opgen_dtype d);
bool opgen_is_integral(opgen_dtype d, bool include_bool);

/* Broadcast shape of a and b (numpy rules) into dim/sizes; error on mismatch. */
opgen_status opgen_broadcast(opgen_ctx *ctx, const opgen_tensor *a, const opgen_tensor *b, int32_t *dim,
                             int64_t *sizes);
/* Element offset of t for the multi-index idx of a broadcast shape of `dim` dims. */
static inline int64_t opgen_bcast_offset(const opgen_tensor *t, int32_t dim, const int64_t *idx) {
    int64_t off = 0;
    for (int32_t i = 0; i < t->dim; i++) {
        int64_t k = idx[dim - t->dim + i];
        if (t->sizes[i] != 1) off += k * t->strides[i];
    }
    return off;
}
static inline void opgen_index_next(int32_t dim, const int64_t *sizes, int64_t *idx) {
    for (int32_t i = dim - 1; i >= 0; i--) {
        if (++idx[i] < sizes[i]) return;
        idx[i] = 0;
    }
}
/* A 2-value parameter (kernel size, stride, padding, dilation) from an int list:
 * one value stands for both, none takes dflt (when >= 0); values beyond 2^30
 * are refused. */
opgen_status opgen_int_pair(opgen_ctx *ctx, opgen_int_list l, const char *what, int64_t dflt, int64_t *v);
/* A dimension argument (negative counts from the end) checked against dim. */
opgen_status opgen_wrap_dim(opgen_ctx *ctx, int64_t d, int32_t dim, int32_t *out);

/* A double as an int64_t the way a cast would give it, but defined for every
 * input: NaN is 0, out-of-range values saturate (a C cast would be UB). */
static inline int64_t opgen_f64_to_i64(double v) {
    if (v != v) return 0;
    if (v >= 9223372036854775807.0) return INT64_MAX;
    if (v <= -9223372036854775808.0) return INT64_MIN;
    return (int64_t)v;
}

/* Scalar prims (the executorch_prims builtins) with Python's semantics on 64-bit
 * ints: floor division and modulo round toward minus infinity (-7 // 2 == -4,
 * -7 % 2 == 1); where Python's unbounded ints would leave 64 bits, and on division
 * by zero, they fail instead of wrapping. */
opgen_status opgen_prim_add(opgen_ctx *ctx, int64_t a, int64_t b, int64_t *out);
opgen_status opgen_prim_sub(opgen_ctx *ctx, int64_t a, int64_t b, int64_t *out);
opgen_status opgen_prim_mul(opgen_ctx *ctx, int64_t a, int64_t b, int64_t *out);
opgen_status opgen_prim_floordiv(opgen_ctx *ctx, int64_t a, int64_t b, int64_t *out);
opgen_status opgen_prim_mod(opgen_ctx *ctx, int64_t a, int64_t b, int64_t *out);
opgen_status opgen_prim_neg(opgen_ctx *ctx, int64_t a, int64_t *out);
opgen_status opgen_prim_truediv(opgen_ctx *ctx, int64_t a, int64_t b, double *out);
opgen_status opgen_prim_eq(opgen_ctx *ctx, int64_t a, int64_t b, bool *out);
opgen_status opgen_prim_ne(opgen_ctx *ctx, int64_t a, int64_t b, bool *out);
opgen_status opgen_prim_lt(opgen_ctx *ctx, int64_t a, int64_t b, bool *out);
opgen_status opgen_prim_le(opgen_ctx *ctx, int64_t a, int64_t b, bool *out);
opgen_status opgen_prim_gt(opgen_ctx *ctx, int64_t a, int64_t b, bool *out);
opgen_status opgen_prim_ge(opgen_ctx *ctx, int64_t a, int64_t b, bool *out);

/* Element loads and stores in any real dtype, one element at a time: for tests and
 * tools. Kernels use the typed loops of opgen/loops.h. */
double opgen_load_f64(const opgen_tensor *t, int64_t off);
int64_t opgen_load_i64(const opgen_tensor *t, int64_t off);
void opgen_store_f64(opgen_tensor *t, int64_t off, double v);
void opgen_store_i64(opgen_tensor *t, int64_t off, int64_t v);
double opgen_scalar_f64(const opgen_scalar *s);
int64_t opgen_scalar_i64(const opgen_scalar *s);

/* A helper several kernels share, that switches on its caller's dtype mask: it is
 * inlined into each caller, where the mask is a constant, so a selective build
 * removes the cases of dtypes the caller does not keep. */
#if defined(__GNUC__)
#define OPGEN_SPECIALIZED static inline __attribute__((always_inline))
#else
#define OPGEN_SPECIALIZED static inline
#endif

/* A hot loop's function, compiled for the baseline CPU and, on x86-64 Linux with
 * glibc, for AVX2 and AVX-512F too: the dynamic loader picks one by the CPU's
 * features when the program starts (GNU ifunc; by feature, not model name, which
 * a VM may hide), so one binary runs at each CPU's width. The kernels are built
 * with -ffp-contract=off, so every clone rounds alike and results do not depend
 * on the CPU. Without ifunc (bare metal,
 * other systems), or in a build for one CPU (meson -Dcpu=native defines
 * OPGEN_NO_DISPATCH), the loops are compiled once. */
#if defined(__x86_64__) && defined(__linux__) && defined(__GLIBC__) && !defined(OPGEN_NO_DISPATCH) && \
    ((defined(__clang__) && __clang_major__ >= 14) || (!defined(__clang__) && defined(__GNUC__) && __GNUC__ >= 8))
#define OPGEN_DISPATCHED __attribute__((target_clones("default", "avx2", "avx512f")))
#else
#define OPGEN_DISPATCHED
#endif

/* The dtypes a kernel handles are a compile-time constant MASK; a dtype outside
 * it fails, and its branch is dead code the compiler removes. */
#define OPGEN_HAS(MASK, D) ((((uint32_t)(MASK)) >> (D)) & 1u)
/* One case of a dtype switch: BODY with T the dtype D's C type CT where COND
 * holds (OPGEN_DTYPE_CASE: where MASK holds D), else the switch's failure. */
#define OPGEN_CASE_IF(D, COND, CT, T, ...) \
    case OPGEN_DTYPE_##D:                  \
        if (COND) {                        \
            typedef CT T;                  \
            __VA_ARGS__                    \
        } else                             \
            goto opgen_unsupported;        \
        break;
#define OPGEN_DTYPE_CASE(MASK, D, CT, T, ...) OPGEN_CASE_IF(D, OPGEN_HAS(MASK, OPGEN_DTYPE_##D), CT, T, __VA_ARGS__)
/* Half and BFloat16 compute in float, as ATen's CPU kernels do (their opmath
 * type): a switch's body sees T = float and must reach the tensors only through
 * the MAP loops of opgen/loops.h, which widen inputs and round results a block
 * at a time. A kernel that reads its tensors itself keeps these dtypes out of its
 * mask (yaml/edge.yaml) or runs its float body on widened copies (opgen_widen). */
#define OPGEN_REDUCED(MASK, D)                                         \
    (((D) == OPGEN_DTYPE_Half && OPGEN_HAS(MASK, OPGEN_DTYPE_Half)) || \
     ((D) == OPGEN_DTYPE_BFloat16 && OPGEN_HAS(MASK, OPGEN_DTYPE_BFloat16)))
#define OPGEN_REDUCED_DTYPES ((1u << OPGEN_DTYPE_Half) | (1u << OPGEN_DTYPE_BFloat16))
/* A switch runs Half and BFloat16 through its Float case (one body compiled, not
 * two; no case labels that would grow every float build's jump tables): where
 * MASK holds neither, the compiler folds this to DTYPE. */
#define OPGEN_SWITCH_DTYPE(MASK, DTYPE) (OPGEN_REDUCED(MASK, DTYPE) ? OPGEN_DTYPE_Float : (DTYPE))
#define OPGEN_FLOAT_CASE_RUNS(MASK, DTYPE) (OPGEN_HAS(MASK, OPGEN_DTYPE_Float) || OPGEN_REDUCED(MASK, DTYPE))
#define OPGEN_FLOAT_CASE(MASK, DTYPE, T, ...) \
    OPGEN_CASE_IF(Float, OPGEN_FLOAT_CASE_RUNS(MASK, DTYPE), float, T, __VA_ARGS__)
/* The dtype a kernel with a Bool result compares or tests in: Half and BFloat16
 * as float (exact: the MAP loops widen them). */
static inline opgen_dtype opgen_compute_dtype(opgen_dtype d) {
    return d == OPGEN_DTYPE_Half || d == OPGEN_DTYPE_BFloat16 ? OPGEN_DTYPE_Float : d;
}
/* Every dtype OPGEN_REAL_SWITCH has a case for: for a kernel whose mask (its
 * result's dtypes) says nothing of the dtype it computes in (comparisons). */
#define OPGEN_REAL_DTYPES                                                                                          \
    ((1u << OPGEN_DTYPE_Bool) | (1u << OPGEN_DTYPE_Byte) | (1u << OPGEN_DTYPE_Char) | (1u << OPGEN_DTYPE_Short) |  \
     (1u << OPGEN_DTYPE_Int) | (1u << OPGEN_DTYPE_Long) | (1u << OPGEN_DTYPE_Float) | (1u << OPGEN_DTYPE_Double) | \
     (1u << OPGEN_DTYPE_UInt16))
#define OPGEN_REAL_SWITCH(MASK, DTYPE, CTX, T, ...)                                                              \
    switch (OPGEN_SWITCH_DTYPE(MASK, DTYPE)) {                                                                   \
        OPGEN_DTYPE_CASE(MASK, Bool, bool, T, __VA_ARGS__)                                                       \
        OPGEN_DTYPE_CASE(MASK, Byte, uint8_t, T, __VA_ARGS__)                                                    \
        OPGEN_DTYPE_CASE(MASK, Char, int8_t, T, __VA_ARGS__)                                                     \
        OPGEN_DTYPE_CASE(MASK, Short, int16_t, T, __VA_ARGS__)                                                   \
        OPGEN_DTYPE_CASE(MASK, Int, int32_t, T, __VA_ARGS__)                                                     \
        OPGEN_DTYPE_CASE(MASK, Long, int64_t, T, __VA_ARGS__)                                                    \
        OPGEN_FLOAT_CASE(MASK, DTYPE, T, __VA_ARGS__)                                                            \
        OPGEN_DTYPE_CASE(MASK, Double, double, T, __VA_ARGS__)                                                   \
        OPGEN_DTYPE_CASE(MASK, UInt16, uint16_t, T, __VA_ARGS__)                                                 \
    default:                                                                                                     \
    opgen_unsupported:                                                                                           \
        return OPGEN_FAIL(CTX, OPGEN_E_DTYPE, "%s: no kernel for dtype %s", (CTX)->op, opgen_dtype_name(DTYPE)); \
    }

/* The same over Bool and the integer dtypes only (bitwise ops). */
#define OPGEN_INTEGRAL_SWITCH(MASK, DTYPE, CTX, T, ...)                                                          \
    switch (DTYPE) {                                                                                             \
        OPGEN_DTYPE_CASE(MASK, Bool, bool, T, __VA_ARGS__)                                                       \
        OPGEN_DTYPE_CASE(MASK, Byte, uint8_t, T, __VA_ARGS__)                                                    \
        OPGEN_DTYPE_CASE(MASK, Char, int8_t, T, __VA_ARGS__)                                                     \
        OPGEN_DTYPE_CASE(MASK, Short, int16_t, T, __VA_ARGS__)                                                   \
        OPGEN_DTYPE_CASE(MASK, Int, int32_t, T, __VA_ARGS__)                                                     \
        OPGEN_DTYPE_CASE(MASK, Long, int64_t, T, __VA_ARGS__)                                                    \
    default:                                                                                                     \
    opgen_unsupported:                                                                                           \
        return OPGEN_FAIL(CTX, OPGEN_E_DTYPE, "%s: no kernel for dtype %s", (CTX)->op, opgen_dtype_name(DTYPE)); \
    }

/* The same over the floating dtypes only, for ops defined on them alone. */
#define OPGEN_FLOAT_SWITCH(MASK, DTYPE, CTX, T, ...)                                                             \
    switch (OPGEN_SWITCH_DTYPE(MASK, DTYPE)) {                                                                   \
        OPGEN_FLOAT_CASE(MASK, DTYPE, T, __VA_ARGS__)                                                            \
        OPGEN_DTYPE_CASE(MASK, Double, double, T, __VA_ARGS__)                                                   \
    default:                                                                                                     \
    opgen_unsupported:                                                                                           \
        return OPGEN_FAIL(CTX, OPGEN_E_DTYPE, "%s: no kernel for dtype %s", (CTX)->op, opgen_dtype_name(DTYPE)); \
    }

/* A dtype this kernel handles? (checked in meta mode, before anything runs) */
#define OPGEN_CHECK_DTYPE(CTX, MASK, DTYPE, WHAT)                                                                      \
    do {                                                                                                               \
        if (!OPGEN_HAS(MASK, DTYPE))                                                                                   \
            return OPGEN_FAIL(CTX, OPGEN_E_DTYPE, "%s: %s has dtype %s, which this kernel does not handle", (CTX)->op, \
                              WHAT, opgen_dtype_name(DTYPE));                                                          \
    } while (0)

#ifdef __cplusplus
}
#endif
#endif
