/* ExecuTorch .pte programs: a small FlatBuffers reader that takes from every
 * method each KernelCall's operator and kernel key (the dtype and dim order of
 * each tensor argument, in argument order). Every offset is checked against the
 * buffer: a truncated or corrupt file is an error naming the byte offset. */
#ifndef OG_PTE_H
#define OG_PTE_H
#include "arena.h"
#include "diag.h"
#include <stddef.h>

typedef struct og_pte_call {
    const char *op;  /* "aten::add.out" */
    const char *key; /* "v1/6;0,1|6;0,1|6;0,1|6;0,1" */
    const char *method;
} og_pte_call;

typedef struct og_pte {
    og_pte_call *calls; /* every KernelCall of every method, in order */
    unsigned ncalls;
    unsigned nmethods;
    unsigned ndelegate_calls; /* DelegateCalls: they need no kernels */
} og_pte;

bool og_pte_read(arena *a, const char *file, const unsigned char *buf, size_t len, og_pte *out, diag *d);
bool og_pte_read_file(arena *a, const char *path, og_pte *out, diag *d);
#endif
