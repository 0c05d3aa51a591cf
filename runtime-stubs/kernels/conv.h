/* A convolution's filter transformed once, at load, for the convolution
 * kernel to read at every call instead of transforming it each time (a float
 * 3x3's Winograd U, conv_winograd.inc). The executors plan its memory, call
 * opgen_conv_prepare for a constant weight of opgen's kernel, and hand the
 * result to each call (opgen_ctx.prepared). Needs no generated header. */
#ifndef OPGEN_CONV_H
#define OPGEN_CONV_H
#include "opgen/rt.h"

/* Bytes the transformed filter of weight sizes [O][C][KH][KW] (dtype scalar
 * type dtype) takes for a convolution of those stride, padding, dilation and
 * groups (2 values each), or 0: no path of this build reads one. */
size_t opgen_conv_prepared_bytes(int dtype, int64_t O, int64_t C, int64_t KH, int64_t KW, const int64_t stride[2],
                                 const int64_t padding[2], const int64_t dilation[2], int64_t groups);
/* The filter of weight (any strides) transformed into mem, 64-byte aligned, of
 * the bytes above (nonzero). */
void opgen_conv_prepare(const opgen_tensor *weight, void *mem);

#endif
