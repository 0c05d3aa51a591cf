/* The graph-text executor's internals, shared by its parts (graph_exec.c:
 * binding, loading, the memory plan, running; graph_exec_rewrite.c: its
 * load-time rewrites). Not installed: the API is opgen/exec.h. */
#ifndef OPGEN_GRAPH_EXEC_H
#define OPGEN_GRAPH_EXEC_H
#include "rewrite.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A step of a graph program: the kernel call, and the node it runs. */
typedef struct gstep {
    opgen_step s;
    const opgen_gnode *node;
    int *results; /* value indices: the out arguments, or a prim's scalars */
    int nresults;
    bool dynamic;   /* reads a scalar input, or a value computed from one */
    int fused;      /* the steps after it its kernel computes too (opgen_step_fuse) */
    int view_of;    /* a step run as a view of this value (transposed_views, same_bytes_views), or -1 */
    bool reshaped;  /* view_of: the same bytes in another shape, not a transposition */
    bool own_bytes; /* reshaped, of a program input: planned memory too, for a strided input's copy */
} gstep;

struct opgen_program {
    const opgen_graph *g;
    opgen_ivalue *values;
    size_t *offset, *size; /* planned memory of each result value */
    gstep *steps;
    int nsteps;
    size_t plan_bytes;
    size_t scratch; /* the most any step takes beyond the plan; given back after each step */
    bool dynamic;   /* some step is: shapes are known only once inputs are */
    uint64_t rng;   /* random ops' generator (opgen_load_options.seed) */
    void (*probe)(void *user, int step, int phase); /* opgen_program_set_probe */
    void *probe_user;
};

bool gx_among(const int *vs, int n, int v);
int *gx_count_uses(const opgen_graph *g, opgen_arena *a);
void gx_fuse(opgen_program *p, const int *uses, opgen_arena *a);
void gx_mark_unread(opgen_program *p, const int *uses);
void gx_same_bytes_views(opgen_program *p);
void gx_transposed_view(opgen_tensor *t, const opgen_tensor *x);
void gx_transposed_views(opgen_program *p);

#endif
