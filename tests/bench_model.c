/* Benchmark: parse + model native_functions.yaml beside a bare libyaml scan of
 * the same bytes; with EDGE, also a whole `opgen generate` (model, edge.yaml, the
 * three headers rendered in memory) beside a scan of both files. Prints medians,
 * peak memory (VmHWM of a fresh process doing one run) and the ratios; with OPGEN,
 * whole processes too: `opgen generate` writing its headers vs a process scanning.
 * usage: bench_model NATIVE_FUNCTIONS TAGS [RUNS [EDGE [OPGEN]]] */
#define _DEFAULT_SOURCE /* popen, wait4 */
#include "emit.h"
#include "inputs.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include <dirent.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
extern char **environ;
#include <yaml.h>

static char *slurp(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)len + 1);
    if (!b || fread(b, 1, (size_t)len, f) != (size_t)len) {
        fclose(f);
        free(b);
        return NULL;
    }
    b[len] = 0;
    fclose(f);
    *n = (size_t)len;
    return b;
}

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

#if defined(__GNUC__)
#define NOINLINE __attribute__((noinline))
#else
#define NOINLINE
#endif

/* What any libyaml consumer must do at least: pull every event. */
NOINLINE long bench_scan(const char *buf, size_t n);
NOINLINE long bench_scan(const char *buf, size_t n) {
    yaml_parser_t p;
    yaml_parser_initialize(&p);
    yaml_parser_set_input_string(&p, (const unsigned char *)buf, n);
    long events = 0;
    for (;;) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&p, &ev)) break;
        int done = ev.type == YAML_STREAM_END_EVENT;
        yaml_event_delete(&ev);
        events++;
        if (done) break;
    }
    yaml_parser_delete(&p);
    return events;
}

/* Bytes the session's arena holds: grown in blocks, or taken from its reservation. */
static size_t arena_bytes(const arena *a) { return a->grow ? a->grown : a->used + (a->capacity - a->size); }

NOINLINE size_t bench_model(const char *nf, size_t nn, const char *tags, size_t tn, unsigned *funcs);
NOINLINE size_t bench_model(const char *nf, size_t nn, const char *tags, size_t tn, unsigned *funcs) {
    og_session s;
    og_session_init(&s, stderr);
    ydoc td, nd;
    bool ok = og_yaml_load_buffer(&s.a, &s.d, "tags.yaml", tags, tn, &td) && og_model_load_tags(&s.m, &td) &&
              (og_model_begin_native(&s.m),
               og_yaml_stream_buffer(&s.a, &s.d, "native_functions.yaml", nf, nn, &nd, og_model_native_entry, &s.m)) &&
              og_model_finish_native(&s.m, &nd);
    if (!ok) {
        fputs("bench_model: the input does not model cleanly\n", stderr);
        exit(1);
    }
    *funcs = s.m.nfuncs;
    size_t bytes = arena_bytes(&s.a);
    og_session_free(&s);
    return bytes;
}

/* opgen generate, minus the disk: inputs from memory, outputs rendered, not written. */
NOINLINE size_t bench_generate(const char *nf, size_t nn, const char *tags, size_t tn, const char *edge, size_t en,
                               size_t *bytes);
NOINLINE size_t bench_generate(const char *nf, size_t nn, const char *tags, size_t tn, const char *edge, size_t en,
                               size_t *bytes) {
    og_session s;
    og_session_init(&s, stderr);
    ydoc td, nd;
    og_outputs outs;
    og_outputs_init(&outs);
    outs.dry = true; /* rendered, not written */
    bool ok = og_yaml_load_buffer(&s.a, &s.d, "tags.yaml", tags, tn, &td) && og_model_load_tags(&s.m, &td) &&
              (og_model_begin_native(&s.m),
               og_yaml_stream_buffer(&s.a, &s.d, "native_functions.yaml", nf, nn, &nd, og_model_native_entry, &s.m)) &&
              og_model_finish_native(&s.m, &nd) &&
              (og_edge_begin(&s.m, &s.edge),
               og_yaml_stream_buffer(&s.a, &s.d, "edge.yaml", edge, en, &s.edge_doc, og_edge_entry, &s.edge)) &&
              og_edge_finish(&s.edge, &s.edge_doc) &&
              og_emit_c_headers(&outs, "/nonexistent", NULL, &s.m, &s.edge, "bench", &s.d);
    if (!ok) {
        fputs("bench_model: generate failed\n", stderr);
        exit(1);
    }
    og_outputs_end(&outs);
    *bytes = 0;
    for (unsigned i = 0; i < outs.n; i++) *bytes += outs.files[i]->size;
    size_t arena_total = arena_bytes(&s.a);
    og_outputs_free(&outs);
    og_session_free(&s);
    return arena_total;
}

NOINLINE long bench_scan_both(const char *nf, size_t nn, const char *edge, size_t en);
NOINLINE long bench_scan_both(const char *nf, size_t nn, const char *edge, size_t en) {
    return bench_scan(nf, nn) + bench_scan(edge, en);
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Peak RSS (VmHWM, KiB) of this process so far: per address space, so a fresh
 * exec measures only its own work (ru_maxrss would carry the parent's over). */
static long vm_hwm(void) {
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kb = -1;
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "VmHWM:", 6)) kb = atol(line + 6);
    if (f) fclose(f);
    return kb;
}

/* Peak RSS (KiB) of a fresh process (this program re-executed) that runs `mode` once. */
static long child_rss(const char *self, const char *mode, const char *nf, const char *tags, const char *edge) {
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "'%s' --once %s '%s' '%s' '%s'", self, mode, nf, tags, edge ? edge : "");
    FILE *p = popen(cmd, "r");
    long kb = -1;
    if (p && fscanf(p, "%ld", &kb) != 1) kb = -1;
    if (p) pclose(p);
    return kb;
}

/* Runs argv as a child (stdout to /dev/null when quiet): 0, or -1 when it could
 * not run or failed. */
static long run_process(char *const *argv, bool quiet) {
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    if (quiet) posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    pid_t pid;
    int rc = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) return -1;
    int status;
    struct rusage ru;
    if (wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) return -1;
    return 0;
}

/* Peak RSS (KiB) of argv run once, as GNU time reports it (its own count: a child
 * spawned from here would count the pages it shared with this process until its
 * exec); -1 without /usr/bin/time. */
static long process_rss(char *const *argv) {
    if (access("/usr/bin/time", X_OK) != 0) return -1;
    char tmp[] = "/tmp/opgen-bench-rss.XXXXXX";
    int fd = mkstemp(tmp);
    if (fd < 0) return -1;
    close(fd);
    char *cmd[24] = {"/usr/bin/time", "-f", "%M", "-o", tmp};
    int n = 5;
    for (int i = 0; argv[i] && n < 23; i++) cmd[n++] = argv[i];
    cmd[n] = NULL;
    long kb = -1;
    FILE *f = run_process(cmd, true) == 0 ? fopen(tmp, "r") : NULL;
    if (f && fscanf(f, "%ld", &kb) != 1) kb = -1;
    if (f) fclose(f);
    unlink(tmp);
    return kb;
}

/* Empties the output folder (its files: opgen writes no subfolders). */
static int remove_outputs(const char *dir) {
    DIR *d = opendir(dir);
    if (!d) return 0;
    struct dirent *e;
    char path[4096];
    while ((e = readdir(d)))
        if (e->d_name[0] != '.') snprintf(path, sizeof path, "%s/%s", dir, e->d_name), unlink(path);
    closedir(d);
    return 0;
}

int main(int argc, char **argv) {
    if (argc >= 5 && !strcmp(argv[1], "--once")) { /* child of child_rss() */
        size_t nn, tn, en = 0, bytes;
        char *nf = slurp(argv[3], &nn), *tags = slurp(argv[4], &tn), *edge = argc > 5 ? slurp(argv[5], &en) : NULL;
        unsigned f;
        if (!nf || !tags) return 1;
        if (!strcmp(argv[2], "scan")) bench_scan(nf, nn);
        if (!strcmp(argv[2], "model")) bench_model(nf, nn, tags, tn, &f);
        if (!strcmp(argv[2], "scan2") && edge) bench_scan_both(nf, nn, edge, en);
        if (!strcmp(argv[2], "generate") && edge) bench_generate(nf, nn, tags, tn, edge, en, &bytes);
        free(edge);
        printf("%ld\n", vm_hwm());
        free(nf);
        free(tags);
        return 0;
    }
    if (argc < 3) {
        fputs("usage: bench_model NATIVE_FUNCTIONS TAGS [RUNS]\n", stderr);
        return 2;
    }
    int runs = argc > 3 ? atoi(argv[3]) : 21;
    if (runs < 1) runs = 1;
    size_t nn, tn;
    char *nf = slurp(argv[1], &nn), *tags = slurp(argv[2], &tn);
    if (!nf || !tags) {
        fprintf(stderr, "bench_model: cannot read %s\n", !nf ? argv[1] : argv[2]);
        return 77;
    }
    double *ts = malloc(sizeof(double) * (size_t)runs), *tm = malloc(sizeof(double) * (size_t)runs);
    long events = 0;
    unsigned funcs = 0;
    size_t arena_bytes = 0;
    /* alternate the two so that machine noise hits both alike */
    for (int i = 0; i < runs; i++) {
        double t0 = now_ms();
        events = bench_scan(nf, nn);
        double t1 = now_ms();
        arena_bytes = bench_model(nf, nn, tags, tn, &funcs);
        double t2 = now_ms();
        ts[i] = t1 - t0;
        tm[i] = t2 - t1;
    }
    qsort(ts, (size_t)runs, sizeof *ts, cmp_double);
    qsort(tm, (size_t)runs, sizeof *tm, cmp_double);
    double ms = ts[runs / 2], mm = tm[runs / 2];
    long rs = child_rss(argv[0], "scan", argv[1], argv[2], NULL),
         rm = child_rss(argv[0], "model", argv[1], argv[2], NULL),
         r0 = child_rss(argv[0], "none", argv[1], argv[2], NULL);
    printf("bench_model: %s, %zu bytes, %d runs each\n", argv[1], nn, runs);
    printf("  libyaml scan   median %7.2f ms   peak RSS %6.1f MiB   (%ld events)\n", ms, rs / 1024.0, events);
    printf("  opgen model    median %7.2f ms   peak RSS %6.1f MiB   (%u functions, arena %.1f MiB)\n", mm, rm / 1024.0,
           funcs, arena_bytes / 1048576.0);
    printf("  process baseline (file read only)  peak RSS %6.1f MiB\n", r0 / 1024.0);
    printf("  ratio model/scan: %.2f (target <= 2.00)\n", mm / ms);
    if (argc > 4) { /* the whole generate beside a scan of both inputs */
        size_t en, bytes = 0;
        char *edge = slurp(argv[4], &en);
        if (!edge) return 77;
        for (int i = 0; i < runs; i++) {
            double t0 = now_ms();
            bench_scan_both(nf, nn, edge, en);
            double t1 = now_ms();
            arena_bytes = bench_generate(nf, nn, tags, tn, edge, en, &bytes);
            double t2 = now_ms();
            ts[i] = t1 - t0;
            tm[i] = t2 - t1;
        }
        qsort(ts, (size_t)runs, sizeof *ts, cmp_double);
        qsort(tm, (size_t)runs, sizeof *tm, cmp_double);
        long r2 = child_rss(argv[0], "scan2", argv[1], argv[2], argv[4]),
             rg = child_rss(argv[0], "generate", argv[1], argv[2], argv[4]);
        printf("bench_generate: + %s, %zu bytes\n", argv[4], en);
        printf("  libyaml scan of both   median %7.2f ms   peak RSS %6.1f MiB\n", ts[runs / 2], r2 / 1024.0);
        printf("  opgen generate         median %7.2f ms   peak RSS %6.1f MiB   (%zu header bytes, arena %.1f MiB)\n",
               tm[runs / 2], rg / 1024.0, bytes, arena_bytes / 1048576.0);
        printf("  ratio generate/scan: %.2f\n", tm[runs / 2] / ts[runs / 2]);
        free(edge);
    }
    if (argc > 5) { /* whole processes: `opgen generate` writing its headers vs a process scanning both files */
        char dir[] = "/tmp/opgen-bench.XXXXXX";
        if (!mkdtemp(dir)) return 1;
        char out[sizeof dir + 8];
        snprintf(out, sizeof out, "%s/out", dir);
        char *scan[] = {argv[0], "--once", "scan2", argv[1], argv[2], argv[4], NULL};
        char *gen[] = {argv[5], "generate", "--native-functions", argv[1], "--tags", argv[2], "--edge", argv[4], "-o",
                       out,     NULL};
        remove_outputs(out);
        long rss_scan = process_rss(scan), rss_gen = process_rss(gen);
        for (int i = 0; i < runs; i++) {
            if (remove_outputs(out) != 0) return 1; /* every run writes all headers afresh */
            double t0 = now_ms();
            long r1 = run_process(scan, true);
            double t1 = now_ms();
            long r2 = run_process(gen, false);
            double t2 = now_ms();
            if (r1 < 0 || r2 < 0) {
                fputs("bench_model: a process failed\n", stderr);
                return 1;
            }
            ts[i] = t1 - t0;
            tm[i] = t2 - t1;
        }
        remove_outputs(out);
        rmdir(out);
        rmdir(dir);
        qsort(ts, (size_t)runs, sizeof *ts, cmp_double);
        qsort(tm, (size_t)runs, sizeof *tm, cmp_double);
        printf("processes (spawned directly, alternating, %d runs each; p25 / median / p75):\n", runs);
        printf("  scanning both files    %7.2f %7.2f %7.2f ms", ts[runs / 4], ts[runs / 2], ts[3 * runs / 4]);
        if (rss_scan > 0) printf("   peak RSS %6.1f MiB", rss_scan / 1024.0);
        printf("\n  opgen generate -o DIR  %7.2f %7.2f %7.2f ms", tm[runs / 4], tm[runs / 2], tm[3 * runs / 4]);
        if (rss_gen > 0) printf("   peak RSS %6.1f MiB (target <= 12.0)", rss_gen / 1024.0);
        printf("%s\n", rss_gen > 0 ? "" : "   (peak RSS needs /usr/bin/time)");
        printf("  ratio generate/scan: %.2f (target <= 2.00)\n", tm[runs / 2] / ts[runs / 2]);
    }
    free(ts);
    free(tm);
    free(nf);
    free(tags);
    return 0;
}
