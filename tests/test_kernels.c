/* Runs every case folder in tests/kernels/: program.graph through the executor
 * (load: binding, dtype/shape inference, kernel lookup; then run), on inputs made
 * by the formula below, and compares the returned values with expected.npys,
 * which NumPy computed independently (tests/kernels/make_cases.py). A case may
 * instead expect an error: expected.err holds the message's text.
 * NumPy has no bfloat16, so each data-movement case on UInt16 runs a second time
 * with its tensors relabelled BFloat16: moving 2-byte elements must give the same
 * bytes NumPy's uint16 result has.
 * usage: test_kernels CASES_DIR */
#include "opgen/exec.h"
#include "opgen/npy.h"
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *slurp(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)len + 1);
    if (b && fread(b, 1, (size_t)len, f) != (size_t)len) len = 0;
    if (b) b[len] = 0;
    fclose(f);
    *n = (size_t)len;
    return b;
}

/* Input j's element k (same formula as make_cases.py). `mod` > 0 replaces it
 * with (7k + 3j) % mod, `positive` with 0.5 + ((7k + 3j) % 9) / 4. */
static double formula(opgen_dtype d, int64_t k, int j, int mod, bool positive) {
    int64_t base = k * 7 + j * 3;
    if (mod > 0) return (double)(base % mod);
    if (positive) return 0.5 + (double)(base % 9) / 4.0;
    switch (d) {
    case OPGEN_DTYPE_Bool: return (k + j) % 3 == 0;
    case OPGEN_DTYPE_Byte: return (double)(base % 11);
    case OPGEN_DTYPE_Float:
    case OPGEN_DTYPE_Double:
    case OPGEN_DTYPE_Half: return (double)(base % 23 - 11) / 4.0;
    default: return (double)(base % 11 - 5);
    }
}

static void fill(opgen_tensor *t, int j, int mod, bool positive) {
    int64_t n = opgen_numel(t);
    for (int64_t k = 0; k < n; k++) {
        double v = formula(t->dtype, k, j, mod, positive);
        if (t->dtype == OPGEN_DTYPE_Half) { /* the formula's values are exact in half precision */
            float f = (float)v;
            uint32_t b;
            memcpy(&b, &f, 4);
            uint16_t h = (uint16_t)(((b >> 16) & 0x8000) | ((((b >> 23) & 0xff) - 112) << 10) | ((b >> 13) & 0x3ff));
            if (f == 0) h = (uint16_t)((b >> 16) & 0x8000);
            ((uint16_t *)t->data)[k] = h;
        } else {
            opgen_store_f64(t, k, v);
        }
    }
}

static int compare(const char *name, int i, const opgen_tensor *want, const opgen_ivalue *got) {
    if (got->kind != OPGEN_GV_TENSOR) return printf("FAIL %s: result %d is not a tensor\n", name, i), 1;
    const opgen_tensor *g = &got->t;
    if (g->dtype != want->dtype || g->dim != want->dim || memcmp(g->sizes, want->sizes, sizeof(int64_t) * (size_t)want->dim)) {
        printf("FAIL %s: result %d is %s with %d dims (", name, i, opgen_dtype_name(g->dtype), g->dim);
        for (int k = 0; k < g->dim; k++) printf("%s%lld", k ? ", " : "", (long long)g->sizes[k]);
        printf("), expected %s (", opgen_dtype_name(want->dtype));
        for (int k = 0; k < want->dim; k++) printf("%s%lld", k ? ", " : "", (long long)want->sizes[k]);
        printf(")\n");
        return 1;
    }
    int64_t n = opgen_numel(want);
    bool fl = want->dtype == OPGEN_DTYPE_Float || want->dtype == OPGEN_DTYPE_Double;
    for (int64_t k = 0; k < n; k++) {
        if (want->dtype == OPGEN_DTYPE_Half || want->dtype == OPGEN_DTYPE_BFloat16) {
            if (((uint16_t *)g->data)[k] != ((uint16_t *)want->data)[k]) return printf("FAIL %s: result %d differs at %lld\n", name, i, (long long)k), 1;
            continue;
        }
        double a = opgen_load_f64(g, k), b = opgen_load_f64(want, k);
        double tol = !fl ? 0 : want->dtype == OPGEN_DTYPE_Float ? 1e-5 + 1e-5 * fabs(b) : 1e-12 + 1e-12 * fabs(b);
        bool same = (isnan(a) && isnan(b)) || a == b || fabs(a - b) <= tol;
        if (!same) {
            printf("FAIL %s: result %d element %lld is %.9g, expected %.9g\n", name, i, (long long)k, a, b);
            return 1;
        }
    }
    return 0;
}

/* Replaces every "u16[" of a program by "bf16[" (in place; the buffer has room). */
static size_t relabel_bf16(char *text, size_t n, size_t cap) {
    for (char *p = strstr(text, "u16["); p && n + 1 < cap; p = strstr(p + 5, "u16[")) {
        if (p > text && (p[-1] == 'b' || p[-1] == 'i')) continue;
        memmove(p + 1, p, n - (size_t)(p - text) + 1);
        memcpy(p, "bf16[", 5);
        n++;
    }
    return n;
}

static int run_case(const char *dir, const char *case_dir, bool as_bf16) {
    char path[4096], name[300];
    size_t n;
    snprintf(name, sizeof name, "%s%s", case_dir, as_bf16 ? " (as bf16)" : "");
    snprintf(path, sizeof path, "%s/%s/program.graph", dir, case_dir);
    char *text = slurp(path, &n);
    if (!text) return printf("FAIL %s: no program.graph\n", name), 1;
    if (as_bf16) {
        char *big = realloc(text, 2 * n + 16);
        if (!big) return free(text), 1;
        text = big;
        n = relabel_bf16(text, n, 2 * n + 16);
    }
    opgen_arena a;
    opgen_arena_init_growing(&a);
    opgen_error err = {0};
    opgen_graph g;
    opgen_program *p = NULL;
    int failed = 0;
    snprintf(path, sizeof path, "%s/%s/expected.err", dir, case_dir);
    size_t en = 0;
    char *expect_err = slurp(path, &en);
    if (expect_err) {
        while (en && (expect_err[en - 1] == '\n')) expect_err[--en] = 0;
    }
    opgen_ivalue *inputs = NULL, *outputs = NULL;
    int32_t st = opgen_graph_parse("program.graph", text, n, false, &a, &g, &err);
    if (!st) st = opgen_program_load(&g, &a, &p, &err);
    if (!st) {
        inputs = calloc((size_t)g.ninputs + 1, sizeof *inputs);
        outputs = calloc((size_t)g.noutputs + 1, sizeof *outputs);
        int j = 0;
        for (int i = 0; i < g.ninputs; i++) {
            const opgen_gvalue *gv = &g.values[g.inputs[i]];
            inputs[i].kind = gv->kind;
            if (gv->kind != OPGEN_GV_TENSOR) continue;
            opgen_tensor_alloc(&inputs[i].t, gv->dtype, gv->dim, gv->sizes, &a, &err);
            /* per-input directives in the program: "#@ %name mod N" or "#@ %name positive" */
            char key[300];
            snprintf(key, sizeof key, "#@ %%%s ", gv->name);
            const char *dv = strstr(text, key);
            int mod = 0;
            bool positive = false;
            if (dv) {
                dv += strlen(key);
                if (!strncmp(dv, "mod ", 4)) mod = atoi(dv + 4);
                if (!strncmp(dv, "positive", 8)) positive = true;
            }
            if (as_bf16 && gv->dtype == OPGEN_DTYPE_BFloat16) inputs[i].t.dtype = OPGEN_DTYPE_UInt16; /* the uint16 case's bit patterns */
            fill(&inputs[i].t, j++, mod, positive);
            inputs[i].t.dtype = gv->dtype;
        }
        st = opgen_program_run(p, inputs, &a, outputs, &err);
    }
    if (expect_err) {
        char msg[1024];
        opgen_error_format(&err, msg, sizeof msg);
        if (!st) {
            printf("FAIL %s: ran, but expected the error: %s\n", name, expect_err);
            failed = 1;
        } else if (strcmp(msg, expect_err)) {
            printf("FAIL %s:\n  expected %s\n  got      %s\n", name, expect_err, msg);
            failed = 1;
        }
    } else if (st) {
        char msg[1024];
        opgen_error_format(&err, msg, sizeof msg);
        printf("FAIL %s: %s\n", name, msg);
        failed = 1;
    } else {
        snprintf(path, sizeof path, "%s/%s/expected.npys", dir, case_dir);
        size_t bn;
        char *blob = slurp(path, &bn);
        size_t off = 0;
        for (int i = 0; blob && i < g.noutputs && !failed; i++) {
            opgen_tensor want;
            size_t used;
            if (opgen_npy_decode_prefix(blob + off, bn - off, path, &a, &want, &used, &err)) {
                printf("FAIL %s: expected.npys: %s\n", name, err.msg);
                failed = 1;
                break;
            }
            off += used;
            if (as_bf16 && want.dtype == OPGEN_DTYPE_UInt16) want.dtype = OPGEN_DTYPE_BFloat16;
            failed |= compare(name, i, &want, &outputs[i]);
        }
        if (!blob) printf("FAIL %s: no expected.npys\n", name), failed = 1;
        if (blob && !failed && off != bn) printf("FAIL %s: expected.npys has more results than the program returns\n", name), failed = 1;
        free(blob);
    }
    free(inputs);
    free(outputs);
    free(expect_err);
    free(text);
    opgen_arena_release(&a);
    return failed;
}

static int cmp_names(const void *x, const void *y) { return strcmp(*(char *const *)x, *(char *const *)y); }

int main(int argc, char **argv) {
    if (argc < 2) return 2;
    DIR *d = opendir(argv[1]);
    if (!d) return printf("cannot open %s\n", argv[1]), 1;
    char *names[1024];
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < 1024)
        if (e->d_name[0] != '.' && strcmp(e->d_name, "make_cases.py") && strcmp(e->d_name, "README.md")) names[n++] = strdup(e->d_name);
    closedir(d);
    qsort(names, (size_t)n, sizeof *names, cmp_names);
    int failed = 0, nbf16 = 0;
    static const char *const movers[] = {"cat_", "clone_", "expand_", "permute_", "view_"};
    for (int i = 0; i < n; i++) {
        failed += run_case(argv[1], names[i], false);
        size_t len = strlen(names[i]);
        for (size_t k = 0; k < sizeof movers / sizeof *movers; k++)
            if (!strncmp(names[i], movers[k], strlen(movers[k])) && len > 4 && !strcmp(names[i] + len - 4, "_u16")) {
                failed += run_case(argv[1], names[i], true);
                nbf16++;
            }
        free(names[i]);
    }
    printf("test_kernels: %d cases, %d more as bf16, %d failed\n", n, nbf16, failed);
    return failed ? 1 : 0;
}
