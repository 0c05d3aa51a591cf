/* Function groups: an op's functional, in-place, out= and mutable variants
 * gathered as torchgen's NativeFunctionsGroup, with its checks. */
#include "model_impl.h"
static void group_error(og_model *m, const og_func *f, const char *msg) { og_m_err_in_func(m, f, 0, msg); }

void og_m_group_functions(og_model *m) {
    strbuf b;
    sb_init(&b);
    /* yaml entries keep the signature groups they were added to; only the
     * generated functions are looked up by their own signature */
    unsigned ng = m->nsigs;
    pregroup *groups = og_xcalloc(m->nfuncs + 1, sizeof *groups);
    for (unsigned i = 0; i < m->nfuncs; i++) {
        og_func *f = m->funcs[i];
        uintptr_t gi = f->pregroup;
        if (!gi) {
            const char *key = og_m_sigkey(m, f, &b);
            gi = (uintptr_t)strmap_get(&m->sigs, key);
            if (!gi) {
                gi = ++ng;
                strmap_put(&m->sigs, key, (void *)gi);
            }
        }
        pregroup *d = &groups[gi - 1];
        if (d->by_kind[f->kind]) continue; /* reported by og_m_autogenerate() */
        d->by_kind[f->kind] = f;
        d->n++;
    }
    m->groups = og_xcalloc(ng + 1, sizeof *m->groups);
    for (unsigned gi = 0; gi < ng; gi++) {
        pregroup *d = &groups[gi];
        og_func *fn = d->by_kind[OG_KIND_FUNCTIONAL], *in = d->by_kind[OG_KIND_INPLACE],
                *mu = d->by_kind[OG_KIND_MUTABLE], *out = d->by_kind[OG_KIND_OUT], *sc = d->by_kind[OG_KIND_SCRATCH];
        og_func *any = fn ? fn : in ? in : mu ? mu : out ? out : sc;
        if (d->n == 1) {
            if (any->generated)
                group_error(m, any, arena_printf(m->a, "generated function %s could not be grouped", any->name));
            continue;
        }
        if (sc) {
            group_error(m, sc,
                        arena_printf(m->a,
                                     "%s (a scratch op) shares its signature with other ops; torchgen cannot group it",
                                     sc->name));
            continue;
        }
        if (!fn) {
            group_error(
                m, any,
                arena_printf(m->a,
                             "%s has inplace/mutable/out variants but no functional variant with the same signature",
                             any->name));
            continue;
        }
        if (!out) {
            for (int k = 0; k < OG_KIND_COUNT; k++)
                if (d->by_kind[k] && d->by_kind[k]->generated)
                    group_error(m, d->by_kind[k],
                                arena_printf(m->a, "generated function %s could not be grouped", d->by_kind[k]->name));
            continue;
        }
        og_group *g = ARENA_NEW(m->a, og_group);
        g->functional = fn;
        g->inplace = in;
        g->mutable_ = mu;
        g->out = out;
        unsigned before = m->d->errors;
        og_func *members[4] = {fn, in, mu, out};
        for (int k = 0; k < 4; k++) {
            og_func *f = members[k];
            if (!f) continue;
            bool part = f->structured || f->has_delegate;
            if (part != out->structured)
                group_error(m, f,
                            arena_printf(m->a,
                                         "group of %s mixes structured and unstructured functions: %s is %sstructured",
                                         out->name, f->name, part ? "" : "not "));
            if (strcmp(f->ns, out->ns))
                group_error(m, f,
                            arena_printf(m->a, "%s and %s are variants of one op but live in different namespaces",
                                         f->name, out->name));
        }
        if (mu && !fn->schema->name.functional_overload)
            group_error(
                m, fn,
                arena_printf(m->a,
                             "%s has a mutable variant %s, so its functional variant must be named '%s_functional'",
                             out->name, mu->name, fn->schema->name.base));
        if (out->structured) {
            if (out->dispatch &
                (BIT(OG_DK_CompositeImplicitAutograd) | BIT(OG_DK_CompositeImplicitAutogradNestedTensor)))
                group_error(
                    m, out,
                    arena_printf(m->a, "structured %s must not have a CompositeImplicitAutograd kernel", out->name));
            og_func *dl[2] = {fn, in};
            for (int k = 0; k < 2; k++) {
                og_func *f = dl[k];
                if (!f) continue;
                const char *dn = f->has_delegate ? og_opname_str(m->a, &f->delegate) : "nothing";
                if (strcmp(dn, out->name))
                    group_error(
                        m, f,
                        arena_printf(m->a, "%s delegates to %s but its actual delegate is %s", f->name, dn, out->name));
            }
        }
        /* generated members must be exactly those named by autogen */
        const char *gen[4], *exp[32];
        unsigned ngen = 0, nexp = 0;
        for (int k = 0; k < 4; k++) {
            og_func *f = members[k];
            if (!f) continue;
            if (f->generated && !f->backend) gen[ngen++] = f->name; /* a backend op's out= is opgen's own */
            for (unsigned a = 0; a < f->nautogen && nexp < 32; a++) {
                const char *s = og_opname_str(m->a, &f->autogen[a]);
                bool dup = false;
                for (unsigned e = 0; e < nexp; e++) dup |= !strcmp(exp[e], s);
                if (!dup) exp[nexp++] = s;
            }
        }
        bool same = ngen == nexp;
        for (unsigned x = 0; x < ngen && same; x++) {
            bool found = false;
            for (unsigned y = 0; y < nexp; y++) found |= !strcmp(gen[x], exp[y]);
            same = found;
        }
        if (!same) {
            og_func *src = fn->generated ? (og_func *)fn->source : out->generated ? (og_func *)out->source : out;
            sb_reset(&b);
            for (unsigned x = 0; x < ngen; x++) sb_printf(&b, "%s%s", x ? ", " : "", gen[x]);
            const char *want = arena_strndup(m->a, sb_cstr(&b), b.n);
            sb_reset(&b);
            for (unsigned y = 0; y < nexp; y++) sb_printf(&b, "%s%s", y ? ", " : "", exp[y]);
            if (!ngen)
                group_error(
                    m, src,
                    arena_printf(m->a, "autogen names '%s', but nothing is generated for this group", sb_cstr(&b)));
            else
                group_error(
                    m, src,
                    arena_printf(
                        m->a,
                        "the codegen generates '%s' for this group; it expects the line 'autogen: %s', found 'autogen: %s'",
                        want, want, sb_cstr(&b)));
        }
        if (m->d->errors != before) continue;
        for (int k = 0; k < 4; k++)
            if (members[k]) members[k]->group = g;
        m->groups[m->ngroups++] = g;
    }
    free(groups);
    strmap_free(&m->sigs); /* done with (its slots stay in the arena) */
    sb_free(&b);
}
