/* opgen-rt: the runtime's command line, as a library function so a backend's own
 * runner (opgen skeleton writes one) is opgen-rt with its kernels first. */
#include "opgen/cli.h"
#include "opgen/exec.h"
#include "opgen/lower.h"
#include "opgen/graph.h"
#include "opgen/npy.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { EXIT_OK = 0, EXIT_BAD_INPUT = 1, EXIT_USAGE = 2 };

static const char usage[] =
    "usage: opgen-rt COMMAND [OPTIONS]\n"
    "\n"
    "commands:\n"
    "  run PROGRAM.graph --input NAME=FILE.npy|NUMBER ... -o DIR\n"
    "                                 run a program; returned values go to DIR/0.npy, 1.npy, ...\n"
    "  print FILE.graph [--pattern]   parse a program and print it in canonical form\n"
    "  lower IN.graph -o OUT.graph [--backend NAME]\n"
    "                                 fuse backend-op patterns into backend-op calls\n"
    "  decompose IN.graph -o OUT.graph\n"
    "                                 inline every backend op's pattern (the inverse)\n"
    "  verify IN.graph --dialect aten|edge|backend\n"
    "                                 check a program against a dialect\n"
    "\n"
    "Exit status: 0 ok, 1 bad input, 2 bad usage.\n";

static char *slurp(const char *path, size_t *n, opgen_error *err) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        opgen_fail_at(err, OPGEN_E_IO, path, 0, 0, "cannot open: %s", strerror(errno));
        return NULL;
    }
    size_t cap = 4096, len = 0, r;
    char *b = malloc(cap);
    while (b && (r = fread(b + len, 1, cap - len, f)) > 0) {
        len += r;
        if (len == cap) {
            char *nb = realloc(b, cap *= 2);
            if (!nb) free(b);
            b = nb;
        }
    }
    fclose(f);
    if (!b) opgen_fail_at(err, OPGEN_E_NO_MEMORY, path, 0, 0, "out of memory");
    *n = len;
    return b;
}

static int report(const opgen_error *err) {
    char msg[1024];
    opgen_error_format(err, msg, sizeof msg);
    fprintf(stderr, "%s\n", msg);
    return EXIT_BAD_INPUT;
}

static int cmd_print(int argc, char **argv) {
    const char *path = NULL;
    bool pattern = false;
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) return fputs("usage: opgen-rt print FILE.graph [--pattern]\n\nParses a program (or, with --pattern, a backend-op pattern body) and prints it in\ncanonical form; errors read FILE:LINE:COL: error: MESSAGE.\n", stdout), EXIT_OK;
        if (!strcmp(argv[i], "--pattern"))
            pattern = true;
        else if (argv[i][0] == '-')
            return fprintf(stderr, "opgen-rt print: unknown option '%s'\n", argv[i]), EXIT_USAGE;
        else if (path)
            return fprintf(stderr, "opgen-rt print: one file at a time\n"), EXIT_USAGE;
        else
            path = argv[i];
    }
    if (!path) return fprintf(stderr, "opgen-rt print: missing FILE.graph\n"), EXIT_USAGE;
    opgen_error err = {0};
    size_t n;
    char *text = slurp(path, &n, &err);
    if (!text) return report(&err);
    opgen_arena a;
    opgen_arena_init_growing(&a);
    opgen_graph g;
    int rc = EXIT_OK;
    if (opgen_graph_parse(path, text, n, pattern, &a, &g, &err)) {
        rc = report(&err);
    } else {
        size_t len = opgen_graph_print(&g, NULL, 0);
        char *out = malloc(len + 1);
        if (out) {
            opgen_graph_print(&g, out, len + 1);
            fwrite(out, 1, len, stdout);
            free(out);
        }
    }
    opgen_arena_release(&a);
    free(text);
    return rc;
}

static const char usage_run[] =
    "usage: opgen-rt run PROGRAM.graph --input NAME=FILE.npy ... [--input NAME=NUMBER ...] [--fallbacks] [--trace] -o DIR\n"
    "\n"
    "Loads the program (every node bound to its operator's schema, dtypes and shapes\n"
    "inferred, a kernel found for every (op, dtype)), runs it on the inputs, and writes\n"
    "each returned value to DIR/0.npy, DIR/1.npy, ... (a scalar as a 0-d array).\n"
    "A tensor input is a NumPy .npy file (little-endian, C order); a scalar input\n"
    "(declared int, float or bool) is a number, True or False. --fallbacks runs backend\n"
    "ops through their fallbacks (their patterns on the core kernels) even where a\n"
    "native kernel serves them. --trace prints, per node, the kernel that runs it and\n"
    "where it comes from (a backend, or opgen).\n";

typedef struct tracer {
    const char *file;
} tracer;
static void trace_step(void *ctx, const opgen_gnode *node, const char *kernel, const char *origin) {
    fprintf(stderr, "trace: %s:%u:%u: %s -> %s (%s)\n", ((tracer *)ctx)->file, node->line, node->col, node->op, kernel, origin);
}

static int cmd_run(int argc, char **argv, const opgen_vendor *const *vendors, int nvendors) {
    const char *path = NULL, *outdir = NULL;
    const char *inames[64], *ivals[64];
    int nin = 0;
    opgen_load_options opt = {.fallbacks = false, .vendors = vendors, .nvendors = nvendors};
    bool trace = false;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) return fputs(usage_run, stdout), EXIT_OK;
        if (!strcmp(a, "--input") || !strcmp(a, "-i")) {
            if (i + 1 >= argc) return fprintf(stderr, "opgen-rt run: --input needs NAME=VALUE\n"), EXIT_USAGE;
            char *v = argv[++i], *eq = strchr(v, '=');
            if (!eq) return fprintf(stderr, "opgen-rt run: --input takes NAME=VALUE, not '%s'\n", v), EXIT_USAGE;
            if (nin == 64) return fprintf(stderr, "opgen-rt run: at most 64 inputs\n"), EXIT_USAGE;
            *eq = 0;
            inames[nin] = v[0] == '%' ? v + 1 : v;
            ivals[nin] = eq + 1;
            for (int k = 0; k < nin; k++)
                if (!strcmp(inames[k], inames[nin])) return fprintf(stderr, "opgen-rt run: input '%s' given twice\n", inames[nin]), EXIT_USAGE;
            nin++;
        } else if (!strcmp(a, "--fallbacks")) {
            opt.fallbacks = true;
        } else if (!strcmp(a, "--trace")) {
            trace = true;
        } else if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
            if (i + 1 >= argc) return fprintf(stderr, "opgen-rt run: -o needs a folder\n"), EXIT_USAGE;
            outdir = argv[++i];
        } else if (a[0] == '-') {
            return fprintf(stderr, "opgen-rt run: unknown option '%s'\n", a), EXIT_USAGE;
        } else if (path) {
            return fprintf(stderr, "opgen-rt run: one program at a time\n"), EXIT_USAGE;
        } else {
            path = a;
        }
    }
    if (!path || !outdir) return fprintf(stderr, "opgen-rt run: needs PROGRAM.graph and -o DIR\nRun 'opgen-rt run --help' for usage.\n"), EXIT_USAGE;
    opgen_error err = {0};
    size_t n;
    char *text = slurp(path, &n, &err);
    if (!text) return report(&err);
    opgen_arena a;
    opgen_arena_init_growing(&a);
    opgen_graph g;
    opgen_program *p = NULL;
    int rc = EXIT_OK;
    opgen_ivalue *inputs = NULL, *outputs = NULL;
    if (opgen_graph_parse(path, text, n, false, &a, &g, &err) || opgen_program_load_with(&g, &a, &opt, &p, &err)) {
        rc = report(&err);
        goto done;
    }
    if (trace) {
        tracer t = {path};
        opgen_program_kernels(p, trace_step, &t);
    }
    inputs = calloc((size_t)g.ninputs + 1, sizeof *inputs);
    outputs = calloc((size_t)g.noutputs + 1, sizeof *outputs);
    if (!inputs || !outputs) {
        fputs("opgen-rt: out of memory\n", stderr);
        rc = EXIT_BAD_INPUT;
        goto done;
    }
    for (int k = 0; k < nin; k++) {
        bool known = false;
        for (int i = 0; i < g.ninputs; i++)
            if (!strcmp(g.values[g.inputs[i]].name, inames[k])) known = true;
        if (!known) {
            fprintf(stderr, "%s: error: the program has no input %%%s\n", path, inames[k]);
            rc = EXIT_USAGE;
            goto done;
        }
    }
    for (int i = 0; i < g.ninputs; i++) {
        const opgen_gvalue *gv = &g.values[g.inputs[i]];
        const char *val = NULL;
        for (int k = 0; k < nin; k++)
            if (!strcmp(inames[k], gv->name)) val = ivals[k];
        if (!val) {
            fprintf(stderr, "%s:%u:%u: error: no value for input %%%s (give --input %s=...)\n", path, gv->line, gv->col, gv->name, gv->name);
            rc = EXIT_USAGE;
            goto done;
        }
        opgen_ivalue *v = &inputs[i];
        v->kind = gv->kind;
        char *end = NULL;
        switch (gv->kind) {
        case OPGEN_GV_TENSOR:
            if (opgen_npy_read(val, &a, &v->t, &err)) {
                char msg[1024];
                opgen_error_format(&err, msg, sizeof msg);
                fprintf(stderr, "%s (input %%%s)\n", msg, gv->name);
                rc = EXIT_BAD_INPUT;
                goto done;
            }
            if (v->t.dtype != gv->dtype || v->t.dim != gv->dim || memcmp(v->t.sizes, gv->sizes, sizeof(int64_t) * (size_t)gv->dim)) {
                char want[160], got[160];
                fprintf(stderr, "%s:%u:%u: error: input %%%s is declared %s, but %s holds %s\n", path, gv->line, gv->col, gv->name, opgen_type_format(want, sizeof want, gv->dtype, gv->dim, gv->sizes), val,
                        opgen_type_format(got, sizeof got, v->t.dtype, v->t.dim, v->t.sizes));
                rc = EXIT_BAD_INPUT;
                goto done;
            }
            break;
        case OPGEN_GV_INT:
            errno = 0;
            v->i = strtoll(val, &end, 10);
            if (errno == ERANGE) end = NULL;
            break;
        case OPGEN_GV_FLOAT: v->f = strtod(val, &end); break;
        default:
            if (!strcmp(val, "True") || !strcmp(val, "true") || !strcmp(val, "1"))
                v->b = true, end = (char *)"";
            else if (!strcmp(val, "False") || !strcmp(val, "false") || !strcmp(val, "0"))
                v->b = false, end = (char *)"";
            break;
        }
        if (gv->kind != OPGEN_GV_TENSOR && (!end || end == val || *end)) {
            fprintf(stderr, "%s:%u:%u: error: input %%%s is %s, not '%s'\n", path, gv->line, gv->col, gv->name, gv->kind == OPGEN_GV_INT ? "a 64-bit integer" : gv->kind == OPGEN_GV_FLOAT ? "a number" : "True or False", val);
            rc = EXIT_BAD_INPUT;
            goto done;
        }
    }
    if (opgen_program_run(p, inputs, &a, outputs, &err)) {
        rc = report(&err);
        goto done;
    }
    if (mkdir(outdir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "%s: error: cannot create: %s\n", outdir, strerror(errno));
        rc = EXIT_BAD_INPUT;
        goto done;
    }
    for (int i = 0; i < g.noutputs; i++) {
        char file[4096];
        snprintf(file, sizeof file, "%s/%d.npy", outdir, i);
        opgen_tensor t = outputs[i].t;
        union {
            int64_t i;
            double f;
            bool b;
        } scalar;
        if (outputs[i].kind != OPGEN_GV_TENSOR) { /* a scalar: a 0-d array */
            opgen_dtype d = outputs[i].kind == OPGEN_GV_INT ? OPGEN_DTYPE_Long : outputs[i].kind == OPGEN_GV_FLOAT ? OPGEN_DTYPE_Double : OPGEN_DTYPE_Bool;
            opgen_tensor_shape(&t, d, 0, NULL, &err);
            if (d == OPGEN_DTYPE_Long) scalar.i = outputs[i].i;
            if (d == OPGEN_DTYPE_Double) scalar.f = outputs[i].f;
            if (d == OPGEN_DTYPE_Bool) scalar.b = outputs[i].b;
            t.data = &scalar;
        }
        if (opgen_npy_write(file, &t, &err)) {
            rc = report(&err);
            goto done;
        }
    }
done:
    free(inputs);
    free(outputs);
    opgen_arena_release(&a);
    free(text);
    return rc;
}

/* Writes text to path through a temp file and a rename: a reader never sees half. */
static int write_atomic(const char *path, const char *text, size_t n) {
    size_t pl = strlen(path);
    char *tmp = malloc(pl + 16);
    if (!tmp) return fputs("opgen-rt: out of memory\n", stderr), EXIT_BAD_INPUT;
    snprintf(tmp, pl + 16, "%s.tmp%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "wb");
    bool ok = f && fwrite(text, 1, n, f) == n;
    if (f && fclose(f) != 0) ok = false;
    if (ok && rename(tmp, path) != 0) ok = false;
    if (!ok) {
        fprintf(stderr, "%s: error: cannot write: %s\n", path, strerror(errno));
        remove(tmp);
    }
    free(tmp);
    return ok ? EXIT_OK : EXIT_BAD_INPUT;
}

static const char usage_lower[] =
    "usage: opgen-rt lower IN.graph -o OUT.graph [--backend NAME]\n"
    "       opgen-rt decompose IN.graph -o OUT.graph\n"
    "       opgen-rt verify IN.graph --dialect aten|edge|backend\n"
    "\n"
    "lower finds each backend op's pattern in the program and replaces it by one call\n"
    "of the op (patterns tried in the order of the backend-op yaml; --backend fuses\n"
    "only that backend's ops). decompose inlines every backend op's pattern. verify\n"
    "checks the program against a dialect: aten (core and custom ops), edge (and every\n"
    "call's dtypes satisfy an Edge constraint row), backend (backend ops too); it prints\n"
    "nothing and exits 0 when valid, 1 naming the node, line and reason when not.\n";

/* lower, decompose, verify: one graph in, one graph (or a verdict) out */
static int cmd_lowering(int argc, char **argv) {
    const char *cmd = argv[1], *path = NULL, *outpath = NULL, *backend = NULL, *dialect = NULL;
    bool is_verify = !strcmp(cmd, "verify"), is_lower = !strcmp(cmd, "lower");
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) return fputs(usage_lower, stdout), EXIT_OK;
        if ((!strcmp(a, "-o") || !strcmp(a, "--output")) && !is_verify) {
            if (i + 1 >= argc) return fprintf(stderr, "opgen-rt %s: -o needs a file\n", cmd), EXIT_USAGE;
            outpath = argv[++i];
        } else if (!strcmp(a, "--backend") && is_lower) {
            if (i + 1 >= argc) return fprintf(stderr, "opgen-rt %s: --backend needs a name\n", cmd), EXIT_USAGE;
            backend = argv[++i];
        } else if (!strcmp(a, "--dialect") && is_verify) {
            if (i + 1 >= argc) return fprintf(stderr, "opgen-rt %s: --dialect needs aten, edge or backend\n", cmd), EXIT_USAGE;
            dialect = argv[++i];
        } else if (a[0] == '-') {
            return fprintf(stderr, "opgen-rt %s: unknown option '%s'\n", cmd, a), EXIT_USAGE;
        } else if (path) {
            return fprintf(stderr, "opgen-rt %s: one program at a time\n", cmd), EXIT_USAGE;
        } else {
            path = a;
        }
    }
    if (!path || (!is_verify && !outpath) || (is_verify && !dialect))
        return fprintf(stderr, "opgen-rt %s: needs IN.graph and %s\nRun 'opgen-rt %s --help' for usage.\n", cmd, is_verify ? "--dialect" : "-o OUT.graph", cmd), EXIT_USAGE;
    int d = is_verify ? opgen_dialect_parse(dialect) : 0;
    if (d < 0) return fprintf(stderr, "opgen-rt verify: unknown dialect '%s' (expected aten, edge or backend)\n", dialect), EXIT_USAGE;
    opgen_error err = {0};
    size_t n;
    char *text = slurp(path, &n, &err);
    if (!text) return report(&err);
    opgen_arena a;
    opgen_arena_init_growing(&a);
    opgen_graph g, out;
    int rc = EXIT_OK;
    if (opgen_graph_parse(path, text, n, false, &a, &g, &err)) {
        rc = report(&err);
    } else if (is_verify) {
        if (opgen_verify(&g, (opgen_dialect)d, &a, &err)) rc = report(&err);
    } else if (is_lower ? opgen_fuse(&g, backend, &a, &out, NULL, &err) : opgen_decompose(&g, &a, &out, NULL, &err)) {
        if (!err.file[0]) /* not about the program: the --backend given */
            fprintf(stderr, "opgen-rt %s: %s\n", cmd, err.msg), rc = EXIT_USAGE;
        else
            rc = report(&err);
    } else {
        size_t len = opgen_graph_print(&out, NULL, 0);
        char *buf = malloc(len + 1);
        if (!buf) {
            fputs("opgen-rt: out of memory\n", stderr);
            rc = EXIT_BAD_INPUT;
        } else {
            opgen_graph_print(&out, buf, len + 1);
            rc = write_atomic(outpath, buf, len);
            free(buf);
        }
    }
    opgen_arena_release(&a);
    free(text);
    return rc;
}

int opgen_rt_main(int argc, char **argv, const opgen_vendor *const *vendors, int nvendors) {
    if (argc < 2) return fputs(usage, stderr), EXIT_USAGE;
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) return fputs(usage, stdout), EXIT_OK;
    if (!strcmp(argv[1], "print")) return cmd_print(argc, argv);
    if (!strcmp(argv[1], "run")) return cmd_run(argc, argv, vendors, nvendors);
    if (!strcmp(argv[1], "lower") || !strcmp(argv[1], "decompose") || !strcmp(argv[1], "verify")) return cmd_lowering(argc, argv);
    fprintf(stderr, "opgen-rt: unknown command '%s'\nRun 'opgen-rt --help' for usage.\n", argv[1]);
    return EXIT_USAGE;
}
