/* opgen-rt compare: is a result what it should be? Two .npy files of one dtype and
 * shape whose values agree within |expected - actual| <= atol + rtol * |expected|
 * (NaN matches NaN), as numpy.allclose has it. */
#include "cli.h"
#include "opgen/npy.h"
#include <errno.h>
#include <math.h>
#include <stdlib.h>

static const opgen_opt opts[] = {
    {NULL, NULL, "EXPECTED", OPGEN_OPT_FILE, "npy", OPGEN_OPT_REQUIRED, "expected file",
     "the values it should be (.npy)"},
    {NULL, NULL, "ACTUAL", OPGEN_OPT_FILE, "npy", OPGEN_OPT_REQUIRED, "actual file", "the values it is (.npy)"},
    {"--rtol", NULL, "R", OPGEN_OPT_TEXT, NULL, 0, NULL, "relative tolerance (default 1e-5)"},
    {"--atol", NULL, "A", OPGEN_OPT_TEXT, NULL, 0, NULL, "absolute tolerance (default 1e-6)"},
    {0},
};

/* A tolerance: a finite number >= 0, or a usage error. */
static int tolerance(const opgen_cli *a, const char *name, double dflt, double *v) {
    const char *s = opgen_cli_get(a, name);
    char *end;
    *v = dflt;
    if (!s) return OPGEN_EXIT_OK;
    errno = 0;
    *v = strtod(s, &end);
    if (errno || end == s || *end || !(*v >= 0) || isinf(*v))
        return opgen_usage_error(a, "%s must be a number >= 0, not '%s'", name, s);
    return OPGEN_EXIT_OK;
}

/* Prints the first element out of tolerance, or the largest difference. */
static int compare(const char *name, const opgen_tensor *x, const opgen_tensor *y, double rtol, double atol) {
    /* float results of any width compare by value (a bfloat16 result against float32 expectations) */
    bool kinds = x->dtype == y->dtype || (opgen_is_float(x->dtype) && opgen_is_float(y->dtype));
    if (!kinds || x->dim != y->dim || memcmp(x->sizes, y->sizes, sizeof(int64_t) * (size_t)x->dim)) {
        printf("%s: dtype or shape differs (%s %d-d expected, %s %d-d)\n", name, opgen_dtype_name(x->dtype),
               (int)x->dim, opgen_dtype_name(y->dtype), (int)y->dim);
        return OPGEN_EXIT_BAD_INPUT;
    }
    double worst = 0;
    for (int64_t i = 0; i < opgen_numel(x); i++) {
        double e = opgen_load_f64(x, i), g = opgen_load_f64(y, i), diff = fabs(e - g);
        if (isnan(e) && isnan(g)) continue;
        if (!(diff <= atol + rtol * fabs(e))) {
            printf("%s: element %lld is %.9g, expected %.9g\n", name, (long long)i, g, e);
            return OPGEN_EXIT_BAD_INPUT;
        }
        if (diff > worst) worst = diff;
    }
    printf("%s: %lld values close (max abs diff %.3g)\n", name, (long long)opgen_numel(x), worst);
    return OPGEN_EXIT_OK;
}

static int run(const opgen_cli *a, void *ctx) {
    (void)ctx;
    double rtol, atol;
    int bad = tolerance(a, "--rtol", 1e-5, &rtol);
    if (!bad) bad = tolerance(a, "--atol", 1e-6, &atol);
    if (bad) return bad;
    opgen_arena ar;
    opgen_arena_init_growing(&ar);
    opgen_error err = {0};
    opgen_tensor x, y;
    int rc;
    if (opgen_npy_read(opgen_cli_get(a, "EXPECTED"), &ar, &x, &err) ||
        opgen_npy_read(opgen_cli_get(a, "ACTUAL"), &ar, &y, &err))
        rc = opgen_rt_report(&err);
    else
        rc = compare(opgen_cli_get(a, "ACTUAL"), &x, &y, rtol, atol);
    opgen_arena_release(&ar);
    return rc;
}

const opgen_cmd opgen_rt_cmd_compare = {
    "compare",
    "check a result against the values it should have",
    "Compares two .npy files: the same dtype and shape, and every value within |expected - actual| <= atol + rtol * |expected| "
    "(NaN matches NaN). Prints the first value out of tolerance (exit 1) or the largest difference (exit 0).",
    opts,
    NULL,
    NULL,
    run};
