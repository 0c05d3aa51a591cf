/* Command-line options for opgen and opgen-rt (opgen/cliopt.h): a table of
 * options parsed, checked and printed as usage. */
#include "opgen/cliopt.h"
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define END_OF(o) (!(o)->name && !(o)->metavar)

static const char *const kind_names[] = {"flag", "file", "dir", "out", "text", "number", "input"};

/* ---- the parsed values ---- */

static bool named(const opgen_opt *o, const char *name) {
    return o->name ? !strcmp(o->name, name) : !strcmp(o->metavar, name);
}

const char *opgen_cli_get(const opgen_cli *a, const char *name) {
    const char *v = NULL;
    for (int i = 0; i < a->n; i++)
        if (named(a->items[i].opt, name)) v = a->items[i].value;
    return v;
}

bool opgen_cli_has(const opgen_cli *a, const char *name) { return opgen_cli_get(a, name) != NULL; }

int opgen_cli_count(const opgen_cli *a, const char *name) {
    int n = 0;
    for (int i = 0; i < a->n; i++) n += named(a->items[i].opt, name);
    return n;
}

const char *opgen_cli_nth(const opgen_cli *a, const char *name, int k) {
    for (int i = 0; i < a->n; i++)
        if (named(a->items[i].opt, name) && k-- == 0) return a->items[i].value;
    return NULL;
}

int opgen_usage_error(const opgen_cli *a, const char *fmt, ...) {
    const char *cmd = a->cmd ? a->cmd->name : NULL;
    fprintf(stderr, "%s%s%s: ", a->prog->name, cmd ? " " : "", cmd ? cmd : "");
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nRun '%s%s%s --help' for usage.\n", a->prog->name, cmd ? " " : "", cmd ? cmd : "");
    return OPGEN_EXIT_USAGE;
}

/* ---- --help ---- */

/* Writes text at column `indent`, wrapped before column 80 (`col` is where the
 * cursor is now). */
static void wrap(FILE *out, const char *text, int col, int indent) {
    const char *p = text;
    while (*p) {
        const char *w = p;
        while (*w && *w != ' ' && *w != '\n') w++;
        int len = (int)(w - p);
        if (col > indent && col + 1 + len > 80) {
            fprintf(out, "\n%*s", indent, "");
            col = indent;
        } else if (col > indent) {
            fputc(' ', out);
            col++;
        }
        fwrite(p, 1, (size_t)len, out);
        col += len;
        p = w;
        if (*p == '\n') fprintf(out, "\n%*s", indent, ""), col = indent;
        while (*p == ' ' || *p == '\n') p++;
    }
}

static void synopsis_item(FILE *out, const opgen_opt *o, int *col) {
    char item[160];
    bool req = o->flags & OPGEN_OPT_REQUIRED;
    const char *rep = o->flags & OPGEN_OPT_REPEAT ? "..." : "";
    if (!o->name)
        snprintf(item, sizeof item, req ? "%s%s" : "[%s]%s", o->metavar, rep);
    else if (o->kind == OPGEN_OPT_FLAG)
        snprintf(item, sizeof item, "[%s]%s", o->name, rep);
    else
        snprintf(item, sizeof item, req ? "%s %s%s" : "[%s %s]%s", o->alias ? o->alias : o->name, o->metavar, rep);
    int len = (int)strlen(item);
    if (*col + 1 + len > 80) fprintf(out, "\n%*s", 8, ""), *col = 8;
    *col += fprintf(out, " %s", item);
}

static void option_lines(FILE *out, const opgen_opt *opts) {
    for (const opgen_opt *o = opts; !END_OF(o); o++) {
        char left[96];
        if (!o->name)
            snprintf(left, sizeof left, "%s", o->metavar);
        else if (o->kind == OPGEN_OPT_FLAG)
            snprintf(left, sizeof left, "%s", o->name);
        else
            snprintf(left, sizeof left, "%s%s%s %s", o->alias ? o->alias : "", o->alias ? ", " : "", o->name,
                     o->metavar);
        int col = fprintf(out, "  %s", left);
        if (col < 26)
            col += fprintf(out, "%*s", 26 - col, "");
        else
            col += fprintf(out, "  ");
        wrap(out, o->help ? o->help : "", col, 26);
        fputc('\n', out);
    }
}

static void command_help(const opgen_prog *p, const opgen_cmd *c, FILE *out) {
    int col = fprintf(out, "usage: %s %s", p->name, c->name);
    for (const opgen_opt *o = c->opts; !END_OF(o); o++) synopsis_item(out, o, &col);
    if (c->common) fprintf(out, "%s[%s]", col + 10 > 80 ? "\n        " : " ", c->common_title);
    fputs("\n\n", out);
    wrap(out, c->about, 0, 0);
    fputs("\n\noptions:\n", out);
    option_lines(out, c->opts);
    if (c->common) {
        fprintf(out, "%s:\n", c->common_title);
        option_lines(out, c->common);
    }
}

static void program_help(const opgen_prog *p, FILE *out) {
    fprintf(out, "usage: %s COMMAND [OPTIONS]\n\n", p->name);
    wrap(out, p->about, 0, 0);
    fputs("\n\ncommands:\n", out);
    for (int i = 0; i < p->ncmds; i++) fprintf(out, "  %-10s %s\n", p->cmds[i]->name, p->cmds[i]->summary);
    fprintf(out, "\nRun '%s COMMAND --help' for a command's options.%s\nExit status: 0 ok, 1 bad input, 2 bad usage.\n",
            p->name, p->version ? " '--version' prints the version." : "");
}

static void list_options(const opgen_prog *p) {
    for (int i = 0; i < p->ncmds; i++)
        for (int pass = 0; pass < 2; pass++)
            for (const opgen_opt *o = pass ? p->cmds[i]->common : p->cmds[i]->opts; o && !END_OF(o); o++)
                printf("%s\t%s%s%s\t%s\t%s\t%s%s%s\n", p->cmds[i]->name, o->name ? "" : "<",
                       o->name ? o->name : o->metavar, o->name ? "" : ">", kind_names[o->kind],
                       o->format ? o->format : "-", o->flags & OPGEN_OPT_REQUIRED ? "required" : "optional",
                       o->flags & OPGEN_OPT_REPEAT ? ",repeat" : "", o->name ? "" : ",positional");
}

/* ---- parsing ---- */

static const opgen_opt *find_opt(const opgen_cmd *c, const char *arg, size_t n) {
    for (int pass = 0; pass < 2; pass++)
        for (const opgen_opt *o = pass ? c->common : c->opts; o && !END_OF(o); o++)
            if ((o->name && strlen(o->name) == n && !strncmp(o->name, arg, n)) ||
                (o->alias && strlen(o->alias) == n && !strncmp(o->alias, arg, n)))
                return o;
    return NULL;
}

/* A value checked against the option's kind: choices, numbers, NAME=VALUE. */
static int check_value(const opgen_cli *a, const opgen_opt *o, const char *v) {
    if (!*v && o->kind != OPGEN_OPT_FLAG)
        return opgen_usage_error(a, "option %s needs a value, not an empty string", o->name ? o->name : o->metavar);
    if (o->kind == OPGEN_OPT_TEXT && o->format) {
        size_t n = strlen(v);
        for (const char *c = o->format; *c;) {
            const char *bar = strchr(c, '|');
            size_t cl = bar ? (size_t)(bar - c) : strlen(c);
            if (cl == n && !strncmp(c, v, n)) return OPGEN_EXIT_OK;
            c += cl + (bar ? 1 : 0);
        }
        char expected[256] = "";
        size_t len = 0;
        for (const char *c = o->format; *c && len < sizeof expected;) {
            const char *bar = strchr(c, '|');
            size_t cl = bar ? (size_t)(bar - c) : strlen(c);
            const char *sep = c == o->format ? "" : bar ? ", " : " or ";
            len += (size_t)snprintf(expected + len, sizeof expected - len, "%s%.*s", sep, (int)cl, c);
            c += cl + (bar ? 1 : 0);
        }
        return opgen_usage_error(a, "unknown %s '%s' (expected %s)", o->what ? o->what : o->metavar, v, expected);
    }
    if (o->kind == OPGEN_OPT_NUMBER) {
        char *end;
        strtoll(v, &end, 10);
        if (end == v || *end) return opgen_usage_error(a, "option %s takes an integer, not '%s'", o->name, v);
    }
    if (o->kind == OPGEN_OPT_INPUT && (!strchr(v, '=') || v[0] == '='))
        return opgen_usage_error(a, "option %s takes NAME=VALUE, not '%s'", o->name, v);
    return OPGEN_EXIT_OK;
}

static int add(opgen_cli *a, const opgen_opt *o, const char *v) {
    if (!(o->flags & OPGEN_OPT_REPEAT) && opgen_cli_has(a, o->name ? o->name : o->metavar)) {
        if (!o->name) return opgen_usage_error(a, "one %s at a time", o->what ? o->what : o->metavar);
        return opgen_usage_error(a, "option %s given twice", o->name);
    }
    int rc = check_value(a, o, v);
    if (rc) return rc;
    a->items[a->n].opt = o;
    a->items[a->n++].value = v;
    return OPGEN_EXIT_OK;
}

static const opgen_opt *positional(const opgen_cmd *c, const opgen_cli *a) {
    for (const opgen_opt *o = c->opts; !END_OF(o); o++)
        if (!o->name && ((o->flags & OPGEN_OPT_REPEAT) || !opgen_cli_has(a, o->metavar))) return o;
    return NULL;
}

/* -1: parsed; otherwise the exit status (help shown, or a usage error). */
static int parse(opgen_cli *a, int argc, char **argv) {
    const opgen_cmd *c = a->cmd;
    for (int i = 2; i < argc; i++) {
        const char *s = argv[i];
        if (!strcmp(s, "--help") || !strcmp(s, "-h")) return command_help(a->prog, c, stdout), OPGEN_EXIT_OK;
        if (s[0] != '-' || !s[1]) { /* a positional ("-" alone included) */
            const opgen_opt *o = positional(c, a);
            if (!o) {
                for (const opgen_opt *p = c->opts; !END_OF(p); p++)
                    if (!p->name) return opgen_usage_error(a, "one %s at a time", p->what ? p->what : p->metavar);
                return opgen_usage_error(a, "unexpected argument '%s'", s);
            }
            int rc = add(a, o, s);
            if (rc) return rc;
            continue;
        }
        const char *eq = strchr(s, '=');
        size_t n = eq && s[1] == '-' ? (size_t)(eq - s) : strlen(s);
        const opgen_opt *o = find_opt(c, s, n);
        if (!o) return opgen_usage_error(a, "unknown option '%.*s'", (int)n, s);
        const char *v = "";
        if (o->kind != OPGEN_OPT_FLAG) {
            if (n < strlen(s))
                v = s + n + 1;
            else if (i + 1 < argc)
                v = argv[++i];
            else
                return opgen_usage_error(a, "option %s needs a value", o->name);
        } else if (n < strlen(s)) {
            return opgen_usage_error(a, "option %s takes no value", o->name);
        }
        int rc = add(a, o, v);
        if (rc) return rc;
    }
    for (const opgen_opt *o = c->opts; !END_OF(o); o++)
        if ((o->flags & OPGEN_OPT_REQUIRED) && !opgen_cli_has(a, o->name ? o->name : o->metavar))
            return o->name
                       ? opgen_usage_error(a, "missing %s %s", o->alias ? o->alias : o->name, o->metavar)
                       : opgen_usage_error(a, "missing %s%s", o->what ? "the " : "", o->what ? o->what : o->metavar);
    return -1;
}

int opgen_cli_main(const opgen_prog *p, int argc, char **argv, void *ctx) {
    opgen_cli a = {p, NULL, 0, NULL};
    if (argc < 2) return program_help(p, stderr), OPGEN_EXIT_USAGE;
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h")) return program_help(p, stdout), OPGEN_EXIT_OK;
    if (!strcmp(cmd, "--version") && p->version) return printf("%s %s\n", p->name, p->version), OPGEN_EXIT_OK;
    if (!strcmp(cmd, "--list-options")) return list_options(p), OPGEN_EXIT_OK;
    for (int i = 0; i < p->ncmds && !a.cmd; i++)
        if (!strcmp(p->cmds[i]->name, cmd)) a.cmd = p->cmds[i];
    if (!a.cmd) return opgen_usage_error(&a, "unknown command '%s'", cmd);
    a.items = malloc(sizeof *a.items * (size_t)argc);
    if (!a.items) return fprintf(stderr, "%s: out of memory\n", p->name), OPGEN_EXIT_BAD_INPUT;
    int rc = parse(&a, argc, argv);
    if (rc < 0) rc = a.cmd->run(&a, ctx);
    free(a.items);
    if (fflush(stdout) != 0) {
        fprintf(stderr, "%s: error: cannot write the output\n", p->name);
        if (!rc) rc = OPGEN_EXIT_BAD_INPUT;
    }
    return rc;
}
