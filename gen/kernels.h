/* Kernel lists in ExecuTorch's kernel yaml format (functions.yaml, custom_ops.yaml,
 * quantized.yaml): `op:` entries naming model ops, `func:` entries declaring
 * custom ops with their own schemas (added to the model before grouping), and
 * per entry `kernels:` of {arg_meta, kernel_name} with type_alias / dim_order_alias. */
#ifndef OG_KERNELS_H
#define OG_KERNELS_H
#include "dtype.h"
#include "edge.h"
#include "model.h"

/* A keyed kernel's key (arg_meta): per named tensor argument, the dtypes its type
 * alias allows (arguments sharing an alias must agree: same_as, the earlier one)
 * and its dim order. */
#define OG_KEY_MAX_DIM 16
typedef struct og_key_arg {
    unsigned arg;
    const char *alias; /* its type alias */
    int same_as;
    og_dtset dtypes;
    unsigned ndim;
    unsigned char order[OG_KEY_MAX_DIM];
} og_key_arg;
typedef struct og_kernel_key {
    unsigned n;
    og_key_arg *args;
} og_kernel_key;

typedef struct og_yaml_kernel {
    const og_func *func;     /* the op it computes (an out= op for the runtime) */
    const char *kernel_name; /* as written: torch::executor::add_out */
    const char *symbol;      /* the C function: '::' becomes '_'; NAME__<op> where the
                                kernel_name also serves an op of another C signature */
    const char *overloads;   /* that case: the symbol of the first op's kernel, else NULL */
    og_dtset dtypes;         /* dtypes of the op's first out argument it handles */
    bool is_default;         /* arg_meta: null */
    og_kernel_key key;       /* else: the arguments it is for */
    const ynode *node;       /* copy of the kernel_name scalar, for positions */
} og_yaml_kernel;

typedef struct og_yaml_kernels {
    og_yaml_kernel *items;
    unsigned n, cap;
} og_yaml_kernels;

/* Pass 1 (before og_model_finish_native): declare the file's func: entries. */
void og_kernels_declare(og_model *m, const ydoc *doc);
/* Pass 2 (after): resolve every entry and append its kernels. */
bool og_kernels_load(og_model *m, const og_edge *edge, const ydoc *doc, og_yaml_kernels *out);
/* The same for a vendor's kernel yaml (--vendor-ops): op: entries naming ops the
 * model lacks are skipped, not errors (they are the vendor's, not the tables'). */
bool og_kernels_load_vendor(og_model *m, const og_edge *edge, const ydoc *doc, og_yaml_kernels *out);
void og_yaml_kernels_free(og_yaml_kernels *l);
/* Across all kernel files: one default kernel per op; a kernel_name shared by ops
 * of different C signatures (a C++ overload) gets a distinct C symbol for each
 * signature after the first. */
bool og_kernels_check(og_model *m, og_yaml_kernels *l, diag *d);
/* The dtypes an op's first out argument may carry (Edge constraints, else the
 * defaults); 0 when it has no out argument. */
og_dtset og_out_dtypes(const og_func *f, const og_edge *edge);
#endif
