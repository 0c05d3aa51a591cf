/* The variants torchgen autogenerates (native_function_generation.py):
 * functional and out= forms of ops that declare only one. */
#include "model_impl.h"
static bool has_cia(const og_func *f) { return (f->dispatch & BIT(OG_DK_CompositeImplicitAutograd)) != 0; }

static bool is_view_op(const og_model *m, const og_func *f) {
    const og_schema *s = f->schema;
    for (unsigned k = 0; k < s->nrets; k++)
        if (s->rets[k].annot && !s->rets[k].annot->write) return true;
    if (og_func_has_tag(f, m->tag_inplace_view) && strcmp(f->name, "resize_") && strcmp(f->name, "resize_as_"))
        return true;
    for (unsigned i = 0; i < s->nargs; i++)
        if (s->args[i].annot && strchr(s->args[i].annot->after, '*')) return true;
    return false;
}

static bool autogen_mentions_out(const og_func *f) {
    for (unsigned i = 0; i < f->nautogen; i++) {
        if (strstr(f->autogen[i].base, "out") || strstr(f->autogen[i].overload, "out")) return true;
        /* "out" may also straddle the printed name (e.g. a base ending in 'o' + "ut...") */
        if (f->autogen[i].overload[0] && f->autogen[i].base[0]) {
            size_t bl = strlen(f->autogen[i].base);
            const char *ov = f->autogen[i].overload;
            if ((bl >= 2 && !strcmp(f->autogen[i].base + bl - 2, "ou") && ov[0] == 't') ||
                (bl >= 1 && f->autogen[i].base[bl - 1] == 'o' && ov[0] == 'u' && ov[1] == 't'))
                return true;
        }
    }
    return false;
}

og_func *og_m_generate(og_model *m, og_func *src, og_kind k, strbuf *b) {
    og_func *g = ARENA_NEW(m->a, og_func);
    g->ns = src->ns;
    g->schema = k == OG_KIND_OUT ? og_schema_to_out(m->a, src->schema) : og_schema_to_functional(m->a, src->schema);
    sb_reset(b);
    og_print_schema(b, g->schema);
    g->schema_text = arena_strndup(m->a, b->p, b->n);
    g->name = og_opname_str(m->a, &g->schema->name);
    g->base_name = og_m_printed_base_name(m, g->schema, b);
    g->kind = og_schema_kind(g->schema);
    g->func_node = src->func_node;
    g->ns_prefix = src->ns_prefix;
    g->variants = OG_VARIANT_FUNCTION;
    g->device_check = OG_DEVICE_CHECK_NO_CHECK;
    g->generated = true;
    g->source = src;
    g->use_const_ref_for_mutable_tensors = src->use_const_ref_for_mutable_tensors;
    og_m_set_tag(g, m->tag_generated);
    if (og_func_has_tag(src, m->tag_nondet)) og_m_set_tag(g, m->tag_nondet);
    if (m->dialect->autogen_2x && og_func_has_tag(src, m->tag_view_copy)) og_m_set_tag(g, m->tag_view_copy);
    if (og_func_has_tag(src, m->tag_pt2)) og_m_set_tag(g, m->tag_pt2);
    const char *kname;
    if (g->kind == OG_KIND_OUT)
        kname = arena_printf(m->a, "%s_%s", g->base_name, g->schema->name.overload);
    else
        kname = og_m_cpp_name(m, g);
    if (og_schema_has_symint(src->schema)) kname = arena_printf(m->a, "%s_symint", kname);
    og_m_reserve_kernels(m, g, 1);
    og_m_add_kernel(m, g, OG_DK_CompositeExplicitAutograd, kname);
    return g;
}

void og_m_autogenerate(og_model *m) {
    strbuf b;
    sb_init(&b);
    pregroup *groups = og_xcalloc(m->nsigs + 1, sizeof *groups);
    unsigned ng = m->nsigs;
    for (unsigned i = 0; i < m->nyaml; i++) {
        og_func *f = m->funcs[i];
        pregroup *d = &groups[f->pregroup - 1];
        if (d->by_kind[f->kind]) {
            const og_func *p = d->by_kind[f->kind];
            og_m_err_in_func(m, f, 0,
                             arena_printf(m->a,
                                          "%s has the same signature and kind (%s) as %s; torchgen cannot group them",
                                          f->name, og_kind_name(f->kind), p->name));
            diag_note(m->d, p->func_node->file, p->func_node->line, p->func_node->col, "%s is defined here", p->name);
            continue;
        }
        d->by_kind[f->kind] = f;
        d->n++;
    }
    for (unsigned gi = 0; gi < ng; gi++) {
        pregroup *d = &groups[gi];
        og_func *functional = d->by_kind[OG_KIND_FUNCTIONAL], *inplace = d->by_kind[OG_KIND_INPLACE],
                *mut = d->by_kind[OG_KIND_MUTABLE], *out = d->by_kind[OG_KIND_OUT];
        if (!functional && !inplace && !mut && !out) continue;
        bool manual = true, view = false, cia = true, core = false, custom = false;
        for (int k = 0; k < OG_KIND_COUNT; k++) {
            og_func *f = d->by_kind[k];
            if (!f) continue;
            custom |= f->custom;
            manual &= f->manual_cpp_binding;
            if (is_view_op(m, f) && (!m->dialect->autogen_2x || strcmp(f->base_name, "set_"))) view = true;
            cia &= has_cia(f);
            core |= og_func_has_tag(f, m->tag_core);
        }
        if (!m->dialect->autogen_2x) core = false;
        if (manual || view || (cia && !core) || custom) continue;
        if (out && d->n == 1) {
            if (!in_list(out_ops_not_grouped, out->name))
                og_m_err_in_func(
                    m, out, 0,
                    arena_printf(m->a, "found an out= operator with no other variants: %s (add its functional variant)",
                                 out->name));
            continue;
        }
        if (inplace && in_list(inplace_ops_not_grouped, inplace->name)) continue;
        og_func *base = m->dialect->autogen_2x ? (mut       ? mut
                                                  : inplace ? inplace
                                                  : out     ? out
                                                            : functional)
                                               : (inplace ? inplace
                                                  : mut   ? mut
                                                  : out   ? out
                                                          : functional);
        bool valid = base->kind == OG_KIND_INPLACE;
        for (unsigned k = 0; k < base->schema->nrets && !valid; k++)
            valid = og_type_is_tensor_like(base->schema->rets[k].type);
        bool gets_out = !out && valid && autogen_mentions_out(base);
        if (!out && !valid && !in_list(mutable_ops_without_out, base->name) &&
            !in_list(functional_ops_without_out, base->name)) {
            og_m_err_in_func(
                m, base, 0,
                arena_printf(
                    m->a,
                    "cannot derive an out= variant for %s: it returns no tensor (torchgen only allows this for its own list of ops)",
                    base->name));
            continue;
        }
        if (gets_out) {
            og_func *g = og_m_generate(m, base, OG_KIND_OUT, &b);
            og_m_add_func(m, g);
            d->by_kind[OG_KIND_OUT] = g;
        }
        if (!functional && (out || gets_out)) {
            og_func *g = og_m_generate(m, base, OG_KIND_FUNCTIONAL, &b);
            og_m_add_func(m, g);
            d->by_kind[OG_KIND_FUNCTIONAL] = g;
        }
    }
    free(groups);
    sb_free(&b);
}
