/* opgen-rt: the runtime's command line. */
#include "opgen/graph.h"
#include "opgen/npy.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { EXIT_OK = 0, EXIT_BAD_INPUT = 1, EXIT_USAGE = 2 };

static const char usage[] =
    "usage: opgen-rt COMMAND [OPTIONS]\n"
    "\n"
    "commands:\n"
    "  print FILE.graph [--pattern]   parse a program and print it in canonical form\n"
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

int main(int argc, char **argv) {
    if (argc < 2) return fputs(usage, stderr), EXIT_USAGE;
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) return fputs(usage, stdout), EXIT_OK;
    if (!strcmp(argv[1], "print")) return cmd_print(argc, argv);
    fprintf(stderr, "opgen-rt: unknown command '%s'\nRun 'opgen-rt --help' for usage.\n", argv[1]);
    return EXIT_USAGE;
}
