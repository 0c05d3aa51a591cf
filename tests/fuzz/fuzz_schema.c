/* libFuzzer target: the schema parser, checks, printer and derived schemas,
 * under every torchgen dialect. Invariant: an accepted schema re-prints as itself. */
#include "schema.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size > 4096) return 0;
    char *text = malloc(size + 1);
    if (!text) return 0;
    memcpy(text, data, size);
    text[size] = 0;
    const og_dialect *dialects[] = {&og_dialect_1_13, &og_dialect_2_6, &og_dialect_2_14};
    for (int d = 0; d < 3; d++) {
        arena a;
        arena_init(&a);
        og_err err;
        og_schema *s = og_schema_parse(&a, text, dialects[d], &err);
        if (!s) {
            if (err.off > size) abort(); /* an error must point inside the input */
        } else {
            strbuf b;
            sb_init(&b);
            og_print_schema(&b, s);
            if (strcmp(sb_cstr(&b), text) != 0) abort();
            if (og_schema_check(s, &err)) {
                og_kind k = og_schema_kind(s);
                sb_reset(&b);
                og_print_schema(&b, og_schema_signature(&a, s, false));
                if (k != OG_KIND_FUNCTIONAL) og_print_schema(&b, og_schema_to_functional(&a, s));
                if (k != OG_KIND_OUT && k != OG_KIND_SCRATCH) og_print_schema(&b, og_schema_to_out(&a, s));
            }
            sb_free(&b);
        }
        arena_free(&a);
    }
    free(text);
    return 0;
}
