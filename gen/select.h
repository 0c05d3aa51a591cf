/* Selective build: which kernels (out= ops and scalar prims) and, per kernel, which
 * dtypes of its first out argument a build keeps. Selections come from
 * ExecuTorch's selected_operators.yaml, plain op lists, .pte programs and graph
 * programs, combine by union, and are written back in ExecuTorch's format. */
#ifndef OG_SELECT_H
#define OG_SELECT_H
#include "backend.h"
#include "dtype.h"
#include "model.h"
#include "pte.h"
#include "strbuf.h"
#include "strmap.h"

typedef struct og_sel_op {
    const char *name;           /* "aten::add.out", or a base name "aten::add" */
    bool include_all_overloads; /* the base name selects every overload */
    bool all_dtypes;            /* no kernel key: every dtype */
    og_dtset dtypes;            /* else: the first out argument's dtypes from the keys */
    const char **keys;          /* kernel keys, in the order first seen */
    unsigned nkeys, capkeys;
    const char **debug; /* where it was selected from */
    unsigned ndebug, capdebug;
} og_sel_op;

typedef struct og_selection {
    arena *a;
    diag *d;
    bool include_all_operators;
    og_sel_op *ops;
    unsigned n, cap;
    strmap by_name;
    strbuf sources; /* "a.yaml, b.pte": named in the build's messages */
} og_selection;

void og_sel_init(og_selection *s, arena *a, diag *d);
void og_sel_free(og_selection *s);
/* ExecuTorch's selected_operators.yaml. */
bool og_sel_load_yaml(og_selection *s, const ydoc *doc);
/* Every KernelCall of a program: its operator and kernel key. */
bool og_sel_add_pte(og_selection *s, const og_pte *p, const char *source);
/* "aten::add.out:Float+Double, aten::mm.out aten::relu" (commas, spaces or new
 * lines between items; a name without overload selects every overload; functional
 * names select their out= variant); checked against the model. */
bool og_sel_add_list(og_selection *s, const og_model *m, const char *text, const char *source);
/* --ops ARG: the list itself, or the file holding it (ARG names a file that
 * exists, or has a '/'). */
bool og_sel_add_ops(og_selection *s, const og_model *m, const char *arg);
/* A .pte program's KernelCalls. */
bool og_sel_add_pte_file(og_selection *s, const char *path);
/* An existing selected_operators.yaml. */
bool og_sel_add_yaml_file(og_selection *s, const char *path);
/* A graph program: its ops and the dtypes that flow through each call, inferred
 * by loading it with opgen's runtime (select_graph.c; the bootstrap opgen, built
 * before the runtime, refuses). */
bool og_sel_add_graph_file(og_selection *s, const char *path);
/* One kernel call seen in a program: op name and key (graph programs). */
bool og_sel_add_key(og_selection *s, const char *op, const char *key, const char *source);
/* Whether kernel op f is selected, and its dtypes (all when no keys say). */
bool og_sel_selects(const og_selection *s, const og_func *f, og_dtset *dtypes);
/* The kernel keys the selection gives op f (ExecuTorch's et_kernel_metadata, or a
 * program's calls): false if f is not selected; *n 0 if it is selected for every
 * key (include_all_operators, a name without keys). */
bool og_sel_keys(const og_selection *s, const og_func *f, const char *const **keys, unsigned *n);
/* One tensor of a kernel key ("v1/6;0,1|..."): its dtype number and dim order. */
typedef struct og_key_tensor {
    int dtype;
    unsigned ndim;
    unsigned char order[16];
} og_key_tensor;
/* A kernel key's tensors, in order (at most max); -1 for "default" or a key that
 * is not "v1/" entries. */
int og_key_parse(const char *key, og_key_tensor *out, int max);
/* Trims m to the ops a build of selection s needs (og_model_keep): the selected
 * ones, the ops whose out= variant is selected (a graph program names add.Tensor
 * for add.out's kernel), and for a kept backend op its out= variant and its
 * pattern's ops with theirs (lowering and the fallback use them). Nothing when s
 * includes every operator. */
void og_sel_trim_model(const og_selection *s, og_model *m, const og_backend *b);
/* selected_operators.yaml, keys sorted, deterministic. */
void og_sel_write_yaml(const og_selection *s, strbuf *out);
#endif
