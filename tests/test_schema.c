/* Unit tests of the schema language: every grammar rule and check, accepted and
 * rejected, with the exact column and message (tests/schema_cases.h).
 * `test_schema --print` prints the current results as table rows, to review a change. */
#include "schema.h"
#include <stdio.h>
#include <string.h>

#include "schema_cases.h"

static void result(arena *a, const og_dialect *dl, const char *text, char *out, size_t cap) {
    og_err err;
    og_schema *s = og_schema_parse(a, text, dl, &err);
    if (s && og_schema_check(s, &err)) {
        strbuf b;
        sb_init(&b);
        og_print_schema(&b, s);
        if (strcmp(sb_cstr(&b), text))
            snprintf(out, cap, "re-printed as '%s'", b.p);
        else
            snprintf(out, cap, "ok %s", og_kind_name(og_schema_kind(s)));
        sb_free(&b);
        return;
    }
    snprintf(out, cap, "%u: %s", err.off + 1, err.msg);
}

static void c_string(const char *s) {
    putchar('"');
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            printf("\\%c", *s);
        else if (*s == '\t')
            printf("\\t");
        else
            putchar(*s);
    }
    putchar('"');
}

int main(int argc, char **argv) {
    bool print = argc > 1 && !strcmp(argv[1], "--print");
    unsigned n = sizeof schema_cases / sizeof *schema_cases, failed = 0, accepted = 0, rejected = 0;
    for (unsigned i = 0; i < n; i++) {
        const struct schema_case *c = &schema_cases[i];
        arena a;
        arena_init(&a);
        char got[600];
        result(&a, og_dialect_find(c->dialect), c->schema, got, sizeof got);
        arena_free(&a);
        if (!strncmp(got, "ok ", 3))
            accepted++;
        else
            rejected++;
        if (print) {
            printf("    {\"%s\", ", c->dialect);
            c_string(c->schema);
            printf(",\n     ");
            c_string(got);
            printf("},\n");
            continue;
        }
        if (strcmp(got, c->expect)) {
            printf("FAIL [%s] %s\n  expected: %s\n  got:      %s\n", c->dialect, c->schema, c->expect, got);
            failed++;
        }
    }
    if (print) return 0;
    printf("test_schema: %u cases (%u accepted, %u rejected), %u failed\n", n, accepted, rejected, failed);
    return failed ? 1 : 0;
}
