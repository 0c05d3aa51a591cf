/* The function schema language of native_functions.yaml, as torchgen accepts it
 * (see README "Schema language"): parse, canonical print, checks, signature. */
#ifndef OG_SCHEMA_H
#define OG_SCHEMA_H
#include "arena.h"
#include "strbuf.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Base types of every PyTorch release from 1.13 to 2.14 (X-macro: name). */
/* clang-format off */
#define OG_BASE_TYPES(X)                                                                                    \
    X(Generator) X(ScalarType) X(Tensor) X(int) X(Dimname) X(DimVector) X(float) X(str) X(bool) X(Layout)   \
    X(Device) X(DeviceIndex) X(Scalar) X(MemoryFormat) X(QScheme) X(Storage) X(Stream) X(SymInt) X(SymBool) \
    X(GraphModule) X(ConstQuantizerPtr)
/* clang-format on */

typedef enum {
#define OG_BT_ENUM(n) OG_BT_##n,
    OG_BASE_TYPES(OG_BT_ENUM)
#undef OG_BT_ENUM
        OG_BT_COUNT
} og_basety;

typedef enum { OG_TY_BASE, OG_TY_OPTIONAL, OG_TY_LIST, OG_TY_CUSTOM } og_tykind;

typedef struct og_type og_type;
struct og_type {
    og_tykind kind;
    og_basety base;      /* OG_TY_BASE */
    unsigned size;       /* OG_TY_LIST: fixed size, 0 if none */
    const og_type *elem; /* OPTIONAL, LIST */
    const char *custom;  /* OG_TY_CUSTOM: class path after __torch__.torch.classes. */
};

/* Alias annotation: `a`, `a!`, `a|b`, `a -> *`, `a! -> a|b`. Sets are letters. */
typedef struct og_annot {
    char before[27];
    char after[27]; /* "*" for a wildcard */
    bool write;
} og_annot;

/* Where an argument sits; schema order is the enum order. */
typedef enum {
    OG_ARG_PRE_SELF,
    OG_ARG_SELF,
    OG_ARG_POST_SELF,
    OG_ARG_KW_PRE, /* kwarg-only before TensorOptions (all of them if none) */
    OG_ARG_TENSOR_OPTIONS,
    OG_ARG_KW_POST,
    OG_ARG_OUT
} og_argcat;

typedef struct og_arg {
    const char *name;
    const og_type *type;
    const char *dflt; /* raw text, or NULL */
    const og_annot *annot;
    og_argcat cat;
    uint32_t off, type_off, name_off, dflt_off; /* byte offsets in the parsed text */
} og_arg;

typedef struct og_ret {
    const char *name; /* or NULL */
    const og_type *type;
    const og_annot *annot;
    uint32_t off, name_off;
} og_ret;

typedef struct og_opname {
    const char *base;     /* without the inplace `_`, dunder underscores or `_functional` */
    const char *overload; /* "" if none */
    bool inplace, dunder, functional_overload;
} og_opname;

typedef enum {
    OG_KIND_FUNCTIONAL,
    OG_KIND_INPLACE,
    OG_KIND_OUT,
    OG_KIND_MUTABLE,
    OG_KIND_SCRATCH,
    OG_KIND_COUNT
} og_kind;

typedef struct og_schema {
    og_opname name;
    og_arg *args; /* schema order: positional, kwarg-only, out */
    unsigned nargs;
    og_ret *rets;
    unsigned nrets;
    int self_ix; /* index in args of `self`, or -1 */
    int to_ix;   /* index of the first TensorOptions argument, or -1 */
    unsigned npos, nkw, nout;
} og_schema;

/* The rules of one torchgen release. The schema language and its checks moved a
 * little between releases; opgen follows the release whose files it reads. */
typedef struct og_dialect {
    const char *name;          /* "1.13", "2.6", "2.14" */
    uint32_t base_types;       /* bit per og_basety the release knows */
    uint64_t dispatch_keys;    /* bit per og_dkey it supports (model.h) */
    uint64_t structured_keys;  /* keys structured_delegate ops may not name */
    bool split_default_first;  /* 2.x: an argument splits at '=' before its last space */
    bool python_keyword_names; /* 2.x: argument names may not be Python keywords */
    bool dropout_arg_seeded;   /* 2.x: an argument named *dropout* makes an op random */
    bool const_ref_no_out;     /* 2.7+: use_const_ref_for_mutable_tensors not on out= ops */
    bool autogen_2x;           /* 2.x autogen: mutable before inplace as base, core CIA groups
                                  and set_ get variants */
} og_dialect;

extern const og_dialect og_dialect_1_13, og_dialect_2_6, og_dialect_2_14;
/* "1.13", "2.6", "2.14"; NULL if unknown. */
const og_dialect *og_dialect_find(const char *name);

/* A parse or check failure: a message and the byte offset it points at. */
typedef struct og_err {
    uint32_t off;
    char msg[400];
} og_err;

/* Parses `text` (no namespace). Returns NULL and fills err on failure. */
og_schema *og_schema_parse(arena *a, const char *text, const og_dialect *dl, og_err *err);
bool og_opname_parse(arena *a, const char *text, size_t len, og_opname *out, og_err *err);
/* torchgen's FunctionSchema.__post_init__ checks plus opgen's stricter ones. */
bool og_schema_check(const og_schema *s, og_err *err);

og_kind og_schema_kind(const og_schema *s);
const char *og_kind_name(og_kind k);
bool og_type_is_tensor_like(const og_type *t);
bool og_type_is_plain_tensor(const og_type *t);
bool og_type_equal(const og_type *x, const og_type *y);
bool og_annot_equal(const og_annot *x, const og_annot *y); /* NULL-safe */
bool og_annot_is_write(const og_annot *x);

void og_print_type(strbuf *b, const og_type *t);
/* What og_print_type and og_print_annot print, written at p (room for at least
 * og_type_max_len(t) bytes, and OG_ANNOT_MAX_LEN); the end is returned. */
size_t og_type_max_len(const og_type *t);
char *og_put_type(char *p, const og_type *t);
#define OG_ANNOT_MAX_LEN 112
char *og_put_annot(char *p, const og_annot *x);
void og_print_annot(strbuf *b, const og_annot *x);
void og_print_base_name(strbuf *b, const og_opname *n); /* add_, __iadd__, foo_functional */
void og_print_opname(strbuf *b, const og_opname *n);    /* base.overload */
void og_print_arg(strbuf *b, const og_arg *x);
void og_print_ret(strbuf *b, const og_ret *r);
void og_print_schema(strbuf *b, const og_schema *s);
/* "name.overload" / "name" as a fresh arena string. */
const char *og_opname_str(arena *a, const og_opname *n);

/* Prints torchgen's signature() of s without building it: the grouping key. */
void og_print_signature(strbuf *b, const og_schema *s);
/* torchgen FunctionSchema.signature(): the grouping key of an op. */
og_schema *og_schema_signature(arena *a, const og_schema *s, bool keep_return_names);
/* The out= schema torchgen derives from a functional, inplace or mutable schema. */
og_schema *og_schema_to_out(arena *a, const og_schema *s);
/* The functional schema torchgen derives from an inplace, mutable or out schema. */
og_schema *og_schema_to_functional(arena *a, const og_schema *s);

const char *og_basety_name(og_basety t);
bool og_schema_has_symint(const og_schema *s);
#endif
