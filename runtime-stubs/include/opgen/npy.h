/* NumPy .npy files (format 1.0-3.0): little-endian, C order. Anything else is a
 * clear error, never a guess. */
#ifndef OPGEN_NPY_H
#define OPGEN_NPY_H
#include "opgen/rt.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Decodes a .npy image; the data is copied into the arena. `name` is used in messages. */
opgen_status opgen_npy_decode(const void *buf, size_t len, const char *name, opgen_arena *a, opgen_tensor *out,
                              opgen_error *err);
opgen_status opgen_npy_read(const char *path, opgen_arena *a, opgen_tensor *out, opgen_error *err);
/* Decodes the .npy image at the start of buf (more may follow, as NumPy's
 * sequential np.save into one file writes them); *used gets its length. */
opgen_status opgen_npy_decode_prefix(const void *buf, size_t len, const char *name, opgen_arena *a, opgen_tensor *out,
                                     size_t *used, opgen_error *err);
/* Encodes a contiguous tensor as .npy 1.0; returns the size (call with cap 0 to ask). */
size_t opgen_npy_encode(const opgen_tensor *t, void *buf, size_t cap, opgen_error *err);
/* Writes path atomically (temp file + rename). */
opgen_status opgen_npy_write(const char *path, const opgen_tensor *t, opgen_error *err);

#ifdef __cplusplus
}
#endif
#endif
