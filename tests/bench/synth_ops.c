/* Writes a synthetic op set of N functional ops, each with an out= variant and a
 * kernel, for the registry benchmark: native_functions.yaml, tags.yaml and
 * kernels.yaml in DIR. Names are made of torch-like words (deterministic), so the
 * name lookup hashes realistic strings, not "op0".."opN". Every op has the
 * signature (Tensor self) -> Tensor, so one C kernel serves them all.
 * usage: synth_ops N DIR */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const words[] = {
    "add",      "conv",     "batch",  "norm",    "quantized", "linear",  "relu",   "max",     "pool",   "upsample",
    "nearest",  "bilinear", "grid",   "sampler", "cumsum",    "index",   "select", "scatter", "gather", "masked",
    "fill",     "softmax",  "log",    "sigmoid", "embedding", "bag",     "lstm",   "cell",    "fused",  "moving",
    "avg",      "obs",      "fake",   "quant",   "per",       "channel", "tensor", "affine",  "group",  "layer",
    "instance", "dense",    "native", "mkldnn",  "cudnn",     "miopen",  "sparse", "coo",     "csr"};
/* First, the ops of opgen's example programs (with a synthetic unary schema), so
 * that the benchmark resolves the same names in both op sets. Kept in step with
 * program_ops in bench_registry.c. */
static const char *const program_ops[][2] = {
    {"addmm", ""},       {"permute_copy", ""}, {"relu", ""},
    {"_softmax", ""},    {"convolution", ""},  {"_native_batch_norm_legit_no_training", ""},
    {"hardtanh", ""},    {"add", "Tensor"},    {"mean", "dim"},
    {"bmm", ""},         {"mul", "Scalar"},    {"view_copy", ""},
    {"expand_copy", ""}, {"clone", ""},        {"mm", ""},
    {"sigmoid", ""}};
static const char *const overloads[] = {"",     "Tensor", "Scalar", "dim",   "int",
                                        "self", "other",  "vec",    "names", "dimname"};

static unsigned long long state = 0x2545F4914F6CDD1DULL;
static unsigned next(unsigned n) { /* xorshift: the same names on every machine */
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return (unsigned)(state % n);
}

static FILE *open_in(const char *dir, const char *name) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f) perror(path);
    return f;
}

int main(int argc, char **argv) {
    if (argc != 3) return fputs("usage: synth_ops N DIR\n", stderr), 2;
    long n = strtol(argv[1], NULL, 10);
    if (n < 1 || n > 1000000) return fputs("synth_ops: N must be 1..1000000\n", stderr), 2;
    FILE *nf = open_in(argv[2], "native_functions.yaml"), *tags = open_in(argv[2], "tags.yaml"),
         *k = open_in(argv[2], "kernels.yaml");
    if (!nf || !tags || !k) return 1;
    fputs("- tag: core\n  desc: in the core set\n", tags);
    fprintf(nf, "# %ld synthetic ops (tests/bench/synth_ops.c)\n", n);
    long nprog = (long)(sizeof program_ops / sizeof *program_ops);
    for (long i = 0; i < nprog && i < n; i++) {
        const char *base = program_ops[i][0], *ov = program_ops[i][1];
        fprintf(nf, "- func: %s%s%s(Tensor self) -> Tensor\n  tags: core\n", base, *ov ? "." : "", ov);
        fprintf(nf, "- func: %s.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)\n", base);
        fprintf(k, "- op: %s.out\n  kernels:\n    - arg_meta: null\n      kernel_name: bench::unary_out\n", base);
    }
    for (long i = nprog; i < n; i++) {
        char base[128];
        int len = 0, nw = 1 + (int)next(3);
        for (int w = 0; w < nw; w++)
            len += snprintf(base + len, sizeof base - (size_t)len, "%s%s", w ? "_" : "",
                            words[next(sizeof words / sizeof *words)]);
        snprintf(base + len, sizeof base - (size_t)len, "_%ld", i); /* unique */
        const char *ov = overloads[next(sizeof overloads / sizeof *overloads)];
        fprintf(nf, "- func: %s%s%s(Tensor self) -> Tensor\n%s", base, *ov ? "." : "", ov,
                i % 3 ? "" : "  tags: core\n");
        fprintf(nf, "- func: %s.%s%sout(Tensor self, *, Tensor(a!) out) -> Tensor(a!)\n", base, ov, *ov ? "_" : "");
        fprintf(k, "- op: %s.%s%sout\n  kernels:\n    - arg_meta: null\n      kernel_name: bench::unary_out\n", base,
                ov, *ov ? "_" : "");
    }
    int bad = ferror(nf) | ferror(tags) | ferror(k);
    bad |= fclose(nf) | fclose(tags) | fclose(k);
    return bad ? 1 : 0;
}
