/* opgen skeleton 0.1.0, checksum 83d9cee528fb4068: yours once you change it */
/* The demo backend's kernel table (written by opgen skeleton; regenerated while
 * unchanged): per op, the kernel and the dtypes its switch has cases for. */
#include "demo_kernels.h"

static opgen_status call_1(opgen_ctx *ctx, void (*fn)(void), const opgen_value *a) {
    return ((opgen_status(*)(opgen_ctx *, const opgen_tensor *, const opgen_tensor *, const opgen_scalar *, opgen_tensor *))fn)(ctx, a[0].v.t, a[1].v.t, &a[2].v.s, a[3].v.t);
}
static opgen_status call_2(opgen_ctx *ctx, void (*fn)(void), const opgen_value *a) {
    return ((opgen_status(*)(opgen_ctx *, const opgen_tensor *, const opgen_tensor *, opgen_tensor *))fn)(ctx, a[0].v.t, a[1].v.t, a[2].v.t);
}
static opgen_status call_3(opgen_ctx *ctx, void (*fn)(void), const opgen_value *a) {
    return ((opgen_status(*)(opgen_ctx *, const opgen_tensor *, opgen_tensor *))fn)(ctx, a[0].v.t, a[1].v.t);
}

static const opgen_vendor_kernel kernels[] = {
    {"aten::add.out", {(void (*)(void))demo_add_out, call_1, 0x00000040u, "demo_add_out"}},
    {"aten::mul.out", {(void (*)(void))demo_mul_out, call_2, 0x00000040u, "demo_mul_out"}},
    {"aten::relu.out", {(void (*)(void))demo_relu_out, call_3, 0x000000c0u, "demo_relu_out"}},
};

const opgen_vendor opgen_vendor_demo = {"demo", kernels, 3};
