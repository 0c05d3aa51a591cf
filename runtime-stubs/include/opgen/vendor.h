/* A backend's own kernels, in the table `opgen skeleton` writes for it. Loading a
 * program with backends (opgen_load_options.vendors) tries, per step, each
 * backend's kernel for the op first: a kernel that answers "not implemented" (a
 * stub case) or "no such dtype" hands the step on, in the end to opgen's own
 * kernel (portable, native or a backend op's fallback). */
#ifndef OPGEN_VENDOR_H
#define OPGEN_VENDOR_H
#include "opgen_registry.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct opgen_vendor_kernel {
    const char *op;            /* the op it computes: "aten::add.out" (matched by name) */
    opgen_kernel_entry kernel; /* function, trampoline, dtypes its switch has, name */
} opgen_vendor_kernel;

typedef struct opgen_vendor {
    const char *name; /* the backend */
    const opgen_vendor_kernel *kernels;
    int nkernels;
} opgen_vendor;

#ifdef __cplusplus
}
#endif
#endif
