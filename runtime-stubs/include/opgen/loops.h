/* The kernel idiom: typed loops over broadcast operands (ATen's TensorIterator,
 * reduced to what C kernels need). A kernel's run step is
 *
 *     opgen_iter it;
 *     const opgen_tensor *in[2] = {self, other};
 *     if (opgen_iter_init(ctx, &it, out, in, 2)) return ctx->err->code;
 *     OPGEN_REAL_SWITCH(mask, compute_dtype, ctx, T, {      // once per call
 *         T al = OPGEN_SCALAR_AS(T, alpha);
 *         OPGEN_MAP2(&it, mask, T, T, OPGEN_ADD(T, x, OPGEN_MUL(T, al, y)));
 *     })
 *
 * opgen_iter_init broadcasts every input to out's shape (stride 0 where it is
 * broadcast), orders the dimensions by out's memory order and merges the ones
 * that are contiguous in every operand, so most calls are one long run. The MAP
 * macros then walk the runs incrementally (no division, no recomputation over
 * all dimensions), in blocks: an input of another dtype than the compute type is
 * converted a block at a time, never an element at a time, and the typed body is
 * a plain loop the compiler vectorises where the operands are contiguous (or one
 * is a broadcast scalar). Results of another dtype than the body's (a Half output
 * computed in float) are converted back a block at a time; a strided output (a
 * view: one channel of a tensor) is written through the block buffer. */
#ifndef OPGEN_LOOPS_H
#define OPGEN_LOOPS_H
#include "opgen/kernel.h"

#ifdef __cplusplus
extern "C" {
#endif

#define OPGEN_ITER_MAX 4 /* the output and up to three inputs */
#define OPGEN_BLOCK 256  /* elements converted or buffered at a time */

typedef struct opgen_iter {
    int32_t nops; /* 1 + inputs; operand 0 is the output */
    int32_t ndim; /* after merging, innermost first */
    int64_t size[OPGEN_MAX_DIM];
    int64_t stride[OPGEN_ITER_MAX][OPGEN_MAX_DIM]; /* in bytes */
    char *data[OPGEN_ITER_MAX];
    opgen_dtype dtype[OPGEN_ITER_MAX];
    int64_t numel;
} opgen_iter;

/* Sets up the loops of out = f(in[0..nin)): every input broadcasts to out's
 * shape (an error names the mismatch). out must have its shape (opgen_out). */
opgen_status opgen_iter_init(opgen_ctx *ctx, opgen_iter *it, opgen_tensor *out, const opgen_tensor *const *in, int nin);
/* The same for an output the kernel addresses itself (a view of out, say one
 * element per row): no run needs to be contiguous in it (the MAP macros do). */
opgen_status opgen_iter_init_strided(opgen_ctx *ctx, opgen_iter *it, opgen_tensor *out, const opgen_tensor *const *in,
                                     int nin);
/* The same for a reduction: out has in's shape with the reduced dimensions of size
 * 1 (keepdim), and gets stride 0 there; reduced[d] marks in's dimension d. The
 * merged dimensions keep reduced ones innermost when the input allows. */
opgen_status opgen_iter_init_reduce(opgen_ctx *ctx, opgen_iter *it, opgen_tensor *out, const opgen_tensor *in,
                                    const bool *reduced);

/* A Scalar as a 0-d operand of its own dtype (Long, Double or Bool) in t: the
 * loops then convert it to the compute type as ATen wraps a Scalar. */
const opgen_tensor *opgen_scalar_operand(const opgen_scalar *s, opgen_tensor *t);
/* The setup of a binary elementwise kernel: a and b broadcast, the result dtype
 * checked against the kernel's mask, out prepared; in a run, the loops of out =
 * f(a, b). Returns nonzero on error; the caller returns after it in meta mode. */
opgen_status opgen_binary_prepare(opgen_ctx *ctx, uint32_t mask, opgen_dtype res, const opgen_tensor *a,
                                  const opgen_tensor *b, opgen_tensor *out, opgen_iter *it);

/* Which dimensions of self a dim list reduces (None or [] reduces all); a
 * dimension given twice is an error. */
opgen_status opgen_reduced_dims(opgen_ctx *ctx, const opgen_tensor *self, const opgen_int_list *dims, bool *reduced);

/* Block conversions between dtypes (the one per-block dtype switch): n elements
 * of dtype sd at src, `stride` bytes apart, into dst (contiguous, dtype dd). */
void opgen_convert(void *dst, opgen_dtype dd, const void *src, int64_t stride, opgen_dtype sd, int64_t n);
/* The same with the destination type fixed (what the MAP macros call, so a build
 * links only the converters of the compute types its kernels keep). */
void opgen_convert_bool(void *dst, const void *src, int64_t stride, opgen_dtype sd, int64_t n);
void opgen_convert_u8(void *dst, const void *src, int64_t stride, opgen_dtype sd, int64_t n);
void opgen_convert_i8(void *dst, const void *src, int64_t stride, opgen_dtype sd, int64_t n);
void opgen_convert_i16(void *dst, const void *src, int64_t stride, opgen_dtype sd, int64_t n);
void opgen_convert_i32(void *dst, const void *src, int64_t stride, opgen_dtype sd, int64_t n);
void opgen_convert_i64(void *dst, const void *src, int64_t stride, opgen_dtype sd, int64_t n);
void opgen_convert_u16(void *dst, const void *src, int64_t stride, opgen_dtype sd, int64_t n);
void opgen_convert_u32(void *dst, const void *src, int64_t stride, opgen_dtype sd, int64_t n);
void opgen_convert_u64(void *dst, const void *src, int64_t stride, opgen_dtype sd, int64_t n);
void opgen_convert_f32(void *dst, const void *src, int64_t stride, opgen_dtype sd, int64_t n);
void opgen_convert_f64(void *dst, const void *src, int64_t stride, opgen_dtype sd, int64_t n);
#define OPGEN_CONVERT_TO(T)                \
    _Generic((T)0, bool                    \
             : opgen_convert_bool, uint8_t \
             : opgen_convert_u8, int8_t    \
             : opgen_convert_i8, int16_t   \
             : opgen_convert_i16, int32_t  \
             : opgen_convert_i32, int64_t  \
             : opgen_convert_i64, uint16_t \
             : opgen_convert_u16, float    \
             : opgen_convert_f32, double   \
             : opgen_convert_f64)
/* n contiguous elements of dtype sd into dst, `stride` bytes apart, as dtype dd. */
void opgen_convert_out(void *dst, int64_t stride, opgen_dtype dd, const void *src, opgen_dtype sd, int64_t n);
/* d[i] = s[i] * v for n contiguous BFloat16 values, in float, rounded once (a
 * MAP loop's result in one pass: an attention's keys scaled every decode step). */
void opgen_bf16_scale(uint16_t *d, const uint16_t *s, float v, int64_t n);
/* Whether IT's two operands are contiguous BFloat16. */
static inline bool opgen_iter_bf16_dense(const opgen_iter *it) {
    return it->dtype[0] == OPGEN_DTYPE_BFloat16 && it->dtype[1] == OPGEN_DTYPE_BFloat16 &&
           (it->ndim == 0 || (it->ndim == 1 && it->stride[0][0] == 2 && it->stride[1][0] == 2));
}

/* dst = src (same shape, src may broadcast; any strides; dtypes converted as ATen's
 * to() does): runs of contiguous elements are copied with memcpy. */
opgen_status opgen_copy(opgen_ctx *ctx, opgen_tensor *dst, const opgen_tensor *src);
/* The same between tensors of one dtype (no conversion code linked in): layouts. */
opgen_status opgen_copy_same(opgen_ctx *ctx, opgen_tensor *dst, const opgen_tensor *src);

/* Half and BFloat16 (stored as uint16_t) to and from float, rounding to nearest
 * even as c10 does. */
float opgen_half_to_float(uint16_t h);
uint16_t opgen_float_to_half(float f);
/* BFloat16 is a float's high half: inline, so block loops vectorise */
static inline float opgen_bf16_to_float(uint16_t h) {
    uint32_t bits = (uint32_t)h << 16;
    float f;
    memcpy(&f, &bits, 4);
    return f;
}
static inline uint16_t opgen_float_to_bf16(float f) {
    uint32_t x;
    memcpy(&x, &f, 4);
    if ((x & 0x7fffffffu) > 0x7f800000u) return 0x7fc0; /* NaN, as c10::BFloat16 writes it */
    x += 0x7fffu + ((x >> 16) & 1);
    return (uint16_t)(x >> 16);
}

/* The dtype of a C type (the compute and result types of the MAP bodies). */
#define OPGEN_DTYPE_OF(T)                   \
    _Generic((T)0, bool                     \
             : OPGEN_DTYPE_Bool, uint8_t    \
             : OPGEN_DTYPE_Byte, int8_t     \
             : OPGEN_DTYPE_Char, int16_t    \
             : OPGEN_DTYPE_Short, int32_t   \
             : OPGEN_DTYPE_Int, int64_t     \
             : OPGEN_DTYPE_Long, float      \
             : OPGEN_DTYPE_Float, double    \
             : OPGEN_DTYPE_Double, uint16_t \
             : OPGEN_DTYPE_UInt16)
#define OPGEN_IS_FLOAT_T(T) _Generic((T)0, float : 1, double : 1, default : 0)
/* A Scalar as type T, as ATen converts it (a double scalar to float for float math). */
#define OPGEN_SCALAR_AS(T, s) (OPGEN_IS_FLOAT_T(T) ? (T)opgen_scalar_f64(s) : (T)opgen_scalar_i64(s))

/* The C library's function for T: OPGEN_MATH(T, exp)(x) is expf for float, exp else. */
#define OPGEN_MATH(T, fn) _Generic((T)0, float : fn##f, default : fn)
/* x * y + z rounded once, as ATen's fused a + alpha * b: the FPU's fused
 * multiply-add where the compiler says it has one (__FP_FAST_FMA), glibc's
 * (correctly rounded in software too), else opgen's own (some bare-metal C
 * libraries' fma rounds twice: picolibc's on the Cortex-M4). */
double opgen_fma_soft(double x, double y, double z);
float opgen_fmaf_soft(float x, float y, float z);
#if defined(__FP_FAST_FMA) || defined(__GLIBC__) || defined(__APPLE__)
#define OPGEN_FMA_F64 fma
#else
#define OPGEN_FMA_F64 opgen_fma_soft
#endif
#if defined(__FP_FAST_FMAF) || defined(__GLIBC__) || defined(__APPLE__)
#define OPGEN_FMA_F32 fmaf
#else
#define OPGEN_FMA_F32 opgen_fmaf_soft
#endif
#define OPGEN_FMA(T) _Generic((T)0, float : OPGEN_FMA_F32, default : OPGEN_FMA_F64)
/* NaN in T, or 0 where T has none (integer kernels never reach it). */
#define OPGEN_NAN(T) _Generic((T)0, float : (float)NAN, double : (double)NAN, default : 0)
/* x is NaN, for any T (never for integers: no self-comparison warnings). */
static inline bool opgen_isnan_f32(float v) { return v != v; }
static inline bool opgen_isnan_f64(double v) { return v != v; }
static inline bool opgen_isnan_int(int64_t v) {
    (void)v;
    return false;
}
#define OPGEN_ISNAN(T, x) \
    _Generic((T)0, float : opgen_isnan_f32, double : opgen_isnan_f64, default : opgen_isnan_int)(x)
/* |x| for any T; integers wrap as ATen's do (the most negative stays itself). */
static inline float opgen_abs_f32(float v) { return fabsf(v); }
static inline double opgen_abs_f64(double v) { return fabs(v); }
static inline int64_t opgen_abs_int(int64_t v) { return v < 0 ? (int64_t)(0 - (uint64_t)v) : v; }
#define OPGEN_ABS(T, x) ((T) _Generic((T)0, float : opgen_abs_f32, double : opgen_abs_f64, default : opgen_abs_int)(x))
/* x < 0 for any T, without "always false" warnings on unsigned types. */
static inline bool opgen_lt0_i64(int64_t v) { return v < 0; }
#define OPGEN_LT0(T, x) _Generic((T)0, float : (x) < 0.0f, double : (x) < 0.0, default : opgen_lt0_i64((int64_t)(x)))
static inline bool opgen_gt0_i64(int64_t v) { return v > 0; }
#define OPGEN_GT0(T, x) _Generic((T)0, float : (x) > 0.0f, double : (x) > 0.0, default : opgen_gt0_i64((int64_t)(x)))
/* ~x on integers, !x on Bool (floats never reach it: their branch only compiles) */
static inline int64_t opgen_bitnot_i64(int64_t v) { return ~v; }
#define OPGEN_BITNOT(T, x) \
    ((T) _Generic((T)0, bool : !(x), float : (x), double : (x), default : opgen_bitnot_i64((int64_t)(x))))

/* Integer arithmetic that wraps, as ATen's does, without C's undefined signed
 * overflow; plain arithmetic for the other types. */
#define OPGEN_UNSIGNED_OP(T, a, op, b)                          \
    _Generic((T)0, int32_t                                      \
             : (int32_t)((uint32_t)(a)op(uint32_t)(b)), int64_t \
             : (int64_t)((uint64_t)(a)op(uint64_t)(b)), int16_t \
             : (int16_t)((uint16_t)(a)op(uint16_t)(b)), int8_t  \
             : (int8_t)((uint8_t)(a)op(uint8_t)(b)), bool       \
             : (bool)(((int)(a)op(int)(b)) != 0), default       \
             : ((a)op(b)))
#define OPGEN_ADD(T, a, b) OPGEN_UNSIGNED_OP(T, a, +, b)
#define OPGEN_SUB(T, a, b) OPGEN_UNSIGNED_OP(T, a, -, b)
#define OPGEN_MUL(T, a, b) OPGEN_UNSIGNED_OP(T, a, *, b)

/* ---- the run walker ---- */

/* Runs the body (the last argument) once per run of the innermost dimension: N elements, with P[k] the
 * run's first byte in operand k and S[k] its stride in bytes. Moving to the next
 * run adds one stride (and on a carry subtracts a dimension's extent). */
#define OPGEN_ITER_RUNS(IT, N, P, S, ...)                                                            \
    do {                                                                                             \
        const opgen_iter *it_r_ = (IT);                                                              \
        int64_t N = it_r_->ndim ? it_r_->size[0] : 1;                                                \
        char *P[OPGEN_ITER_MAX];                                                                     \
        int64_t S[OPGEN_ITER_MAX], idx_r_[OPGEN_MAX_DIM] = {0};                                      \
        for (int k_r_ = 0; k_r_ < it_r_->nops; k_r_++) {                                             \
            P[k_r_] = it_r_->data[k_r_];                                                             \
            S[k_r_] = it_r_->ndim ? it_r_->stride[k_r_][0] : 0;                                      \
        }                                                                                            \
        int64_t runs_r_ = N ? it_r_->numel / N : 0;                                                  \
        for (int64_t r_r_ = 0; r_r_ < runs_r_; r_r_++) {                                             \
            __VA_ARGS__;                                                                             \
            for (int32_t d_r_ = 1; d_r_ < it_r_->ndim; d_r_++) {                                     \
                for (int k_r_ = 0; k_r_ < it_r_->nops; k_r_++) P[k_r_] += it_r_->stride[k_r_][d_r_]; \
                if (++idx_r_[d_r_] < it_r_->size[d_r_]) break;                                       \
                for (int k_r_ = 0; k_r_ < it_r_->nops; k_r_++)                                       \
                    P[k_r_] -= it_r_->stride[k_r_][d_r_] * it_r_->size[d_r_];                        \
                idx_r_[d_r_] = 0;                                                                    \
            }                                                                                        \
        }                                                                                            \
    } while (0)

/* An input of a block as CT: in place when it already is CT, else converted into BUF. */
#define OPGEN_BLOCK_IN_(IT, K, CT, P, S, B, M, BUF, PX, SX)   \
    const char *PX = (P)[K] + (B) * (S)[K];                   \
    int64_t SX = (S)[K];                                      \
    if ((IT)->dtype[K] != OPGEN_DTYPE_OF(CT)) {               \
        OPGEN_CONVERT_TO(CT)(BUF, PX, SX, (IT)->dtype[K], M); \
        PX = (const char *)(BUF);                             \
        SX = (int64_t)sizeof(CT);                             \
    }

/* The output of a block: written in place when it is RT and contiguous, else into
 * BUF, then scattered (a strided view of an output) or converted (a Half or
 * BFloat16 result computed in float: only built when MASK holds such a dtype). */
#define OPGEN_OUT_NEEDS_CONVERT_(MASK) (OPGEN_HAS(MASK, OPGEN_DTYPE_Half) || OPGEN_HAS(MASK, OPGEN_DTYPE_BFloat16))
#define OPGEN_BLOCK_OUT_(IT, MASK, RT, P, S, B, BUF, Y, DIRECT)                                                     \
    char *py_o_ = (P)[0] + (B) * (S)[0];                                                                            \
    bool DIRECT =                                                                                                   \
        (S)[0] == (int64_t)sizeof(RT) && (!OPGEN_OUT_NEEDS_CONVERT_(MASK) || (IT)->dtype[0] == OPGEN_DTYPE_OF(RT)); \
    RT *Y = DIRECT ? (RT *)py_o_ : (BUF);
#define OPGEN_BLOCK_DONE_(IT, MASK, RT, S, BUF, M, DIRECT)                                           \
    if (!(DIRECT)) {                                                                                 \
        if (OPGEN_OUT_NEEDS_CONVERT_(MASK) && (IT)->dtype[0] != OPGEN_DTYPE_OF(RT))                  \
            opgen_convert_out(py_o_, (S)[0], (IT)->dtype[0], BUF, OPGEN_DTYPE_OF(RT), M);            \
        else                                                                                         \
            for (int64_t i_d_ = 0; i_d_ < (M); i_d_++) *(RT *)(py_o_ + i_d_ * (S)[0]) = (BUF)[i_d_]; \
    }

/* y = EXPR of x: every element of IT's output, x its input as CT, y of type RT
 * (the output's dtype, unless MASK holds Half or BFloat16, computed in float). */
#define OPGEN_MAP1(IT, MASK, RT, CT, EXPR)                                           \
    OPGEN_ITER_RUNS(IT, n_m_, p_m_, s_m_, {                                          \
        for (int64_t b_m_ = 0; b_m_ < n_m_; b_m_ += OPGEN_BLOCK) {                   \
            int64_t m_m_ = n_m_ - b_m_ < OPGEN_BLOCK ? n_m_ - b_m_ : OPGEN_BLOCK;    \
            CT xb_m_[OPGEN_BLOCK];                                                   \
            RT yb_m_[OPGEN_BLOCK];                                                   \
            OPGEN_BLOCK_IN_(IT, 1, CT, p_m_, s_m_, b_m_, m_m_, xb_m_, px_m_, sx_m_)  \
            OPGEN_BLOCK_OUT_(IT, MASK, RT, p_m_, s_m_, b_m_, yb_m_, y_m_, direct_m_) \
            if (sx_m_ == (int64_t)sizeof(CT)) {                                      \
                const CT *xs_m_ = (const CT *)px_m_;                                 \
                for (int64_t i_m_ = 0; i_m_ < m_m_; i_m_++) {                        \
                    CT x = xs_m_[i_m_];                                              \
                    y_m_[i_m_] = (RT)(EXPR);                                         \
                }                                                                    \
            } else {                                                                 \
                for (int64_t i_m_ = 0; i_m_ < m_m_; i_m_++) {                        \
                    CT x = *(const CT *)(px_m_ + i_m_ * sx_m_);                      \
                    y_m_[i_m_] = (RT)(EXPR);                                         \
                }                                                                    \
            }                                                                        \
            OPGEN_BLOCK_DONE_(IT, MASK, RT, s_m_, yb_m_, m_m_, direct_m_)            \
        }                                                                            \
    })

/* y = EXPR of x and y2... : two inputs, x and y (as CT). */
#define OPGEN_MAP2(IT, MASK, RT, CT, EXPR)                                                               \
    OPGEN_ITER_RUNS(IT, n_m_, p_m_, s_m_, {                                                              \
        for (int64_t b_m_ = 0; b_m_ < n_m_; b_m_ += OPGEN_BLOCK) {                                       \
            int64_t m_m_ = n_m_ - b_m_ < OPGEN_BLOCK ? n_m_ - b_m_ : OPGEN_BLOCK;                        \
            CT xb_m_[OPGEN_BLOCK], wb_m_[OPGEN_BLOCK];                                                   \
            RT yb_m_[OPGEN_BLOCK];                                                                       \
            OPGEN_BLOCK_IN_(IT, 1, CT, p_m_, s_m_, b_m_, m_m_, xb_m_, px_m_, sx_m_)                      \
            OPGEN_BLOCK_IN_(IT, 2, CT, p_m_, s_m_, b_m_, m_m_, wb_m_, pw_m_, sw_m_)                      \
            OPGEN_BLOCK_OUT_(IT, MASK, RT, p_m_, s_m_, b_m_, yb_m_, o_m_, direct_m_)                     \
            if (sx_m_ == (int64_t)sizeof(CT) && sw_m_ == (int64_t)sizeof(CT)) {                          \
                const CT *xs_m_ = (const CT *)px_m_, *ws_m_ = (const CT *)pw_m_;                         \
                for (int64_t i_m_ = 0; i_m_ < m_m_; i_m_++) {                                            \
                    CT x = xs_m_[i_m_], y = ws_m_[i_m_];                                                 \
                    o_m_[i_m_] = (RT)(EXPR);                                                             \
                }                                                                                        \
            } else if (sx_m_ == (int64_t)sizeof(CT) && sw_m_ == 0) {                                     \
                const CT *xs_m_ = (const CT *)px_m_;                                                     \
                const CT y = *(const CT *)pw_m_;                                                         \
                for (int64_t i_m_ = 0; i_m_ < m_m_; i_m_++) {                                            \
                    CT x = xs_m_[i_m_];                                                                  \
                    o_m_[i_m_] = (RT)(EXPR);                                                             \
                }                                                                                        \
            } else {                                                                                     \
                for (int64_t i_m_ = 0; i_m_ < m_m_; i_m_++) {                                            \
                    CT x = *(const CT *)(px_m_ + i_m_ * sx_m_), y = *(const CT *)(pw_m_ + i_m_ * sw_m_); \
                    o_m_[i_m_] = (RT)(EXPR);                                                             \
                }                                                                                        \
            }                                                                                            \
            OPGEN_BLOCK_DONE_(IT, MASK, RT, s_m_, yb_m_, m_m_, direct_m_)                                \
        }                                                                                                \
    })

/* Three inputs: x, y and z (where, lerp, addcmul...). */
#define OPGEN_MAP3(IT, MASK, RT, CT, EXPR)                                                           \
    OPGEN_ITER_RUNS(IT, n_m_, p_m_, s_m_, {                                                          \
        for (int64_t b_m_ = 0; b_m_ < n_m_; b_m_ += OPGEN_BLOCK) {                                   \
            int64_t m_m_ = n_m_ - b_m_ < OPGEN_BLOCK ? n_m_ - b_m_ : OPGEN_BLOCK;                    \
            CT xb_m_[OPGEN_BLOCK], wb_m_[OPGEN_BLOCK], zb_m_[OPGEN_BLOCK];                           \
            RT yb_m_[OPGEN_BLOCK];                                                                   \
            OPGEN_BLOCK_IN_(IT, 1, CT, p_m_, s_m_, b_m_, m_m_, xb_m_, px_m_, sx_m_)                  \
            OPGEN_BLOCK_IN_(IT, 2, CT, p_m_, s_m_, b_m_, m_m_, wb_m_, pw_m_, sw_m_)                  \
            OPGEN_BLOCK_IN_(IT, 3, CT, p_m_, s_m_, b_m_, m_m_, zb_m_, pz_m_, sz_m_)                  \
            OPGEN_BLOCK_OUT_(IT, MASK, RT, p_m_, s_m_, b_m_, yb_m_, o_m_, direct_m_)                 \
            for (int64_t i_m_ = 0; i_m_ < m_m_; i_m_++) {                                            \
                CT x = *(const CT *)(px_m_ + i_m_ * sx_m_), y = *(const CT *)(pw_m_ + i_m_ * sw_m_); \
                CT z = *(const CT *)(pz_m_ + i_m_ * sz_m_);                                          \
                o_m_[i_m_] = (RT)(EXPR);                                                             \
            }                                                                                        \
            OPGEN_BLOCK_DONE_(IT, MASK, RT, s_m_, yb_m_, m_m_, direct_m_)                            \
        }                                                                                            \
    })

#ifdef __cplusplus
}
#endif
/* Whether value overflows dtype T as c10's checked_convert decides: a float
 * beyond T's range (integers: NaN and infinities too; floats: only finite values
 * beyond it); an integer beyond it, where unsigned types (Byte) also take
 * negatives down to minus their maximum, which wrap. Bool takes anything. */
#define OPGEN_SCALAR_OVERFLOWS(T, is_f, f, i)                                                                        \
    ((T)-1 == (T)1    ? false                                                                      /* Bool */        \
     : (T)0.5 != (T)0 ? (is_f) && sizeof(T) == 4 && isfinite(f) && fabs(f) > 3.4028234663852886e38 /* Float */       \
     : (T)-1 < (T)0 /* a signed integer */                                                                           \
         ? ((is_f) ? !((f) >= -ldexp(1.0, 8 * (int)sizeof(T) - 1) && (f) <= ldexp(1.0, 8 * (int)sizeof(T) - 1) - 1)  \
                   : sizeof(T) < 8 &&                                                                                \
                         ((i) < -((int64_t)1 << (8 * sizeof(T) - 1)) || (i) >= ((int64_t)1 << (8 * sizeof(T) - 1)))) \
         : ((is_f) ? !((f) >= 0 && (f) <= ldexp(1.0, 8 * (int)sizeof(T)) - 1)                                        \
                   : sizeof(T) < 8 && ((i) > ((int64_t)1 << (8 * sizeof(T) % 64)) - 1 ||                             \
                                       (i) < 1 - ((int64_t)1 << (8 * sizeof(T) % 64)))))

/* Every element of t = value, converted as ATen's fill does: a value the dtype
 * cannot hold (300 as uint8, 1e10 as int32, NaN as an integer) is refused with
 * ATen's message rather than wrapped. */
OPGEN_SPECIALIZED opgen_status opgen_fill(opgen_ctx *ctx, uint32_t mask, opgen_tensor *t, const opgen_scalar *value) {
    int64_t n = opgen_numel(t);
    bool is_f = value->dtype == OPGEN_DTYPE_Double;
    double f = is_f ? opgen_scalar_f64(value) : 0;
    int64_t i = is_f ? 0 : opgen_scalar_i64(value);
    OPGEN_REAL_SWITCH(mask, t->dtype, ctx, T, {
        if (OPGEN_SCALAR_OVERFLOWS(T, is_f, f, i))
            return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: value cannot be converted to type %s without overflow",
                              ctx->op, opgen_dtype_name(t->dtype));
        T v = is_f ? (T)f : (T)i;
        if (OPGEN_REDUCED(mask, t->dtype)) { /* rounded once, stored as its 2-byte pattern */
            float fv = (float)v;
            uint16_t h = t->dtype == OPGEN_DTYPE_Half ? opgen_float_to_half(fv) : opgen_float_to_bf16(fv);
            uint16_t *p = t->data;
            for (int64_t k = 0; k < n; k++) p[k] = h;
        } else {
            T *p = t->data;
            for (int64_t k = 0; k < n; k++) p[k] = v;
        }
    })
    return OPGEN_OK;
}

#endif
