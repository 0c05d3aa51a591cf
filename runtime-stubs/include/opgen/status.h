/* Status codes: the one error type of the runtime and its kernels. Every call
 * that can fail returns an opgen_status (OPGEN_OK, 0, is success) and records
 * the first error's code, message and position in an opgen_error (opgen/rt.h:
 * opgen_fail). Written by hand; the generated kernel ABI (opgen_kernels.h)
 * names the same type. */
#ifndef OPGEN_STATUS_H
#define OPGEN_STATUS_H
#include <stdint.h>

#define OPGEN_STATUSES(X)                         \
    X(OPGEN_OK, "ok")                             \
    X(OPGEN_E_INVALID, "invalid argument")        \
    X(OPGEN_E_SHAPE, "shape mismatch")            \
    X(OPGEN_E_DTYPE, "unsupported dtype")         \
    X(OPGEN_E_NO_MEMORY, "out of memory")         \
    X(OPGEN_E_NOT_FOUND, "not found")             \
    X(OPGEN_E_NOT_IMPLEMENTED, "not implemented") \
    X(OPGEN_E_PARSE, "syntax error")              \
    X(OPGEN_E_IO, "input/output error")           \
    X(OPGEN_E_FORMAT, "unsupported file format")

enum opgen_status_code {
#define OPGEN_STATUS_ENUM(code, text) code,
    OPGEN_STATUSES(OPGEN_STATUS_ENUM)
#undef OPGEN_STATUS_ENUM
        OPGEN_STATUS_COUNT
};

/* An OPGEN_* code. int32_t, as the generated kernel ABI declares it (a C11
 * typedef may be repeated with the same type). */
typedef int32_t opgen_status;

#endif
