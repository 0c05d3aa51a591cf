/* libFuzzer target: the YAML layer, the tags loader and the whole native_functions
 * model (entries, cross checks, autogen, grouping) on arbitrary bytes. The first
 * byte picks the file under test: odd, the bytes after it are tags.yaml and a small
 * fixed native_functions follows; even, they are native_functions.yaml after a
 * fixed tags file. */
#include "inputs.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char tags[] =
    "- tag: core\n  desc: c\n- tag: pointwise\n  desc: p\n- tag: nondeterministic_seeded\n  desc: n\n"
    "- tag: inplace_view\n  desc: v\n- tag: view_copy\n  desc: v\n- tag: pt2_compliant_tag\n  desc: p\n"
    "- tag: inplace\n  desc: i\n- tag: out\n  desc: o\n";
static const char native[] =
    "- func: add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor\n"
    "  structured_delegate: add.out\n  variants: function, method\n  tags: [core, pointwise]\n"
    "- func: add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)\n"
    "  structured: True\n  structured_inherits: TensorIteratorBase\n  dispatch:\n    CPU: add_out\n"
    "- func: relu(Tensor self) -> Tensor\n  variants: function, method\n  tags: [core, pointwise]\n"
    "  dispatch:\n    CPU: relu\n  autogen: relu.out\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1 || size > 1 << 16) return 0;
    bool fuzz_tags = data[0] & 1;
    data++, size--;
    char *buf = malloc(size + 1);
    if (!buf) return 0;
    memcpy(buf, data, size);
    buf[size] = 0;
    const char *t = fuzz_tags ? buf : tags, *n = fuzz_tags ? native : buf;
    size_t tn = fuzz_tags ? size : sizeof tags - 1, nn = fuzz_tags ? sizeof native - 1 : size;
    og_session s;
    og_session_init(&s, NULL);
    ydoc td, nd;
    if (og_yaml_load_buffer(&s.a, &s.d, "tags.yaml", t, tn, &td) && og_model_load_tags(&s.m, &td) &&
        og_yaml_load_buffer(&s.a, &s.d, "nf.yaml", n, nn, &nd))
        og_model_load_native(&s.m, &nd);
    og_session_free(&s);
    free(buf);
    return 0;
}
