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
opgen_status opgen_file_read(const char *path, size_t max, opgen_arena *a, char **data, size_t *len, opgen_error *err);

/* Writes path atomically: a temporary file beside it, renamed over it once
 * complete (a reader never sees half a file; a failure leaves the old one). Only
 * ever replaces a regular file: a folder, a device or a pipe at path is an error. */
opgen_status opgen_file_write(const char *path, const void *data, size_t len, opgen_error *err);
/* The same in steps, for a file streamed out as it is made: a new temporary file
 * beside path (*tmp: its malloc'd name, for the caller to rename or unlink; a
 * device or a pipe at path is refused here, a folder makes the rename fail), its
 * bytes, then its close, giving it the mode a plain create would. Errors name path. */
opgen_status opgen_file_temp_open(const char *path, int *fd, char **tmp, opgen_error *err);
opgen_status opgen_file_temp_put(int fd, const char *path, const void *data, size_t len, opgen_error *err);
opgen_status opgen_file_temp_close(int fd, const char *path, opgen_error *err);
/* Whether path can be opened (a numbered series of input files ends where one is
 * missing). */
bool opgen_file_exists(const char *path);
/* Creates the folder path unless it is there. */
opgen_status opgen_file_make_dir(const char *path, opgen_error *err);

/* Without a POSIX file system (bare metal: the C library's files, semihosting's
 * on a board or QEMU) writes go through stdio and are not atomic, the
 * temporary-file steps are absent and make_dir does nothing (the folder must
 * exist on the host); reads are the same as everywhere. */

#ifdef __cplusplus
}
#endif
#endif
