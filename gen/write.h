/* Output writing: a run's files are rendered in memory, then written as temp
 * files beside their targets and renamed over them only when every temp file was
 * written, so a failed run leaves every earlier output byte-identical; should a
 * rename fail midway, the files already replaced are put back (hard links to their
 * old inodes). A file whose content did not change is not touched (its mtime stays). */
#ifndef OG_WRITE_H
#define OG_WRITE_H
#include "diag.h"
#include "strbuf.h"
#include <stdbool.h>

typedef struct og_output {
    char *path; /* dir/name */
    strbuf data;
} og_output;

typedef struct og_outputs {
    og_output *files;
    unsigned n, cap;
    char **inputs; /* files read, for the depfile */
    unsigned ninputs, capinputs;
} og_outputs;

void og_outputs_init(og_outputs *o);
void og_outputs_free(og_outputs *o);
/* A new output dir/name (or path); render into the returned buffer. */
strbuf *og_outputs_add(og_outputs *o, const char *dir, const char *name);
strbuf *og_outputs_add_path(og_outputs *o, const char *path);
void og_outputs_input(og_outputs *o, const char *path);
/* Writes what changed; `changed` counts rewritten files. False (nothing
 * replaced) on any failure, reported to d. */
bool og_outputs_commit(og_outputs *o, diag *d, unsigned *changed);
/* One file written the same way (path = dir/name, or a name in the current folder). */
bool og_write_file(const char *path, const char *data, size_t len, diag *d);
/* Makefile-syntax depfile: every output depends on every input read. */
bool og_outputs_depfile(og_outputs *o, diag *d, const char *path);
#endif
