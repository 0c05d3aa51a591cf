/* The scalar prims of the Backend dialect (executorch_prims), as Python computes
 * them on ints, within 64 bits. */
#include "opgen/kernel.h"

static opgen_status overflow(opgen_ctx *ctx, const char *what, int64_t a, int64_t b) {
    return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: %lld %s %lld leaves 64 bits", ctx->op, (long long)a, what,
                      (long long)b);
}

static opgen_status by_zero(opgen_ctx *ctx, int64_t a) {
    return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: %lld divided by zero", ctx->op, (long long)a);
}

opgen_status opgen_prim_add(opgen_ctx *ctx, int64_t a, int64_t b, int64_t *out) {
    if ((b > 0 && a > INT64_MAX - b) || (b < 0 && a < INT64_MIN - b)) return overflow(ctx, "+", a, b);
    *out = a + b;
    return OPGEN_OK;
}

opgen_status opgen_prim_sub(opgen_ctx *ctx, int64_t a, int64_t b, int64_t *out) {
    if ((b < 0 && a > INT64_MAX + b) || (b > 0 && a < INT64_MIN + b)) return overflow(ctx, "-", a, b);
    *out = a - b;
    return OPGEN_OK;
}

opgen_status opgen_prim_mul(opgen_ctx *ctx, int64_t a, int64_t b, int64_t *out) {
    if (a && b) {
        bool neg = (a < 0) != (b < 0);
        uint64_t ua = a < 0 ? 0 - (uint64_t)a : (uint64_t)a, ub = b < 0 ? 0 - (uint64_t)b : (uint64_t)b;
        uint64_t limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
        if (ua > limit / ub) return overflow(ctx, "*", a, b);
    }
    *out = (int64_t)((uint64_t)a * (uint64_t)b); /* in range: no wrap */
    return OPGEN_OK;
}

opgen_status opgen_prim_floordiv(opgen_ctx *ctx, int64_t a, int64_t b, int64_t *out) {
    if (!b) return by_zero(ctx, a);
    if (a == INT64_MIN && b == -1) return overflow(ctx, "//", a, b);
    int64_t q = a / b; /* C truncates toward zero; Python floors */
    if ((a % b != 0) && ((a < 0) != (b < 0))) q--;
    *out = q;
    return OPGEN_OK;
}

opgen_status opgen_prim_mod(opgen_ctx *ctx, int64_t a, int64_t b, int64_t *out) {
    if (!b) return by_zero(ctx, a);
    if (b == -1) return *out = 0, OPGEN_OK; /* INT64_MIN % -1 is UB in C */
    int64_t r = a % b;                      /* Python's result takes the divisor's sign */
    if (r != 0 && ((r < 0) != (b < 0))) r += b;
    *out = r;
    return OPGEN_OK;
}

opgen_status opgen_prim_neg(opgen_ctx *ctx, int64_t a, int64_t *out) {
    if (a == INT64_MIN) return OPGEN_FAIL(ctx, OPGEN_E_INVALID, "%s: -(%lld) leaves 64 bits", ctx->op, (long long)a);
    *out = -a;
    return OPGEN_OK;
}

opgen_status opgen_prim_truediv(opgen_ctx *ctx, int64_t a, int64_t b, double *out) {
    if (!b) return by_zero(ctx, a);
    *out = (double)a / (double)b;
    return OPGEN_OK;
}

#define COMPARE(name, op)                                                             \
    opgen_status opgen_prim_##name(opgen_ctx *ctx, int64_t a, int64_t b, bool *out) { \
        (void)ctx;                                                                    \
        *out = a op b;                                                                \
        return OPGEN_OK;                                                              \
    }
COMPARE(eq, ==)
COMPARE(ne, !=)
COMPARE(lt, <)
COMPARE(le, <=)
COMPARE(gt, >)
COMPARE(ge, >=)
