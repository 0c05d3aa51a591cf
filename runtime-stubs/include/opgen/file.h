/* Whole files into memory, for the command-line tools and the generator: the
 * runtime itself works on the caller's buffers and never opens a file. */
#ifndef OPGEN_FILE_H
#define OPGEN_FILE_H
#include "opgen/rt.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Reads path into the arena, NUL-terminated (*len excludes the NUL). A folder, a
 * file that cannot be opened or read, or one larger than max bytes is an error
 * naming the file (errors: "PATH: error: cannot read: is a folder"). */
int32_t opgen_file_read(const char *path, size_t max, opgen_arena *a, char **data, size_t *len, opgen_error *err);

/* Writes path atomically: a temporary file beside it, renamed over it once
 * complete (a reader never sees half a file; a failure leaves the old one). Only
 * ever replaces a regular file: a folder, a device or a pipe at path is an error. */
int32_t opgen_file_write(const char *path, const void *data, size_t len, opgen_error *err);
/* The first half: data in a new temporary file beside path, with the mode a plain
 * create would give; *tmp receives its name (malloc'd) for the caller to rename.
 * A device or a pipe at path is refused here; a folder makes the rename fail. */
int32_t opgen_file_write_temp(const char *path, const void *data, size_t len, char **tmp, opgen_error *err);

#ifdef __cplusplus
}
#endif
#endif
