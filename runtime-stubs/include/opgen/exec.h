/* The executor: loads a graph against the generated op tables and kernel
 * registry, then runs it.
 *
 * Load binds every node's arguments to its operator's schema (positional,
 * keyword, defaults), maps the functional operator to the out= kernel of its
 * group, runs each kernel's meta step to infer dtypes and shapes, checks that a
 * kernel exists for every (op, dtype) pair, and plans one block of memory for all
 * intermediate values (reusing space once a value is dead). Errors name the node's
 * file:line:col. Run then only binds inputs and calls kernels. */
#ifndef OPGEN_EXEC_H
#define OPGEN_EXEC_H
#include "opgen/graph.h"
#include "opgen/kernel.h"
#include "opgen_registry.h"
#include "opgen/vendor.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct opgen_program opgen_program;

/* The op id a node names ("aten::relu" or "aten::relu.default"), or -1. */
int opgen_node_op(const char *name);
/* Binds a node's arguments to the schema of op `id` (opgen_bind_args over its
 * argument names): given[i] is the argument written for schema argument i
 * (positionally or by keyword), or NULL when its default applies. Errors name the
 * argument's file:line:col. */
opgen_status opgen_bind_node(const opgen_graph *g, const opgen_gnode *nd, int id, const opgen_garg **given,
                             opgen_error *err, opgen_arena *a);

/* A program value: a tensor, or an int/float/bool scalar (a SymInt input). */
typedef struct opgen_ivalue {
    int kind; /* OPGEN_GV_TENSOR, OPGEN_GV_INT, OPGEN_GV_FLOAT, OPGEN_GV_BOOL */
    opgen_tensor t;
    int64_t i;
    double f;
    bool b;
} opgen_ivalue;

opgen_status opgen_program_load(const opgen_graph *g, opgen_arena *a, opgen_program **out, opgen_error *err);
typedef struct opgen_load_options {
    bool fallbacks;                     /* run backend ops through their fallbacks (patterns), even where a
                                           native kernel serves them */
    const opgen_vendor *const *vendors; /* backends whose kernels win per (op, dtype) */
    int nvendors;
    /* Where random ops' generator starts (rand, randn, randperm, native_dropout):
     * the same seed gives the same values, run after run of a fresh load. */
    uint64_t seed;
    /* Threads kernels may split their work across (opgen/parallel.h; opgen/pool.h
     * makes one), or NULL: one thread. Results are the same either way. */
    const opgen_parallel *parallel;
    /* Run every op as its own kernel call: no convolution stores its result
     * through the batch norm and activation after it (the fusion changes no byte
     * of a result; this is for checking that, and for profiles per op). */
    bool unfused;
} opgen_load_options;
/* For each step of a loaded program: its node and the kernel chosen for it (its
 * C name) with where it comes from (a backend's name, or "opgen"). A matrix's
 * permute_copy of a program input read only by opgen's mm and addmm runs no
 * kernel: its result is the input seen transposed ("none: a transposed view of
 * its input"), which those kernels read in place. */
void opgen_program_kernels(const opgen_program *p,
                           void (*fn)(void *ctx, const opgen_gnode *node, const char *kernel, const char *origin),
                           void *ctx);
opgen_status opgen_program_load_with(const opgen_graph *g, opgen_arena *a, const opgen_load_options *opt,
                                     opgen_program **out, opgen_error *err);
/* A profiler's hook, as opgen_method_options.probe: called before (phase 0) and
 * after (phase 1) each step a run executes, with its index in
 * opgen_program_kernels' order (a step that a fused convolution before it
 * computed takes no time; the runtime reads no clock). NULL: none. */
void opgen_program_set_probe(opgen_program *p, void (*probe)(void *user, int step, int phase), void *user);
int opgen_program_nsteps(const opgen_program *p);
/* A step's floating-point operations in the last run: 2 per multiply-add of a
 * matrix product or convolution, 0 for other ops. */
double opgen_program_step_flops(const opgen_program *p, int step);
/* Bytes of planned intermediate memory a run takes from its arena. */
size_t opgen_program_plan_bytes(const opgen_program *p);
/* Bytes a run takes from a fixed-buffer arena: the plan, plus the temporaries of
 * the hungriest step (kernels' scratch, fallbacks' intermediates), which every
 * step gives back when it ends. */
size_t opgen_program_work_bytes(const opgen_program *p);
/* Calls fn for every step of a loaded program with its kernel's op name
 * ("aten::add.out") and ExecuTorch's kernel key for the call ("v1/6;0,1|...": the
 * dtype and dim order of each tensor argument in order, then of each returned
 * tensor), as a selective build records it. */
opgen_status opgen_program_kernel_keys(const opgen_program *p, void (*fn)(void *ctx, const char *op, const char *key),
                                       void *ctx, opgen_error *err);
int opgen_program_ninputs(const opgen_program *p);
int opgen_program_noutputs(const opgen_program *p);
/* inputs[i] follow the graph's inputs (tensors must match the declared dtype and
 * sizes); outputs[i] receive the returned values, tensors pointing into `work`. */
opgen_status opgen_program_run(opgen_program *p, const opgen_ivalue *inputs, opgen_arena *work, opgen_ivalue *outputs,
                               opgen_error *err);

#ifdef __cplusplus
}
#endif
#endif
