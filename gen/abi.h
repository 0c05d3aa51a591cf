/* The kernel ABI of a schema type: how each argument crosses into a C kernel.
 * One mapping serves the kernel prototypes, the registry's trampolines and the
 * ABI kinds in the op tables, so they cannot disagree. */
#ifndef OG_ABI_H
#define OG_ABI_H
#include "schema.h"

typedef struct og_abi {
    const char *kind;  /* OPGEN_ABI_* suffix */
    const char *ctype; /* C parameter type */
    const char *expr;  /* the parameter from boxed value a[i]: "%u" stands for i */
} og_abi;

og_abi og_abi_of(const og_type *t, bool write);
/* A result written through a pointer (a scalar prim's or a functional op's kernel). */
og_abi og_abi_ret_of(const og_type *t);
/* An op whose kernel returns scalars through pointers: no out= arguments, and
 * every result an int, SymInt, float, bool or SymBool. */
bool og_schema_returns_scalars(const og_schema *s);

/* The C parameters of the kernel computing schema s, after `opgen_ctx *ctx`: its
 * arguments in schema order, then a pointer per result when it returns scalars. */
typedef struct og_kparam {
    const char *name; /* the schema's name (og_abi_reserved ones print with '_') */
    og_abi abi;
} og_kparam;
unsigned og_kernel_params(const og_schema *s, og_kparam *out, unsigned cap);
/* ", const opgen_tensor *self, ..., opgen_tensor *out" */
#include "strbuf.h"
void og_print_kernel_params(strbuf *b, const og_schema *s);
/* C and C++ keywords, `ctx` and names starting with og_ (generated code's locals)
 * cannot name parameters: they get a trailing '_'. */
bool og_abi_reserved(const char *name);
/* [A-Za-z_][A-Za-z0-9_]*: a kernel name, a backend name. */
bool og_is_c_ident(const char *s);
#endif
