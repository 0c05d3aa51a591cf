/* `opgen list` output: each function of the model as JSON lines or text. */
#include "emit.h"
#include <string.h>

static void json_opt_str(strbuf *b, const char *s) {
    if (s)
        sb_json_str(b, s);
    else
        sb_puts(b, "null");
}

static void json_type(strbuf *b, strbuf *tmp, const og_type *t) {
    sb_reset(tmp);
    og_print_type(tmp, t);
    sb_json_str(b, sb_cstr(tmp));
}

static void json_annot(strbuf *b, strbuf *tmp, const og_annot *x) {
    if (!x) {
        sb_puts(b, "null");
        return;
    }
    sb_reset(tmp);
    og_print_annot(tmp, x);
    sb_json_str(b, sb_cstr(tmp));
}

static const char *tf(bool v) { return v ? "true" : "false"; }

void og_emit_list_jsonl(strbuf *b, const og_model *m, const og_func *f) {
    const og_schema *s = f->schema;
    strbuf tmp;
    sb_init(&tmp);
    og_print_base_name(&tmp, &s->name);
    sb_puts(b, "{\"name\": ");
    sb_json_str(b, sb_cstr(&tmp));
    sb_puts(b, ", \"overload\": ");
    sb_json_str(b, s->name.overload);
    sb_puts(b, ", \"namespace\": ");
    sb_json_str(b, f->ns);
    sb_puts(b, ", \"schema\": ");
    sb_json_str(b, f->schema_text);
    sb_puts(b, ", \"args\": [");
    for (unsigned i = 0; i < s->nargs; i++) {
        const og_arg *x = &s->args[i];
        sb_puts(b, i ? ", {\"name\": " : "{\"name\": ");
        sb_json_str(b, x->name);
        sb_puts(b, ", \"type\": ");
        json_type(b, &tmp, x->type);
        sb_puts(b, ", \"default\": ");
        json_opt_str(b, x->dflt);
        sb_printf(b, ", \"kwarg_only\": %s, \"out\": %s, \"alias\": ", tf(x->cat >= OG_ARG_KW_PRE),
                  tf(x->cat == OG_ARG_OUT));
        json_annot(b, &tmp, x->annot);
        sb_putc(b, '}');
    }
    sb_puts(b, "], \"returns\": [");
    for (unsigned i = 0; i < s->nrets; i++) {
        const og_ret *r = &s->rets[i];
        sb_puts(b, i ? ", {\"name\": " : "{\"name\": ");
        json_opt_str(b, r->name);
        sb_puts(b, ", \"type\": ");
        json_type(b, &tmp, r->type);
        sb_puts(b, ", \"alias\": ");
        json_annot(b, &tmp, r->annot);
        sb_putc(b, '}');
    }
    sb_puts(b, "], \"tags\": [");
    bool first = true;
    for (unsigned t = 0; t < m->ntags; t++) {
        if (!og_func_has_tag(f, (int)t)) continue;
        if (!first) sb_puts(b, ", ");
        sb_json_str(b, m->tags[t].name);
        first = false;
    }
    sb_puts(b, "], \"variants\": [");
    if (f->variants & OG_VARIANT_FUNCTION) sb_puts(b, "\"function\"");
    if (f->variants & OG_VARIANT_METHOD) sb_puts(b, f->variants & OG_VARIANT_FUNCTION ? ", \"method\"" : "\"method\"");
    sb_puts(b, "], \"dispatch_keys\": [");
    first = true;
    for (unsigned k = 0; k < OG_DK_COUNT; k++) {
        if (!(f->dispatch & (1ull << k))) continue;
        if (!first) sb_puts(b, ", ");
        sb_json_str(b, og_dkey_name((og_dkey)k));
        first = false;
    }
    sb_printf(b, "], \"composite_implicit\": %s, \"structured\": %s, \"structured_delegate\": ",
              tf(f->dispatch & (1ull << OG_DK_CompositeImplicitAutograd)), tf(f->structured));
    if (f->has_delegate) {
        sb_reset(&tmp);
        og_print_opname(&tmp, &f->delegate);
        sb_json_str(b, sb_cstr(&tmp));
    } else {
        sb_puts(b, "null");
    }
    sb_printf(b, ", \"is_out_fn\": %s, \"inplace\": %s, \"functional_overload_for_out\": ", tf(s->nout > 0),
              tf(s->name.inplace));
    if (s->nout && f->group)
        sb_json_str(b, f->group->functional->name);
    else
        sb_puts(b, "null");
    sb_puts(b, "}\n");
    sb_free(&tmp);
}

void og_emit_list_text(strbuf *b, const og_model *m, const og_func *f) {
    sb_printf(b, "%s::%s", f->ns, f->schema_text);
    bool first = true;
    for (unsigned t = 0; t < m->ntags; t++) {
        if (!og_func_has_tag(f, (int)t)) continue;
        sb_puts(b, first ? "  [" : ", ");
        sb_puts(b, m->tags[t].name);
        first = false;
    }
    if (!first) sb_putc(b, ']');
    sb_putc(b, '\n');
}

void og_emit_list(strbuf *b, const og_model *m, bool generated, const char *ns, const int *tags, unsigned ntags,
                  og_list_format format) {
    unsigned n = generated ? m->nfuncs : m->nyaml;
    for (unsigned i = 0; i < n; i++) {
        const og_func *f = m->funcs[i];
        bool ok = !ns || !strcmp(f->ns, ns);
        for (unsigned t = 0; t < ntags && ok; t++) ok = og_func_has_tag(f, tags[t]);
        if (!ok) continue;
        if (format == OG_LIST_JSONL) {
            og_emit_list_jsonl(b, m, f);
        } else if (format == OG_LIST_OUT_VARIANTS) {
            const og_func *o = og_func_out_variant(f);
            sb_printf(b, "%s::%s %s%s%s\n", f->ns, f->name, o ? o->ns : "-", o ? "::" : "", o ? o->name : "");
        } else {
            og_emit_list_text(b, m, f);
        }
    }
}
