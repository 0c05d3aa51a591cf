/* `opgen generate`: the C headers of a loaded session, written atomically. */
#ifndef OG_GENERATE_H
#define OG_GENERATE_H
#include "inputs.h"

typedef struct og_generate_options {
    const char *outdir;
    const char *templates;      /* a folder of *.h.in, or NULL: the embedded ones */
    const char *depfile;        /* or NULL */
    const char *const *selects; /* selected_operators.yaml files: the registry keeps their union */
    unsigned nselects;
} og_generate_options;

/* Writes opgen_dtypes.h, opgen_ops.h, opgen_kernels.h, and with kernel files
 * opgen_registry.h (and opgen_backend.h with backend ops) into outdir: all or
 * nothing, each only when its content changed. outs must have recorded the
 * session's reads (the depfile lists them). */
bool og_generate(og_session *ss, og_outputs *outs, const og_generate_options *o);
#endif
