/* libFuzzer target: the edge.yaml loader (type_alias sets, type_constraint rows,
 * their binding to the op set) on arbitrary bytes, against the embedded op set;
 * then every loaded constraint is queried as the executor and emitters do. */
#include "inputs.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size > 1 << 16) return 0;
    og_session s;
    og_session_init(&s, NULL);
    og_inputs in = {0};
    ydoc doc;
    og_edge edge = {0};
    if (og_session_load(&s, &in) && og_yaml_load_buffer(&s.a, &s.d, "edge.yaml", (const char *)data, size, &doc) &&
        og_edge_load(&s.m, &doc, &edge)) {
        for (unsigned i = 0; i < s.m.nfuncs; i++) {
            const og_edge_op *e = og_edge_find(&edge, s.m.funcs[i]);
            for (unsigned a = 0; e && a < e->nargs; a++)
                if (e->args[a].allowed & ~OG_EDGE_DTYPES) abort(); /* only dtypes opgen knows */
        }
    }
    og_edge_free(&edge);
    og_session_free(&s);
    return 0;
}
