/* Command lines from tables, for opgen and opgen-rt: each command declares its
 * options once (name, what the value is, how often it may be given, help), and
 * parsing, --help and the test suite's fault matrix (`--list-options`) all come
 * from that table. Usage errors exit 2 with "PROG CMD: message". */
#ifndef OPGEN_CLIOPT_H
#define OPGEN_CLIOPT_H
#include <stdbool.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

enum { OPGEN_EXIT_OK = 0, OPGEN_EXIT_BAD_INPUT = 1, OPGEN_EXIT_USAGE = 2 };

/* What an option's value is (the fault matrix feeds each kind its own bad values). */
typedef enum opgen_optkind {
    OPGEN_OPT_FLAG,   /* no value */
    OPGEN_OPT_FILE,   /* an input file; `format` names what it holds (yaml, pte, graph, npy, ...) */
    OPGEN_OPT_DIR,    /* an input folder */
    OPGEN_OPT_OUT,    /* where output goes: a file or a folder */
    OPGEN_OPT_TEXT,   /* a name, a list; with `choices`, one of them */
    OPGEN_OPT_NUMBER, /* an integer */
    OPGEN_OPT_INPUT   /* NAME=VALUE: a program input, VALUE a file (`format`) or a number */
} opgen_optkind;

enum {
    OPGEN_OPT_REPEAT = 1,    /* may be given any number of times */
    OPGEN_OPT_REQUIRED = 2,  /* must be given */
    OPGEN_OPT_POSITIONAL = 4 /* written without a name (name is NULL) */
};

typedef struct opgen_opt {
    const char *name;    /* "--kernels"; NULL for a positional argument */
    const char *alias;   /* "-o", or NULL */
    const char *metavar; /* "FILE" (a positional's name in messages: "the backend folder") */
    opgen_optkind kind;
    const char *format; /* files: what they hold; TEXT: "a|b|c" choices, or NULL */
    unsigned flags;
    const char *what; /* in messages: "unknown <what> 'x'" for a bad choice, "missing the
                         <what>" for a positional; NULL: the metavar */
    const char *help;
} opgen_opt;

typedef struct opgen_cli opgen_cli;

typedef struct opgen_cmd {
    const char *name;
    const char *summary;      /* one line, for the program's --help */
    const char *about;        /* the paragraph of the command's --help */
    const opgen_opt *opts;    /* terminated by an entry with neither name nor metavar */
    const opgen_opt *common;  /* options several commands share (inputs), or NULL */
    const char *common_title; /* their heading in --help */
    int (*run)(const opgen_cli *a, void *ctx);
} opgen_cmd;

typedef struct opgen_prog {
    const char *name;    /* "opgen" */
    const char *version; /* printed by --version, or NULL */
    const char *about;
    const opgen_cmd *const *cmds;
    int ncmds;
} opgen_prog;

/* The parsed command line: every value given, in order. */
struct opgen_cli {
    const opgen_prog *prog;
    const opgen_cmd *cmd;
    int n;
    struct opgen_cli_value {
        const opgen_opt *opt;
        const char *value; /* "" for a flag */
    } * items;
};

/* The last value given for an option (by its name, or a positional's metavar),
 * or NULL. */
const char *opgen_cli_get(const opgen_cli *a, const char *name);
bool opgen_cli_has(const opgen_cli *a, const char *name);
int opgen_cli_count(const opgen_cli *a, const char *name);
/* The i-th value of a repeatable option. */
const char *opgen_cli_nth(const opgen_cli *a, const char *name, int i);
/* Reports a usage error ("PROG CMD: message" and where --help is) and returns 2. */
int opgen_usage_error(const opgen_cli *a, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* The whole command line: --help, --version, --list-options (the option tables,
 * one line per option: command, option, kind, format, flags), the command, its
 * options, then its run(). Returns the exit status. */
int opgen_cli_main(const opgen_prog *prog, int argc, char **argv, void *ctx);

#ifdef __cplusplus
}
#endif
#endif
