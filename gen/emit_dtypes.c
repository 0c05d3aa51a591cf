/* `opgen dtypes` output: an op's Edge dtype rows as JSON lines, text or Markdown. */
#include "emit.h"
#include <stdlib.h>
#include <string.h>

static int cmp_args(const void *x, const void *y) {
    return strcmp((*(const og_edge_arg *const *)x)->name, (*(const og_edge_arg *const *)y)->name);
}

static int cmp_names(const void *x, const void *y) { return strcmp(*(const char *const *)x, *(const char *const *)y); }

/* Sorted dtype names of a set, as Python's sorted() orders strings. */
static unsigned sorted_names(og_dtset set, const char **out) {
    unsigned n = 0;
    for (int d = 0; d < OG_DTYPE_COUNT; d++)
        if (set >> d & 1) out[n++] = og_dtype_name(d);
    qsort(out, n, sizeof *out, cmp_names);
    return n;
}

void og_emit_dtypes_jsonl(strbuf *b, const og_edge_op *op) {
    /* keys sorted, like json.dumps(sort_keys=True): allowed, op, rows */
    const og_edge_arg **args = og_xmalloc(sizeof *args * (op->nargs + 1));
    for (unsigned a = 0; a < op->nargs; a++) args[a] = &op->args[a];
    qsort(args, op->nargs, sizeof *args, cmp_args);
    sb_puts(b, "{\"allowed\": {");
    for (unsigned a = 0; a < op->nargs; a++) {
        if (a) sb_puts(b, ", ");
        sb_json_str(b, args[a]->name);
        sb_puts(b, ": [");
        const char *names[OG_DTYPE_COUNT];
        unsigned n = sorted_names(args[a]->allowed, names);
        for (unsigned i = 0; i < n; i++) {
            if (i) sb_puts(b, ", ");
            sb_json_str(b, names[i]);
        }
        sb_putc(b, ']');
    }
    sb_puts(b, "}, \"op\": ");
    sb_json_str(b, op->op);
    sb_printf(b, ", \"rows\": %u}\n", op->nrows);
    free(args);
}

void og_emit_dtypes_text(strbuf *b, const og_edge_op *op) {
    sb_printf(b, "%s  (%u row%s)\n", op->op, op->nrows, op->nrows == 1 ? "" : "s");
    for (unsigned a = 0; a < op->nargs; a++) {
        const char *names[OG_DTYPE_COUNT];
        unsigned n = sorted_names(op->args[a].allowed, names);
        sb_printf(b, "  %-16s", op->args[a].name);
        for (unsigned i = 0; i < n; i++) sb_printf(b, " %s", names[i]);
        sb_putc(b, '\n');
    }
}

/* The dtypes a table column stands for, in the table's order. */
static const char *const table_dtypes[] = {"Bool", "Byte",     "Char",  "Short",  "Int",   "Long",
                                           "Half", "BFloat16", "Float", "Double", "UInt16"};
#define NTABLE (sizeof table_dtypes / sizeof *table_dtypes)

void og_emit_dtypes_markdown_head(strbuf *b) {
    sb_puts(b, "| op |");
    for (size_t i = 0; i < NTABLE; i++) sb_printf(b, " %s |", table_dtypes[i]);
    sb_puts(b, "\n|---|");
    for (size_t i = 0; i < NTABLE; i++) sb_puts(b, ":-:|");
    sb_putc(b, '\n');
}

/* One row: the dtypes the op's first constrained tensor (its input) takes. */
void og_emit_dtypes_markdown(strbuf *b, const og_edge_op *op) {
    og_dtset in = op->nargs ? op->args[0].allowed : 0;
    sb_printf(b, "| `%s` |", op->op);
    for (size_t i = 0; i < NTABLE; i++) {
        int d = og_dtype_parse(table_dtypes[i], strlen(table_dtypes[i]));
        sb_puts(b, d >= 0 && (in >> d & 1) ? " x |" : "   |");
    }
    sb_putc(b, '\n');
}
