/* The kernel ABI of a schema type: how each argument crosses into a C kernel.
 * One mapping serves the kernel prototypes, the registry's trampolines and the
 * ABI kinds in the op tables, so they cannot disagree. */
#ifndef OPGEN_ABI_H
#define OPGEN_ABI_H
#include "schema.h"

typedef struct og_abi {
    const char *kind;  /* OPGEN_ABI_* suffix */
    const char *ctype; /* C parameter type */
    const char *expr;  /* the parameter from boxed value a[i]: "%u" stands for i */
} og_abi;

og_abi og_abi_of(const og_type *t, bool write);
/* C and C++ keywords (and `ctx`) cannot name parameters: they get a trailing '_'. */
bool og_abi_reserved(const char *name);
#endif
