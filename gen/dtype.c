/* The dtypes as the generator sees them (dtype.h): opgen/dtype.h's table, with
 * lookups by name. */
#include "dtype.h"
#include <string.h>

static const char *const names[OG_DTYPE_COUNT] = {
#define OG_DT_NAME(n, v, size) [v] = #n,
    OPGEN_DTYPES(OG_DT_NAME)
#undef OG_DT_NAME
};

static const unsigned char sizes[OG_DTYPE_COUNT] = {
#define OG_DT_SIZE(n, v, size) [v] = size,
    OPGEN_DTYPES(OG_DT_SIZE)
#undef OG_DT_SIZE
};

int og_dtype_parse(const char *name, size_t n) {
    for (int i = 0; i < OG_DTYPE_COUNT; i++)
        if (n && names[i][0] == name[0] && strlen(names[i]) == n && !memcmp(names[i], name, n)) return i;
    return -1;
}

const char *og_dtype_name(int dtype) { return dtype >= 0 && dtype < OG_DTYPE_COUNT ? names[dtype] : "?"; }

int og_dtype_size(int dtype) { return dtype >= 0 && dtype < OG_DTYPE_COUNT ? sizes[dtype] : 0; }
