/* Load-time rewrites both executors run, the graph-text program's
 * (graph_exec.c) and the .pte method's (pte_exec_rewrite.c): each sees the
 * program as a sequence of kernel steps through an opgen_step_seq, so a
 * rewrite is written once. Where to add one: runtime-stubs/README.md. */
#ifndef OPGEN_REWRITE_H
#define OPGEN_REWRITE_H
#include "step.h"

/* A program's kernel steps as a rewrite sees them. */
typedef struct opgen_step_seq {
    void *ctx;
    int n; /* steps 0 .. n-1, in the order they run */
    /* Step k, where the run reaches it only from step k - 1 and a rewrite may
     * change it (not dynamic, not a prim op, not already rewritten), or NULL. */
    opgen_step *(*plain)(void *ctx, int k);
    /* How many times the value whose tensor t is is read: by steps and, twice,
     * by the caller (a returned or kept value); -1 for a tensor of no value. */
    int (*reads)(void *ctx, const opgen_tensor *t);
    /* The fusion record a fused chain takes (called once a chain is found). */
    opgen_fusion *(*slot)(void *ctx);
    /* For rewrite_q8.c (NULL: no quantized rewrites): whether t is a constant
     * (never written); that step k no longer runs; the next integer-step record
     * of step k (or NULL); n bytes of the memory planned for packed filters (or NULL). */
    bool (*constant)(void *ctx, const opgen_tensor *t);
    void (*drop)(void *ctx, int k);
    opgen_q8_step *(*q8)(void *ctx, int k);
    void *(*mem)(void *ctx, size_t n);
    /* Whether step k, as the run reaches it, may write any of t's bytes (any
     * step that is not a kernel's, conservatively). */
    bool (*clobbers)(void *ctx, int k, const opgen_tensor *t);
} opgen_step_seq;

/* Convolution -> batch norm (-> add of a residual) (-> relu or hardtanh) from
 * step k (a convolution step), where nothing else reads the intermediate results: the convolution's
 * kernel computes the chain (opgen_step_fuse). Returns how many steps after k
 * it took (0: none, k not fused). */
int opgen_rewrite_fuse_chain(const opgen_step_seq *q, int k);

/* Step k's constant filter transformed once, into memory of q->mem, where
 * its kernel would otherwise transform it at every call (a Winograd
 * convolution's, kernels/conv.h). Returns whether it did. */
bool opgen_rewrite_prepare_filter(const opgen_step_seq *q, int k);

/* A quantized chain from step k (dequantize -> op -> quantize, rewrite_q8.c)
 * computed by step k on int8 tensors: returns how many steps after k it took,
 * its other steps dropped (q->drop); 0: none. */
int opgen_rewrite_q8(const opgen_step_seq *q, int k);

#endif
