/* opgen-rt info: what an ExecuTorch program holds and needs, read from the file
 * (methods, inputs and outputs, operators with their kernel keys, planned and
 * constant memory, delegates), and whether this build can load it. */
#include "cli.h"
#include "opgen/npy.h"
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const opgen_opt opts[] = {
    {NULL, NULL, "MODEL.pte", OPGEN_OPT_FILE, "pte", OPGEN_OPT_REQUIRED, "program", "the ExecuTorch program"},
    {"--method", NULL, "NAME", OPGEN_OPT_TEXT, NULL, 0, NULL,
     "only this method (default: every one; c-header: 'forward')"},
    {"--format", NULL, "FORMAT", OPGEN_OPT_TEXT, "text|c-header", 0, "format",
     "text (default), or c-header: a C header for a bare-metal application, with the program's bytes to link into flash and the memory its load "
     "and runs take in this build (NAME_LOAD_BYTES, NAME_WORK_BYTES, ...), for its static arrays"},
    {"--name", NULL, "NAME", OPGEN_OPT_TEXT, NULL, 0, NULL,
     "c-header: the prefix of its names (default: the file's name, as a C identifier)"},
    {"--input", "-i", "POSITION=FILE", OPGEN_OPT_INPUT, "npy", OPGEN_OPT_REPEAT, NULL,
     "c-header: an input's values as a const array (NAME_input0, ...)"},
    {"--expect", NULL, "POSITION=FILE", OPGEN_OPT_INPUT, "npy", OPGEN_OPT_REPEAT, NULL,
     "c-header: an expected output's bytes (NAME_expected0, ...)"},
    {"--output", "-o", "FILE", OPGEN_OPT_OUT, NULL, 0, NULL, "c-header: where it goes (default: standard output)"},
    {0},
};

static void describe(const opgen_pte *p, const opgen_pte_plan *pl, opgen_pte_vec which, const char *what) {
    for (uint32_t k = 0; k < which.len; k++) {
        opgen_pte_value v;
        opgen_error err = {0};
        int32_t i = opgen_pte_i32(p, which, k);
        printf("  %s %u: ", what, (unsigned)k);
        if (i < 0 || opgen_pte_value_at(p, pl, (uint32_t)i, &v, &err)) {
            printf("(value %d: unreadable)\n", (int)i);
            continue;
        }
        if (v.kind != OPGEN_EV_TENSOR) {
            bool in = !strcmp(what, "input");
            printf("%s", opgen_ev_kind_name(v.kind));
            if (in && v.kind == OPGEN_EV_NULL) printf(" (a scalar given at run: an int, a float or a bool)");
            if (in && v.kind == OPGEN_EV_INT)
                printf(" %lld (fixed at export: a run must give this value)", (long long)v.i);
            if (in && v.kind == OPGEN_EV_DOUBLE) printf(" %.17g (fixed at export: a run must give this value)", v.f);
            if (in && v.kind == OPGEN_EV_BOOL)
                printf(" %s (fixed at export: a run must give this value)", v.b ? "True" : "False");
            printf("\n");
            continue;
        }
        printf("%s[", opgen_dtype_abbrev((opgen_dtype)v.t.scalar_type));
        for (uint32_t d = 0; d < v.t.sizes.len; d++)
            printf("%s%d", d ? ", " : "", (int)(opgen_pte_i32(p, v.t.sizes, d)));
        printf("]");
        if (v.t.shape_dynamism == OPGEN_PTE_DYNAMIC_BOUND) printf(" (dynamic: these sizes are its bound)");
        bool plain = true;
        for (uint32_t d = 0; d < v.t.dim_order.len; d++) plain = plain && opgen_pte_u8(p, v.t.dim_order, d) == d;
        if (!plain) {
            printf(" (dim order ");
            for (uint32_t d = 0; d < v.t.dim_order.len; d++)
                printf("%s%u", d ? "," : "", opgen_pte_u8(p, v.t.dim_order, d));
            printf(")");
        }
        printf("\n");
    }
}

/* Each operator with the kernel keys it is called with, and how often. */
static int operators(const opgen_pte *p, const opgen_pte_plan *pl, unsigned *kinds, opgen_arena *ar) {
    typedef struct seen {
        const char *op, *key;
        unsigned n;
    } seen;
    seen *all = NULL;
    unsigned n = 0, cap = 0;
    opgen_error err = {0};
    for (uint32_t ch = 0; ch < pl->chains.len; ch++) {
        opgen_pte_vec instrs;
        if (opgen_pte_chain_at(p, pl, ch, &instrs, &err)) return opgen_rt_report(&err);
        for (uint32_t k = 0; k < instrs.len; k++) {
            opgen_pte_instr in;
            if (opgen_pte_instr_at(p, &instrs, k, &in, &err)) return opgen_rt_report(&err);
            kinds[in.kind]++;
            if (in.kind != OPGEN_INSTR_KERNEL) continue;
            const char *name, *ov;
            char key[1024], full[256];
            if (opgen_pte_operator_at(p, pl, (uint32_t)(in.a < 0 ? 0 : in.a), &name, &ov, &err) || in.a < 0 ||
                opgen_pte_kernel_key(p, pl, &in, key, sizeof key, &err) < 0)
                return err.code ? opgen_rt_report(&err) : OPGEN_EXIT_BAD_INPUT;
            snprintf(full, sizeof full, "%s%s%s", name, *ov ? "." : "", ov);
            unsigned j = 0;
            while (j < n && (strcmp(all[j].op, full) || strcmp(all[j].key, key))) j++;
            if (j < n) {
                all[j].n++;
                continue;
            }
            if (n == cap) {
                seen *grown = opgen_arena_alloc(ar, sizeof *grown * (cap = cap ? 2 * cap : 16));
                if (!grown) return fputs("opgen-rt: out of memory\n", stderr), OPGEN_EXIT_BAD_INPUT;
                if (n) memcpy(grown, all, sizeof *all * n);
                all = grown;
            }
            char *o = opgen_arena_alloc_bytes(ar, strlen(full) + 1), *kk = opgen_arena_alloc_bytes(ar, strlen(key) + 1);
            if (!o || !kk) return fputs("opgen-rt: out of memory\n", stderr), OPGEN_EXIT_BAD_INPUT;
            all[n++] = (seen){strcpy(o, full), strcpy(kk, key), 1};
        }
    }
    printf("  operators:%s\n", n ? "" : " none");
    for (unsigned j = 0; j < n; j++)
        printf("    %s %s%s%.0u\n", all[j].op, all[j].key, all[j].n > 1 ? " x" : "", all[j].n > 1 ? all[j].n : 0);
    return OPGEN_EXIT_OK;
}

static void memory(const opgen_pte *p, const opgen_pte_plan *pl) {
    size_t constants = 0, ntensors = 0;
    for (uint32_t i = 0; i < pl->values.len; i++) {
        opgen_pte_value v;
        opgen_error err = {0};
        if (opgen_pte_value_at(p, pl, i, &v, &err) || v.kind != OPGEN_EV_TENSOR || v.t.planned || !v.t.data_buffer_idx)
            continue;
        opgen_tensor t;
        int64_t sizes[OPGEN_MAX_DIM];
        for (uint32_t d = 0; d < v.t.sizes.len && d < OPGEN_MAX_DIM; d++) sizes[d] = opgen_pte_i32(p, v.t.sizes, d);
        if (v.t.sizes.len > OPGEN_MAX_DIM ||
            opgen_tensor_shape(&t, (opgen_dtype)v.t.scalar_type, (int32_t)v.t.sizes.len, sizes, &err))
            continue;
        constants += opgen_nbytes(&t), ntensors++;
    }
    size_t planned = 0;
    int nb = pl->buffer_sizes.len > 1 ? (int)pl->buffer_sizes.len - 1 : 0;
    for (int b = 1; b <= nb; b++) planned += opgen_method_buffer_bytes(p, pl, b);
    printf("  planned memory: %zu bytes in %d buffer%s", planned, nb, nb == 1 ? "" : "s");
    for (int b = 1; b <= nb; b++) printf("%s%d: %zu", b == 1 ? " (" : ", ", b, opgen_method_buffer_bytes(p, pl, b));
    printf("%s\n  constants: %zu bytes in %zu tensors (%s)\n", nb ? ")" : "", constants, ntensors,
           p->constant_segment ? "a segment after the flatbuffer" : "inline");
}

/* The state a method keeps between runs: the tensors aten::copy_ writes back (the
 * exporter's mutated buffers, e.g. a KV cache). */
static void state(const opgen_pte *p, const opgen_pte_plan *pl) {
    opgen_error err = {0};
    unsigned n = 0;
    for (uint32_t ch = 0; ch < pl->chains.len; ch++) {
        opgen_pte_vec instrs;
        if (opgen_pte_chain_at(p, pl, ch, &instrs, &err)) return;
        for (uint32_t k = 0; k < instrs.len; k++) {
            opgen_pte_instr in;
            const char *name, *ov;
            opgen_pte_value v;
            if (opgen_pte_instr_at(p, &instrs, k, &in, &err) || in.kind != OPGEN_INSTR_KERNEL || in.a < 0 ||
                !in.args.len)
                continue;
            if (opgen_pte_operator_at(p, pl, (uint32_t)in.a, &name, &ov, &err) || strcmp(name, "aten::copy_")) continue;
            int32_t vi = opgen_pte_i32(p, in.args, 0);
            if (vi < 0 || opgen_pte_value_at(p, pl, (uint32_t)vi, &v, &err) || v.kind != OPGEN_EV_TENSOR) continue;
            printf("%s value %d %s[", n++ ? "," : "  state kept between runs (mutable buffers):", (int)vi,
                   opgen_dtype_abbrev((opgen_dtype)v.t.scalar_type));
            for (uint32_t d = 0; d < v.t.sizes.len; d++)
                printf("%s%d", d ? ", " : "", (int)(opgen_pte_i32(p, v.t.sizes, d)));
            printf("]%s", v.t.data_buffer_idx ? " (initial data in the program)" : "");
        }
    }
    if (n) printf("\n");
}

/* The memory a load takes with this runner's kernels (its vendors' too), as
 * opgen_rt_load_method loads. */
static opgen_status memory_of(const opgen_pte *p, const char *name, const opgen_rt_ctx *ctx, opgen_method_memory *mem,
                              opgen_error *err) {
    opgen_load_options kopt = {.vendors = ctx ? ctx->vendors : NULL, .nvendors = ctx ? ctx->nvendors : 0};
    opgen_method_options opt = {.kernels = &kopt};
    return opgen_method_memory_of(p, name, &opt, mem, err);
}

static int method(const opgen_cli *a, const opgen_rt_ctx *ctx, const opgen_pte *p, const opgen_pte_plan *pl,
                  opgen_arena *ar) {
    unsigned kinds[OPGEN_INSTR_KIND_COUNT] = {0};
    printf("method '%s': %u values, %u chain%s\n", pl->name, (unsigned)pl->values.len, (unsigned)pl->chains.len,
           pl->chains.len == 1 ? "" : "s");
    describe(p, pl, pl->inputs, "input");
    describe(p, pl, pl->outputs, "output");
    state(p, pl);
    memory(p, pl);
    int rc = operators(p, pl, kinds, ar);
    if (rc) return rc;
    printf("  instructions:");
    for (int k = 1; k < OPGEN_INSTR_KIND_COUNT; k++)
        if (kinds[k]) printf(" %u %s", kinds[k], opgen_instr_kind_name(k));
    printf("\n  delegates:%s", pl->delegates.len ? "" : " none");
    for (uint32_t d = 0; d < pl->delegates.len; d++) {
        opgen_pte_delegate del;
        opgen_error err = {0};
        printf(" %s", opgen_pte_delegate_at(p, pl, d, &del, &err) ? "(unreadable)" : del.id);
    }
    opgen_method *m;
    opgen_error err = {0};
    opgen_method_memory mem = {0};
    if (memory_of(p, pl->name, ctx, &mem, &err) ||
        opgen_rt_load_method(p, pl->name, ctx, false, 0, NULL, ar, &m, &err)) {
        char msg[1024];
        opgen_error_format(&err, msg, sizeof msg);
        printf("\n  loads: no: %s\n", msg);
        return OPGEN_EXIT_OK;
    }
    printf("\n  loads: yes: load takes %zu bytes (%zu of them planned), a run %zu bytes of work\n", mem.load_bytes,
           mem.planned_bytes, opgen_method_work_bytes(m));
    (void)a;
    return OPGEN_EXIT_OK;
}

static int info(const opgen_cli *a, void *ctx, const opgen_pte *p, opgen_arena *ar) {
    const char *only = opgen_cli_get(a, "--method");
    printf("program: %s: %zu bytes (flatbuffer %zu), %u method%s, version %u%s\n", p->file, p->size, p->fb_size,
           (unsigned)p->plans.len, p->plans.len == 1 ? "" : "s", (unsigned)p->version,
           p->has_header ? ", extended header" : "");
    opgen_pte_plan pl;
    opgen_error err = {0};
    if (only) return opgen_pte_plan_find(p, only, &pl, &err) ? opgen_rt_report(&err) : method(a, ctx, p, &pl, ar);
    for (uint32_t i = 0; i < p->plans.len; i++) {
        int rc = opgen_pte_plan_at(p, i, &pl, &err) ? opgen_rt_report(&err) : method(a, ctx, p, &pl, ar);
        if (rc) return rc;
    }
    return OPGEN_EXIT_OK;
}

/* --format c-header: text appended to a buffer sized up front (6 characters a byte). */
typedef struct header {
    char *buf;
    size_t len, cap;
} header;

static void put(header *h, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(header *h, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(h->buf + h->len, h->cap - h->len, fmt, ap);
    va_end(ap);
    if (n > 0) h->len = h->len + (size_t)n < h->cap ? h->len + (size_t)n : h->cap - 1;
}

static void put_bytes(header *h, const char *name, const char *suffix, const void *data, size_t n, const char *what) {
    const uint8_t *b = data;
    put(h, "/* %s */\nstatic const _Alignas(16) unsigned char %s_%s[%zu] = {", what, name, suffix, n ? n : 1);
    for (size_t i = 0; i < n; i++) put(h, "%s0x%02x,", i % 16 ? "" : "\n   ", b[i]);
    put(h, "%s};\n", n ? "\n" : "0");
}

/* The tensor of --input/--expect POSITION=FILE k, read from its .npy. */
static int tensor_arg(const opgen_cli *a, const char *opt, int k, int count, opgen_arena *ar, int *pos,
                      opgen_tensor *t) {
    const char *s = opgen_cli_nth(a, opt, k), *eq = strchr(s, '=');
    char *end;
    long v = strtol(s, &end, 10);
    if (!eq || end != eq || end == s || v < 0 || v >= count)
        return opgen_usage_error(a, "%s %s: expected POSITION=FILE, POSITION an index below %d", opt, s, count);
    opgen_error err = {0};
    if (opgen_npy_read(eq + 1, ar, t, &err)) return opgen_rt_report(&err);
    *pos = (int)v;
    return OPGEN_EXIT_OK;
}

static int c_header(const opgen_cli *a, const opgen_rt_ctx *ctx, const opgen_pte *p, opgen_arena *ar) {
    const char *method_name = opgen_cli_get(a, "--method") ? opgen_cli_get(a, "--method") : "forward",
               *given = opgen_cli_get(a, "--name");
    char name[64];
    const char *base = strrchr(p->file, '/') ? strrchr(p->file, '/') + 1 : p->file;
    size_t n = 0;
    for (const char *c = given ? given : base; *c && *c != (given ? 0 : '.') && n + 1 < sizeof name; c++)
        name[n++] = isalnum((unsigned char)*c) ? *c : '_';
    name[n] = 0;
    if (!n || isdigit((unsigned char)name[0]) || (given && strcmp(name, given)))
        return opgen_usage_error(a, "--name %s: not a C identifier", given ? given : base);
    opgen_method *m;
    opgen_error err = {0};
    opgen_method_memory mem = {0};
    if (memory_of(p, method_name, ctx, &mem, &err) ||
        opgen_rt_load_method(p, method_name, ctx, false, 0, NULL, ar, &m, &err))
        return opgen_rt_report(&err);
    header h = {NULL, 0, p->size * 6 + 8192};
    opgen_tensor ts[16];
    int pos[16], nt = 0, nin = opgen_cli_count(a, "--input");
    for (int k = 0; k < nin + opgen_cli_count(a, "--expect"); k++) {
        if (nt == 16) return opgen_usage_error(a, "at most 16 --input and --expect values");
        bool in = k < nin;
        int rc = tensor_arg(a, in ? "--input" : "--expect", in ? k : k - nin,
                            in ? opgen_method_ninputs(m) : opgen_method_noutputs(m), ar, &pos[nt], &ts[nt]);
        if (rc) return rc;
        h.cap += opgen_nbytes(&ts[nt++]) * 6 + 512;
    }
    if (!(h.buf = opgen_arena_alloc(ar, h.cap)))
        return fprintf(stderr, "%s: error: out of memory\n", p->file), OPGEN_EXIT_BAD_INPUT;
    char upper[64];
    for (size_t i = 0; i <= n; i++) upper[i] = (char)toupper((unsigned char)name[i]);
    put(&h,
        "/* %s.h: written by `opgen-rt info %s --format c-header`: the program's bytes and the\n"
        " * memory method '%s' takes in the runtime that wrote it (a 32-bit device's own\n"
        " * runtime gives its exact figures; a 64-bit host's are larger). */\n",
        name, base, method_name);
    put(&h, "#ifndef %s_H\n#define %s_H\n#include <stdint.h>\n\n", upper, upper);
    put(&h, "#define %s_METHOD \"%s\"\n", upper, method_name);
    put(&h, "#define %s_PROGRAM_BYTES %zu /* %s_program: the .pte, linked as const data */\n", upper, p->size, name);
    put(&h, "#define %s_LOAD_BYTES %zu /* opgen_method_load's arena, planned memory included */\n", upper,
        mem.load_bytes);
    put(&h, "#define %s_PLANNED_BYTES %zu\n", upper, mem.planned_bytes);
    put(&h, "#define %s_WORK_BYTES %zu /* opgen_method_run's arena */\n", upper,
        opgen_method_work_bytes(m) ? opgen_method_work_bytes(m) : 1);
    put(&h, "#define %s_INPUTS %d\n#define %s_OUTPUTS %d\n\n", upper, opgen_method_ninputs(m), upper,
        opgen_method_noutputs(m));
    put_bytes(&h, name, "program", p->data, p->size, "the program");
    for (int k = 0; k < nt; k++) {
        bool in = k < nin;
        char suffix[32], what[96];
        snprintf(suffix, sizeof suffix, "%s%d", in ? "input" : "expected", pos[k]);
        snprintf(what, sizeof what, "%s %d: %s, %d-d, contiguous", in ? "input" : "expected output", pos[k],
                 opgen_dtype_name(ts[k].dtype), (int)ts[k].dim);
        put(&h, "\n#define %s_%s%d_DIM %d\nstatic const int64_t %s_%s_sizes[%d] = {", upper, in ? "INPUT" : "EXPECTED",
            pos[k], (int)ts[k].dim, name, suffix, ts[k].dim ? (int)ts[k].dim : 1);
        for (int d = 0; d < ts[k].dim; d++) put(&h, "%s%lld", d ? ", " : "", (long long)ts[k].sizes[d]);
        put(&h, "%s};\n", ts[k].dim ? "" : "1");
        put_bytes(&h, name, suffix, ts[k].data, opgen_nbytes(&ts[k]), what);
    }
    put(&h, "\n#endif\n");
    const char *out = opgen_cli_get(a, "--output");
    if (!out) return fwrite(h.buf, 1, h.len, stdout) == h.len ? OPGEN_EXIT_OK : OPGEN_EXIT_BAD_INPUT;
    return opgen_file_write(out, h.buf, h.len, &err) ? opgen_rt_report(&err) : OPGEN_EXIT_OK;
}

static int info_or_header(const opgen_cli *a, void *ctx, const opgen_pte *p, opgen_arena *ar) {
    const char *format = opgen_cli_get(a, "--format");
    if (format && !strcmp(format, "c-header")) return c_header(a, ctx, p, ar);
    static const char *const header_only[] = {"--name", "--input", "--expect", "--output"};
    for (int i = 0; i < 4; i++)
        if (opgen_cli_has(a, header_only[i]))
            return opgen_usage_error(a, "%s %s: --name, --input, --expect and --output go with --format c-header",
                                     header_only[i], opgen_cli_nth(a, header_only[i], 0));
    return info(a, ctx, p, ar);
}

static int run(const opgen_cli *a, void *ctx) {
    return opgen_rt_on_program(a, opgen_cli_get(a, "MODEL.pte"), false, NULL, info_or_header, ctx);
}

const opgen_cmd opgen_rt_cmd_info = {
    "info",
    "describe an ExecuTorch program: methods, inputs, operators, memory, delegates",
    "Reads a .pte program and prints, per method: its inputs and outputs (dtype, shape, dim order), its planned memory per buffer and its "
    "constants, each operator with the kernel keys it is called with, its instructions by kind, its delegates, and whether this build "
    "loads it (and the memory load and a run take) or why not. --format c-header writes what a bare-metal application compiles in instead "
    "(runtime-stubs/examples/bare_metal/).",
    opts,
    NULL,
    NULL,
    run};
