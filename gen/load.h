/* The YAML layer: libyaml events -> a tree of nodes that know file:line:col.
 * Scalars are resolved as PyYAML's SafeLoader does (YAML 1.1), because that is
 * what torchgen and ExecuTorch read their files with. */
#ifndef OG_LOAD_H
#define OG_LOAD_H
#include "arena.h"
#include "diag.h"
#include "strbuf.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum { YNODE_SCALAR, YNODE_SEQ, YNODE_MAP } ynode_kind;

/* What a scalar resolves to. */
typedef enum { YVAL_STR, YVAL_NULL, YVAL_BOOL, YVAL_INT, YVAL_FLOAT, YVAL_TIMESTAMP } yval_type;

typedef enum { YSTYLE_PLAIN, YSTYLE_SINGLE, YSTYLE_DOUBLE, YSTYLE_LITERAL, YSTYLE_FOLDED } ystyle;

typedef struct ynode ynode;
struct ynode {
    unsigned char kind;  /* ynode_kind */
    unsigned char type;  /* yval_type, scalars only */
    unsigned char style; /* ystyle, scalars only */
    bool boolean;        /* value when type == YVAL_BOOL */
    bool exact;          /* the scalar's source is its value byte for byte: columns inside are exact */
    unsigned line, col;  /* 1-based start */
    uint32_t len;        /* scalar length */
    uint32_t n;          /* seq: items; map: key/value pairs */
    const char *file;
    const char *s; /* scalar text, NUL-terminated */
    ynode **kids;  /* seq: n items; map: keys at 2i, values at 2i+1 */
};

typedef struct ydoc {
    const char *file; /* name used in messages */
    ynode *root;      /* NULL for an empty document */
    char *src;        /* file bytes (arena) */
    size_t srclen;
} ydoc;

/* Files into memory through the runtime's one file reader (opgen_file_read): a
 * folder, an unreadable or an oversized file is an error naming it, reported to d
 * (NULL: silent). */
#define OG_MAX_INPUT_FILE ((size_t)256 << 20)
bool og_read_file(arena *a, diag *d, const char *path, char **data, size_t *len);
/* The same, appended to b. */
bool og_read_file_sb(strbuf *b, diag *d, const char *path);

/* Reads and parses `path`. Errors go to `d` as file:line:col; returns false on any. */
bool og_yaml_load_file(arena *a, diag *d, const char *path, ydoc *out);
/* Parses a buffer that stays alive as long as the arena; `name` is used in messages. */
bool og_yaml_load_buffer(arena *a, diag *d, const char *name, const char *buf, size_t len, ydoc *out);

/* Streaming: when the document is a sequence, `item` sees each element as soon as it
 * is complete, and the element's nodes are reused afterwards (copy what you keep).
 * out->root then has n == the number of items and no kids. Big files stay small in
 * memory and hot in cache this way. */
typedef void (*ynode_item_fn)(void *ctx, const ynode *item);
bool og_yaml_stream_file(arena *keep, diag *d, const char *path, ydoc *out, ynode_item_fn item, void *ctx);
bool og_yaml_stream_buffer(arena *keep, diag *d, const char *name, const char *buf, size_t len, ydoc *out,
                           ynode_item_fn item, void *ctx);

const ynode *ymap_get(const ynode *map, const char *key);
const char *ynode_describe(const ynode *n); /* "a string", "a mapping", "the boolean True", ... */
bool ynode_is_str(const ynode *n);
/* Position of byte `off` inside a scalar's value (exact when the source maps 1:1). */
void ynode_pos(const ynode *n, size_t off, unsigned *line, unsigned *col);
#endif
