/* opgen's default inputs (yaml/), compiled in by opgen-embed. */
#ifndef OG_EMBEDDED_H
#define OG_EMBEDDED_H
#include <stddef.h>
#include <string.h>

typedef struct og_embedded_file {
    const char *name; /* "yaml/native_functions.yaml" */
    const char *data; /* NUL-terminated */
    size_t len;
} og_embedded_file;

extern const og_embedded_file og_embedded_files[]; /* ends with a NULL name */

/* The embedded file called name, or NULL. */
const og_embedded_file *og_embedded_find(const char *name);
#endif
