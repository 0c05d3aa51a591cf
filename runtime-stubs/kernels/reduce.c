/* Reductions over dimensions: sum and mean, on the reduction iterator
 * (opgen_iter_init_reduce). Float sums accumulate in their own type, as ATen's
 * do (opmath float for float), in a cascade: eight lanes over blocks of 256, the
 * blocks added pairwise, so the error grows with log(n), not n. Integer and Bool
 * inputs sum as Long, wrapping. A mean is the sum divided by the count. */
#include "opgen/loops.h"
#include "opgen_registry.h"

/* Which dimensions a dim list reduces (None or [] reduces all). */
opgen_status opgen_reduced_dims(opgen_ctx *ctx, const opgen_tensor *self, const opgen_int_list *dims, bool *red) {
    memset(red, 0, sizeof(bool) * OPGEN_MAX_DIM);
    if (!dims || !dims->len) {
        for (int32_t i = 0; i < self->dim; i++) red[i] = true;
        return OPGEN_OK;
    }
    for (size_t i = 0; i < dims->len; i++) {
        int32_t d;
        if (opgen_wrap_dim(ctx, dims->data[i], self->dim, &d)) return ctx->err->code;
        if (red[d] && self->dim)
            return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: dimension %d appears twice", ctx->op, (int)d);
        red[d] = true;
    }
    return OPGEN_OK;
}

/* The sum of a run (n elements `s` bytes apart), cascaded. */
#define SUM_RUN(T, NAME)                                                                                       \
    static T NAME(const char *p, int64_t s, int64_t n) {                                                       \
        T level[64] = {0}; /* level[k]: the sum of 2^k blocks, pending */                                      \
        int64_t nb = 0;                                                                                        \
        for (int64_t b = 0; b < n; b += 256, nb++) {                                                           \
            int64_t m = n - b < 256 ? n - b : 256;                                                             \
            T lane[8] = {0};                                                                                   \
            const char *q = p + b * s;                                                                         \
            int64_t i = 0;                                                                                     \
            if (s == (int64_t)sizeof(T)) {                                                                     \
                const T *x = (const T *)q;                                                                     \
                for (; i + 8 <= m; i += 8)                                                                     \
                    for (int l = 0; l < 8; l++) lane[l] = OPGEN_ADD(T, lane[l], x[i + l]);                     \
            }                                                                                                  \
            for (; i < m; i++) lane[i & 7] = OPGEN_ADD(T, lane[i & 7], *(const T *)(q + i * s));               \
            T blk = OPGEN_ADD(T, OPGEN_ADD(T, OPGEN_ADD(T, lane[0], lane[1]), OPGEN_ADD(T, lane[2], lane[3])), \
                              OPGEN_ADD(T, OPGEN_ADD(T, lane[4], lane[5]), OPGEN_ADD(T, lane[6], lane[7])));   \
            int k = 0;                                                                                         \
            for (int64_t c = nb; c & 1; c >>= 1, k++) { /* a binary counter of blocks */                       \
                blk = OPGEN_ADD(T, level[k], blk);                                                             \
                level[k] = 0;                                                                                  \
            }                                                                                                  \
            level[k] = blk;                                                                                    \
        }                                                                                                      \
        T total = 0;                                                                                           \
        for (int k = 0; k < 64; k++) total = OPGEN_ADD(T, total, level[k]);                                    \
        return total;                                                                                          \
    }
SUM_RUN(bool, sum_run_b8)
SUM_RUN(uint8_t, sum_run_u8)
SUM_RUN(int8_t, sum_run_i8)
SUM_RUN(int16_t, sum_run_i16)
SUM_RUN(int32_t, sum_run_i32)
SUM_RUN(int64_t, sum_run_i64)
SUM_RUN(float, sum_run_f32)
SUM_RUN(double, sum_run_f64)
#define SUM_RUN_OF(T)               \
    _Generic((T)0, bool             \
             : sum_run_b8, uint8_t  \
             : sum_run_u8, int8_t   \
             : sum_run_i8, int16_t  \
             : sum_run_i16, int32_t \
             : sum_run_i32, int64_t \
             : sum_run_i64, float   \
             : sum_run_f32, default \
             : sum_run_f64)

/* out (zeroed) += the input over the reduced dimensions, in CT = out's type: a
 * run along a reduced dimension sums into one element; a run along a kept one adds
 * elementwise. Inputs of other dtypes are converted a block at a time. */
#define SUM_INTO(IT, CT)                                                          \
    OPGEN_ITER_RUNS(IT, n_s, p_s, s_s, {                                          \
        for (int64_t b_s = 0; b_s < n_s; b_s += OPGEN_BLOCK) {                    \
            int64_t m_s = n_s - b_s < OPGEN_BLOCK ? n_s - b_s : OPGEN_BLOCK;      \
            CT xb_s[OPGEN_BLOCK];                                                 \
            OPGEN_BLOCK_IN_(IT, 1, CT, p_s, s_s, b_s, m_s, xb_s, px_s, sx_s)      \
            if (s_s[0] == 0) {                                                    \
                CT *o_s = (CT *)p_s[0];                                           \
                *o_s = OPGEN_ADD(CT, *o_s, SUM_RUN_OF(CT)(px_s, sx_s, m_s));      \
            } else {                                                              \
                char *o_s = p_s[0] + b_s * s_s[0];                                \
                for (int64_t i_s = 0; i_s < m_s; i_s++) {                         \
                    CT *y_s = (CT *)(o_s + i_s * s_s[0]);                         \
                    *y_s = OPGEN_ADD(CT, *y_s, *(const CT *)(px_s + i_s * sx_s)); \
                }                                                                 \
            }                                                                     \
        }                                                                         \
    })

OPGEN_SPECIALIZED opgen_status reduce(opgen_ctx *ctx, uint32_t mask, const opgen_tensor *self,
                                      const opgen_int_list *dims, bool keepdim, opgen_dtype res, bool mean,
                                      opgen_tensor *out) {
    bool red[OPGEN_MAX_DIM];
    if (opgen_reduced_dims(ctx, self, dims, red)) return ctx->err->code;
    int64_t sizes[OPGEN_MAX_DIM], kept[OPGEN_MAX_DIM], count = 1;
    int32_t dim = 0;
    for (int32_t i = 0; i < self->dim; i++) {
        kept[i] = red[i] ? 1 : self->sizes[i];
        if (red[i]) count *= self->sizes[i];
        if (!red[i] || keepdim) sizes[dim++] = kept[i];
    }
    OPGEN_CHECK_DTYPE(ctx, mask, res, "the result");
    opgen_status st = opgen_out(ctx, out, res, dim, sizes);
    if (st || ctx->meta) return st;
    memset(out->data, 0, opgen_nbytes(out));
    opgen_tensor view = *out; /* out with the reduced dimensions kept, of size 1 */
    if (opgen_tensor_shape(&view, res, self->dim, kept, ctx->err)) return ctx->err->code;
    view.data = out->data;
    opgen_iter it;
    if (opgen_iter_init_reduce(ctx, &it, &view, self, red)) return ctx->err->code;
    OPGEN_REAL_SWITCH(mask, res, ctx, T, {
        SUM_INTO(&it, T);
        if (mean && OPGEN_IS_FLOAT_T(T)) { /* ATen: sum / n (NaN for an empty reduction) */
            T *o = out->data;
            int64_t on = opgen_numel(out);
            for (int64_t i = 0; i < on; i++) o[i] = count ? o[i] / (T)count : OPGEN_NAN(T);
        }
    })
    return OPGEN_OK;
}

/* A Half or BFloat16 result: summed in float, rounded once (ATen's opmath) */
OPGEN_SPECIALIZED opgen_status reduce_any(opgen_ctx *ctx, uint32_t mask, const opgen_tensor *self,
                                          const opgen_int_list *dims, bool keepdim, opgen_dtype res, bool mean,
                                          opgen_tensor *out) {
    if (!OPGEN_REDUCED(mask, res)) return reduce(ctx, mask, self, dims, keepdim, res, mean, out);
    opgen_tensor x, y;
    opgen_standin(&y);
    opgen_status st = opgen_widen(ctx, self, &x);
    if (!st) st = reduce(ctx, OPGEN_AS_FLOAT(mask), &x, dims, keepdim, OPGEN_DTYPE_Float, mean, &y);
    return st ? st : opgen_narrow(ctx, out, res, &y);
}

opgen_status opgen_portable_mean_out(opgen_ctx *ctx, const opgen_tensor *self, const opgen_int_list *dim, bool keepdim,
                                     const opgen_dtype *dtype, opgen_tensor *out) {
    opgen_dtype res = dtype ? *dtype : self->dtype;
    if (!opgen_is_float(res))
        return OPGEN_FAIL(ctx, OPGEN_E_DTYPE, "%s: mean needs a floating point result, not %s", ctx->op,
                          opgen_dtype_name(res));
    return reduce_any(ctx, OPGEN_KERNEL_DTYPES_opgen_portable_mean_out, self, dim, keepdim, res, true, out);
}

opgen_status opgen_portable_sum_IntList_out(opgen_ctx *ctx, const opgen_tensor *self, const opgen_int_list *dim,
                                            bool keepdim, const opgen_dtype *dtype, opgen_tensor *out) {
    opgen_dtype res = dtype ? *dtype : opgen_is_integral(self->dtype, true) ? OPGEN_DTYPE_Long : self->dtype;
    return reduce_any(ctx, OPGEN_KERNEL_DTYPES_opgen_portable_sum_IntList_out, self, dim, keepdim, res, false, out);
}

opgen_status opgen_portable_mean_dtype_out(opgen_ctx *ctx, const opgen_tensor *self, const opgen_dtype *dtype,
                                           opgen_tensor *out) {
    opgen_dtype res = dtype ? *dtype : self->dtype;
    if (!opgen_is_float(res))
        return OPGEN_FAIL(ctx, OPGEN_E_DTYPE, "%s: mean needs a floating point result, not %s", ctx->op,
                          opgen_dtype_name(res));
    return reduce_any(ctx, OPGEN_KERNEL_DTYPES_opgen_portable_mean_dtype_out, self, NULL, false, res, true, out);
}
