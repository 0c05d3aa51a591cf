/* opgen skeleton 0.1.0, checksum 74ac929b47f0ce6c: yours once you change it */
/* The demo backend's kernels (written by opgen skeleton; regenerated while unchanged). */
#ifndef demo_KERNELS_H
#define demo_KERNELS_H
#include "opgen/kernel.h"
#include "opgen/vendor.h"

opgen_status demo_add_out(opgen_ctx *ctx, const opgen_tensor *self, const opgen_tensor *other, const opgen_scalar *alpha, opgen_tensor *out);
opgen_status demo_mul_out(opgen_ctx *ctx, const opgen_tensor *self, const opgen_tensor *other, opgen_tensor *out);
opgen_status demo_relu_out(opgen_ctx *ctx, const opgen_tensor *self, opgen_tensor *out);

/* The table a runner gives opgen (opgen_load_options.vendors, opgen_rt_main). */
extern const opgen_vendor opgen_vendor_demo;
#endif
