/* Malformed input from real yaml: every input file opgen reads (its own embedded
 * yaml, and the upstream corpus when present) is damaged in deterministic ways --
 * truncated, bytes flipped, lines deleted or duplicated, indentation broken -- and
 * run through the whole generate pipeline in memory (load, model, edge, kernels,
 * backend ops, every emitter). Each run must either succeed without a word or fail
 * with errors that all name file:line:col inside an input (line at most one past
 * its end); never crash (ASan/UBSan in CI), leak, or hang (an alarm per run).
 * usage: test_malformed SRCDIR [CORPUS] */
#include "emit.h"
#include "inputs.h"
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { K_NATIVE, K_TAGS, K_EDGE, K_KERNELS, K_BACKEND };
typedef struct input_set { /* one pipeline's files; one of them is damaged */
    const char *nf, *tags, *edge, *kernels[2], *backend;
    unsigned nkernels;
} input_set;

static char running[512]; /* what the alarm reports */
static void on_alarm(int sig) {
    (void)sig;
    static const char msg[] = "FAIL: hung (60 s) on ";
    if (write(2, msg, sizeof msg - 1) < 0 || write(2, running, strlen(running)) < 0 || write(2, "\n", 1) < 0) _exit(1);
    _exit(1);
}

static char *slurp(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 1 << 16, len = 0, r;
    char *p = malloc(cap);
    while (p && (r = fread(p + len, 1, cap - len, f)) > 0)
        if ((len += r) == cap) p = realloc(p, cap *= 2);
    fclose(f);
    if (p) *n = len;
    return p;
}

static unsigned count_lines(const char *p, size_t n) {
    unsigned l = 1;
    for (size_t i = 0; i < n; i++) l += p[i] == '\n';
    return l;
}

static unsigned long long rng_state;
static unsigned rnd(unsigned n) { /* xorshift64*: the same damage on every machine */
    rng_state ^= rng_state >> 12, rng_state ^= rng_state << 25, rng_state ^= rng_state >> 27;
    return n ? (unsigned)((rng_state * 2685821657736338717ull) >> 33) % n : 0;
}

/* line starts, for line-wise damage */
static size_t line_start(const char *p, size_t n, unsigned line) {
    size_t i = 0;
    for (unsigned l = 0; l < line && i < n; i++)
        if (p[i] == '\n') l++;
    return i;
}
static size_t line_end(const char *p, size_t n, size_t from) {
    while (from < n && p[from] != '\n') from++;
    return from < n ? from + 1 : n;
}

/* Writes mutation `k` (of 5 kinds) number `i` of src into out; describes it in what. */
static size_t mutate(const char *src, size_t n, int k, unsigned i, char *out, char *what, size_t wn) {
    unsigned lines = count_lines(src, n);
    switch (k) {
    case 0: { /* truncation: evenly spread cuts, half of them at a line's end */
        size_t cut = n * (i + 1) / 14;
        if (i % 2) cut = line_end(src, n, cut);
        memcpy(out, src, cut);
        snprintf(what, wn, "truncated at byte %zu", cut);
        return cut;
    }
    case 1: { /* a byte flipped, or set to a character YAML cares about */
        static const char special[] = ":-\"'\t{}[]#&*!|>%@`,?\n";
        size_t at = rnd((unsigned)n);
        memcpy(out, src, n);
        out[at] = i % 2 ? (char)(src[at] ^ (1 + rnd(255))) : special[rnd(sizeof special - 1)];
        snprintf(what, wn, "byte %zu changed from 0x%02x to 0x%02x", at, (unsigned char)src[at],
                 (unsigned char)out[at]);
        return n;
    }
    case 2:
    case 3: { /* a line deleted, or duplicated */
        unsigned l = rnd(lines);
        size_t s = line_start(src, n, l), e = line_end(src, n, s), m = 0;
        memcpy(out, src, e);
        m = k == 2 ? s : e;
        if (k == 3) memcpy(out + m, src + s, e - s), m += e - s;
        memcpy(out + m, src + e, n - e);
        snprintf(what, wn, "line %u %s", l + 1, k == 2 ? "deleted" : "duplicated");
        return m + n - e;
    }
    default: { /* indentation: one more space, two fewer, or a tab */
        unsigned l = rnd(lines);
        size_t s = line_start(src, n, l), m = s;
        memcpy(out, src, s);
        size_t sp = s;
        while (sp < n && src[sp] == ' ') sp++;
        const char *how;
        if (i % 3 == 0)
            out[m++] = ' ', how = "one more space";
        else if (i % 3 == 1)
            s = sp - s >= 2 ? s + 2 : sp, how = "two spaces fewer";
        else
            out[m++] = '\t', s = sp, how = "a tab for its indentation";
        memcpy(out + m, src + s, n - s);
        snprintf(what, wn, "line %u: %s", l + 1, how);
        return m + n - s;
    }
    }
}

typedef struct known {
    const char *path;
    unsigned lines;
} known;

/* Each line of the diagnostics names a known file and a line inside it. */
static bool located(const char *errs, const known *files, unsigned nfiles, char *why, size_t wn) {
    for (const char *p = errs; *p;) {
        const char *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        bool good = false;
        if (!strncmp(p, "opgen: ", 7) && strstr(p, " errors in all; only the first ") &&
            strstr(p, " errors in all; only the first ") < p + len)
            good = true;
        for (unsigned f = 0; f < nfiles && !good; f++) {
            size_t fl = strlen(files[f].path);
            unsigned line, col;
            char kind[16];
            if (len > fl && !strncmp(p, files[f].path, fl) && p[fl] == ':' &&
                sscanf(p + fl, ":%u:%u: %15[a-z]:", &line, &col, kind) == 3)
                good = line >= 1 && line <= files[f].lines + 1 && col >= 1 &&
                       (!strcmp(kind, "error") || !strcmp(kind, "note") || !strcmp(kind, "warning"));
        }
        if (!good) {
            snprintf(why, wn, "%.*s", (int)(len > 300 ? 300 : len), p);
            return false;
        }
        p += len + (e != NULL);
    }
    return true;
}

static unsigned runs, failures, accepted;

static const char **slot(input_set *s, int which) { /* the file of a kind in a set */
    switch (which) {
    case K_NATIVE: return &s->nf;
    case K_TAGS: return &s->tags;
    case K_EDGE: return &s->edge;
    case K_KERNELS: return &s->kernels[s->nkernels - 1];
    default: return &s->backend;
    }
}

/* One pipeline: load everything, emit every header into memory (never written). */
static bool pipeline(const input_set *s, const char *tdir, FILE *errs) {
    og_inputs in = {0};
    in.native_functions = s->nf;
    in.tags = s->tags;
    in.edge = s->edge;
    in.want_edge = true;
    in.kernels = s->kernels;
    in.nkernels = s->nkernels;
    in.backend_ops = &s->backend;
    in.nbackend_ops = s->backend ? 1 : 0;
    og_session ss;
    og_session_init(&ss, errs);
    og_outputs outs;
    og_outputs_init(&outs);
    bool ok = og_session_load(&ss, &in);
    if (ok) ok = og_emit_c_headers(&outs, "out", tdir, &ss.m, ss.has_edge ? &ss.edge : NULL, "malformed", &ss.d);
    if (ok && ss.nkernel_docs)
        ok = og_emit_registry(&outs, "out", tdir, &ss.m, &ss.kernels, &ss.backend, NULL, "malformed", &ss.d);
    if (ok && ss.nkernel_docs && ss.nbackend_docs)
        ok = og_emit_backend(&outs, "out", tdir, &ss.m, &ss.kernels, &ss.backend, "malformed", &ss.d);
    diag_finish(&ss.d);
    og_outputs_free(&outs);
    og_session_free(&ss);
    return ok;
}

/* Damages file `which` of set `base` in every way; returns false if the undamaged set fails. */
static bool torture(const input_set *base, int which, const char *tdir, const char *tmpdir, unsigned per_kind) {
    const char *orig = *slot((input_set *)base, which);
    size_t n;
    char *src = slurp(orig, &n);
    if (!src) {
        printf("FAIL: cannot read %s\n", orig);
        failures++;
        return false;
    }
    /* the undamaged set must generate */
    FILE *errs = tmpfile();
    if (!errs || !pipeline(base, tdir, errs)) {
        printf("FAIL: %s does not generate undamaged\n", orig);
        failures++;
        if (errs) fclose(errs);
        free(src);
        return false;
    }
    fclose(errs);
    const char *bn = strrchr(orig, '/') ? strrchr(orig, '/') + 1 : orig;
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", tmpdir, bn);
    char *buf = malloc(2 * n + 16);
    rng_state = 0x9e3779b97f4a7c15ull ^ n;
    unsigned before = failures, nacc = 0;
    for (int k = 0; k < 5; k++)
        for (unsigned i = 0; i < per_kind; i++) {
            char what[200];
            size_t m = mutate(src, n, k, i, buf, what, sizeof what);
            FILE *f = fopen(path, "wb");
            if (!f || fwrite(buf, 1, m, f) != m || fclose(f) != 0) {
                printf("FAIL: cannot write %s\n", path);
                failures++;
                continue;
            }
            input_set s = *base;
            *slot(&s, which) = path;
            snprintf(running, sizeof running, "%s: %s", orig, what);
            errs = tmpfile();
            alarm(60);
            bool ok = pipeline(&s, tdir, errs);
            alarm(0);
            runs++;
            long len = ftell(errs);
            char *text = malloc((size_t)len + 1);
            rewind(errs);
            size_t got = fread(text, 1, (size_t)len, errs);
            text[got] = 0;
            fclose(errs);
            known files[6] = {{path, count_lines(buf, m)}};
            unsigned nf = 1;
            const char *others[] = {s.nf,     s.tags, s.edge, s.kernels[0], s.nkernels > 1 ? s.kernels[1] : NULL,
                                    s.backend};
            for (unsigned o = 0; o < 6; o++)
                if (others[o] && strcmp(others[o], path)) {
                    size_t on;
                    char *t = slurp(others[o], &on);
                    files[nf++] = (known){others[o], t ? count_lines(t, on) : 0};
                    free(t);
                }
            char why[400];
            if (ok && got) {
                printf("FAIL: %s: succeeded but said: %.200s\n", running, text);
                failures++;
            } else if (!ok && !got) {
                printf("FAIL: %s: failed without a word\n", running);
                failures++;
            } else if (!ok && !located(text, files, nf, why, sizeof why)) {
                printf("FAIL: %s: an error that names no place in an input:\n  %s\n", running, why);
                failures++;
            }
            if (getenv("MALFORMED_VERBOSE")) printf("%s: %s%s", running, ok ? "accepted\n" : "", text);
            nacc += ok;
            free(text);
        }
    accepted += nacc;
    printf("%-60s %u damaged copies: %u accepted, %u refused with located errors%s\n", orig, 5 * per_kind, nacc,
           5 * per_kind - nacc, failures > before ? " (see FAIL above)" : "");
    unlink(path);
    free(buf);
    free(src);
    return true;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: test_malformed SRCDIR [CORPUS]\n");
        return 2;
    }
    signal(SIGALRM, on_alarm);
    char tmpdir[] = "/tmp/opgen-malformed.XXXXXX";
    if (!mkdtemp(tmpdir)) return 2;
    const char *src = argv[1];
    char p[8][1024], tdir[1024];
    const char *names[] = {"native_functions.yaml", "tags.yaml",       "edge.yaml",
                           "kernels.yaml",          "custom_ops.yaml", "backend_ops.yaml"};
    for (int i = 0; i < 6; i++) snprintf(p[i], sizeof p[i], "%s/yaml/%s", src, names[i]);
    snprintf(tdir, sizeof tdir, "%s/templates", src);
    /* opgen's own yaml: the op set, tags, constraints, kernels, custom ops, backend ops */
    input_set own = {p[0], p[1], p[2], {p[3], p[4]}, p[5], 2};
    for (int w = K_NATIVE; w <= K_BACKEND; w++) torture(&own, w, tdir, tmpdir, 12);
    input_set own_custom = {p[0], p[1], p[2], {p[4], p[3]}, p[5], 2}; /* custom_ops.yaml damaged */
    torture(&own_custom, K_KERNELS, tdir, tmpdir, 12);
    /* upstream: PyTorch 2.14's native_functions and tags, ExecuTorch's edge.yaml and kernel yaml */
    if (argc > 2) {
        char c[5][1024];
        snprintf(c[0], sizeof c[0], "%s/pytorch-2.14/native_functions.yaml", argv[2]);
        snprintf(c[1], sizeof c[1], "%s/pytorch-2.14/tags.yaml", argv[2]);
        snprintf(c[2], sizeof c[2], "%s/executorch/edge.yaml", argv[2]);
        snprintf(c[3], sizeof c[3], "%s/executorch/functions.yaml", argv[2]);
        snprintf(c[4], sizeof c[4], "%s/executorch/quantized.yaml", argv[2]);
        if (access(c[0], R_OK) || access(c[1], R_OK) || access(c[2], R_OK) || access(c[3], R_OK) ||
            access(c[4], R_OK)) {
            printf("SKIP the upstream files: no corpus at %s\n", argv[2]);
        } else {
            input_set up = {c[0], c[1], c[2], {c[4], c[3]}, NULL, 2};
            for (int w = K_NATIVE; w <= K_KERNELS; w++) torture(&up, w, tdir, tmpdir, 8);
            input_set upq = {c[0], c[1], c[2], {c[3], c[4]}, NULL, 2};
            torture(&upq, K_KERNELS, tdir, tmpdir, 8);
        }
    }
    rmdir(tmpdir);
    printf("malformed: %u runs, %u accepted, %u refused, %u failures\n", runs, accepted, runs - accepted, failures);
    return failures ? 1 : 0;
}
