/* opgen: a thin command-line shell over load -> model -> emit. */
#include "config.h"
#include "emit.h"
#include "inputs.h"
#include "pte.h"
#include "select.h"
#include "abi.h"
#include "skeleton.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum { EXIT_OK = 0, EXIT_BAD_INPUT = 1, EXIT_USAGE = 2 };

static const char usage_main[] =
    "usage: opgen COMMAND [OPTIONS]\n"
    "\n"
    "Turns operator definitions (native_functions.yaml, tags.yaml) into C registries.\n"
    "With no input flags, opgen uses its embedded default op set (yaml/ in its source).\n"
    "\n"
    "commands:\n"
    "  check     validate the inputs; silent on success\n"
    "  list      list operators as text or JSON lines\n"
    "  dtypes    Edge dtype constraints: list them, or validate one call\n"
    "  generate  write the C registry headers (dtypes, ops, kernel prototypes)\n"
    "  select    write a selected_operators.yaml from programs and op lists\n"
    "  skeleton  write a compiling backend: a stub kernel per op, its table, a runner\n"
    "  coverage  which of a backend's kernel cases are implemented, stubs or covered\n"
    "\n"
    "Run 'opgen COMMAND --help' for a command's options. 'opgen --version' prints the version.\n"
    "Exit status: 0 ok, 1 bad input, 2 bad usage.\n";

static const char usage_inputs[] =
    "  --native-functions F   native_functions.yaml to read (default: embedded)\n"
    "  --tags T               tags.yaml (default: tags.yaml beside F, else embedded)\n"
    "  --kernels K            a kernel yaml in ExecuTorch's format (op:/func: entries with\n"
    "                         kernels:), repeatable; func: entries declare custom ops\n"
    "                         (default: the embedded ones when the other inputs are embedded)\n"
    "  --backend-ops B        a backend-op yaml (schemas with their patterns or builtins),\n"
    "                         repeatable (default: the embedded one when the other inputs\n"
    "                         are embedded)\n"
    "  --edge E               edge.yaml dtype constraints (default: the embedded one when the\n"
    "                         other inputs are embedded)\n"
    "  --torchgen V           follow the rules of torchgen V: 1.13, 2.6 or 2.14 (default: from\n"
    "                         the tags the tags file declares: 'out' 2.14, 'pt2_compliant_tag' 2.6,\n"
    "                         else 1.13)\n";

static const char usage_check[] =
    "usage: opgen check [--native-functions F] [--tags T] [--edge E]\n"
    "\n"
    "Validates the inputs the way torchgen does, and stricter where torchgen is sloppy.\n"
    "Prints nothing on success; otherwise FILE:LINE:COL: error: MESSAGE, at most 20 errors.\n"
    "\n";

static const char usage_dtypes[] =
    "usage: opgen dtypes [--native-functions F] [--tags T] [--edge E] [--format jsonl|text]\n"
    "       opgen dtypes [inputs] --op OP ARG=DTYPE...\n"
    "\n"
    "Lists, per edge.yaml entry in file order, the dtypes each constrained argument allows\n"
    "(the union over its rows): jsonl gives {\"allowed\": {ARG: [DTYPE...]}, \"op\": OP,\n"
    "\"rows\": N} with sorted keys and names. With --op, checks one call by ExecuTorch's rule\n"
    "(some single row accepts every argument given; arguments sharing an alias in that row\n"
    "have one dtype), Scalars and ScalarTypes included: e.g.\n"
    "  opgen dtypes --op aten::add.Tensor self=Float other=Int __ret_0=Float\n"
    "Exit 0 when the call is valid, 1 with the reason when not. Returns are __ret_0, ...\n"
    "\n";

static const char usage_generate[] =
    "usage: opgen generate [--native-functions F] [--tags T] [--edge E] [--templates DIR]\n"
    "                      -o DIR [--depfile FILE]\n"
    "\n"
    "Writes opgen_dtypes.h, opgen_ops.h and opgen_kernels.h into DIR (created if missing),\n"
    "and opgen_registry.h, the kernel table, when kernel files are given (--kernels):\n"
    "the dtype enum, every operator's id, names and schema tables, the dtypes each argument\n"
    "allows and the Edge constraint rows, an O(1) name -> id lookup, and the C prototype of\n"
    "each out= kernel. Define OPGEN_IMPLEMENTATION in one C file to get the tables.\n"
    "Files are replaced atomically and only when their content changes; after a failure\n"
    "nothing is replaced. --depfile writes a Makefile-syntax list of every input read.\n"
    "  --templates DIR   read the *.h.in templates from DIR instead of the built-in ones\n"
    "  --select F        trim the registry to a selected_operators.yaml (repeatable: the\n"
    "                    union): only the selected kernels, each with only the dtypes its\n"
    "                    kernel keys name, as compile-time constants the kernels switch on\n"
    "\n";

static const char usage_list[] =
    "usage: opgen list [--native-functions F] [--tags T] [--core] [--tag NAME]\n"
    "                  [--namespace NS] [--generated] [--format text|jsonl]\n"
    "\n"
    "Lists operator entries in file order.\n"
    "  --core          only entries tagged 'core'\n"
    "  --tag NAME      only entries with tag NAME (repeatable: all must match)\n"
    "  --namespace NS  only entries in namespace NS\n"
    "  --generated     also list the functions torchgen would autogenerate\n"
    "  --format F      text (default): 'ns::schema  [tags]'; jsonl: one JSON object per\n"
    "                  entry with the fields of torchgen-oracle.jsonl; out-variants:\n"
    "                  'ns::op ns::op.out', the out= variant of each op's group ('-' if none)\n"
    "\n";

typedef struct args {
    int argc, i;
    char **argv;
    const char *cmd;
} args;

static int usage_error(const char *cmd, const char *fmt, const char *arg) {
    fprintf(stderr, "opgen%s%s: ", cmd ? " " : "", cmd ? cmd : "");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\nRun 'opgen%s%s --help' for usage.\n", cmd ? " " : "", cmd ? cmd : "");
    return EXIT_USAGE;
}

/* Matches --name VALUE and --name=VALUE. Returns 1 matched, 0 not, -1 missing value. */
static int opt_value(args *a, const char *name, const char **val) {
    const char *s = a->argv[a->i];
    size_t n = strlen(name);
    if (strncmp(s, name, n) != 0) return 0;
    if (s[n] == '=') {
        *val = s + n + 1;
        return 1;
    }
    if (s[n] != 0) return 0;
    if (a->i + 1 >= a->argc) return -1;
    *val = a->argv[++a->i];
    return 1;
}

static int run_inputs_opt(args *a, og_inputs *in, int *rc) {
    const char *v;
    int r;
    if ((r = opt_value(a, "--native-functions", &v)) != 0) {
        if (r < 0) return *rc = usage_error(a->cmd, "option %s needs a value", "--native-functions"), -1;
        in->native_functions = v;
        return 1;
    }
    if ((r = opt_value(a, "--torchgen", &v)) != 0) {
        if (r < 0) return *rc = usage_error(a->cmd, "option %s needs a value", "--torchgen"), -1;
        in->torchgen = og_dialect_find(v);
        if (!in->torchgen) return *rc = usage_error(a->cmd, "unknown torchgen release '%s' (expected 1.13, 2.6 or 2.14)", v), -1;
        return 1;
    }
    if ((r = opt_value(a, "--kernels", &v)) != 0) {
        if (r < 0) return *rc = usage_error(a->cmd, "option %s needs a value", "--kernels"), -1;
        if (in->nkernels == 16) return *rc = usage_error(a->cmd, "at most 16 %s files", "--kernels"), -1;
        in->kernels[in->nkernels++] = v;
        return 1;
    }
    if ((r = opt_value(a, "--backend-ops", &v)) != 0) {
        if (r < 0) return *rc = usage_error(a->cmd, "option %s needs a value", "--backend-ops"), -1;
        if (in->nbackend_ops == 16) return *rc = usage_error(a->cmd, "at most 16 %s files", "--backend-ops"), -1;
        in->backend_ops[in->nbackend_ops++] = v;
        return 1;
    }
    if ((r = opt_value(a, "--edge", &v)) != 0) {
        if (r < 0) return *rc = usage_error(a->cmd, "option %s needs a value", "--edge"), -1;
        in->edge = v;
        return 1;
    }
    if ((r = opt_value(a, "--tags", &v)) != 0) {
        if (r < 0) return *rc = usage_error(a->cmd, "option %s needs a value", "--tags"), -1;
        in->tags = v;
        return 1;
    }
    return 0;
}

static bool is_help(const char *s) { return !strcmp(s, "--help") || !strcmp(s, "-h"); }

static int cmd_check(args *a) {
    og_inputs in = {0};
    in.want_edge = true;
    int rc = 0;
    for (a->i = 2; a->i < a->argc; a->i++) {
        const char *s = a->argv[a->i];
        if (is_help(s)) return fputs(usage_check, stdout), fputs(usage_inputs, stdout), EXIT_OK;
        int r = run_inputs_opt(a, &in, &rc);
        if (r < 0) return rc;
        if (r == 0) return usage_error(a->cmd, "unknown option '%s'", s);
    }
    og_session ss;
    og_session_init(&ss, stderr);
    bool ok = og_session_load(&ss, &in);
    diag_finish(&ss.d);
    og_session_free(&ss);
    return ok ? EXIT_OK : EXIT_BAD_INPUT;
}

static int cmd_list(args *a) {
    og_inputs in = {0};
    int rc = 0;
    bool core = false, generated = false;
    enum { FMT_TEXT, FMT_JSONL, FMT_OUT_VARIANTS } format = FMT_TEXT;
    const char *ns = NULL;
    const char *tags[16];
    unsigned ntags = 0;
    for (a->i = 2; a->i < a->argc; a->i++) {
        const char *s = a->argv[a->i], *v;
        if (is_help(s)) return fputs(usage_list, stdout), fputs(usage_inputs, stdout), EXIT_OK;
        int r = run_inputs_opt(a, &in, &rc);
        if (r < 0) return rc;
        if (r > 0) continue;
        if (!strcmp(s, "--core")) {
            core = true;
        } else if (!strcmp(s, "--generated")) {
            generated = true;
        } else if ((r = opt_value(a, "--tag", &v)) != 0) {
            if (r < 0) return usage_error(a->cmd, "option %s needs a value", "--tag");
            if (ntags == 16) return usage_error(a->cmd, "at most 16 %s options", "--tag");
            tags[ntags++] = v;
        } else if ((r = opt_value(a, "--namespace", &v)) != 0) {
            if (r < 0) return usage_error(a->cmd, "option %s needs a value", "--namespace");
            ns = v;
        } else if ((r = opt_value(a, "--format", &v)) != 0) {
            if (r < 0) return usage_error(a->cmd, "option %s needs a value", "--format");
            if (!strcmp(v, "jsonl"))
                format = FMT_JSONL;
            else if (!strcmp(v, "text"))
                format = FMT_TEXT;
            else if (!strcmp(v, "out-variants"))
                format = FMT_OUT_VARIANTS;
            else
                return usage_error(a->cmd, "unknown format '%s' (expected text, jsonl or out-variants)", v);
        } else {
            return usage_error(a->cmd, "unknown option '%s'", s);
        }
    }
    og_session ss;
    og_session_init(&ss, stderr);
    if (!og_session_load(&ss, &in)) {
        diag_finish(&ss.d);
        og_session_free(&ss);
        return EXIT_BAD_INPUT;
    }
    og_model *m = &ss.m;
    int want[17];
    unsigned nwant = 0;
    if (core) tags[ntags++] = "core";
    for (unsigned t = 0; t < ntags; t++) {
        int id = -1;
        for (unsigned k = 0; k < m->ntags; k++)
            if (!strcmp(m->tags[k].name, tags[t])) id = (int)k;
        if (id < 0) {
            og_session_free(&ss);
            return usage_error(a->cmd, "unknown tag '%s' (not in the tags file)", tags[t]);
        }
        want[nwant++] = id;
    }
    strbuf b;
    sb_init(&b);
    unsigned n = generated ? m->nfuncs : m->nyaml;
    for (unsigned i = 0; i < n; i++) {
        const og_func *f = m->funcs[i];
        bool ok = !ns || !strcmp(f->ns, ns);
        for (unsigned t = 0; t < nwant && ok; t++) ok = og_func_has_tag(f, want[t]);
        if (!ok) continue;
        if (format == FMT_JSONL) {
            og_emit_list_jsonl(&b, m, f);
        } else if (format == FMT_OUT_VARIANTS) {
            const og_func *o = og_func_out_variant(f);
            sb_printf(&b, "%s::%s %s%s%s\n", f->ns, f->name, o ? o->ns : "-", o ? "::" : "", o ? o->name : "");
        } else {
            og_emit_list_text(&b, m, f);
        }
    }
    fwrite(b.p ? b.p : "", 1, b.n, stdout);
    sb_free(&b);
    og_session_free(&ss);
    if (fflush(stdout) != 0) {
        perror("opgen: writing output");
        return EXIT_BAD_INPUT;
    }
    return EXIT_OK;
}

/* `opgen dtypes --op OP ARG=DTYPE...` */
static int check_call(og_session *ss, const char *opname, char **pairs, int npairs) {
    const char *sep = strstr(opname, "::");
    char ns[128] = "aten";
    const char *name = opname;
    if (sep && (size_t)(sep - opname) < sizeof ns) {
        memcpy(ns, opname, (size_t)(sep - opname));
        ns[sep - opname] = 0;
        name = sep + 2;
    }
    const og_func *f = og_model_find(&ss->m, ns, name);
    if (!f) return usage_error("dtypes", "unknown operator '%s'", opname);
    const og_edge_op *op = og_edge_find(&ss->edge, f);
    int dtypes[256];
    for (int i = 0; i < 256; i++) dtypes[i] = -1;
    for (int p = 0; p < npairs; p++) {
        char *eq = strchr(pairs[p], '=');
        if (!eq) return usage_error("dtypes", "expected ARG=DTYPE, found '%s'", pairs[p]);
        int dt = og_dtype_parse(eq + 1, strlen(eq + 1));
        if (dt < 0) return usage_error("dtypes", "unknown dtype '%s'", eq + 1);
        *eq = 0;
        if (!op) { /* unconstrained op: any Edge dtype for its tensor arguments and returns */
            bool known = !strncmp(pairs[p], "__ret_", 6) && (unsigned)atoi(pairs[p] + 6) < f->schema->nrets;
            for (unsigned i = 0; i < f->schema->nargs && !known; i++)
                known = !strcmp(f->schema->args[i].name, pairs[p]) && og_type_is_tensor_like(f->schema->args[i].type);
            if (!known) {
                fprintf(stderr, "opgen dtypes: %s::%s has no tensor argument or return '%s'\n", f->ns, f->name, pairs[p]);
                return EXIT_USAGE;
            }
            if (!(OG_EDGE_DTYPES >> dt & 1)) {
                fprintf(stderr, "%s::%s: %s=%s: %s is not an Edge dtype\n", f->ns, f->name, pairs[p], eq + 1, eq + 1);
                return EXIT_BAD_INPUT;
            }
            continue;
        }
        int a = -1;
        for (unsigned i = 0; i < op->nargs; i++)
            if (!strcmp(op->args[i].name, pairs[p])) a = (int)i;
        if (a < 0 || a >= 256) {
            fprintf(stderr, "opgen dtypes: %s constrains ", op->op);
            for (unsigned i = 0; i < op->nargs; i++) fprintf(stderr, "%s%s", i ? ", " : "", op->args[i].name);
            fprintf(stderr, "; not '%s'\n", pairs[p]);
            return EXIT_USAGE;
        }
        dtypes[a] = dt;
    }
    if (!op) {
        printf("%s::%s: valid (not in edge.yaml: any Edge dtype, no cross-argument constraint)\n", f->ns, f->name);
        return EXIT_OK;
    }
    strbuf why;
    sb_init(&why);
    int row = og_edge_check_call(op, dtypes, &why);
    if (row >= 0)
        printf("%s: valid (row %d of %u)\n", op->op, row + 1, op->nrows);
    else
        fputs(sb_cstr(&why), stderr);
    sb_free(&why);
    return row >= 0 ? EXIT_OK : EXIT_BAD_INPUT;
}

static int cmd_dtypes(args *a) {
    og_inputs in = {0};
    in.want_edge = true;
    int rc = 0;
    bool jsonl = false;
    const char *opname = NULL;
    int first_pair = a->argc;
    for (a->i = 2; a->i < a->argc; a->i++) {
        const char *s = a->argv[a->i], *v;
        if (is_help(s)) return fputs(usage_dtypes, stdout), fputs(usage_inputs, stdout), EXIT_OK;
        int r = run_inputs_opt(a, &in, &rc);
        if (r < 0) return rc;
        if (r > 0) continue;
        if ((r = opt_value(a, "--format", &v)) != 0) {
            if (r < 0) return usage_error(a->cmd, "option %s needs a value", "--format");
            if (!strcmp(v, "jsonl"))
                jsonl = true;
            else if (!strcmp(v, "text"))
                jsonl = false;
            else
                return usage_error(a->cmd, "unknown format '%s' (expected text or jsonl)", v);
        } else if ((r = opt_value(a, "--op", &v)) != 0) {
            if (r < 0) return usage_error(a->cmd, "option %s needs a value", "--op");
            opname = v;
            first_pair = a->i + 1;
            while (a->i + 1 < a->argc && strchr(a->argv[a->i + 1], '=') && a->argv[a->i + 1][0] != '-') a->i++;
        } else {
            return usage_error(a->cmd, "unknown option '%s'", s);
        }
    }
    og_session ss;
    og_session_init(&ss, stderr);
    if (!og_session_load(&ss, &in)) {
        diag_finish(&ss.d);
        og_session_free(&ss);
        return EXIT_BAD_INPUT;
    }
    if (!ss.has_edge) {
        og_session_free(&ss);
        return usage_error(a->cmd, "%s", "no edge constraints: give --edge E (only the embedded op set has a default)");
    }
    int ret = EXIT_OK;
    if (opname) {
        int npairs = 0;
        while (first_pair + npairs < a->argc && strchr(a->argv[first_pair + npairs], '=') && a->argv[first_pair + npairs][0] != '-') npairs++;
        ret = check_call(&ss, opname, a->argv + first_pair, npairs);
    } else {
        strbuf b;
        sb_init(&b);
        for (unsigned i = 0; i < ss.edge.nops; i++) {
            if (jsonl)
                og_emit_dtypes_jsonl(&b, &ss.edge.ops[i]);
            else
                og_emit_dtypes_text(&b, &ss.edge.ops[i]);
        }
        fwrite(b.p ? b.p : "", 1, b.n, stdout);
        sb_free(&b);
    }
    og_session_free(&ss);
    return ret;
}

static const char *base_name_of(const char *path) {
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

static int cmd_generate(args *a) {
    og_inputs in = {0};
    in.want_edge = true;
    int rc = 0;
    const char *outdir = NULL, *depfile = NULL, *tdir = NULL, *selects[16];
    unsigned nselect = 0;
    for (a->i = 2; a->i < a->argc; a->i++) {
        const char *s = a->argv[a->i], *v;
        if (is_help(s)) return fputs(usage_generate, stdout), fputs(usage_inputs, stdout), EXIT_OK;
        int r = run_inputs_opt(a, &in, &rc);
        if (r < 0) return rc;
        if (r > 0) continue;
        if ((r = opt_value(a, "-o", &v)) != 0 || (r = opt_value(a, "--output", &v)) != 0) {
            if (r < 0) return usage_error(a->cmd, "option %s needs a value", "-o");
            outdir = v;
        } else if ((r = opt_value(a, "--depfile", &v)) != 0) {
            if (r < 0) return usage_error(a->cmd, "option %s needs a value", "--depfile");
            depfile = v;
        } else if ((r = opt_value(a, "--templates", &v)) != 0) {
            if (r < 0) return usage_error(a->cmd, "option %s needs a value", "--templates");
            tdir = v;
        } else if ((r = opt_value(a, "--select", &v)) != 0) {
            if (r < 0) return usage_error(a->cmd, "option %s needs a value", "--select");
            if (nselect == 16) return usage_error(a->cmd, "at most 16 %s files", "--select");
            selects[nselect++] = v;
        } else {
            return usage_error(a->cmd, "unknown option '%s'", s);
        }
    }
    if (!outdir) return usage_error(a->cmd, "%s", "missing -o DIR");
    og_outputs outs;
    og_outputs_init(&outs);
    in.reads = &outs;
    og_session ss;
    og_session_init(&ss, stderr);
    bool ok = og_session_load(&ss, &in);
    if (ok && mkdir(outdir, 0777) != 0 && errno != EEXIST) {
        diag_error(&ss.d, outdir, 0, 0, "cannot create the output folder: %s", strerror(errno));
        ok = false;
    }
    if (ok) {
        /* file names only: the text must not depend on where the build runs */
        char *by = arena_printf(&ss.a, "Generated by opgen %s from %s, %s%s%s (torchgen %s rules). Do not edit; regenerate with opgen generate.", OPGEN_VERSION_STRING,
                                base_name_of(ss.nf.file), base_name_of(ss.tags.file), ss.has_edge ? ", " : "", ss.has_edge ? base_name_of(ss.edge_doc.file) : "", ss.m.dialect->name);
        ok = og_emit_c_headers(&outs, outdir, tdir, &ss.m, ss.has_edge ? &ss.edge : NULL, by, &ss.d);
        og_selection sel;
        og_sel_init(&sel, &ss.a, &ss.d);
        for (unsigned i = 0; ok && i < nselect; i++) { /* several selections: their union */
            ydoc doc;
            og_outputs_input(&outs, selects[i]);
            ok = yaml_load_file(&ss.a, &ss.d, selects[i], &doc) && og_sel_load_yaml(&sel, &doc);
        }
        if (ok && ss.nkernel_docs) ok = og_emit_registry(&outs, outdir, tdir, &ss.m, &ss.kernels, &ss.backend, nselect ? &sel : NULL, by, &ss.d);
        og_sel_free(&sel);
        if (ok && ss.nkernel_docs && ss.nbackend_docs) ok = og_emit_backend(&outs, outdir, tdir, &ss.m, &ss.kernels, &ss.backend, by, &ss.d);
    }
    unsigned changed = 0;
    ok = ok && og_outputs_commit(&outs, &ss.d, &changed);
    ok = ok && (!depfile || og_outputs_depfile(&outs, &ss.d, depfile));
    diag_finish(&ss.d);
    og_outputs_free(&outs);
    og_session_free(&ss);
    return ok ? EXIT_OK : EXIT_BAD_INPUT;
}

static const char usage_select[] =
    "usage: opgen select (--pte F | --graph F | --ops LIST | --selected-operators F)... -o OUT.yaml\n"
    "                    [inputs]\n"
    "\n"
    "Writes ExecuTorch's selected_operators.yaml for what the sources need, by union:\n"
    "  --pte F                  an ExecuTorch program: every method's KernelCalls, each with\n"
    "                           its operator and kernel key (dtype and dim order of each tensor\n"
    "                           argument); delegated calls need no kernels\n"
    "  --graph F                a program in opgen's graph text format: its ops and the dtypes\n"
    "                           that flow through each call (inferred by opgen's runtime)\n"
    "  --ops LIST               op names separated by commas, spaces or new lines, each\n"
    "                           optionally with dtypes: aten::add.out:Float+Double; a name\n"
    "                           without overload selects every overload; a functional name its\n"
    "                           out= variant; LIST may be a file\n"
    "  --selected-operators F   an existing selected_operators.yaml\n"
    "Output is sorted and deterministic; opgen generate --select reads it, and so can\n"
    "ExecuTorch. Operator lists are checked against the inputs (default: embedded).\n"
    "\n";

#ifdef OPGEN_WITH_RUNTIME
#include "opgen/exec.h"
typedef struct key_sink {
    og_selection *sel;
    const char *source;
    bool ok;
} key_sink;
static void take_key(void *ctx, const char *op, const char *key) {
    key_sink *k = ctx;
    k->ok &= og_sel_add_key(k->sel, op, key, k->source);
}
/* Loads the program with opgen's runtime (meta steps infer every call's dtypes). */
static bool select_graph(og_selection *sel, const char *path, diag *d) {
    FILE *f = fopen(path, "rb");
    if (!f) return diag_error(d, path, 0, 0, "cannot open: %s", strerror(errno)), false;
    strbuf text;
    sb_init(&text);
    char buf[4096];
    size_t r;
    while ((r = fread(buf, 1, sizeof buf, f)) > 0) sb_putn(&text, buf, r);
    fclose(f);
    opgen_arena a;
    opgen_arena_init_growing(&a);
    opgen_graph g;
    opgen_program *p;
    opgen_error err = {0};
    key_sink sink = {sel, path, true};
    bool ok = !opgen_graph_parse(path, text.p ? text.p : "", text.n, false, &a, &g, &err) && !opgen_program_load(&g, &a, &p, &err) && !opgen_program_kernel_keys(p, take_key, &sink, &err);
    if (!ok) {
        char msg[1024];
        opgen_error_format(&err, msg, sizeof msg);
        diag_plain(d, "%s", msg);
    }
    opgen_arena_release(&a);
    sb_free(&text);
    return ok && sink.ok;
}
#else
static bool select_graph(og_selection *sel, const char *path, diag *d) {
    (void)sel;
    diag_error(d, path, 0, 0, "this opgen was built without the runtime, which --graph needs to infer dtypes");
    return false;
}
#endif

/* --ops LIST: the text, or the contents of the file it names. */
static char *ops_text(const char *arg, char **owned) {
    *owned = NULL;
    FILE *f = strchr(arg, ':') && !strchr(arg, '/') ? NULL : fopen(arg, "rb");
    if (!f) return (char *)arg;
    strbuf b;
    sb_init(&b);
    char buf[4096];
    size_t r;
    while ((r = fread(buf, 1, sizeof buf, f)) > 0) sb_putn(&b, buf, r);
    fclose(f);
    *owned = b.p ? b.p : calloc(1, 1);
    return *owned;
}

static int cmd_select(args *a) {
    og_inputs in = {0};
    int rc = 0;
    const char *out = NULL;
    enum { S_PTE, S_GRAPH, S_OPS, S_YAML };
    struct {
        int kind;
        const char *arg;
    } src[64];
    unsigned nsrc = 0;
    for (a->i = 2; a->i < a->argc; a->i++) {
        const char *s = a->argv[a->i], *v;
        if (is_help(s)) return fputs(usage_select, stdout), fputs(usage_inputs, stdout), EXIT_OK;
        int r = run_inputs_opt(a, &in, &rc);
        if (r < 0) return rc;
        if (r > 0) continue;
        static const char *const opts[] = {"--pte", "--graph", "--ops", "--selected-operators"};
        int k = -1;
        for (int o = 0; o < 4 && k < 0; o++)
            if ((r = opt_value(a, opts[o], &v)) != 0) k = o;
        if (k >= 0) {
            if (r < 0) return usage_error(a->cmd, "option %s needs a value", opts[k]);
            if (nsrc == 64) return usage_error(a->cmd, "at most 64 %s", "sources");
            src[nsrc].kind = k;
            src[nsrc++].arg = v;
        } else if ((r = opt_value(a, "-o", &v)) != 0 || (r = opt_value(a, "--output", &v)) != 0) {
            if (r < 0) return usage_error(a->cmd, "option %s needs a value", "-o");
            out = v;
        } else {
            return usage_error(a->cmd, "unknown option '%s'", s);
        }
    }
    if (!out) return usage_error(a->cmd, "%s", "missing -o OUT.yaml");
    if (!nsrc) return usage_error(a->cmd, "%s", "nothing to select from: give --pte, --graph, --ops or --selected-operators");
    og_session ss;
    og_session_init(&ss, stderr);
    og_selection sel;
    og_sel_init(&sel, &ss.a, &ss.d);
    bool ok = true, need_model = false;
    for (unsigned i = 0; i < nsrc; i++) need_model |= src[i].kind == S_OPS;
    if (need_model) ok = og_session_load(&ss, &in);
    for (unsigned i = 0; ok && i < nsrc; i++) {
        const char *f = src[i].arg;
        if (src[i].kind == S_PTE) {
            og_pte p;
            ok = og_pte_read_file(&ss.a, f, &p, &ss.d) && og_sel_add_pte(&sel, &p, f);
            free(p.calls);
        } else if (src[i].kind == S_GRAPH) {
            ok = select_graph(&sel, f, &ss.d);
        } else if (src[i].kind == S_OPS) {
            char *owned;
            const char *text = ops_text(f, &owned);
            ok = og_sel_add_list(&sel, &ss.m, text, owned ? f : "--ops");
            free(owned);
        } else {
            ydoc doc;
            ok = yaml_load_file(&ss.a, &ss.d, f, &doc) && og_sel_load_yaml(&sel, &doc);
        }
    }
    strbuf yaml;
    sb_init(&yaml);
    if (ok) {
        og_sel_write_yaml(&sel, &yaml);
        og_outputs outs;
        og_outputs_init(&outs);
        unsigned changed = 0;
        /* written like generate's outputs: temp file + rename, only when it changed */
        const char *slash = strrchr(out, '/');
        char *dir = slash ? arena_strndup(&ss.a, out, (size_t)(slash - out)) : ".";
        strbuf *dst = og_outputs_add(&outs, dir, slash ? slash + 1 : out);
        if (dst) sb_putn(dst, yaml.p ? yaml.p : "", yaml.n);
        ok = dst && og_outputs_commit(&outs, &ss.d, &changed);
        og_outputs_free(&outs);
    }
    sb_free(&yaml);
    og_sel_free(&sel);
    diag_finish(&ss.d);
    og_session_free(&ss);
    return ok ? EXIT_OK : EXIT_BAD_INPUT;
}

static const char usage_skeleton[] =
    "usage: opgen skeleton --backend NAME (--kernels FILE.yaml | --select F | --ops LIST | --core)\n"
    "                      [inputs] -o DIR\n"
    "\n"
    "Writes a backend that compiles on day one: per kernel a C file (kernels/) with the\n"
    "argument checks opgen can write and a switch over the dtypes the op allows (or the\n"
    "selection names), every case a stub returning a not-implemented status that names op\n"
    "and dtype; the kernel table (NAME_registry.c), a runner opgen-rt-NAME (NAME_main.c),\n"
    "and a meson project building them against an installed opgen (pkg-config) or opgen\n"
    "as a subproject. The ops: a vendor kernel yaml in ExecuTorch's format (its kernel\n"
    "names and arg_meta dtypes), a selection, an op list, or every core op.\n"
    "Running it again never overwrites a file you changed (a checksum on its first line\n"
    "tells), writes files for new ops, and reports kernels no longer asked for.\n"
    "\n";

static const char usage_coverage[] =
    "usage: opgen coverage DIR [--format markdown|jsonl] [inputs]\n"
    "\n"
    "Reads the kernels of a backend folder opgen skeleton wrote (those kernels/meson.build\n"
    "lists) and prints, per op and dtype, whether the case is implemented (changed by\n"
    "you), a stub (as opgen wrote it), or a fallback: a stub whose op and dtype opgen's\n"
    "own kernels serve (the inputs' kernel files and backend ops; by default the\n"
    "embedded ones, which opgen's runtime is built from). Markdown ends with a summary.\n"
    "\n";

static int cmd_skeleton(args *a) {
    og_inputs in = {0};
    in.want_edge = true;
    int rc = 0;
    const char *out = NULL, *backend = NULL, *select = NULL, *ops = NULL;
    bool core = false;
    for (a->i = 2; a->i < a->argc; a->i++) {
        const char *s = a->argv[a->i], *v;
        if (is_help(s)) return fputs(usage_skeleton, stdout), fputs(usage_inputs, stdout), EXIT_OK;
        int r = run_inputs_opt(a, &in, &rc);
        if (r < 0) return rc;
        if (r > 0) continue;
        if ((r = opt_value(a, "--backend", &v)) != 0) {
            if (r < 0) return usage_error(a->cmd, "option %s needs a value", "--backend");
            backend = v;
        } else if ((r = opt_value(a, "--select", &v)) != 0) {
            if (r < 0) return usage_error(a->cmd, "option %s needs a value", "--select");
            select = v;
        } else if ((r = opt_value(a, "--ops", &v)) != 0) {
            if (r < 0) return usage_error(a->cmd, "option %s needs a value", "--ops");
            ops = v;
        } else if (!strcmp(s, "--core")) {
            core = true;
        } else if ((r = opt_value(a, "-o", &v)) != 0 || (r = opt_value(a, "--output", &v)) != 0) {
            if (r < 0) return usage_error(a->cmd, "option %s needs a value", "-o");
            out = v;
        } else {
            return usage_error(a->cmd, "unknown option '%s'", s);
        }
    }
    if (!backend) return usage_error(a->cmd, "%s", "missing --backend NAME");
    if (!og_is_c_ident(backend)) return usage_error(a->cmd, "the backend name '%s' must be a C identifier", backend);
    if (!out) return usage_error(a->cmd, "%s", "missing -o DIR");
    int sources = (in.nkernels > 0) + (select != NULL) + (ops != NULL) + core;
    if (sources != 1) return usage_error(a->cmd, "%s", "give exactly one of --kernels, --select, --ops, --core");
    og_session ss;
    og_session_init(&ss, stderr);
    bool ok = og_session_load(&ss, &in);
    og_skel k;
    og_skel_init(&k, backend);
    og_selection sel;
    og_sel_init(&sel, &ss.a, &ss.d);
    const og_edge *edge = ss.has_edge ? &ss.edge : NULL;
    if (ok && in.nkernels) { /* the vendor's kernel yaml: its kernel names and arg_meta dtypes */
        for (unsigned i = 0; ok && i < ss.kernels.n; i++) {
            const og_yaml_kernel *kk = &ss.kernels.items[i];
            ok = og_skel_add(&k, &ss.m, edge, kk->func, kk->symbol, kk->is_default ? 0xffffffffu : kk->dtypes);
        }
    } else if (ok) {
        if (select) {
            ydoc doc;
            ok = yaml_load_file(&ss.a, &ss.d, select, &doc) && og_sel_load_yaml(&sel, &doc);
        } else if (ops) {
            char *owned;
            const char *text = ops_text(ops, &owned);
            ok = og_sel_add_list(&sel, &ss.m, text, owned ? ops : "--ops");
            free(owned);
        }
        for (unsigned i = 0; ok && i < ss.m.nfuncs; i++) {
            const og_func *f = ss.m.funcs[i], *kf = NULL;
            og_dtset dts = 0xffffffffu;
            if (core) {
                kf = og_func_has_tag(f, ss.m.tag_core) ? og_func_out_variant(f) : NULL;
                if (!kf && og_func_has_tag(f, ss.m.tag_core) && f->kind == OG_KIND_OUT) kf = f;
            } else if (f->kind == OG_KIND_OUT || (f->backend && !og_func_out_variant(f))) {
                kf = og_sel_selects(&sel, f, &dts) ? f : NULL;
            }
            if (!kf) continue;
            char *sym = arena_printf(&ss.a, "%s_%s%s%s", backend, strcmp(kf->ns, "aten") ? kf->ns : "", strcmp(kf->ns, "aten") ? "_" : "", kf->name);
            for (char *c = sym; *c; c++)
                if (*c == '.') *c = '_';
            ok = og_skel_add(&k, &ss.m, edge, kf, sym, dts);
        }
    }
    strbuf report;
    sb_init(&report);
    if (ok && !k.n) {
        diag_plain(&ss.d, "no ops to write kernels for");
        ok = false;
    }
    if (ok) ok = og_skel_write(&k, &ss.m, out, OPGEN_VERSION_STRING, &report, &ss.d);
    if (ok) fputs(sb_cstr(&report), stdout);
    sb_free(&report);
    og_sel_free(&sel);
    og_skel_free(&k);
    diag_finish(&ss.d);
    og_session_free(&ss);
    return ok ? EXIT_OK : EXIT_BAD_INPUT;
}

static int cmd_coverage(args *a) {
    og_inputs in = {0};
    int rc = 0;
    const char *dir = NULL;
    bool jsonl = false;
    for (a->i = 2; a->i < a->argc; a->i++) {
        const char *s = a->argv[a->i], *v;
        if (is_help(s)) return fputs(usage_coverage, stdout), fputs(usage_inputs, stdout), EXIT_OK;
        int r = run_inputs_opt(a, &in, &rc);
        if (r < 0) return rc;
        if (r > 0) continue;
        if ((r = opt_value(a, "--format", &v)) != 0) {
            if (r < 0) return usage_error(a->cmd, "option %s needs a value", "--format");
            if (strcmp(v, "markdown") && strcmp(v, "jsonl")) return usage_error(a->cmd, "unknown format '%s' (expected markdown or jsonl)", v);
            jsonl = !strcmp(v, "jsonl");
        } else if (s[0] == '-') {
            return usage_error(a->cmd, "unknown option '%s'", s);
        } else if (dir) {
            return usage_error(a->cmd, "%s", "one backend folder at a time");
        } else {
            dir = s;
        }
    }
    if (!dir) return usage_error(a->cmd, "%s", "missing the backend folder");
    og_session ss;
    og_session_init(&ss, stderr);
    bool ok = og_session_load(&ss, &in);
    strbuf out;
    sb_init(&out);
    og_opgen_kernels ok_ = {&ss.m, &ss.kernels, &ss.backend};
    if (ok) ok = og_coverage(dir, &ok_, jsonl, &out, &ss.d);
    if (ok) fputs(sb_cstr(&out), stdout);
    sb_free(&out);
    diag_finish(&ss.d);
    og_session_free(&ss);
    return ok ? EXIT_OK : EXIT_BAD_INPUT;
}

int main(int argc, char **argv) {
    args a = {argc, 1, argv, NULL};
    if (argc < 2) {
        fputs(usage_main, stderr);
        return EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (is_help(cmd)) return fputs(usage_main, stdout), EXIT_OK;
    if (!strcmp(cmd, "--version")) return printf("opgen %s\n", OPGEN_VERSION_STRING), EXIT_OK;
    a.cmd = cmd;
    if (!strcmp(cmd, "check")) return cmd_check(&a);
    if (!strcmp(cmd, "list")) return cmd_list(&a);
    if (!strcmp(cmd, "dtypes")) return cmd_dtypes(&a);
    if (!strcmp(cmd, "generate")) return cmd_generate(&a);
    if (!strcmp(cmd, "select")) return cmd_select(&a);
    if (!strcmp(cmd, "skeleton")) return cmd_skeleton(&a);
    if (!strcmp(cmd, "coverage")) return cmd_coverage(&a);
    return usage_error(NULL, "unknown command '%s'", cmd);
}
