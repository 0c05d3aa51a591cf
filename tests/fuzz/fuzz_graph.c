/* libFuzzer target: the graph text parser (program and pattern modes), the
 * printer, and parse(print(g)) == g on whatever parses. */
#include "opgen/graph.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size > 1 << 15) return 0;
    for (int pattern = 0; pattern < 2; pattern++) {
        opgen_arena a;
        opgen_arena_init_growing(&a);
        opgen_error err = {0};
        opgen_graph g, h;
        if (!opgen_graph_parse("f", (const char *)data, size, pattern, &a, &g, &err)) {
            size_t n = opgen_graph_print(&g, NULL, 0);
            char *buf = malloc(n + 1);
            if (buf) {
                opgen_graph_print(&g, buf, n + 1);
                opgen_error e2 = {0};
                if (opgen_graph_parse("p", buf, n, pattern, &a, &h, &e2) || !opgen_graph_equal(&g, &h)) abort();
                free(buf);
            }
        } else if (err.line == 0) {
            abort(); /* every parse error has a position */
        }
        opgen_arena_release(&a);
    }
    return 0;
}
