/* Checks across entries, once all are read: Python keywords, names, overloads
 * and the signatures torchgen groups by. */
#include "model_impl.h"
const og_func *og_model_find(const og_model *m, const char *ns, const char *name) {
    char buf[512];
    snprintf(buf, sizeof buf, "%s::%s", ns, name);
    return strmap_get(&m->by_name, buf);
}

static int cmp_str(const void *k, const void *e) { return strcmp((const char *)k, *(const char *const *)e); }

/* Whether argument i of f is named for a Python keyword torchgen rejects. */
static bool is_keyword_arg(const og_model *m, const og_func *f, unsigned i) {
    if (!m->dialect->python_keyword_names) return false;
    /* first letters of keyword.kwlist: most names are out at once */
    static const char first[] = "FNTabcdefgilnoprtwy";
    /* keyword.kwlist, sorted for bsearch */
    static const char *const kw[] = {"False",  "None",   "True",    "and",      "as",       "assert", "async",
                                     "await",  "break",  "class",   "continue", "def",      "del",    "elif",
                                     "else",   "except", "finally", "for",      "from",     "global", "if",
                                     "import", "in",     "is",      "lambda",   "nonlocal", "not",    "or",
                                     "pass",   "raise",  "return",  "try",      "while",    "with",   "yield"};
    const og_arg *x = &f->schema->args[i];
    if (!strchr(first, x->name[0]) || strlen(x->name) > 8 ||
        !bsearch(x->name, kw, sizeof kw / sizeof *kw, sizeof *kw, cmp_str))
        return false;
    return !(!strcmp(x->name, "from") && (!strcmp(f->name, "_has_compatible_shallow_copy_type") ||
                                          !strcmp(f->name, "random_.from") || !strcmp(f->name, "uniform_")));
}

static void check_python_keywords(og_model *m, const og_func *f) {
    for (unsigned i = 0; i < f->schema->nargs; i++)
        if (is_keyword_arg(m, f, i))
            og_m_err_in_func(
                m, f, f->schema->args[i].name_off,
                arena_printf(m->a, "argument name '%s' is a reserved Python keyword", f->schema->args[i].name));
}

void og_m_cross_checks(og_model *m) {
    strbuf b;
    sb_init(&b);
    for (unsigned i = 0; i < m->nyaml; i++) {
        const og_func *f = m->funcs[i];
        if (f->has_delegate) {
            const char *dn = og_opname_str(m->a, &f->delegate);
            const og_func *d = og_model_find(m, f->ns, dn);
            const ynode *at = f->delegate_node;
            if (!d)
                ERR_AT(m, at, "%s is marked as a structured_delegate pointing to %s, but %s is missing", f->name, dn,
                       dn);
            else if (!d->structured)
                ERR_AT(m, at,
                       "%s is marked as a structured_delegate pointing to %s, but %s is not marked as structured",
                       f->name, dn, dn);
        }
        if (f->keyword_arg) check_python_keywords(m, f);
        if (og_func_has_tag(f, m->tag_inplace_view) && strcmp(f->name, "resize_") && strcmp(f->name, "resize_as_") &&
            strcmp(f->base_name, "set_")) {
            if (!f->schema->name.inplace) {
                og_m_err_in_func(
                    m, f, 0,
                    arena_printf(m->a,
                                 "%s is tagged inplace_view, but its name does not end in '_' as inplace ops must",
                                 f->name));
                continue;
            }
            og_opname oop = f->schema->name;
            oop.inplace = false;
            oop.overload = "";
            sb_reset(&b);
            og_print_base_name(&b, &oop);
            if (!strmap_get(&m->base_names, sb_cstr(&b)))
                og_m_err_in_func(
                    m, f, 0,
                    arena_printf(m->a, "%s is tagged inplace_view, but there is no out-of-place view op named '%s'",
                                 f->name, sb_cstr(&b)));
        }
    }
    sb_free(&b);
    strmap_free(&m->base_names); /* done with (its slots stay in the arena) */
}

const char *og_m_sigkey(og_model *m, og_func *f, strbuf *b) {
    if (f->sigkey) return f->sigkey;
    sb_reset(b);
    /* ops of another namespace are other operators (cortex_m::maximum is not
     * aten::maximum): torchgen only ever groups one namespace, so aten keys stay its */
    if (f->ns && strcmp(f->ns, "aten")) sb_printf(b, "%s::", f->ns);
    og_print_signature(b, f->schema);
    f->sigkey = arena_strndup(m->a, b->p, b->n);
    return f->sigkey;
}

/* What finish needs of a function added before it, found while its schema is in
 * cache: its signature group (numbered in the order of first appearance, as
 * autogen numbers them), its base name, whether an argument is a keyword. */
void og_m_note_func(og_model *m, og_func *f) {
    const char *key = og_m_sigkey(m, f, &m->key);
    uintptr_t gi = (uintptr_t)strmap_get(&m->sigs, key);
    if (!gi) strmap_put(&m->sigs, key, (void *)(gi = ++m->nsigs));
    f->pregroup = (unsigned)gi;
    strmap_put(&m->base_names, f->base_name, f);
    for (unsigned i = 0; i < f->schema->nargs && !f->keyword_arg; i++) f->keyword_arg = is_keyword_arg(m, f, i);
}
