/* Running ExecuTorch programs (.pte): a method (execution plan) loaded against
 * the generated op tables and kernel registry, then run.
 *
 *     opgen_pte pte;                      // over the caller's bytes: nothing copied
 *     opgen_pte_open(&pte, data, size, "model.pte", &err);
 *     opgen_method_memory mem;            // what load and run will take
 *     opgen_method_memory_of(&pte, "forward", NULL, &mem, &err);
 *     opgen_method *m;                    // load: from an arena of mem.load_bytes
 *     opgen_method_load(&pte, "forward", NULL, &arena, &m, &err);
 *     opgen_method_run(m, inputs, &work, outputs, &err);   // work: opgen_method_work_bytes(m)
 *
 * Load resolves each KernelCall's operator (name and overload) to an op id and a
 * kernel (a backend's, then opgen's), binds its arguments in ExecuTorch's calling
 * convention (the schema's arguments in order, out= arguments last, then the
 * returned values, which are the outs), places every tensor (constants where they
 * lie in the program's bytes, planned tensors in their buffer at their offset, so
 * views the exporter removed share their source's bytes), and runs each kernel's
 * meta step: a missing op or dtype, a dtype no Edge row allows, a tensor outside
 * its buffer, an out that is a constant, a delegate no handler serves are load
 * errors naming the method and instruction. Run copies the inputs into their
 * planned places, executes KernelCall, DelegateCall, MoveCall, JumpFalseCall and
 * FreeCall, and returns the outputs where they lie. Neither mallocs: all memory
 * comes from the caller's arenas (or buffers), in amounts these functions report. */
#ifndef OPGEN_METHOD_H
#define OPGEN_METHOD_H
#include "opgen/exec.h"
#include "opgen/pte.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct opgen_method opgen_method;

/* The hook a backend's delegate uses: the parts of a program ExecuTorch's exporter
 * handed to a backend (DelegateCall) run through the handler registered for its
 * id; a program delegating to a backend without one is refused at load. */
typedef struct opgen_delegate_handler {
    const char *id; /* the backend id the program names, e.g. "XnnpackBackend" */
    void *user;     /* given back to both calls */
    /* At load, once per delegate of the method: its processed payload (d->data,
     * d->size, in the program's bytes) and compile specs. *handle is given back
     * to execute. */
    int32_t (*init)(void *user, const opgen_pte *program, const opgen_pte_delegate *d, void **handle, opgen_error *err);
    /* At run, per DelegateCall: its arguments, the method's values in the call's
     * order (tensors with their planned memory, scalars; OPGEN_GV_OTHER for other
     * kinds), outputs written in place. */
    int32_t (*execute)(void *user, void *handle, opgen_ivalue *const *args, int nargs, opgen_error *err);
} opgen_delegate_handler;

typedef struct opgen_method_options {
    const opgen_load_options *kernels; /* backends' kernels, fallbacks (as for graph programs); NULL: opgen's */
    const opgen_delegate_handler *delegates;
    int ndelegates;
    void *const *buffers; /* planned memory from the caller: buffers[i] holds buffer i + 1's bytes
                             (opgen_method_memory.buffer_bytes); NULL: taken from the load arena */
    int nbuffers;
    uint64_t max_steps; /* instructions a run may execute (a program that loops); 0: 1000 per instruction */
    /* A profiler's hook: called before (phase 0) and after (phase 1) each
     * instruction a run executes, with its index in opgen_method_instructions'
     * order (the runtime reads no clock). NULL: none. */
    void (*probe)(void *user, int instruction, int phase);
    void *probe_user;
} opgen_method_options;

typedef struct opgen_method_memory {
    size_t load_bytes;    /* what opgen_method_load takes from its arena, planned buffers included
                             unless the options give them */
    size_t planned_bytes; /* the planned buffers: the sum of non_const_buffer_sizes */
    int nbuffers;         /* planned buffers: memory ids 1..nbuffers */
} opgen_method_memory;

/* Bytes of planned buffer id (1..nbuffers), or 0. */
size_t opgen_method_buffer_bytes(const opgen_pte *p, const opgen_pte_plan *pl, int id);
opgen_status opgen_method_memory_of(const opgen_pte *p, const char *method, const opgen_method_options *opt,
                                    opgen_method_memory *mem, opgen_error *err);
opgen_status opgen_method_load(const opgen_pte *p, const char *method, const opgen_method_options *opt, opgen_arena *a,
                               opgen_method **out, opgen_error *err);
/* Bytes a run takes from its work arena (kernels' scratch, stand-ins, inputs that
 * need a place), given back when it ends. */
size_t opgen_method_work_bytes(const opgen_method *m);

/* State between runs. Planned memory belongs to the loaded method and is not
 * cleared by a run, so a program's mutable buffers (a KV cache, a running
 * statistic: what the exporter writes back with aten::copy_) persist from one
 * run to the next, starting from the program's mutable data segment where it
 * has one, else zeros (as in ExecuTorch). Reset puts them back as loaded. */
opgen_status opgen_method_reset(opgen_method *m, opgen_error *err);

int opgen_method_ninputs(const opgen_method *m);
/* Whether input i is a scalar the program declares as Null (a SymInt the
 * exporter left dynamic): a run gives it an int, float or bool (its kind in
 * opgen_method_input is then OPGEN_GV_OTHER). A scalar input declared with a
 * value was fixed at export: a run must give that value. */
bool opgen_method_input_is_null(const opgen_method *m, int i);
/* A dynamic tensor input (planned at its upper bound, DYNAMIC_BOUND): the tensor
 * as declared, whose sizes are the bound; NULL for a static input. A run may give
 * it any sizes within the bound; every kernel then sizes its out from its inputs
 * within the out's planned capacity, and outputs come back at their actual sizes. */
const opgen_tensor *opgen_method_input_bound(const opgen_method *m, int i);
int opgen_method_noutputs(const opgen_method *m);
/* Input or output i as the program declares it (kind; a tensor's dtype, sizes and
 * dim order; a scalar's value). */
const opgen_ivalue *opgen_method_input(const opgen_method *m, int i);
const opgen_ivalue *opgen_method_output(const opgen_method *m, int i);

/* inputs[i]: tensors of the declared dtype and sizes, in any layout (they are
 * copied into the program's, and its planned place); scalars of the declared kind.
 * outputs[i] receive the results: tensors in the program's dim order, pointing
 * into planned memory (valid until the next run). */
opgen_status opgen_method_run(opgen_method *m, const opgen_ivalue *inputs, opgen_arena *work, opgen_ivalue *outputs,
                              opgen_error *err);

/* Per instruction of a loaded method, in order: its kind, and for a KernelCall the
 * operator ("aten::add.out"), the kernel chosen and whose it is, and ExecuTorch's
 * kernel key of the call. */
typedef struct opgen_instr_info {
    int chain, index, kind; /* enum opgen_instr_kind */
    const char *op, *kernel, *origin, *key;
    int32_t a, b; /* as opgen_pte_instr */
} opgen_instr_info;
void opgen_method_instructions(const opgen_method *m, void (*fn)(void *ctx, const opgen_instr_info *info), void *ctx);
/* The floating-point operations instruction k did in the last run (a multiply and
 * an add count two): matrix products and convolutions, from their shapes; 0 for
 * other instructions. */
double opgen_method_instruction_flops(const opgen_method *m, int k);
int opgen_method_ninstructions(const opgen_method *m);

/* Method `method` of a program as graph text (opgen/graph.h), in the arena: each
 * KernelCall as its functional op ("aten::addmm.out" as aten::addmm), the method's
 * inputs as %x0, %x1, ..., its constants as further inputs %c<value>, views the
 * exporter removed (tensors sharing planned bytes) as view_copy. Control flow and
 * delegated parts have no graph text: an error names the instruction. */
opgen_status opgen_pte_graph_text(const opgen_pte *p, const char *method, opgen_arena *a, char **text, size_t *len,
                                  opgen_error *err);

#ifdef __cplusplus
}
#endif
#endif
