/* One native_functions.yaml entry into an og_func: its keys read and checked,
 * dispatch, ufunc and precomputed blocks, variants and tags, its name registered. */
#include "model_impl.h"
static const char *keep_str(og_model *m, const ynode *v) { return arena_strndup(m->a, v->s, v->len); }

static const ynode *keep_node(og_model *m, const ynode *v) {
    ynode *c = ARENA_NEW(m->a, ynode);
    *c = *v;
    c->kids = NULL;
    c->n = 0;
    c->s = keep_str(m, v);
    return c;
}

void og_m_note_func(og_model *m, og_func *f);

void og_m_add_func(og_model *m, og_func *f) {
    if (!m->finishing) og_m_note_func(m, f);
    if (m->nfuncs == m->capfuncs) {
        m->capfuncs = m->capfuncs ? m->capfuncs * 2 : 4096;
        og_func **p = og_xrealloc(m->funcs, m->capfuncs * sizeof *p);
        m->funcs = p;
    }
    f->index = m->nfuncs;
    m->funcs[m->nfuncs++] = f;
}

/* Kernel slots: at most one per dispatch key, so OG_DK_COUNT bounds them; the
 * array is sized once per function from what its entry can add. */
void og_m_reserve_kernels(og_model *m, og_func *f, unsigned n) { f->kernels = ARENA_ARRAY(m->a, og_kernel, n ? n : 1); }

void og_m_add_kernel(og_model *m, og_func *f, og_dkey k, const char *name) {
    (void)m;
    f->kernels[f->nkernels].key = k;
    f->kernels[f->nkernels].name = name;
    f->nkernels++;
    f->dispatch |= BIT(k);
}

static const char *kernel_of(const og_func *f, og_dkey k) {
    for (unsigned i = 0; i < f->nkernels; i++)
        if (f->kernels[i].key == k) return f->kernels[i].name;
    return NULL;
}

/* cpp.name(func): base name as written, plus _out for out functions */
const char *og_m_cpp_name(og_model *m, const og_func *f) {
    return f->schema->nout ? arena_printf(m->a, "%s_out", f->base_name) : f->base_name;
}

const char *og_m_printed_base_name(og_model *m, const og_schema *s, strbuf *b) {
    sb_reset(b);
    og_print_base_name(b, &s->name);
    return arena_strndup(m->a, b->p, b->n);
}

static bool parse_opname_node(og_model *m, const ynode *v, const char *s, size_t n, size_t off, og_opname *out) {
    og_err err;
    if (og_opname_parse(m->a, s, n, out, &err)) return true;
    unsigned line, col;
    ynode_pos(v, off + err.off, &line, &col);
    diag_error(m->d, v->file, line, col, "%s", err.msg);
    return false;
}

static bool is_ident(const char *s, size_t n) {
    if (!n) return false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        bool ok = c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (i && c >= '0' && c <= '9');
        if (!ok) return false;
    }
    return true;
}

static void parse_ufunc(og_model *m, og_func *f, const ynode *kn, const char *key, const ynode *v, const char **names) {
    int k = -1;
    for (int i = 0; i < UFUNC_COUNT; i++)
        if (!strcmp(ufunc_key_names[i], key)) k = i;
    if (k < 0) {
        ERR_AT(
            m, kn,
            "unknown ufunc key '%s' (expected CUDAFunctor, CUDAFunctorOnOther, CUDAFunctorOnSelf, CPUScalar, CPUVector, ScalarOnly or Generic)",
            key);
        return;
    }
    if (!og_m_want_str(m, v, "ufunc_inner_loop")) return;
    /* "name (dtype, dtype class, ...)" */
    const char *sp = strchr(v->s, ' ');
    if (!sp || sp == v->s || sp[1] != '(' || v->s[v->len - 1] != ')' || v->len - (size_t)(sp - v->s) < 4) {
        ERR_AT(m, v, "ufunc inner loop must read 'NAME (DTYPES)', e.g. 'add (AllAndComplex, BFloat16, Half)'");
        return;
    }
    static const char *const dtypes[] = {"Byte",
                                         "Char",
                                         "Short",
                                         "Int",
                                         "Long",
                                         "Half",
                                         "Float",
                                         "Double",
                                         "ComplexHalf",
                                         "ComplexFloat",
                                         "ComplexDouble",
                                         "Bool",
                                         "BFloat16",
                                         "Integral",
                                         "Floating",
                                         "Complex",
                                         "All",
                                         "AllAndComplex",
                                         "FloatingAndComplex",
                                         NULL};
    const char *p = sp + 2, *end = v->s + v->len - 1;
    while (p <= end) {
        const char *q = p;
        while (q < end && !(q[0] == ',' && q[1] == ' ')) q++;
        bool ok = false;
        for (const char *const *d = dtypes; *d; d++)
            if (strlen(*d) == (size_t)(q - p) && !memcmp(*d, p, (size_t)(q - p))) ok = true;
        if (!ok) {
            unsigned line, col;
            ynode_pos(v, (size_t)(p - v->s), &line, &col);
            diag_error(m->d, v->file, line, col, "unknown dtype '%.*s' in ufunc inner loop", (int)(q - p), p);
            return;
        }
        p = q + 2;
    }
    f->ufunc_keys |= (unsigned char)(1u << k);
    names[k] = arena_strndup(m->a, v->s, (size_t)(sp - v->s));
}

static void check_precomputed(og_model *m, og_func *f, const ynode *v) {
    if (v->kind != YNODE_SEQ) {
        ERR_AT(m, v, "'precomputed' must be a list of 'param -> TYPE name, ...' lines, found %s", ynode_describe(v));
        return;
    }
    for (size_t i = 0; i < v->n; i++) {
        const ynode *l = v->kids[i];
        if (!og_m_want_str(m, l, "precomputed")) return;
        const char *arrow = strstr(l->s, " -> ");
        if (!arrow && i + 1 != v->n) {
            ERR_AT(m, l, "precomputed parameters without a replacement are allowed only in the last line");
            return;
        }
        if (arrow) {
            size_t pn = (size_t)(arrow - l->s);
            bool found = false;
            for (unsigned k = 0; k < f->schema->nargs; k++)
                if (strlen(f->schema->args[k].name) == pn && !memcmp(f->schema->args[k].name, l->s, pn)) found = true;
            if (!found) {
                ERR_AT(m, l, "precomputed replaces '%.*s', which is not an argument of %s", (int)pn, l->s, f->name);
                return;
            }
        }
        /* each replacement / added parameter is an argument declaration "TYPE name" */
        const char *p = arrow ? arrow + 4 : l->s;
        while (*p) {
            while (*p == ' ') p++;
            const char *e = strchr(p, ',');
            size_t n = e ? (size_t)(e - p) : strlen(p);
            while (n && p[n - 1] == ' ') n--;
            char *decl = arena_strndup(m->a, p, n);
            char *text = arena_printf(m->a, "x(%s) -> ()", decl);
            og_err err;
            if (!og_schema_parse(m->a, text, m->dialect, &err)) {
                unsigned line, col;
                ynode_pos(l, (size_t)(p - l->s), &line, &col);
                diag_error(m->d, l->file, line, col, "precomputed parameter '%s' is not 'TYPE name': %s", decl,
                           err.msg);
                return;
            }
            if (!e) break;
            p = e + 1;
        }
    }
}

static bool is_factory_like(const og_func *f) {
    const og_schema *s = f->schema;
    size_t n = strlen(f->base_name);
    if (!strncmp(f->base_name, "new_", 4) || (n >= 5 && !strcmp(f->base_name + n - 5, "_like"))) return true;
    if (s->to_ix < 0) return false;
    for (unsigned i = 0; i < s->nargs; i++)
        if (s->args[i].cat != OG_ARG_OUT && og_type_is_tensor_like(s->args[i].type)) return false;
    return true;
}

static bool has_generator_arg(const og_schema *s) {
    for (unsigned i = 0; i < s->nargs; i++) {
        if (s->args[i].cat == OG_ARG_OUT) continue;
        const og_type *t = s->args[i].type;
        while (t->kind == OG_TY_OPTIONAL || t->kind == OG_TY_LIST) t = t->elem;
        if (t->kind == OG_TY_BASE && t->base == OG_BT_Generator) return true;
    }
    return false;
}

/* clang-format off */
#define OG_ENTRY_KEYS(X)                                                                                        \
    X(func) X(variants) X(dispatch) X(tags) X(structured) X(structured_delegate) X(structured_inherits)         \
    X(precomputed) X(ufunc_inner_loop) X(autogen) X(device_guard) X(device_check) X(manual_kernel_registration) \
    X(manual_cpp_binding) X(python_module) X(category_override) X(cpp_no_default_args)                          \
    X(use_const_ref_for_mutable_tensors)
/* clang-format on */

enum {
#define OG_KEY_ENUM(n) KEY_##n,
    OG_ENTRY_KEYS(OG_KEY_ENUM)
#undef OG_KEY_ENUM
        KEY_UNKNOWN
};
static const char *const entry_keys[] = {
#define OG_KEY_NAME(n) #n,
    OG_ENTRY_KEYS(OG_KEY_NAME)
#undef OG_KEY_NAME
        NULL};
static const unsigned char entry_key_lens[] = {
#define OG_KEY_LEN(n) sizeof #n - 1,
    OG_ENTRY_KEYS(OG_KEY_LEN)
#undef OG_KEY_LEN
};

static int entry_key(const ynode *k) {
    for (int i = 0; i < KEY_UNKNOWN; i++)
        if (entry_key_lens[i] == k->len && entry_keys[i][0] == k->s[0] && !memcmp(entry_keys[i], k->s, k->len))
            return i;
    return KEY_UNKNOWN;
}

/* Which file an entry comes from: the keys it may have beyond native_functions'. */

/* The nodes of an entry's keys that later checks look at again. */
typedef struct entry_nodes {
    const ynode *dispatch, *dispatch_key, *ufunc, *precomputed, *structured, *cpp_nda, *delegate, *inherits, *pymod;
} entry_nodes;

/* func: the namespace (NamespaceHelper(max_level=1) splits the whole string on
 * "::"), the schema, the names. NULL (reported) when it does not parse. */
static og_func *entry_func(og_model *m, const ynode *e) {
    if (e->kind != YNODE_MAP) {
        ERR_AT(m, e, "expected an operator entry (a mapping with 'func:'), found %s", ynode_describe(e));
        return NULL;
    }
    const ynode *fn = ymap_get(e, "func");
    if (!fn) {
        ERR_AT(m, e, "operator entry has no 'func:' key");
        return NULL;
    }
    if (!ynode_is_str(fn)) {
        ERR_AT(m, fn, "'func' must be a schema string, found %s", ynode_describe(fn));
        return NULL;
    }
    og_func *f = ARENA_NEW(m->a, og_func);
    f->func_node = fn = keep_node(m, fn);
    f->variants = OG_VARIANT_FUNCTION;
    f->device_guard = true;
    f->device_check = OG_DEVICE_CHECK_EXACT_SAME;
    const char *s = fn->s;
    const char *first = strstr(s, "::");
    if (first) {
        const char *second = strstr(first + 2, "::");
        if (second) {
            og_m_err_in_func(
                m, f, (size_t)(second - s),
                "only one level of namespace is supported (ns::op); '::' may not appear elsewhere in a schema");
            return NULL;
        }
        size_t nl = (size_t)(first - s);
        if (nl && !is_ident(s, nl)) {
            og_m_err_in_func(
                m, f, 0, "the namespace before '::' must be an identifier; '::' may not appear elsewhere in a schema");
            return NULL;
        }
        f->ns = nl ? arena_strndup(m->a, s, nl) : "aten";
        f->ns_prefix = nl + 2;
    } else {
        f->ns = "aten";
    }
    og_err err;
    og_schema *sch = og_schema_parse(m->a, s + f->ns_prefix, m->dialect, &err);
    if (!sch) {
        og_m_err_in_func(m, f, err.off, err.msg);
        return NULL;
    }
    f->schema = sch;
    f->schema_text = s + f->ns_prefix;
    /* the schema re-prints as written, so its names are slices of the text */
    const char *text = f->schema_text, *lp = strchr(text, '('), *dot = memchr(text, '.', (size_t)(lp - text));
    f->name = arena_strndup(m->a, text, (size_t)(lp - text));
    f->base_name = arena_strndup(m->a, text, (size_t)((dot ? dot : lp) - text));
    f->kind = og_schema_kind(sch);
    if (!og_schema_check(sch, &err)) {
        og_m_err_in_func(m, f, err.off, err.msg);
        return NULL;
    }
    return f;
}

/* variants: "function", "method" or "function, method". */
static void key_variants(og_model *m, og_func *f, const ynode *v) {
    f->variants = 0;
    const char *p = v->s;
    for (;;) {
        const char *q = strstr(p, ", ");
        size_t n = q ? (size_t)(q - p) : strlen(p);
        if (n == 8 && !memcmp(p, "function", 8))
            f->variants |= OG_VARIANT_FUNCTION;
        else if (n == 6 && !memcmp(p, "method", 6))
            f->variants |= OG_VARIANT_METHOD;
        else {
            unsigned line, col;
            ynode_pos(v, (size_t)(p - v->s), &line, &col);
            diag_error(m->d, v->file, line, col,
                       "illegal variant '%.*s' (expected 'function', 'method' or 'function, method')", (int)n, p);
            break;
        }
        if (!q) break;
        p = q + 2;
    }
}

/* tags: a name or a list of them, each declared in the tags file. */
static void key_tags(og_model *m, og_func *f, const ynode *v) {
    const ynode *const *items = &v;
    size_t n = 1;
    if (v->kind == YNODE_SEQ) {
        items = (const ynode *const *)v->kids;
        n = v->n;
    } else if (!ynode_is_str(v)) {
        ERR_AT(m, v, "'tags' must be a tag name or a list of them, found %s", ynode_describe(v));
        return;
    }
    for (size_t t = 0; t < n; t++) {
        if (!og_m_want_str(m, items[t], "tags")) continue;
        int id = og_model_tag_find(m, items[t]->s);
        if (id < 0 || !m->tags[id].declared)
            ERR_AT(m, items[t], "unknown tag '%s' (not declared in the tags file)", items[t]->s);
        else
            og_m_set_tag(f, id);
    }
}

/* autogen: "op.overload, op.overload". */
static void key_autogen(og_model *m, og_func *f, const ynode *v) {
    unsigned cnt = 1;
    for (const char *p = v->s; (p = strstr(p, ", ")); p += 2) cnt++;
    f->autogen = ARENA_ARRAY(m->a, og_opname, cnt);
    const char *p = v->s;
    for (;;) {
        const char *q = strstr(p, ", ");
        size_t n = q ? (size_t)(q - p) : strlen(p);
        if (!parse_opname_node(m, v, p, n, (size_t)(p - v->s), &f->autogen[f->nautogen])) break;
        f->nautogen++;
        if (!q) break;
        p = q + 2;
    }
}

static bool is_null(const ynode *v) { return v->kind == YNODE_SCALAR && v->type == YVAL_NULL; }

/* The keys whose value is a name (or null): structured_delegate, structured_inherits,
 * device_check, python_module, category_override. True when key was one of them. */
static bool key_name(og_model *m, og_func *f, int key, const ynode *v, entry_nodes *nd) {
    if (key != KEY_structured_delegate && key != KEY_structured_inherits && key != KEY_device_check &&
        key != KEY_python_module && key != KEY_category_override)
        return false;
    if (is_null(v) || !og_m_want_str(m, v, entry_keys[key])) return true;
    if (key == KEY_structured_delegate) {
        nd->delegate = v;
        f->delegate_node = keep_node(m, v);
        if (strstr(v->s, "::"))
            ERR_AT(m, v, "structured_delegate takes no namespace; the delegate is in the op's own namespace");
        else if (parse_opname_node(m, v, v->s, v->len, 0, &f->delegate))
            f->has_delegate = true;
    } else if (key == KEY_structured_inherits) {
        nd->inherits = v;
        if (strstr(v->s, "::"))
            ERR_AT(m, v, "structured_inherits takes no namespace");
        else
            f->structured_inherits = keep_str(m, v);
    } else if (key == KEY_device_check) {
        if (!strcmp(v->s, "NoCheck"))
            f->device_check = OG_DEVICE_CHECK_NO_CHECK;
        else if (!strcmp(v->s, "ExactSame"))
            f->device_check = OG_DEVICE_CHECK_EXACT_SAME;
        else
            ERR_AT(m, v, "illegal device_check '%s' (expected NoCheck or ExactSame)", v->s);
    } else if (key == KEY_python_module) {
        f->python_module = keep_str(m, v), nd->pymod = v;
    } else {
        f->category_override = keep_str(m, v);
    }
    return true;
}

/* A key this kind of file has that native_functions.yaml does not, or an error. */
static void key_other(og_model *m, const ynode *kn, int from) {
    const char *k = kn->s;
    if (from == ENTRY_KERNEL_YAML &&
        (!strcmp(k, "kernels") || !strcmp(k, "type_alias") || !strcmp(k, "dim_order_alias")))
        return; /* read by kernels.c */
    if (from == ENTRY_BACKEND_YAML && (!strcmp(k, "backend") || !strcmp(k, "pattern") || !strcmp(k, "builtin") ||
                                       !strcmp(k, "ignore") || !strcmp(k, "doc")))
        return; /* backend.c */
    strbuf b;
    sb_init(&b);
    for (const char *const *p = entry_keys; *p; p++) {
        if (p != entry_keys) sb_puts(&b, ", ");
        sb_puts(&b, *p);
    }
    if (from == ENTRY_KERNEL_YAML) sb_puts(&b, ", kernels, type_alias, dim_order_alias");
    if (from == ENTRY_BACKEND_YAML) sb_puts(&b, ", backend, pattern, builtin, ignore, doc");
    ERR_AT(m, kn, "unknown key '%s' in an operator entry (expected one of: %s)", k, sb_cstr(&b));
    sb_free(&b);
}

/* Every key of the entry but func:, into f and (for later checks) nd. */
static void entry_keys_read(og_model *m, og_func *f, const ynode *e, int from, entry_nodes *nd) {
    for (size_t i = 0; i < e->n; i++) {
        const ynode *kn = e->kids[2 * i], *v = e->kids[2 * i + 1];
        if (!ynode_is_str(kn)) {
            ERR_AT(m, kn, "unknown key %s in an operator entry", ynode_describe(kn));
            continue;
        }
        const char *k = kn->s;
        int key = entry_key(kn);
        if (key == KEY_func || key_name(m, f, key, v, nd)) continue;
        if (key == KEY_variants) {
            if (og_m_want_str(m, v, k)) key_variants(m, f, v);
        } else if (key == KEY_dispatch) {
            nd->dispatch = v;
            nd->dispatch_key = kn;
        } else if (key == KEY_tags) {
            key_tags(m, f, v);
        } else if (key == KEY_structured) {
            nd->structured = v;
            og_m_want_bool(m, v, k, &f->structured);
        } else if (key == KEY_precomputed) {
            nd->precomputed = v;
        } else if (key == KEY_ufunc_inner_loop) {
            nd->ufunc = v;
        } else if (key == KEY_autogen) {
            if (og_m_want_str(m, v, k) && v->len) key_autogen(m, f, v);
        } else if (key == KEY_device_guard) {
            og_m_want_bool(m, v, k, &f->device_guard);
        } else if (key == KEY_manual_kernel_registration) {
            og_m_want_bool(m, v, k, &f->manual_kernel_registration);
        } else if (key == KEY_manual_cpp_binding) {
            og_m_want_bool(m, v, k, &f->manual_cpp_binding);
        } else if (key == KEY_cpp_no_default_args) {
            if (v->kind != YNODE_SEQ)
                ERR_AT(m, v, "'cpp_no_default_args' must be a list of argument names, found %s", ynode_describe(v));
            else
                nd->cpp_nda = v;
        } else if (key == KEY_use_const_ref_for_mutable_tensors) {
            og_m_want_bool(m, v, k, &f->use_const_ref_for_mutable_tensors);
        } else {
            key_other(m, kn, from);
        }
    }
}

/* One dispatch entry "CPU, CUDA: kernel_name"; counts its keys in *nkeys and notes a
 * CompositeImplicitAutograd entry naming the default kernel. */
static void dispatch_entry(og_model *m, og_func *f, const ynode *kn, const ynode *v, const char *expected,
                           unsigned *nkeys, bool *redundant_cia) {
    if (!ynode_is_str(kn)) {
        ERR_AT(m, kn, "illegal dispatch key: %s", ynode_describe(kn));
        return;
    }
    if (!ynode_is_str(v)) {
        ERR_AT(m, v, "dispatch value must be a kernel name, found %s", ynode_describe(v));
        return;
    }
    /* kernel namespace: at most 3 levels */
    unsigned levels = 0;
    const char *kname = v->s;
    for (const char *p = v->s; (p = strstr(p, "::")); p += 2) levels++, kname = p + 2;
    if (levels > 3) {
        ERR_AT(m, v, "kernel name '%s' has more than 3 levels of namespace", v->s);
        return;
    }
    if (!*kname) {
        ERR_AT(m, v, "empty kernel name");
        return;
    }
    for (const char *p = kn->s;;) {
        const char *c = strchr(p, ',');
        size_t n = c ? (size_t)(c - p) : strlen(p);
        const char *ks = p;
        while (n && (*ks == ' ' || *ks == '\t')) ks++, n--;
        while (n && (ks[n - 1] == ' ' || ks[n - 1] == '\t')) n--;
        int dk = og_m_dkey_parse(ks, n);
        if (dk >= 0 && !(m->dialect->dispatch_keys & BIT(dk))) dk = -1;
        unsigned line, col;
        ynode_pos(kn, (size_t)(ks - kn->s), &line, &col);
        (*nkeys)++;
        if (dk < 0) {
            if (og_m_dkey_parse(ks, n) >= 0 || og_m_dkey_known(ks, n))
                diag_error(m->d, kn->file, line, col,
                           "dispatch key '%.*s' of kernel %s is not a supported dispatch key in torchgen %s", (int)n,
                           ks, v->s, m->dialect->name);
            else
                diag_error(m->d, kn->file, line, col, "unknown dispatch key '%.*s'", (int)n, ks);
        } else if (f->dispatch & BIT(dk)) {
            diag_error(m->d, kn->file, line, col, "dispatch key '%.*s' is given twice", (int)n, ks);
        } else {
            if (kname >= v->s && kname < v->s + v->len)
                kname = arena_strndup(m->a, kname, v->len - (size_t)(kname - v->s));
            og_m_add_kernel(m, f, (og_dkey)dk, kname);
            if (dk == OG_DK_CompositeImplicitAutograd && !strcmp(v->s, expected)) *redundant_cia = true;
        }
        if (!c) break;
        p = c + 1;
    }
}

/* The dispatch table (torchgen NativeFunction.from_yaml); false on an error that
 * ends the entry. */
static bool entry_dispatch(og_model *m, og_func *f, const entry_nodes *nd, unsigned before) {
    const ynode *dispatch = nd->dispatch, *dispatch_key = nd->dispatch_key;
    unsigned nkeys = 0, slots = 3; /* implicit CIA, ufunc CPU + CUDA */
    if (dispatch && dispatch->kind == YNODE_MAP)
        for (size_t i = 0; i < dispatch->n; i++)
            for (const char *p = dispatch->kids[2 * i]->s; p; p = strchr(p + 1, ',')) slots++;
    og_m_reserve_kernels(m, f, slots < OG_DK_COUNT ? slots : OG_DK_COUNT);
    bool redundant_cia = false;
    const char *expected = og_m_cpp_name(m, f);
    if (dispatch && !is_null(dispatch)) {
        if (dispatch->kind != YNODE_MAP) {
            ERR_AT(m, dispatch, "'dispatch' must be a mapping from dispatch keys to kernel names, found %s",
                   ynode_describe(dispatch));
            return false;
        }
        if (f->manual_kernel_registration)
            ERR_AT(
                m, dispatch_key,
                "cannot specify both manual_kernel_registration and dispatch; with manual registration, dispatch has no effect");
        for (size_t i = 0; i < dispatch->n; i++)
            dispatch_entry(m, f, dispatch->kids[2 * i], dispatch->kids[2 * i + 1], expected, &nkeys, &redundant_cia);
        if (m->d->errors != before) return false;
        if (nkeys == 1 && redundant_cia)
            ERR_AT(m, dispatch_key,
                   "unnecessary dispatch table for this function; just delete the dispatch key entirely");
        if (!f->has_delegate && f->dispatch == BIT(OG_DK_CompositeImplicitAutograd) && nkeys == 1 && !redundant_cia &&
            !strstr(kernel_of(f, OG_DK_CompositeImplicitAutograd), "_symint"))
            ERR_AT(
                m, dispatch_key,
                "unexpected name for a lone CompositeImplicitAutograd dispatch entry: expected %s but got %s; rename the implementation, then delete the dispatch table",
                expected, kernel_of(f, OG_DK_CompositeImplicitAutograd));
    } else if (!f->structured && !f->has_delegate) {
        if (is_factory_like(f)) {
            og_m_err_in_func(
                m, f, 0,
                "a factory function needs a CompositeExplicitAutograd dispatch entry, but there is no dispatch table (factory functions must not be implicitly decomposed)");
            return false;
        }
        og_m_add_kernel(m, f, OG_DK_CompositeImplicitAutograd, expected);
    }
    uint64_t comp = f->dispatch & COMPOSITE_KEYS;
    if (__builtin_popcountll(comp) > 1 &&
        !(__builtin_popcountll(comp) == 2 && !(comp & BIT(OG_DK_CompositeExplicitAutogradNonFunctional)) &&
          (comp & BIT(OG_DK_CompositeImplicitAutogradNestedTensor))))
        ERR_AT(
            m, dispatch_key,
            "cannot specify more than one of CompositeExplicitAutograd, CompositeExplicitAutogradNonFunctional or CompositeImplicitAutograd on one kernel; each strictly subsumes the other");
    return true;
}

/* ufunc_inner_loop: a name, or a mapping from ufunc keys to names. */
static void entry_ufunc(og_model *m, og_func *f, const ynode *ufunc) {
    if (!ufunc || is_null(ufunc)) return;
    const og_schema *sc = f->schema;
    const char *names[UFUNC_COUNT] = {0};
    if (ynode_is_str(ufunc)) {
        parse_ufunc(m, f, ufunc, "Generic", ufunc, names);
    } else if (ufunc->kind == YNODE_MAP) {
        for (size_t i = 0; i < ufunc->n; i++) {
            const ynode *kn = ufunc->kids[2 * i];
            if (!ynode_is_str(kn)) {
                ERR_AT(m, kn, "ufunc_inner_loop key must be a string, found %s", ynode_describe(kn));
                continue;
            }
            parse_ufunc(m, f, kn, kn->s, ufunc->kids[2 * i + 1], names);
        }
    } else {
        ERR_AT(m, ufunc, "'ufunc_inner_loop' must be a string or a mapping, found %s", ynode_describe(ufunc));
    }
    if (!f->ufunc_keys) return;
    if (!f->structured) ERR_AT(m, ufunc, "ufunc must be structured");
    for (og_dkey k = OG_DK_CPU; k <= OG_DK_CUDA; k++) {
        if (f->dispatch & BIT(k))
            ERR_AT(m, ufunc, "ufunc should not have an explicit dispatch entry for %s", og_dkey_name(k));
        else
            og_m_add_kernel(m, f, k, arena_printf(m->a, "ufunc_%s", f->name));
    }
    if (names[UFUNC_ScalarOnly] && names[UFUNC_Generic] && strcmp(names[UFUNC_ScalarOnly], names[UFUNC_Generic]))
        ERR_AT(m, ufunc, "ScalarOnly and Generic must have the same ufunc name");
    if (f->ufunc_keys & ((1u << UFUNC_CUDAFunctorOnSelf) | (1u << UFUNC_CUDAFunctorOnOther))) {
        unsigned nt = 0;
        for (unsigned i = 0; i < sc->nargs; i++)
            if (sc->args[i].cat != OG_ARG_OUT && og_type_is_plain_tensor(sc->args[i].type)) nt++;
        if (nt < 2) ERR_AT(m, ufunc, "CUDAFunctorOnSelf and CUDAFunctorOnOther apply only to binary ops");
    }
}

/* NativeFunction.__post_init__ and the checks between keys. */
static void entry_post_init(og_model *m, og_func *f, const entry_nodes *nd) {
    const og_schema *sc = f->schema;
    if (f->has_delegate && (f->dispatch & m->dialect->structured_keys)) {
        for (og_dkey k = 0; k < OG_DK_COUNT; k++)
            if ((m->dialect->structured_keys & BIT(k)) && (f->dispatch & BIT(k))) {
                /* ufunc_inner_loop fills CPU and CUDA without a dispatch: key */
                ERR_AT(m, nd->dispatch_key ? nd->dispatch_key : nd->ufunc,
                       "if structured_delegate, then must not have %s in the dispatch table (it is delegated!)",
                       og_dkey_name(k));
                break;
            }
    }
    if (sc->nout && f->variants != OG_VARIANT_FUNCTION)
        og_m_err_in_func(m, f, 0,
                         "functions with out arguments must have only the function variant ('variants: function')");
    if (f->structured) {
        if (f->kind != OG_KIND_OUT)
            ERR_AT(m, nd->structured,
                   "put 'structured' on the out= variant of a function; did you mean structured_delegate?");
        if (!f->device_guard) ERR_AT(m, nd->structured, "device_guard: False is not respected by structured kernels");
    }
    if (f->has_delegate) {
        if (f->kind == OG_KIND_OUT)
            ERR_AT(m, nd->delegate, "structured_delegate is not allowed on out= functions; did you mean structured?");
        if (!f->device_guard) ERR_AT(m, nd->delegate, "device_guard: False is not respected by structured kernels");
        if (f->structured) ERR_AT(m, nd->delegate, "cannot have both structured and structured_delegate on a function");
    }
    for (size_t i = 0; nd->cpp_nda && i < nd->cpp_nda->n; i++) {
        const ynode *it = nd->cpp_nda->kids[i];
        bool ok = false;
        if (ynode_is_str(it))
            for (unsigned k = 0; k < sc->nargs; k++)
                if (sc->args[k].dflt && !strcmp(sc->args[k].name, it->s)) ok = true;
        if (!ok)
            ERR_AT(m, it, "invalid cpp_no_default_args entry '%s': not an argument with a default",
                   it->kind == YNODE_SCALAR ? it->s : "?");
    }
    if (f->structured_inherits && !f->structured)
        ERR_AT(m, nd->inherits, "structured_inherits requires structured: True");
    if (!strncmp(f->name, "_foreach", 8) && f->device_check != OG_DEVICE_CHECK_NO_CHECK)
        og_m_err_in_func(m, f, 0, "_foreach kernels must use 'device_check: NoCheck'");
}

/* torchgen: random ops must say so (name has rand/dropout, a dropout argument, a Generator). */
static void entry_random(og_model *m, og_func *f) {
    const og_schema *sc = f->schema;
    const char *why = NULL;
    if (strstr(f->name, "rand")) why = "its name contains 'rand'";
    if (!why && !strstr(f->name, "backward")) {
        bool exempt = !strcmp(f->base_name, "_cudnn_init_dropout_state");
        if (!exempt && strstr(f->name, "dropout")) why = "its name contains 'dropout'";
        if (!why && !exempt && m->dialect->dropout_arg_seeded && strstr(f->schema_text, "dropout"))
            for (unsigned i = 0; i < sc->nargs && !why; i++)
                if (strstr(sc->args[i].name, "dropout"))
                    why = arena_printf(m->a, "its argument '%s' is a dropout parameter", sc->args[i].name);
    }
    if (!why && has_generator_arg(sc)) why = "it takes a Generator";
    if (why && !og_func_has_tag(f, m->tag_nondet))
        og_m_err_in_func(
            m, f, 0, arena_printf(m->a, "this op is random (%s), so it must be tagged nondeterministic_seeded", why));
}

og_func *og_m_load_entry(og_model *m, const ynode *e, int from) {
    unsigned before = m->d->errors;
    og_func *f = entry_func(m, e);
    if (!f) return NULL;
    entry_nodes nd = {0};
    entry_keys_read(m, f, e, from, &nd);
    if (m->d->errors != before) return NULL;
    /* auto tags, as torchgen adds them (only where tags.yaml declares them) */
    if (!strcmp(f->ns, "aten") && og_m_tag_declared(m, m->tag_pt2)) og_m_set_tag(f, m->tag_pt2);
    if (f->kind == OG_KIND_INPLACE && og_m_tag_declared(m, m->tag_inplace)) og_m_set_tag(f, m->tag_inplace);
    if (f->kind == OG_KIND_OUT && og_m_tag_declared(m, m->tag_out)) og_m_set_tag(f, m->tag_out);
    if (m->dialect->const_ref_no_out && f->use_const_ref_for_mutable_tensors && f->schema->nout)
        og_m_err_in_func(m, f, 0, "use_const_ref_for_mutable_tensors cannot be used on an op with out arguments");
    if (f->python_module && (f->variants & OG_VARIANT_METHOD))
        ERR_AT(m, nd.pymod, "functions in a python_module cannot be methods");
    if (nd.precomputed && !is_null(nd.precomputed)) {
        if (!f->structured)
            ERR_AT(m, nd.precomputed, "'precomputed' requires 'structured: True'");
        else
            check_precomputed(m, f, nd.precomputed);
    }
    if (!entry_dispatch(m, f, &nd, before)) return NULL;
    entry_ufunc(m, f, nd.ufunc);
    entry_post_init(m, f, &nd);
    entry_random(m, f);
    return m->d->errors == before ? f : NULL;
}

/* ---------------- cross-entry checks ---------------- */

static const char *full_name(og_model *m, const og_func *f) {
    size_t a = strlen(f->ns), b = strlen(f->name);
    char *p = arena_alloc(m->a, a + b + 3);
    memcpy(p, f->ns, a);
    memcpy(p + a, "::", 2);
    memcpy(p + a + 2, f->name, b + 1);
    return p;
}

bool og_m_register_name(og_model *m, og_func *f) {
    const char *key = full_name(m, f);
    og_func *prev = strmap_put(&m->by_name, key, f);
    if (!prev) return f->full_name = key, true;
    if (f->generated) {
        og_m_err_in_func(m, prev, 0,
                         arena_printf(m->a, "operator %s would also be generated from %s (autogen); remove one of them",
                                      key, prev == f->source ? "itself" : f->source->name));
    } else {
        og_m_err_in_func(m, f, 0, arena_printf(m->a, "duplicate operator %s", key));
        diag_note(m->d, prev->func_node->file, prev->func_node->line, prev->func_node->col, "%s was first defined here",
                  key);
    }
    return false;
}

bool og_model_is_entry_key(const char *k) {
    for (const char *const *p = entry_keys; *p; p++)
        if (!strcmp(*p, k)) return true;
    return false;
}
