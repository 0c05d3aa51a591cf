/* Benchmark: opgen's kernels against the floor measured in the same run. Each
 * kernel is called directly (as the executor does, outputs already planned);
 * elementwise ops, reductions and softmax against a plain typed C loop compiled
 * here with the kernels' flags (the memory-bandwidth or latency floor); GEMM and
 * convolution also against OpenBLAS's cblas_sgemm on one thread (im2col + sgemm for
 * a 3x3 convolution), when the benchmark was built with OpenBLAS; depthwise
 * convolution against a direct C loop. Medians of RUNS. Exits 1 when a goal of
 * the table is missed (issue 13's), unless --no-check (a smoke run).
 * usage: bench_kernels [RUNS [--no-check]] */
#define _POSIX_C_SOURCE 200809L
#include "../../runtime-stubs/kernels/gemm.h"
#include "opgen/exec.h"
#include "opgen/loops.h"
#include "openblas_core.h"
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef HAVE_OPENBLAS
#include <cblas.h>
void openblas_set_num_threads(int);
#endif

static int runs = 11;
static opgen_arena arena;
static opgen_error err;
static opgen_ctx ctx = {&arena, &err, "bench", false, 0, false, -1, NULL, NULL, NULL, 0, NULL};

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}
static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}
static double median(double *t) {
    qsort(t, (size_t)runs, sizeof *t, cmp_double);
    return t[runs / 2];
}
/* A body's time is sampled as repetitions of it that run for at least 2 ms
 * together, so microsecond calls are not timed at the clock's granularity (the
 * first such run, which counts them, is the warm-up). */
#define RUN_ONCE_(...)                                  \
    do {                                                \
        opgen_arena_mark m_ = opgen_arena_save(&arena); \
        { __VA_ARGS__; }                                \
        opgen_arena_restore(&arena, m_);                \
    } while (0)
#define CALIBRATE_(REPS, ...)           \
    do {                                \
        double s0_ = now_ms();          \
        REPS = 0;                       \
        do {                            \
            RUN_ONCE_(__VA_ARGS__);     \
            REPS++;                     \
        } while (now_ms() - s0_ < 2.0); \
    } while (0)
#define SAMPLE_(T, REPS, ...)                                       \
    do {                                                            \
        double s_ = now_ms();                                       \
        for (int i_ = 0; i_ < (REPS); i_++) RUN_ONCE_(__VA_ARGS__); \
        T = (now_ms() - s_) / (REPS);                               \
    } while (0)
/* The median time of the body over `runs` samples. */
#define TIME(RESULT, ...)                                                      \
    do {                                                                       \
        double t_[64];                                                         \
        int reps_;                                                             \
        CALIBRATE_(reps_, __VA_ARGS__);                                        \
        for (int r_ = 0; r_ < runs; r_++) SAMPLE_(t_[r_], reps_, __VA_ARGS__); \
        RESULT = median(t_);                                                   \
    } while (0)
/* A kernel's median time and its floor's, their samples taken in turn (kernel,
 * floor, kernel, ...): on a shared VM whose speed swings within seconds both
 * then see the same spells, and their ratio is the kernel's, not the machine's. */
#define TIME_SIDE_BY_SIDE(K, KERNEL, F, ...)    \
    do {                                        \
        double tk_[64], tf_[64];                \
        int rk_, rf_;                           \
        CALIBRATE_(rk_, KERNEL);                \
        CALIBRATE_(rf_, __VA_ARGS__);           \
        for (int r_ = 0; r_ < runs; r_++) {     \
            SAMPLE_(tk_[r_], rk_, KERNEL);      \
            SAMPLE_(tf_[r_], rf_, __VA_ARGS__); \
        }                                       \
        K = median(tk_);                        \
        F = median(tf_);                        \
    } while (0)

static opgen_tensor tensor(int32_t dim, const int64_t *sizes, float seed) {
    opgen_tensor t;
    opgen_tensor_alloc(&t, OPGEN_DTYPE_Float, dim, sizes, &arena, &err);
    t.capacity = opgen_nbytes(&t);
    float *p = t.data;
    for (int64_t i = 0; i < opgen_numel(&t); i++) p[i] = (float)((i * 7 + (int64_t)seed) % 23 - 11) / 8.0f;
    return t;
}

/* One row of the table. A goal is a ratio to the floor (opgen at most `limit` times
 * the floor's time) or, for GEMM and convolution against OpenBLAS, a share of its
 * throughput (at least `limit`); limit 0 or NO_GOAL: the row only informs. */
typedef enum { NO_GOAL, AT_MOST_X, AT_LEAST_SHARE } goal_kind;
static int goals, missed;

static void row(const char *what, double ms, double floor_ms, const char *floor_name, goal_kind g, double limit) {
    char result[32] = "", goal[32] = "", met[8] = "";
    if (g == AT_LEAST_SHARE) {
        snprintf(result, sizeof result, "%.0f%% of its speed", 100 * floor_ms / ms);
        if (limit > 0) snprintf(goal, sizeof goal, ">= %.0f%%", 100 * limit);
    } else {
        snprintf(result, sizeof result, "%.2fx", ms / floor_ms);
        if (g == AT_MOST_X) snprintf(goal, sizeof goal, "<= %.1fx", limit);
    }
    if (g != NO_GOAL && limit > 0) {
        bool ok = g == AT_MOST_X ? ms <= limit * floor_ms : floor_ms >= limit * ms;
        goals++, missed += !ok;
        snprintf(met, sizeof met, "%s", ok ? "yes" : "NO");
    }
    printf("| %s | %.3f ms | %.3f ms | %s | %s | %s | %s |\n", what, ms, floor_ms, floor_name, result, goal, met);
}

static void elementwise(void) {
    int64_t n = 4 << 20, sz[1] = {n};
    opgen_tensor a = tensor(1, sz, 1), b = tensor(1, sz, 2), o = tensor(1, sz, 3);
    opgen_scalar one = {OPGEN_DTYPE_Long, {.i = 1}};
    float *pa = a.data, *pb = b.data, *po = o.data;
    double k, f;
    TIME_SIDE_BY_SIDE(k, opgen_portable_add_out(&ctx, &a, &b, &one, &o), f,
                      for (int64_t i = 0; i < n; i++) po[i] = pa[i] + pb[i]);
    row("add.out f32 [4M] contiguous", k, f, "C loop o = a + b", AT_MOST_X, 1.3);
    TIME_SIDE_BY_SIDE(k, opgen_portable_mul_out(&ctx, &a, &b, &o), f,
                      for (int64_t i = 0; i < n; i++) po[i] = pa[i] * pb[i]);
    row("mul.out f32 [4M] contiguous", k, f, "C loop o = a * b", AT_MOST_X, 1.3);
    TIME_SIDE_BY_SIDE(k, opgen_portable_relu_out(&ctx, &a, &o), f,
                      for (int64_t i = 0; i < n; i++) po[i] = pa[i] < 0 ? 0 : pa[i]);
    row("relu.out f32 [4M] contiguous", k, f, "C loop o = max(a, 0)", AT_MOST_X, 1.3);
    /* a residual block's add and relu at ResNet-18's first stage: 800 KB, in L2 */
    int64_t r4[4] = {1, 64, 56, 56}, rn = 64 * 56 * 56;
    opgen_tensor ra = tensor(4, r4, 1), rb = tensor(4, r4, 2), ro = tensor(4, r4, 3);
    float *qa = ra.data, *qb = rb.data, *qo = ro.data;
    TIME_SIDE_BY_SIDE(k, opgen_portable_add_out(&ctx, &ra, &rb, &one, &ro), f,
                      for (int64_t i = 0; i < rn; i++) qo[i] = qa[i] + qb[i]);
    row("add.out f32 [1,64,56,56] (in L2)", k, f, "C loop o = a + b", AT_MOST_X, 1.3);
    TIME_SIDE_BY_SIDE(k, opgen_portable_relu_out(&ctx, &ra, &ro), f,
                      for (int64_t i = 0; i < rn; i++) qo[i] = qa[i] < 0 ? 0 : qa[i]);
    row("relu.out f32 [1,64,56,56] (in L2)", k, f, "C loop o = max(a, 0)", AT_MOST_X, 1.3);
    int64_t s2[2] = {4096, 1024}, s1[1] = {1024};
    opgen_tensor x = tensor(2, s2, 4), y = tensor(1, s1, 5), z = tensor(2, s2, 6);
    float *px = x.data, *py = y.data, *pz = z.data;
    TIME_SIDE_BY_SIDE(k, opgen_portable_add_out(&ctx, &x, &y, &one, &z), f,
                      for (int64_t r = 0; r < 4096; r++) for (int64_t c = 0; c < 1024; c++) pz[r * 1024 + c] =
                          px[r * 1024 + c] + py[c]);
    row("add.out f32 [4096,1024] + [1024] broadcast", k, f, "C loop o = a + b[c]", AT_MOST_X, 2.0);
}

static void reductions(void) {
    int64_t s2[2] = {4096, 1024}, so[1] = {4096};
    opgen_tensor x = tensor(2, s2, 7), s = tensor(1, so, 0), y = tensor(2, s2, 8);
    int64_t last = -1;
    opgen_int_list dims = {&last, 1};
    float *px = x.data, *ps = s.data, *py = y.data;
    double k, f;
    TIME_SIDE_BY_SIDE(
        k, opgen_portable_sum_IntList_out(&ctx, &x, &dims, false, NULL, &s), f, for (int64_t r = 0; r < 4096; r++) {
            float acc = 0;
            for (int64_t c = 0; c < 1024; c++) acc += px[r * 1024 + c];
            ps[r] = acc;
        });
    row("sum.dim_IntList f32 [4096,1024] over dim -1", k, f, "C loop acc += x", AT_MOST_X, 2.0);
    TIME_SIDE_BY_SIDE(
        k, opgen_portable__softmax_out(&ctx, &x, -1, false, &y), f, for (int64_t r = 0; r < 4096; r++) {
            const float *xr = px + r * 1024;
            float *yr = py + r * 1024, mx = -INFINITY, sum = 0;
            for (int64_t c = 0; c < 1024; c++) mx = xr[c] > mx ? xr[c] : mx;
            for (int64_t c = 0; c < 1024; c++) sum += yr[c] = expf(xr[c] - mx);
            for (int64_t c = 0; c < 1024; c++) yr[c] /= sum;
        });
    row("_softmax f32 [4096,1024] over dim -1", k, f, "C loop max, exp, /sum", AT_MOST_X, 2.0);
}

#ifdef HAVE_OPENBLAS
static double blas_mm(int64_t n, const float *a, const float *b, float *c) {
    double t;
    TIME(t, cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)n, (int)n, (int)n, 1, a, (int)n, b, (int)n, 0,
                        c, (int)n));
    return t;
}
#endif

static void matmul(void) {
    static const int64_t ns[] = {64, 256, 512};
    for (size_t ni = 0; ni < sizeof ns / sizeof *ns; ni++) {
        int64_t n = ns[ni];
        int64_t s2[2] = {n, n}, s3[3] = {4, n, n};
        opgen_tensor a = tensor(2, s2, 1), b = tensor(2, s2, 2), c = tensor(2, s2, 3), bias = tensor(1, s2, 4);
        opgen_tensor ba = tensor(3, s3, 1), bb = tensor(3, s3, 2), bc = tensor(3, s3, 3);
        opgen_scalar one = {OPGEN_DTYPE_Long, {.i = 1}};
        double k, kadd, kb, gf = 2.0 * (double)(n * n * n) / 1e6;
        TIME(k, opgen_portable_mm_out(&ctx, &a, &b, &c));
        TIME(kadd, opgen_portable_addmm_out(&ctx, &bias, &a, &b, &one, &one, &c));
        TIME(kb, opgen_portable_bmm_out(&ctx, &ba, &bb, &bc));
        char what[96];
#ifdef HAVE_OPENBLAS
        double o = blas_mm(n, a.data, b.data, c.data);
        snprintf(what, sizeof what, "mm f32 %lld^3 (%.1f GFLOP/s)", (long long)n, gf / k);
        char peer[64];
        snprintf(peer, sizeof peer, "OpenBLAS sgemm (%.1f GFLOP/s)", gf / o);
        row(what, k, o, peer, AT_LEAST_SHARE, n <= 64 ? 0.50 : 0.35);
        snprintf(what, sizeof what, "addmm f32 %lld^3 (%.1f GFLOP/s)", (long long)n, gf / kadd);
        row(what, kadd, o, "OpenBLAS sgemm", AT_LEAST_SHARE, 0);
        snprintf(what, sizeof what, "bmm f32 4 x %lld^3 (%.1f GFLOP/s)", (long long)n, 4 * gf / kb);
        row(what, kb, 4 * o, "4 x OpenBLAS sgemm", AT_LEAST_SHARE, 0.50);
#else
        snprintf(what, sizeof what, "mm f32 %lld^3 (%.1f GFLOP/s)", (long long)n, gf / k);
        printf("| %s | %.3f ms | | (no OpenBLAS in this build) | | | |\n", what, k);
        (void)kadd, (void)kb;
#endif
    }
}

/* nn.Linear on a few rows (a prefill's tokens, a batch): x [m, 512] @ W^T, the
 * weight W [2048, 512] read through its transposed view, never copied. */
static void linear(void) {
    static const int64_t ms[] = {16, 64};
    for (size_t mi = 0; mi < sizeof ms / sizeof *ms; mi++) {
        int64_t m = ms[mi], K = 512, N = 2048, sx[2] = {m, K}, sw[2] = {N, K}, so[2] = {m, N};
        opgen_tensor x = tensor(2, sx, 1), w = tensor(2, sw, 2), out = tensor(2, so, 3), wt = w;
        wt.sizes[0] = K, wt.sizes[1] = N, wt.strides[0] = 1, wt.strides[1] = K;
        double k, gf = 2.0 * (double)(m * N * K) / 1e6;
        TIME(k, opgen_portable_mm_out(&ctx, &x, &wt, &out));
        char what[96];
        snprintf(what, sizeof what, "mm f32 %lldx512 @ W^T, W 2048x512 (%.1f GFLOP/s)", (long long)m, gf / k);
#ifdef HAVE_OPENBLAS
        double o;
        TIME(o, cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)m, (int)N, (int)K, 1, x.data, (int)K, w.data,
                            (int)K, 0, out.data, (int)N));
        char peer[64];
        snprintf(peer, sizeof peer, "OpenBLAS sgemm, B transposed (%.1f GFLOP/s)", gf / o);
        row(what, k, o, peer, AT_LEAST_SHARE, 0.50);
#else
        printf("| %s | %.3f ms | | (no OpenBLAS in this build) | | | |\n", what, k);
#endif
    }
}

/* A decode step's logits product from memory: x [1, 288] @ W^T, W [32000, 288]
 * (stories15M's) in bf16 and in f32, each call on the next of copies spanning
 * 256 MB (so none is in cache), against one pass reading the same bytes. */
static double sum_bytes(const uint64_t *p, size_t n) {
    uint64_t s = 0;
    for (size_t i = 0; i < n; i++) s += p[i];
    return (double)s;
}
static void decode_products(void) {
    enum { K = 288, N = 32000 };
    double sink = 0;
    for (int bf = 1; bf >= 0; bf--) {
        size_t es = bf ? 2 : 4, bytes = (size_t)N * K * es;
        int copies = (int)((256u << 20) / bytes) + 1;
        char *mem = malloc(bytes * (size_t)copies);
        if (!mem) return;
        for (size_t i = 0; i < bytes * (size_t)copies / 2; i++) ((uint16_t *)mem)[i] = (uint16_t)(0x3f00 + i % 97);
        int64_t sx[2] = {1, K}, so[2] = {1, N};
        opgen_tensor x = tensor(2, sx, 1), out = tensor(2, so, 3), wt;
        opgen_dtype dt = bf ? OPGEN_DTYPE_BFloat16 : OPGEN_DTYPE_Float;
        if (bf) {
            opgen_tensor xb;
            opgen_tensor_alloc(&xb, dt, 2, sx, &arena, &err);
            for (int k = 0; k < K; k++) ((uint16_t *)xb.data)[k] = opgen_float_to_bf16(((float *)x.data)[k]);
            x = xb, out.dtype = dt;
        }
        int64_t sw[2] = {K, N};
        opgen_tensor_shape(&wt, dt, 2, sw, &err);
        wt.strides[0] = 1, wt.strides[1] = K, wt.capacity = bytes;
        double tk[64], tf[64];
        for (int r = 0; r < runs; r++) {
            wt.data = mem + bytes * (size_t)((2 * r) % copies);
            double t0 = now_ms();
            opgen_portable_mm_out(&ctx, &x, &wt, &out);
            tk[r] = now_ms() - t0;
            t0 = now_ms();
            sink += sum_bytes((const uint64_t *)(mem + bytes * (size_t)((2 * r + 1) % copies)), bytes / 8);
            tf[r] = now_ms() - t0;
        }
        char what[96];
        double k = median(tk), f = median(tf);
        snprintf(what, sizeof what, "mm %s 1x288 @ W^T, W 32000x288 from memory (%.1f GB/s)", bf ? "bf16" : "f32",
                 (double)bytes / k / 1e6);
        row(what, k, f, sink != 0 ? "one pass summing its bytes" : "one pass summing its bytes (0)", AT_MOST_X, 1.5);
        free(mem);
    }
}

/* out = W [O, C*9] @ im2col(x) [C*9, 56*56], as a BLAS-backed framework does. */
static void conv(void) {
    int64_t one_l[2] = {1, 1}, zero_l[2] = {0, 0};
    opgen_int_list s1 = {one_l, 2}, p1 = {one_l, 2}, p0 = {zero_l, 2}, d1 = {one_l, 2};
    struct {
        const char *what;
        int64_t C, H, O, k, groups;
    } cases[] = {{"convolution 3x3 [1,32,56,56] -> 32", 32, 56, 32, 3, 1},
                 {"convolution 3x3 [1,32,56,56] -> 64", 32, 56, 64, 3, 1},
                 {"convolution 3x3 depthwise [1,32,56,56]", 32, 56, 32, 3, 32},
                 {"convolution 1x1 [1,32,56,56] -> 64", 32, 56, 64, 1, 1},
                 /* the last stages' 7x7 outputs (49 columns: 48 and one) */
                 {"convolution 3x3 [1,512,7,7] -> 512 (ResNet-18)", 512, 7, 512, 3, 1},
                 {"convolution 1x1 [1,320,7,7] -> 1280 (MobileNetV2)", 320, 7, 1280, 1, 1}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        int64_t C = cases[i].C, H = cases[i].H, W = H, sx[4] = {1, C, H, W};
        opgen_tensor x = tensor(4, sx, 1);
        int64_t O = cases[i].O, K = cases[i].k, G = cases[i].groups, sw[4] = {O, C / G, K, K}, so[4] = {1, O, H, W};
        opgen_tensor w = tensor(4, sw, 2), out = tensor(4, so, 3);
        double k;
        TIME(k, opgen_portable_convolution_out(&ctx, &x, &w, NULL, s1, K == 3 ? p1 : p0, d1, false, p0, G, &out));
        double gf = 2.0 * (double)(O * (C / G) * K * K * H * W) / 1e6;
        char what[96];
        snprintf(what, sizeof what, "%s (%.1f GFLOP/s)", cases[i].what, gf / k);
#ifdef HAVE_OPENBLAS
        if (G == 1) {
            int64_t ck = C * K * K, hw = H * W;
            float *col = malloc(sizeof(float) * (size_t)(ck * hw));
            const float *px = x.data;
            double o;
            TIME(o, {
                for (int64_t c = 0; c < C; c++)
                    for (int64_t ky = 0; ky < K; ky++)
                        for (int64_t kx = 0; kx < K; kx++)
                            for (int64_t y = 0; y < H; y++)
                                for (int64_t xx = 0; xx < W; xx++) {
                                    int64_t iy = y - K / 2 + ky, ix = xx - K / 2 + kx;
                                    col[((c * K + ky) * K + kx) * hw + y * W + xx] =
                                        iy < 0 || iy >= H || ix < 0 || ix >= W ? 0 : px[(c * H + iy) * W + ix];
                                }
                cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)O, (int)hw, (int)ck, 1, w.data, (int)ck,
                            col, (int)hw, 0, out.data, (int)hw);
            });
            free(col);
            row(what, k, o, "im2col + OpenBLAS sgemm", AT_LEAST_SHARE, K == 3 ? 0.70 : 0);
            continue;
        }
#endif
        if (G == C) { /* depthwise: against a direct C loop over the same layout */
            const float *px = x.data, *pw = w.data;
            float *po = out.data;
            double f;
            TIME(
                f, for (int64_t c = 0; c < C; c++) for (int64_t y = 0; y < H; y++) for (int64_t xx = 0; xx < W; xx++) {
                    float acc = 0;
                    for (int64_t ky = 0; ky < K; ky++)
                        for (int64_t kx = 0; kx < K; kx++) {
                            int64_t iy = y - 1 + ky, ix = xx - 1 + kx;
                            if (iy >= 0 && iy < H && ix >= 0 && ix < W)
                                acc += px[(c * H + iy) * W + ix] * pw[(c * K + ky) * K + kx];
                        }
                    po[(c * H + y) * W + xx] = acc;
                });
            row(what, k, f, "C loop, direct", NO_GOAL, 0);
            continue;
        }
        printf("| %s | %.3f ms | | (no OpenBLAS in this build) | | | |\n", what, k);
    }
}

int main(int argc, char **argv) {
    if (argc > 1) runs = atoi(argv[1]) > 0 && atoi(argv[1]) < 64 ? atoi(argv[1]) : 11;
    bool check = !(argc > 2 && !strcmp(argv[2], "--no-check"));
    const char *core = bench_openblas_core(argv);
#ifdef HAVE_OPENBLAS
    openblas_set_num_threads(1);
#endif
    opgen_arena_init_growing(&arena);
    char model[256] = "?";
    FILE *ci = fopen("/proc/cpuinfo", "r");
    char line[512];
    while (ci && fgets(line, sizeof line, ci))
        if (!strncmp(line, "model name", 10)) {
            snprintf(model, sizeof model, "%s", strchr(line, ':') + 2);
            model[strcspn(model, "\n")] = 0;
            break;
        }
    if (ci) fclose(ci);
    printf("machine: %s; compiler %s; OpenBLAS core %s; single thread; medians of %d runs\n\n", model, __VERSION__,
           core, runs);
    printf("| kernel | opgen | floor | floor is | opgen against it | goal | met |\n|---|---|---|---|---|---|---|\n");
    elementwise();
    reductions();
    matmul();
    linear();
    decode_products();
    conv();
    opgen_arena_release(&arena);
    printf("\nbench_kernels: %d of %d goals met%s\n", goals - missed, goals, check ? "" : " (not checked: --no-check)");
    return check && missed ? 1 : 0;
}
