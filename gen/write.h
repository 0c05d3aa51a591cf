/* Output writing. A run's files are streamed as they are rendered: each passes
 * through one fixed buffer and is compared, block by block, with the file it
 * replaces; only once it differs (or there is none) does a temp file beside the
 * target get written (the equal prefix copied from the old file). At the commit,
 * when every file has been made, the temp files are renamed over their targets,
 * so a failed run leaves every earlier output byte-identical; should a rename fail
 * midway, the files already replaced are put back (hard links to their old
 * inodes). A file whose content did not change is not touched (its mtime stays).
 * Memory stays two buffers, however large the files. */
#ifndef OG_WRITE_H
#define OG_WRITE_H
#include "diag.h"
#include "strbuf.h"
#include <stdbool.h>

typedef struct og_outputs og_outputs;

typedef struct og_output {
    char *path;      /* dir/name */
    strbuf data;     /* stream mode while it is the open output */
    og_outputs *set; /* its owner (the buffers, the mode) */
    int old_fd;      /* the file it replaces, read as far as the bytes were equal; -1: none */
    int tmp_fd;      /* the temp file, once the content differs; -1: none yet */
    char *tmp;       /* its name */
    size_t size;     /* bytes rendered */
    bool differs, done;
    char *error; /* the first failure, reported at the commit */
} og_output;

struct og_outputs {
    og_output **files;
    unsigned n, cap;
    char **inputs; /* files read, for the depfile */
    unsigned ninputs, capinputs;
    char *mem, *cmp; /* the stream's buffer, then the old file's bytes beside it */
    bool dry;        /* render only: count bytes, read and write nothing (benchmarks) */
};

void og_outputs_init(og_outputs *o);
void og_outputs_free(og_outputs *o);
/* A new output dir/name (or path); render into the returned buffer (stream mode),
 * which stays valid until the next output is added: that ends this one. */
strbuf *og_outputs_add(og_outputs *o, const char *dir, const char *name);
strbuf *og_outputs_add_path(og_outputs *o, const char *path);
void og_outputs_input(og_outputs *o, const char *path);
/* Ends the open output (done by the next add and by the commit). */
void og_outputs_end(og_outputs *o);
/* Writes what changed; `changed` counts rewritten files. False (nothing
 * replaced) on any failure, reported to d. */
bool og_outputs_commit(og_outputs *o, diag *d, unsigned *changed);
/* One file written the same way (path = dir/name, or a name in the current folder). */
bool og_write_file(const char *path, const char *data, size_t len, diag *d);
/* Makefile-syntax depfile: every output depends on every input read. */
bool og_outputs_depfile(og_outputs *o, diag *d, const char *path);
#endif
