/* Printing schemas, types, annotations and operator names back into the
 * schema language, byte for byte as torchgen prints them. */
#include "schema_impl.h"
/* ---------------- printing ---------------- */

void og_print_type(strbuf *b, const og_type *t) { sb_end(b, og_put_type(sb_begin(b, og_type_max_len(t)), t)); }

size_t og_type_max_len(const og_type *t) {
    switch (t->kind) {
    case OG_TY_BASE: return basety_lens[t->base];
    case OG_TY_CUSTOM: return 24 + strlen(t->custom);
    case OG_TY_OPTIONAL: return 1 + og_type_max_len(t->elem);
    default: return 12 + og_type_max_len(t->elem); /* [%u] */
    }
}

char *og_put_type(char *p, const og_type *t) {
    switch (t->kind) {
    case OG_TY_BASE: return put_mem(p, basety_names[t->base], basety_lens[t->base]);
    case OG_TY_CUSTOM: return put_str(PUT_LIT(p, "__torch__.torch.classes."), t->custom);
    case OG_TY_OPTIONAL:
        p = og_put_type(p, t->elem);
        *p = '?';
        return p + 1;
    default:
        p = og_put_type(p, t->elem);
        *p++ = '[';
        if (t->size) p = put_u(p, t->size);
        *p = ']';
        return p + 1;
    }
}

static char *put_set(char *p, const char *set) {
    for (const char *c = set; *c; c++) {
        if (c != set) *p++ = '|';
        *p++ = *c;
    }
    return p;
}

char *og_put_annot(char *p, const og_annot *x) { /* sets of at most 26 letters: 51 bytes each */
    p = put_set(p, x->before);
    if (x->write) *p++ = '!';
    if (x->after[0]) p = put_set(PUT_LIT(p, " -> "), x->after);
    return p;
}

void og_print_annot(strbuf *b, const og_annot *x) { sb_end(b, og_put_annot(sb_begin(b, OG_ANNOT_MAX_LEN), x)); }

/* The printers write straight into memory sized by the *_max_len bounds: one
 * piece per schema, cheap to store or to compare with the text it came from. */
static size_t annotated_type_max_len(const og_type *t, const og_annot *x) {
    return x ? 12 + OG_ANNOT_MAX_LEN : og_type_max_len(t);
}
static char *put_annotated_type(char *p, const og_type *t, const og_annot *x) {
    if (!x) return og_put_type(p, t);
    /* only Tensor, Tensor? and Tensor[] carry annotations (the parser guarantees it) */
    p = og_put_annot(PUT_LIT(p, "Tensor("), x);
    *p++ = ')';
    if (t->kind == OG_TY_OPTIONAL) *p++ = '?';
    if (t->kind == OG_TY_LIST) p = PUT_LIT(p, "[]");
    return p;
}

static size_t opname_max_len(const og_opname *n) {
    return strlen(n->base) + (n->overload ? strlen(n->overload) : 0) + 16;
}
char *og_s_put_base_name(char *p, const og_opname *n) {
    if (n->dunder) {
        p = PUT_LIT(p, "__");
        if (n->inplace) *p++ = 'i';
        return PUT_LIT(put_str(p, n->base), "__");
    }
    p = put_str(p, n->base);
    if (n->inplace)
        *p++ = '_';
    else if (n->functional_overload)
        p = PUT_LIT(p, "_functional");
    return p;
}
static char *put_opname(char *p, const og_opname *n) {
    p = og_s_put_base_name(p, n);
    if (n->overload && n->overload[0]) p = put_str(PUT_LIT(p, "."), n->overload);
    return p;
}

static size_t arg_max_len(const og_arg *x) {
    return annotated_type_max_len(x->type, x->annot) + strlen(x->name) + (x->dflt ? strlen(x->dflt) : 0) + 2;
}
char *og_s_put_arg(char *p, const og_arg *x) {
    p = put_str(PUT_LIT(put_annotated_type(p, x->type, x->annot), " "), x->name);
    if (x->dflt && x->dflt[0]) p = put_str(PUT_LIT(p, "="), x->dflt);
    return p;
}

static size_t ret_max_len(const og_ret *r) {
    return annotated_type_max_len(r->type, r->annot) + (r->name ? strlen(r->name) + 1 : 0);
}
static char *put_ret(char *p, const og_ret *r) {
    p = put_annotated_type(p, r->type, r->annot);
    if (r->name) p = put_str(PUT_LIT(p, " "), r->name);
    return p;
}

size_t og_s_schema_max_len(const og_schema *s) {
    size_t n = opname_max_len(&s->name) + 16;
    for (unsigned i = 0; i < s->nargs; i++) n += arg_max_len(&s->args[i]) + 5;
    for (unsigned i = 0; i < s->nrets; i++) n += ret_max_len(&s->rets[i]) + 2;
    return n;
}
char *og_s_put_schema(char *p, const og_schema *s) {
    p = PUT_LIT(put_opname(p, &s->name), "(");
    bool star = false;
    for (unsigned i = 0; i < s->nargs; i++) {
        if (i) p = PUT_LIT(p, ", ");
        if (!star && s->args[i].cat >= OG_ARG_KW_PRE) {
            p = PUT_LIT(p, "*, ");
            star = true;
        }
        p = og_s_put_arg(p, &s->args[i]);
    }
    p = PUT_LIT(p, ") -> ");
    if (s->nrets == 1) return put_ret(p, &s->rets[0]);
    *p++ = '(';
    for (unsigned i = 0; i < s->nrets; i++) {
        if (i) p = PUT_LIT(p, ", ");
        p = put_ret(p, &s->rets[i]);
    }
    *p++ = ')';
    return p;
}

void og_print_base_name(strbuf *b, const og_opname *n) {
    sb_end(b, og_s_put_base_name(sb_begin(b, opname_max_len(n)), n));
}
void og_print_opname(strbuf *b, const og_opname *n) { sb_end(b, put_opname(sb_begin(b, opname_max_len(n)), n)); }
void og_print_arg(strbuf *b, const og_arg *x) { sb_end(b, og_s_put_arg(sb_begin(b, arg_max_len(x)), x)); }
void og_print_ret(strbuf *b, const og_ret *r) { sb_end(b, put_ret(sb_begin(b, ret_max_len(r)), r)); }
void og_print_schema(strbuf *b, const og_schema *s) {
    sb_end(b, og_s_put_schema(sb_begin(b, og_s_schema_max_len(s)), s));
}

const char *og_opname_str(arena *a, const og_opname *n) {
    strbuf b;
    sb_init(&b);
    og_print_opname(&b, n);
    const char *r = arena_strndup(a, sb_cstr(&b), b.n);
    sb_free(&b);
    return r;
}
