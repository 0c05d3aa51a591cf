/* Runs every case folder in tests/kernels/ (written from PyTorch by
 * tests/kernels/make_cases.py): program.graph through the executor on the case's
 * inputs (inputs.npys), and compares the returned values with PyTorch's
 * (expected.npys) under the case's tolerance (exact, ulp N against a float64
 * reference, or rel R: see make_cases.py). Each case runs three times: its inputs
 * contiguous, with every innermost stride doubled, and laid out in reversed
 * dimension order (transposed, channels-last-like), so kernels see non-contiguous
 * inputs. A case may instead expect an error (expected.err: the message's text).
 * usage: test_kernels CASES_DIR */
#include "opgen/exec.h"
#include "opgen/file.h"
#include "opgen/npy.h"
#if OPGEN_HAVE_POOL
#include "opgen/pool.h"
#endif
#if defined(__unix__) || defined(__APPLE__)
#define HAVE_DIRENT 1
#include <dirent.h>
#else
#define HAVE_DIRENT 0
#endif
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { CONTIGUOUS, STRIDED, REVERSED, NLAYOUTS };
static const char *const layout_names[] = {"", " (strided inputs)", " (reversed-order inputs)"};

static char *read_or_null(const char *path, size_t *n, opgen_arena *a) {
    char *data;
    opgen_error err = {0};
    return opgen_file_read(path, (size_t)64 << 20, a, &data, n, &err) ? NULL : data;
}

/* The .npy images of a blob, in order. */
static int decode_all(const char *path, const char *blob, size_t n, opgen_arena *a, opgen_tensor *out, int max) {
    size_t off = 0;
    int k = 0;
    opgen_error err = {0};
    while (off < n && k < max) {
        size_t used;
        if (opgen_npy_decode_prefix(blob + off, n - off, path, a, &out[k], &used, &err)) return -1;
        off += used, k++;
    }
    return k;
}

/* t's values copied into a new buffer with another layout (same logical tensor). */
static opgen_tensor relayout(const opgen_tensor *t, int layout, opgen_arena *a) {
    opgen_tensor r = *t;
    if (layout == CONTIGUOUS || t->dim == 0) return r;
    int64_t es = opgen_dtype_size(t->dtype), stride = layout == STRIDED ? 2 : 1;
    if (layout == STRIDED) { /* row-major, every other element */
        for (int32_t i = t->dim - 1; i >= 0; i--) {
            r.strides[i] = stride;
            stride *= t->sizes[i] ? t->sizes[i] : 1;
        }
    } else { /* the first dimension innermost */
        for (int32_t i = 0; i < t->dim; i++) {
            r.strides[i] = stride;
            stride *= t->sizes[i] ? t->sizes[i] : 1;
        }
    }
    size_t bytes = (size_t)(stride * es) + (size_t)es;
    r.data = opgen_arena_alloc(a, bytes);
    memset(r.data, 0xa5, bytes); /* garbage between the elements */
    int64_t n = opgen_numel(t), idx[OPGEN_MAX_DIM] = {0};
    for (int64_t e = 0; e < n; e++) { /* t is contiguous: element e in logical order */
        int64_t off = 0;
        for (int32_t i = 0; i < t->dim; i++) off += idx[i] * r.strides[i];
        memcpy((char *)r.data + off * es, (const char *)t->data + e * es, (size_t)es);
        opgen_index_next(t->dim, t->sizes, idx);
    }
    return r;
}

static double bits_ulp(double a, double b, opgen_dtype d) { /* distance in units in the last place */
    if (d == OPGEN_DTYPE_Float) {
        float fa = (float)a, fb = (float)b;
        int32_t ia, ib;
        memcpy(&ia, &fa, 4), memcpy(&ib, &fb, 4);
        if (ia < 0) ia = INT32_MIN - ia;
        if (ib < 0) ib = INT32_MIN - ib;
        return fabs((double)ia - (double)ib);
    }
    int64_t ia, ib;
    memcpy(&ia, &a, 8), memcpy(&ib, &b, 8);
    if (ia < 0) ia = INT64_MIN - ia;
    if (ib < 0) ib = INT64_MIN - ib;
    return fabs((double)ia - (double)ib);
}

typedef struct tolerance {
    enum { T_EXACT, T_EXACT_ZEROS, T_ULP, T_REL } kind;
    double v;
} tolerance;

/* How the elements of ulp cases compared: equal to PyTorch's, within N ulp of it,
 * or farther but nearer the float64 value than PyTorch's (printed per case). */
static int64_t n_equal, n_within, n_nearer;

/* Element k of result i against PyTorch's (and the float64 reference for ulp). */
static bool close_enough(const tolerance *tol, opgen_dtype d, double got, double want, const opgen_tensor *ref,
                         int64_t k, double maxabs) {
    if (isnan(got) && isnan(want)) return true;
    if (tol->kind == T_EXACT_ZEROS) return got == want; /* -0.0 == 0.0 */
    if (tol->kind == T_EXACT || (d != OPGEN_DTYPE_Float && d != OPGEN_DTYPE_Double))
        return got == want && signbit(got) == signbit(want);
    if (got == want) return n_equal++, true;
    if (tol->kind == T_ULP) {
        if (bits_ulp(got, want, d) <= tol->v) return n_within++, true;
        double r = ref ? opgen_load_f64(ref, k) : want; /* or nearer the exact value than PyTorch */
        return ref && fabs(got - r) <= fabs(want - r) && ++n_nearer;
    }
    return fabs(got - want) <= tol->v * (fabs(want) + maxabs);
}

static int compare(const char *name, int i, const opgen_tensor *want, const opgen_ivalue *got, const tolerance *tol,
                   const opgen_tensor *ref) {
    if (got->kind != OPGEN_GV_TENSOR) return printf("FAIL %s: result %d is not a tensor\n", name, i), 1;
    const opgen_tensor *g = &got->t;
    if (g->dtype != want->dtype || g->dim != want->dim ||
        memcmp(g->sizes, want->sizes, sizeof(int64_t) * (size_t)want->dim)) {
        char a[160], b[160];
        return printf("FAIL %s: result %d is %s, PyTorch's %s\n", name, i,
                      opgen_type_format(a, sizeof a, g->dtype, g->dim, g->sizes),
                      opgen_type_format(b, sizeof b, want->dtype, want->dim, want->sizes)),
               1;
    }
    int64_t n = opgen_numel(want);
    size_t es = (size_t)opgen_dtype_size(want->dtype);
    bool reduced = want->dtype == OPGEN_DTYPE_Half || want->dtype == OPGEN_DTYPE_BFloat16;
    if (want->dtype == OPGEN_DTYPE_UInt16 || (reduced && tol->kind == T_EXACT)) /* moved, not computed: bytes */
        return memcmp(g->data, want->data, (size_t)n * es) ? printf("FAIL %s: result %d differs\n", name, i), 1 : 0;
    for (int64_t k = 0; reduced && k < n; k++) { /* computed in float, rounded once: ulps of the 2-byte type */
        uint16_t a = ((const uint16_t *)g->data)[k], b = ((const uint16_t *)want->data)[k];
        /* sign and magnitude as one integer line (in integers: arm-none-eabi-gcc 12 predicates an
         * int-to-double conversion that the M55's assembler refuses) */
        int32_t ua = a & 0x8000 ? -(int32_t)(a & 0x7fff) : (int32_t)a,
                ub = b & 0x8000 ? -(int32_t)(b & 0x7fff) : (int32_t)b;
        double va = opgen_load_f64(g, k), vb = opgen_load_f64(want, k);
        if (a == b || (isnan(va) && isnan(vb))) {
            n_equal++;
            continue;
        }
        int32_t dist = ua > ub ? ua - ub : ub - ua;
        if (tol->kind == T_ULP && (double)dist <= tol->v) {
            n_within++;
            continue;
        }
        return printf("FAIL %s: result %d element %lld is %.9g, PyTorch's %.9g\n", name, i, (long long)k, va, vb), 1;
    }
    if (reduced) return 0;
    double maxabs = 0;
    for (int64_t k = 0; k < n; k++)
        if (isfinite(opgen_load_f64(want, k)) && fabs(opgen_load_f64(want, k)) > maxabs)
            maxabs = fabs(opgen_load_f64(want, k));
    for (int64_t k = 0; k < n; k++) {
        double a = opgen_load_f64(g, k), b = opgen_load_f64(want, k);
        if (want->dtype == OPGEN_DTYPE_Long) { /* all 64 bits */
            if (opgen_load_i64(g, k) == opgen_load_i64(want, k)) continue;
        } else if (close_enough(tol, want->dtype, a, b, ref, k, maxabs)) {
            continue;
        }
        return printf("FAIL %s: result %d element %lld is %.9g, PyTorch's %.9g\n", name, i, (long long)k, a, b), 1;
    }
    return 0;
}

static tolerance read_tolerance(const char *dir, const char *case_dir, opgen_arena *a) {
    char path[4096];
    size_t n;
    snprintf(path, sizeof path, "%s/%s/tolerance", dir, case_dir);
    const char *t = read_or_null(path, &n, a);
    tolerance tol = {T_EXACT, 0};
    if (t && !strncmp(t, "exact zeros", 11)) tol.kind = T_EXACT_ZEROS;
    if (t && !strncmp(t, "ulp ", 4)) tol.kind = T_ULP, tol.v = atof(t + 4);
    if (t && !strncmp(t, "rel ", 4)) tol.kind = T_REL, tol.v = atof(t + 4);
    return tol;
}

/* The program's inputs from inputs.npys (uint16 images relabelled BFloat16 where
 * the program declares it: NumPy has no bfloat16), in a layout. */
static int read_inputs(const char *dir, const char *case_dir, const opgen_graph *g, int layout, opgen_arena *a,
                       opgen_ivalue *inputs) {
    char path[4096];
    size_t n;
    snprintf(path, sizeof path, "%s/%s/inputs.npys", dir, case_dir);
    const char *blob = read_or_null(path, &n, a);
    static opgen_tensor ts[256]; /* static here and below: a device's stack is small */
    int k = blob ? decode_all(path, blob, n, a, ts, 256) : 0;
    if (k != g->ninputs) return -1;
    for (int i = 0; i < g->ninputs; i++) {
        const opgen_gvalue *gv = &g->values[g->inputs[i]];
        if (gv->dtype == OPGEN_DTYPE_BFloat16 && ts[i].dtype == OPGEN_DTYPE_UInt16) ts[i].dtype = OPGEN_DTYPE_BFloat16;
        inputs[i].kind = OPGEN_GV_TENSOR;
        inputs[i].t = relayout(&ts[i], layout, a);
    }
    return 0;
}

static int check_results(const char *dir, const char *case_dir, const char *name, const opgen_graph *g,
                         opgen_ivalue *outputs, opgen_arena *a) {
    char path[4096], rpath[4096];
    size_t n, rn = 0;
    snprintf(path, sizeof path, "%s/%s/expected.npys", dir, case_dir);
    snprintf(rpath, sizeof rpath, "%s/%s/reference.npys", dir, case_dir);
    const char *blob = read_or_null(path, &n, a), *rblob = read_or_null(rpath, &rn, a);
    static opgen_tensor want[64], ref[64];
    int k = blob ? decode_all(path, blob, n, a, want, 64) : -1,
        nref = rblob ? decode_all(rpath, rblob, rn, a, ref, 64) : 0;
    if (k != g->noutputs)
        return printf("FAIL %s: expected.npys holds %d results, the program returns %d\n", name, k, g->noutputs), 1;
    tolerance tol = read_tolerance(dir, case_dir, a);
    n_equal = n_within = n_nearer = 0;
    for (int i = 0; i < k; i++) {
        if (want[i].dtype == OPGEN_DTYPE_UInt16 && outputs[i].t.dtype == OPGEN_DTYPE_BFloat16)
            want[i].dtype = OPGEN_DTYPE_BFloat16;
        if (compare(name, i, &want[i], &outputs[i], &tol, i < nref ? &ref[i] : NULL)) return 1;
    }
    if (tol.kind == T_ULP && !strcmp(name, case_dir))
        printf(
            "ulp %s: %lld values equal to PyTorch's, %lld within %g ulp of it, %lld farther but nearer the float64 value\n",
            name, (long long)n_equal, (long long)n_within, tol.v, (long long)n_nearer);
    return 0;
}

/* The case loaded again with other options (threads, no fusion) gives the same
 * bytes: run, compared with the first run's outputs. */
static int same_bytes_with(const char *name, const opgen_graph *g, const opgen_ivalue *inputs,
                           const opgen_ivalue *outputs, opgen_arena *a, const opgen_load_options *opt,
                           const char *how) {
    opgen_program *p;
    static opgen_ivalue got[64];
    opgen_error err = {0};
    if (opgen_program_load_with(g, a, opt, &p, &err) || opgen_program_run(p, inputs, a, got, &err))
        return printf("FAIL %s (%s): %s\n", name, how, err.msg), 1;
    for (int i = 0; i < g->noutputs; i++) {
        const opgen_ivalue *x = &outputs[i], *y = &got[i];
        bool same =
            x->kind == y->kind && (x->kind != OPGEN_GV_TENSOR || (opgen_nbytes(&x->t) == opgen_nbytes(&y->t) &&
                                                                  !memcmp(x->t.data, y->t.data, opgen_nbytes(&x->t))));
        if (!same) return printf("FAIL %s: output %d differs %s\n", name, i, how), 1;
    }
    return 0;
}

/* A convolution fused with its batch norm and activation (opgen_post) gives the
 * bytes the three kernels give. */
static const opgen_load_options unfused = {.unfused = true};

#if OPGEN_HAVE_POOL
static opgen_pool *pool;         /* two threads: every case's results must be the same bytes */
static opgen_parallel split_all; /* the pool, splitting even the smallest product */
#endif

static int run_case(const char *dir, const char *case_dir, int layout) {
    char path[4096], name[400];
    snprintf(name, sizeof name, "%s%s", case_dir, layout_names[layout]);
    opgen_arena a;
    opgen_arena_init_growing(&a);
    size_t n, en = 0;
    snprintf(path, sizeof path, "%s/%s/program.graph", dir, case_dir);
    const char *text = read_or_null(path, &n, &a);
    snprintf(path, sizeof path, "%s/%s/expected.err", dir, case_dir);
    char *expect_err = read_or_null(path, &en, &a);
    while (expect_err && en && expect_err[en - 1] == '\n') expect_err[--en] = 0;
    int failed = 0;
    opgen_error err = {0};
    opgen_graph g;
    opgen_program *p = NULL;
    int32_t st = !text ? OPGEN_E_IO : opgen_graph_parse("program.graph", text, n, false, &a, &g, &err);
    if (!st) st = opgen_program_load(&g, &a, &p, &err);
    static opgen_ivalue inputs[256], outputs[64];
    if (!st && (g.ninputs > 256 || g.noutputs > 64)) {
        printf("FAIL %s: more than 256 inputs or 64 outputs\n", name);
        failed = 1;
    } else if (!st && g.ninputs && read_inputs(dir, case_dir, &g, layout, &a, inputs)) {
        printf("FAIL %s: inputs.npys does not hold the program's %d inputs\n", name, g.ninputs);
        failed = 1;
    } else if (!st) {
        st = opgen_program_run(p, inputs, &a, outputs, &err);
    }
    char msg[1024];
    opgen_error_format(&err, msg, sizeof msg);
    if (failed) {
    } else if (expect_err) {
        if (!st)
            printf("FAIL %s: ran, but expected the error: %s\n", name, expect_err), failed = 1;
        else if (strcmp(msg, expect_err))
            printf("FAIL %s:\n  expected %s\n  got      %s\n", name, expect_err, msg), failed = 1;
    } else if (st) {
        printf("FAIL %s: %s\n", name, msg), failed = 1;
    } else {
        failed = check_results(dir, case_dir, name, &g, outputs, &a);
        if (!failed && layout == 0 && strstr(case_dir, "model_"))
            failed = same_bytes_with(name, &g, inputs, outputs, &a, &unfused, "unfused");
#if OPGEN_HAVE_POOL
        if (!failed && layout == 0 && !strstr(case_dir, "rand") && !strstr(case_dir, "dropout"))
            failed = same_bytes_with(name, &g, inputs, outputs, &a, &(opgen_load_options){.parallel = &split_all},
                                     "on 2 threads");
#endif
    }
    opgen_arena_release(&a);
    return failed;
}

static int cmp_names(const void *x, const void *y) { return strcmp(*(char *const *)x, *(char *const *)y); }

/* The case folders: named one per line in a list file (a bare-metal build,
 * whose files come through semihosting, has no folders to list), or listed. */
static int case_names(const char *dir, const char *list, char **names, int max) {
    int n = 0;
    if (list) {
        FILE *f = fopen(list, "r");
        if (!f) return printf("cannot open %s\n", list), -1;
        char line[256];
        while (n < max && fgets(line, sizeof line, f)) {
            line[strcspn(line, "\r\n")] = 0;
            if (line[0] && line[0] != '.' && !strchr(line, '.')) names[n++] = strdup(line);
        }
        fclose(f);
        return n;
    }
#if HAVE_DIRENT
    DIR *d = opendir(dir);
    if (!d) return printf("cannot open %s\n", dir), -1;
    struct dirent *e;
    while ((e = readdir(d)) && n < max)
        if (e->d_name[0] != '.' && !strchr(e->d_name, '.')) names[n++] = strdup(e->d_name);
    closedir(d);
    return n;
#else
    return printf("%s: no folder listing here: name the cases in a list file\n", dir), -1;
#endif
}

/* usage: test_kernels CASE_DIR [LIST_FILE] */
int main(int argc, char **argv) {
    if (argc < 2 || argc > 3) return 2;
    static char *names[2048];
    int n = case_names(argv[1], argc > 2 ? argv[2] : NULL, names, 2048);
    if (n < 0) return 1;
    qsort(names, (size_t)n, sizeof *names, cmp_names);
    int failed = 0, runs = 0;
#if OPGEN_HAVE_POOL
    pool = opgen_pool_create(2);
    if (pool) split_all = *opgen_pool_parallel(pool), split_all.min_work = 1;
#endif
    for (int i = 0; i < n; i++) {
        for (int layout = 0; layout < NLAYOUTS; layout++, runs++) failed += run_case(argv[1], names[i], layout);
        free(names[i]);
    }
#if OPGEN_HAVE_POOL
    opgen_pool_destroy(pool);
    printf("test_kernels: each case's results the same bytes on 2 threads as on 1\n");
#endif
    printf("test_kernels: %d cases, %d runs (contiguous, strided and reversed-order inputs), %d failed\n", n, runs,
           failed);
    return failed ? 1 : 0;
}
