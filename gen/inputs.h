/* Loads the inputs a command names (or the embedded defaults) into a model:
 * the pipeline every subcommand starts with. */
#ifndef OG_INPUTS_H
#define OG_INPUTS_H
#include "backend.h"
#include "edge.h"
#include "kernels.h"
#include "model.h"
#include "write.h"

typedef struct og_inputs {
    const char *native_functions; /* path, or NULL for the embedded default */
    const char *tags;             /* path, or NULL: beside native_functions, else embedded */
    const og_dialect *torchgen;   /* rules of this torchgen release, or NULL to detect */
    const char *edge;             /* edge.yaml path; NULL: the embedded one when the other
                                     inputs are embedded, else none */
    bool want_edge;               /* the command needs edge constraints */
    og_outputs *reads;            /* when set, every file read is recorded (depfile) */
    const char *const *kernels;   /* kernel yaml files (ExecuTorch format); none given and
                                     the other inputs embedded: the embedded ones */
    unsigned nkernels;
    const char *const *backend_ops; /* backend-op yaml files, added to the embedded ones
                                     when the op set is embedded */
    unsigned nbackend_ops;
    const char *const *vendor_ops; /* vendor kernel yaml files: their func: entries join the
                                     op set, their kernels are left to the vendor's table */
    unsigned nvendor_ops;
} og_inputs;

typedef struct og_session {
    arena a;
    void *map; /* the arena's reservation, if it has one */
    size_t maplen;
    diag d;
    og_model m;
    ydoc nf, tags, edge_doc;
    og_edge edge;
    bool has_edge;
    ydoc *kernel_docs;
    ydoc custom_ops_doc; /* the embedded custom ops, declared only (see og_session_load) */
    unsigned nkernel_docs;
    ydoc *vendor_docs;
    unsigned nvendor_ops;
    og_yaml_kernels kernels; /* from every kernel file, in order */
    ydoc *backend_docs;
    unsigned nbackend_docs;
    og_backend backend; /* from every backend-op file, in order */
} og_session;

void og_session_init(og_session *s, FILE *errors);
void og_session_free(og_session *s);
/* Reads and models the inputs; false (errors reported) on bad input. */
bool og_session_load(og_session *s, const og_inputs *in);
#endif
