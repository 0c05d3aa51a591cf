/* A small template expander: {{name}} is replaced by a value; a tag alone on its
 * line (indentation allowed) stands for whole lines and vanishes when the value is
 * empty; a line holding only {{! comment }} vanishes. Templates keep the fixed,
 * readable parts of generated files; emitters supply the tables, as strings or
 * as functions printing them straight into the output. */
#ifndef OG_TMPL_H
#define OG_TMPL_H
#include "diag.h"
#include "strbuf.h"

typedef struct og_tvar {
    const char *name;
    const char *value;
    /* or, when set, the value is what render prints (streamed into the output) */
    void (*render)(strbuf *out, const void *ctx);
    const void *ctx;
} og_tvar;

/* A variable with a string value, and one printed by a function. */
#define OG_TVAR(name, value) \
    { (name), (value), NULL, NULL }
#define OG_TVAR_FN(name, render, ctx) \
    { (name), NULL, (render), (ctx) }

/* Expands tmpl (named `file` in messages) into out. Unknown names and unterminated
 * tags are errors at file:line:col. */
bool og_tmpl_expand(strbuf *out, const char *file, const char *tmpl, size_t len, const og_tvar *vars, unsigned nvars,
                    diag *d);
#endif
