/* libFuzzer target: the YAML layer and the whole native_functions model
 * (entries, cross checks, autogen, grouping) on arbitrary bytes. */
#include "inputs.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char tags[] = "- tag: core\n  desc: c\n- tag: pointwise\n  desc: p\n- tag: nondeterministic_seeded\n  desc: n\n"
                           "- tag: inplace_view\n  desc: v\n- tag: view_copy\n  desc: v\n- tag: pt2_compliant_tag\n  desc: p\n"
                           "- tag: inplace\n  desc: i\n- tag: out\n  desc: o\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size > 1 << 16) return 0;
    char *buf = malloc(size + 1);
    if (!buf) return 0;
    memcpy(buf, data, size);
    buf[size] = 0;
    og_session s;
    og_session_init(&s, NULL);
    ydoc td, nd;
    if (yaml_load_buffer(&s.a, &s.d, "tags.yaml", tags, sizeof tags - 1, &td) && og_model_load_tags(&s.m, &td) &&
        yaml_load_buffer(&s.a, &s.d, "nf.yaml", buf, size, &nd))
        og_model_load_native(&s.m, &nd);
    og_session_free(&s);
    free(buf);
    return 0;
}
