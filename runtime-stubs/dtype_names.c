/* The dtypes' and memory formats' spellings in graph text and PyTorch: "f32"
 * and "torch.float32" (with PyTorch's aliases, "torch.float"), one table for the
 * parser, the printer, .npy and messages (opgen/graph.h). Names by number are
 * opgen/dtype.h's (opgen_dtype_name). */
#include "opgen/graph.h"
#include <stdio.h>
#include <string.h>

/* ---- dtype names ---- */

static const struct {
    const char *abbrev, *torch;
    opgen_dtype dtype;
} dtype_names[] = {
    {"b8", "torch.bool", OPGEN_DTYPE_Bool},
    {"u8", "torch.uint8", OPGEN_DTYPE_Byte},
    {"i8", "torch.int8", OPGEN_DTYPE_Char},
    {"i16", "torch.int16", OPGEN_DTYPE_Short},
    {"i32", "torch.int32", OPGEN_DTYPE_Int},
    {"i64", "torch.int64", OPGEN_DTYPE_Long},
    {"f16", "torch.float16", OPGEN_DTYPE_Half},
    {"bf16", "torch.bfloat16", OPGEN_DTYPE_BFloat16},
    {"f32", "torch.float32", OPGEN_DTYPE_Float},
    {"f64", "torch.float64", OPGEN_DTYPE_Double},
    {"u16", "torch.uint16", OPGEN_DTYPE_UInt16},
    {"c64", "torch.complex64", OPGEN_DTYPE_ComplexFloat},
    {"c128", "torch.complex128", OPGEN_DTYPE_ComplexDouble},
};
/* PyTorch's other spellings of the same dtypes */
static const struct {
    const char *name;
    opgen_dtype dtype;
} torch_aliases[] = {
    {"torch.float", OPGEN_DTYPE_Float},
    {"torch.double", OPGEN_DTYPE_Double},
    {"torch.half", OPGEN_DTYPE_Half},
    {"torch.long", OPGEN_DTYPE_Long},
    {"torch.int", OPGEN_DTYPE_Int},
    {"torch.short", OPGEN_DTYPE_Short},
    {"torch.cfloat", OPGEN_DTYPE_ComplexFloat},
    {"torch.cdouble", OPGEN_DTYPE_ComplexDouble},
    {"torch.uint32", OPGEN_DTYPE_UInt32},
    {"torch.uint64", OPGEN_DTYPE_UInt64},
};
static const char *const memfmt_names[] = {"torch.contiguous_format", "torch.channels_last", "torch.channels_last_3d",
                                           "torch.preserve_format"};

int opgen_dtype_from_abbrev(const char *s, size_t n) {
    for (size_t i = 0; i < sizeof dtype_names / sizeof *dtype_names; i++)
        if (strlen(dtype_names[i].abbrev) == n && !memcmp(dtype_names[i].abbrev, s, n)) return dtype_names[i].dtype;
    return -1;
}

int opgen_dtype_from_torch(const char *s, size_t n) {
    for (size_t i = 0; i < sizeof dtype_names / sizeof *dtype_names; i++)
        if (strlen(dtype_names[i].torch) == n && !memcmp(dtype_names[i].torch, s, n)) return dtype_names[i].dtype;
    for (size_t i = 0; i < sizeof torch_aliases / sizeof *torch_aliases; i++)
        if (strlen(torch_aliases[i].name) == n && !memcmp(torch_aliases[i].name, s, n)) return torch_aliases[i].dtype;
    return -1;
}

const char *opgen_dtype_abbrev(opgen_dtype d) {
    for (size_t i = 0; i < sizeof dtype_names / sizeof *dtype_names; i++)
        if (dtype_names[i].dtype == d) return dtype_names[i].abbrev;
    return NULL;
}

const char *opgen_type_format(char *buf, size_t cap, opgen_dtype d, int32_t dim, const int64_t *sizes) {
    const char *ab = opgen_dtype_abbrev(d);
    size_t n = 0;
    if (!cap) return buf;
    buf[0] = 0;
#define PUT(...) (n < cap ? (void)(n += (size_t)snprintf(buf + n, cap - n, __VA_ARGS__)) : (void)0)
    PUT("%s[", ab ? ab : opgen_dtype_name(d));
    for (int32_t i = 0; i < dim; i++) PUT("%s%lld", i ? ", " : "", (long long)sizes[i]);
    PUT("]");
#undef PUT
    return buf;
}

const char *opgen_dtype_torch_name(opgen_dtype d) {
    for (size_t i = 0; i < sizeof dtype_names / sizeof *dtype_names; i++)
        if (dtype_names[i].dtype == d) return dtype_names[i].torch;
    for (size_t i = 0; i < sizeof torch_aliases / sizeof *torch_aliases; i++)
        if (torch_aliases[i].dtype == d) return torch_aliases[i].name;
    return NULL;
}

int opgen_memfmt_from_torch(const char *s, size_t n) {
    for (int i = 0; i < 4; i++)
        if (strlen(memfmt_names[i]) == n && !memcmp(memfmt_names[i], s, n)) return i;
    return -1;
}

const char *opgen_memfmt_torch_name(int i) { return memfmt_names[i & 3]; }
