/* The dtypes as the generator sees them: opgen's one dtype table
 * (runtime-stubs/include/opgen/dtype.h), with lookups by name. */
#ifndef OG_DTYPE_H
#define OG_DTYPE_H
#include "opgen/dtype.h"
#include <stddef.h>

#define OG_DTYPE_COUNT OPGEN_DTYPE_COUNT
#define OG_EDGE_DTYPES OPGEN_EDGE_DTYPES

/* A set of dtypes: bit n is ScalarType n. */
typedef opgen_dtype_set og_dtset;

/* Number of the dtype called `name` (n bytes), or -1. */
int og_dtype_parse(const char *name, size_t n);
const char *og_dtype_name(int dtype);
/* Element size in bytes. */
int og_dtype_size(int dtype);
#endif
