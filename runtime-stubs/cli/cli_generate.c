/* opgen-rt generate: greedy decoding with a language model exported by
 * ExecuTorch's llama example (inputs tokens i64[1, 1] and input_pos i64[1], the
 * KV cache in mutable buffers, output the logits): the prompt is fed one token
 * a call at positions 0, 1, ..., then the argmax of the last logits is fed back.
 * One loaded method; its KV cache persists between the calls. */
#include "cli.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const opgen_opt opts[] = {
    {NULL, NULL, "MODEL.pte", OPGEN_OPT_FILE, "pte", OPGEN_OPT_REQUIRED, "program",
     "the language model: ExecuTorch's llama export (tokens [1, 1] and input_pos [1], int64; logits out)"},
    {"--prompt", NULL, "T,T,...", OPGEN_OPT_TEXT, NULL, OPGEN_OPT_REQUIRED, NULL,
     "the prompt's token ids, comma-separated"},
    {"--steps", NULL, "N", OPGEN_OPT_NUMBER, NULL, OPGEN_OPT_REQUIRED, NULL,
     "how many tokens to generate (the first comes from the last prompt call)"},
    {"--method", NULL, "NAME", OPGEN_OPT_TEXT, NULL, 0, NULL, "the method to call (default: forward, or its only one)"},
    {"--timing", NULL, NULL, OPGEN_OPT_FLAG, NULL, 0, NULL,
     "print to stderr the median time of a decode step (a call past the prompt) and tokens per second"},
    {0},
};

enum { MAX_TOKENS = 4096 };

/* --prompt's ids into ids[], their count into *n; a usage error's status. */
static int parse_prompt(const opgen_cli *a, int64_t *ids, int *n) {
    const char *s = opgen_cli_get(a, "--prompt");
    *n = 0;
    while (*s) {
        char *end;
        errno = 0;
        long long v = strtoll(s, &end, 10);
        if (end == s || errno || v < 0 || (*end && *end != ',') || *n == MAX_TOKENS)
            return opgen_usage_error(
                a, "--prompt takes token ids (integers >= 0, at most %d) separated by commas, not '%s'", MAX_TOKENS,
                opgen_cli_get(a, "--prompt"));
        ids[(*n)++] = v;
        s = *end ? end + 1 : end;
    }
    return *n ? OPGEN_EXIT_OK : opgen_usage_error(a, "--prompt takes at least one token id");
}

/* The method takes tokens and a position, one int64 each, and returns logits. */
static int check_signature(const opgen_method *m, const char *path) {
    bool ok = opgen_method_ninputs(m) == 2 && opgen_method_noutputs(m) >= 1;
    for (int i = 0; ok && i < 2; i++) {
        const opgen_ivalue *in = opgen_method_input(m, i);
        ok = in->kind == OPGEN_GV_TENSOR && in->t.dtype == OPGEN_DTYPE_Long && opgen_numel(&in->t) == 1;
    }
    const opgen_ivalue *out = ok ? opgen_method_output(m, 0) : NULL;
    if (ok && out->kind == OPGEN_GV_TENSOR && opgen_is_float(out->t.dtype) && out->t.dim >= 1) return OPGEN_EXIT_OK;
    fprintf(
        stderr,
        "%s: error: generate takes a method with inputs tokens i64[1, 1] and input_pos i64[1] and logits as its first output (ExecuTorch's llama export)\n",
        path);
    return OPGEN_EXIT_BAD_INPUT;
}

/* The index of the largest logit of the last row (the first, on a tie: torch.argmax). */
static int64_t argmax_last(const opgen_tensor *logits) {
    int64_t vocab = logits->sizes[logits->dim - 1], base = opgen_numel(logits) - vocab, best = 0;
    double top = opgen_load_f64(logits, base);
    for (int64_t j = 1; j < vocab; j++) {
        double v = opgen_load_f64(logits, base + j);
        if (v > top) top = v, best = j;
    }
    return best;
}

static int decode(const opgen_cli *a, opgen_method *m, const char *path, const int64_t *prompt, int np, long steps,
                  opgen_arena *ar) {
    int64_t token = prompt[0], pos = 0;
    opgen_ivalue in[2] = {*opgen_method_input(m, 0), *opgen_method_input(m, 1)}, out[8];
    in[0].t.data = &token, in[1].t.data = &pos;
    size_t wb = opgen_method_work_bytes(m);
    void *block = opgen_arena_alloc(ar, wb + 16);
    double *ms = opgen_arena_alloc(ar, sizeof(double) * (size_t)steps);
    if (!block || !ms || opgen_method_noutputs(m) > 8)
        return fputs("opgen-rt: out of memory\n", stderr), OPGEN_EXIT_BAD_INPUT;
    opgen_arena work;
    opgen_arena_init(&work, block, wb + 16);
    long made = 0, timed = 0;
    for (pos = 0; made < steps; pos++) {
        opgen_error err = {0};
        double t0 = opgen_rt_now_ms();
        if (opgen_method_run(m, in, &work, out, &err))
            return fprintf(stderr, "position %lld: ", (long long)pos), opgen_rt_report(&err);
        if (pos >= np) ms[timed++] = opgen_rt_now_ms() - t0;
        if (pos + 1 < np) { /* still in the prompt */
            token = prompt[pos + 1];
            continue;
        }
        token = argmax_last(&out[0].t);
        printf("%s%lld", made++ ? " " : "", (long long)token);
    }
    printf("\n");
    if (opgen_cli_has(a, "--timing") && timed) {
        double med = opgen_rt_median(ms, timed);
        fprintf(stderr,
                "%s: %ld decode steps past the prompt: median %.3f ms a token (%.1f tokens/s), fastest %.3f ms\n", path,
                timed, med, 1e3 / med, ms[0]);
    }
    return OPGEN_EXIT_OK;
}

static int run_pte(const opgen_cli *a, void *vctx, const opgen_pte *p, opgen_arena *ar) {
    int64_t *prompt = opgen_arena_alloc(ar, sizeof(int64_t) * MAX_TOKENS);
    int np = 0;
    if (!prompt) return fputs("opgen-rt: out of memory\n", stderr), OPGEN_EXIT_BAD_INPUT;
    int rc = parse_prompt(a, prompt, &np);
    long steps = atol(opgen_cli_get(a, "--steps"));
    if (!rc && (steps < 1 || steps > 1000000))
        rc = opgen_usage_error(a, "--steps takes a count from 1 to 1000000, not '%s'", opgen_cli_get(a, "--steps"));
    if (rc) return rc;
    opgen_method *m;
    opgen_error err = {0};
    if (opgen_rt_load_method(p, opgen_rt_method_name(a, p), vctx, false, 0, NULL, ar, &m, &err))
        return opgen_rt_report(&err);
    rc = check_signature(m, p->file);
    return rc ? rc : decode(a, m, p->file, prompt, np, steps, ar);
}

static int run(const opgen_cli *a, void *ctx) {
    return opgen_rt_on_program(a, opgen_cli_get(a, "MODEL.pte"), false, NULL, run_pte, ctx);
}

const opgen_cmd opgen_rt_cmd_generate = {
    "generate",
    "decode greedily with a language model exported by ExecuTorch's llama example",
    "Feeds the prompt one token a call (positions 0, 1, ...) to one loaded method, then feeds back the argmax of the last logits, and "
    "prints the --steps generated token ids (the first from the last prompt call) on one line. The KV cache (the program's "
    "mutable buffers) persists between the calls.",
    opts,
    NULL,
    NULL,
    run};
