/* The operator model (model.h): torchgen's releases (dialects), dispatch keys,
 * tags, and the entry points that take native_functions.yaml, kernel yaml and
 * backend yaml entries; the rest of the model is in model_*.c. */
#include "model_impl.h"
static const char *const dkey_names[] = {
#define OG_DK_NAME(n) #n,
    OG_DISPATCH_KEYS(OG_DK_NAME)
#undef OG_DK_NAME
};

const char *og_dkey_name(og_dkey k) { return (unsigned)k < OG_DK_COUNT ? dkey_names[k] : "?"; }

static const unsigned char dkey_lens[] = {
#define OG_DK_LEN(n) sizeof #n - 1,
    OG_DISPATCH_KEYS(OG_DK_LEN)
#undef OG_DK_LEN
};

int og_m_dkey_parse(const char *s, size_t n) {
    for (int i = 0; i < OG_DK_COUNT; i++)
        if (dkey_lens[i] == n && !memcmp(dkey_names[i], s, n)) return i;
    return -1;
}

/* DispatchKey members torchgen knows but native_functions.yaml may not use:
 * "not a supported dispatch key" rather than "unknown dispatch key". */
bool og_m_dkey_known(const char *s, size_t n) {
    static const char *const functionality[] = {"Undefined",
                                                "CatchAll",
                                                "Dense",
                                                "FPGA",
                                                "MAIA",
                                                "Vulkan",
                                                "Metal",
                                                "Quantized",
                                                "CustomRNGKeyId",
                                                "Sparse",
                                                "SparseCsr",
                                                "NestedTensor",
                                                "BackendSelect",
                                                "Python",
                                                "Fake",
                                                "FuncTorchDynamicLayerBackMode",
                                                "Functionalize",
                                                "Named",
                                                "Conjugate",
                                                "Negative",
                                                "ADInplaceOrView",
                                                "AutogradOther",
                                                "AutogradFunctionality",
                                                "AutogradNestedTensor",
                                                "Tracer",
                                                "AutocastCPU",
                                                "AutocastCUDA",
                                                "AutocastXPU",
                                                "AutocastMPS",
                                                "FuncTorchBatched",
                                                "BatchedNestedTensor",
                                                "FuncTorchVmapMode",
                                                "Batched",
                                                "VmapMode",
                                                "FuncTorchGradWrapper",
                                                "DeferredInit",
                                                "PythonTLSSnapshot",
                                                "FuncTorchDynamicLayerFrontMode",
                                                "TESTING_ONLY_GenericWrapper",
                                                "TESTING_ONLY_GenericMode",
                                                "PreDispatch",
                                                "PythonDispatcher",
                                                "Autograd",
                                                "FuncTorchBatchedDecomposition",
                                                "EndOfFunctionalityKeys"};
    static const char *const prefixes[] = {"", "Quantized", "Sparse", "SparseCsr", "NestedTensor", "Autograd"};
    static const char *const backends[] = {"CPU",  "CUDA", "HIP",         "XLA",         "MTIA",
                                           "MPS",  "IPU",  "XPU",         "HPU",         "VE",
                                           "Lazy", "Meta", "PrivateUse1", "PrivateUse2", "PrivateUse3"};
    for (size_t i = 0; i < sizeof functionality / sizeof *functionality; i++)
        if (strlen(functionality[i]) == n && !memcmp(functionality[i], s, n)) return true;
    for (size_t p = 0; p < sizeof prefixes / sizeof *prefixes; p++) {
        size_t pl = strlen(prefixes[p]);
        if (n <= pl || memcmp(s, prefixes[p], pl)) continue;
        for (size_t b = 0; b < sizeof backends / sizeof *backends; b++)
            if (strlen(backends[b]) == n - pl && !memcmp(backends[b], s + pl, n - pl)) return true;
    }
    return false;
}

/* ---------------- torchgen releases ---------------- */

#define BT_COMMON                                                                                                  \
    (BT(Generator) | BT(ScalarType) | BT(Tensor) | BT(int) | BT(Dimname) | BT(DimVector) | BT(float) | BT(str) |   \
     BT(bool) | BT(Layout) | BT(Device) | BT(Scalar) | BT(MemoryFormat) | BT(QScheme) | BT(Storage) | BT(Stream) | \
     BT(SymInt))
#define DK_1_13                                                                                           \
    (DK(CPU) | DK(SparseCPU) | DK(SparseCsrCPU) | DK(MkldnnCPU) | DK(CUDA) | DK(MPS) | DK(SparseCUDA) |   \
     DK(SparseCsrCUDA) | DK(QuantizedCPU) | DK(QuantizedCUDA) | DK(CompositeImplicitAutograd) |           \
     DK(CompositeImplicitAutogradNestedTensor) | DK(CompositeExplicitAutograd) |                          \
     DK(CompositeExplicitAutogradNonFunctional) | DK(NestedTensorCPU) | DK(NestedTensorCUDA) | DK(Meta) | \
     DK(SparseMeta) | DK(QuantizedMeta) | DK(NestedTensorMeta) | DK(ZeroTensor))
#define DK_2_6 (DK_1_13 | DK(XPU) | DK(SparseXPU) | DK(NestedTensorXPU) | DK(SparseCsrMeta))
#define DK_2_14 (DK_2_6 | DK(MTIA) | DK(NestedTensorHPU) | DK(SparseMPS) | DK(SparseCsrMPS) | DK(SparseCsrXPU))

const og_dialect og_dialect_1_13 = {
    "1.13", BT_COMMON | BT(ConstQuantizerPtr), DK_1_13, DK(CPU) | DK(CUDA) | DK(MPS), false, false, false, false,
    false};
const og_dialect og_dialect_2_6 = {"2.6",  BT_COMMON | BT(DeviceIndex) | BT(SymBool) | BT(GraphModule),
                                   DK_2_6, DK(CPU) | DK(CUDA) | DK(MPS) | DK(XPU),
                                   true,   true,
                                   true,   false,
                                   true};
const og_dialect og_dialect_2_14 = {"2.14",  BT_COMMON | BT(DeviceIndex) | BT(SymBool) | BT(GraphModule),
                                    DK_2_14, DK(CPU) | DK(CUDA) | DK(MPS) | DK(XPU),
                                    true,    true,
                                    true,    true,
                                    true};

const og_dialect *og_dialect_find(const char *name) {
    if (!strcmp(name, "1.13")) return &og_dialect_1_13;
    if (!strcmp(name, "2.6")) return &og_dialect_2_6;
    if (!strcmp(name, "2.14")) return &og_dialect_2_14;
    return NULL;
}

void og_model_init(og_model *m, arena *a, diag *d) {
    memset(m, 0, sizeof *m);
    m->a = a;
    m->d = d;
    m->tag_core = m->tag_generated = m->tag_pt2 = m->tag_inplace = m->tag_out = m->tag_nondet = m->tag_view_copy =
        m->tag_inplace_view = -1;
    strmap_init_in(&m->by_name, a, 4096);
    strmap_init_in(&m->sigs, a, 2048);
    strmap_init_in(&m->base_names, a, 2048);
    sb_init(&m->key);
}

void og_model_free(og_model *m) {
    free(m->funcs);
    free(m->groups);
    strmap_free(&m->by_name);
    strmap_free(&m->sigs);
    strmap_free(&m->base_names);
    sb_free(&m->key);
}

bool og_func_has_tag(const og_func *f, int tag) { return tag >= 0 && (f->tags[tag / 64] >> (tag % 64)) & 1; }
void og_m_set_tag(og_func *f, int tag) {
    if (tag >= 0) f->tags[tag / 64] |= 1ull << (tag % 64);
}

/* ---------------- error helpers ---------------- */

void og_m_err_in_func(og_model *m, const og_func *f, size_t off, const char *msg) {
    unsigned line, col;
    ynode_pos(f->func_node, f->ns_prefix + off, &line, &col);
    diag_error(m->d, f->func_node->file, line, col, "%s", msg);
}

bool og_m_want_str(og_model *m, const ynode *v, const char *key) {
    if (ynode_is_str(v)) return true;
    ERR_AT(m, v, "'%s' must be a string, found %s", key, ynode_describe(v));
    return false;
}

bool og_m_want_bool(og_model *m, const ynode *v, const char *key, bool *out) {
    if (v->kind == YNODE_SCALAR && v->type == YVAL_BOOL) {
        *out = v->boolean;
        return true;
    }
    ERR_AT(m, v, "'%s' must be a boolean (True or False), found %s%s%s%s", key, ynode_describe(v),
           v->kind == YNODE_SCALAR ? " '" : "", v->kind == YNODE_SCALAR ? v->s : "",
           v->kind == YNODE_SCALAR ? "'" : "");
    return false;
}

/* ---------------- tags.yaml ---------------- */

int og_model_tag_find(const og_model *m, const char *s) {
    for (unsigned i = 0; i < m->ntags; i++)
        if (!strcmp(m->tags[i].name, s)) return (int)i;
    return -1;
}

static int tag_cmp(const void *x, const void *y) {
    return strcmp(((const og_tag *)x)->name, ((const og_tag *)y)->name);
}

static bool tag_add(og_model *m, const char *name, bool declared, const ynode *at) {
    int t = og_model_tag_find(m, name);
    if (t >= 0) {
        m->tags[t].declared |= declared;
        return true;
    }
    if (m->ntags >= OPGEN_MAX_TAGS) {
        if (at) ERR_AT(m, at, "more than %d tags", OPGEN_MAX_TAGS);
        return false;
    }
    m->tags[m->ntags].name = name;
    m->tags[m->ntags].declared = declared;
    m->ntags++;
    return true;
}

bool og_model_load_tags(og_model *m, const ydoc *doc) {
    unsigned before = m->d->errors;
    const ynode *r = doc->root;
    if (!r || r->kind != YNODE_SEQ) {
        if (r)
            ERR_AT(m, r, "tags file must be a list of '- tag: NAME' entries, found %s", ynode_describe(r));
        else
            diag_error(m->d, doc->file, 1, 1, "tags file is empty; expected a list of '- tag: NAME' entries");
        return false;
    }
    for (size_t i = 0; i < r->n; i++) {
        const ynode *e = r->kids[i];
        if (e->kind != YNODE_MAP) {
            ERR_AT(m, e, "expected a mapping with 'tag:' and 'desc:', found %s", ynode_describe(e));
            continue;
        }
        const ynode *t = ymap_get(e, "tag"), *dsc = ymap_get(e, "desc");
        if (!t) {
            ERR_AT(m, e, "tag entry has no 'tag:' key");
            continue;
        }
        if (!ynode_is_str(t)) {
            ERR_AT(m, t, "'tag' must be a string, found %s", ynode_describe(t));
            continue;
        }
        if (!dsc || !ynode_is_str(dsc) || !dsc->len) {
            ERR_AT(m, dsc ? dsc : e, "tag '%s' needs a non-empty 'desc:' string", t->s);
            continue;
        }
        tag_add(m, t->s, true, t);
    }
    if (m->d->errors != before) return false;
    /* tags torchgen attaches by itself to generated functions */
    tag_add(m, "generated", false, NULL);
    qsort(m->tags, m->ntags, sizeof *m->tags, tag_cmp);
    if (!m->dialect) {
        int t_out = og_model_tag_find(m, "out"), t_pt2 = og_model_tag_find(m, "pt2_compliant_tag");
        m->dialect = t_out >= 0 && m->tags[t_out].declared   ? &og_dialect_2_14
                     : t_pt2 >= 0 && m->tags[t_pt2].declared ? &og_dialect_2_6
                                                             : &og_dialect_1_13;
    }
    m->tag_core = og_model_tag_find(m, "core");
    m->tag_generated = og_model_tag_find(m, "generated");
    m->tag_pt2 = og_model_tag_find(m, "pt2_compliant_tag");
    m->tag_inplace = og_model_tag_find(m, "inplace");
    m->tag_out = og_model_tag_find(m, "out");
    m->tag_nondet = og_model_tag_find(m, "nondeterministic_seeded");
    m->tag_view_copy = og_model_tag_find(m, "view_copy");
    m->tag_inplace_view = og_model_tag_find(m, "inplace_view");
    return true;
}

bool og_m_tag_declared(const og_model *m, int t) { return t >= 0 && m->tags[t].declared; }

/* ---------------- entries ---------------- */

/* Entry nodes are reused once the entry is modeled: what the model keeps is copied. */

void og_model_begin_native(og_model *m) { m->errors_before_native = m->d->errors; }

void og_model_native_entry(void *model, const ynode *entry) {
    og_model *m = model;
    og_func *f = og_m_load_entry(m, entry, ENTRY_NATIVE);
    if (f && og_m_register_name(m, f)) og_m_add_func(m, f);
}

void og_model_kernel_yaml_entry(og_model *m, const ynode *entry) {
    if (entry->kind != YNODE_MAP || !ymap_get(entry, "func") || ymap_get(entry, "op"))
        return; /* op: entries and malformed ones: og_kernels_load */
    og_func *f = og_m_load_entry(m, entry, ENTRY_KERNEL_YAML);
    if (!f) return;
    /* ExecuTorch's functions.yaml declares some ATen ops again with func: (for
     * older native_functions): the same schema is the same op */
    const og_func *prev = og_model_find(m, f->ns, f->name);
    if (prev && !strcmp(prev->schema_text, f->schema_text)) return;
    if (prev) {
        og_m_err_in_func(
            m, f, 0, arena_printf(m->a, "%s::%s is declared with a schema other than its first one", f->ns, f->name));
        diag_note(m->d, prev->func_node->file, prev->func_node->line, prev->func_node->col, "first declared here: %s",
                  prev->schema_text);
        return;
    }
    f->custom = true;
    if (og_m_register_name(m, f)) og_m_add_func(m, f);
}

void og_model_backend_entry(og_model *m, const ynode *entry) {
    if (entry->kind != YNODE_MAP || !ymap_get(entry, "func")) return; /* reported by og_backend_load */
    og_func *f = og_m_load_entry(m, entry, ENTRY_BACKEND_YAML);
    if (!f) return;
    f->custom = f->backend = true;
    if (f->kind != OG_KIND_FUNCTIONAL) {
        const char *what = f->kind == OG_KIND_OUT       ? "has out= arguments"
                           : f->kind == OG_KIND_INPLACE ? "works in place"
                                                        : "writes to an argument";
        og_m_err_in_func(m, f, 0,
                         arena_printf(m->a,
                                      "a backend op is functional (its kernel is made from its pattern); %s::%s %s",
                                      f->ns, f->name, what));
        return;
    }
    if (!og_m_register_name(m, f)) return;
    og_m_add_func(m, f);
    bool tensors = false;
    for (unsigned i = 0; i < f->schema->nrets; i++) tensors |= og_type_is_tensor_like(f->schema->rets[i].type);
    if (!tensors) return; /* a scalar prim: its kernel computes the op itself */
    /* its out= variant, which the fallback (or a native kernel) implements */
    strbuf b;
    sb_init(&b);
    og_func *out = og_m_generate(m, f, OG_KIND_OUT, &b);
    sb_free(&b);
    out->custom = out->backend = true;
    if (og_m_register_name(m, out)) og_m_add_func(m, out);
}

bool og_model_finish_native(og_model *m, const ydoc *doc) {
    unsigned before = m->errors_before_native;
    const ynode *r = doc->root;
    if (!r || r->kind != YNODE_SEQ) {
        if (r)
            ERR_AT(m, r, "native functions file must be a list of '- func: ...' entries, found %s", ynode_describe(r));
        else
            diag_error(m->d, doc->file, 1, 1,
                       "native functions file is empty; expected a list of '- func: ...' entries");
        return false;
    }
    m->nyaml = m->nfuncs;
    m->finishing = true;
    if (m->d->errors != before) return false;
    og_m_cross_checks(m);
    if (m->d->errors != before) return false;
    og_m_autogenerate(m);
    for (unsigned i = m->nyaml; i < m->nfuncs; i++) og_m_register_name(m, m->funcs[i]);
    if (m->d->errors != before) return false;
    og_m_group_functions(m);
    return m->d->errors == before;
}

bool og_model_load_native(og_model *m, const ydoc *doc) {
    og_model_begin_native(m);
    if (doc->root && doc->root->kind == YNODE_SEQ)
        for (size_t i = 0; i < doc->root->n; i++) og_model_native_entry(m, doc->root->kids[i]);
    return og_model_finish_native(m, doc);
}

const og_func *og_func_out_variant(const og_func *f) { return f->group ? f->group->out : NULL; }

void og_model_keep(og_model *m, const bool *keep) {
    unsigned n = 0, nyaml = 0;
    for (unsigned i = 0; i < m->nfuncs; i++) {
        og_func *f = m->funcs[i];
        nyaml += i < m->nyaml && keep[i];
        if (!keep[i]) {
            f->index = OG_FUNC_DROPPED;
            continue;
        }
        f->index = n;
        m->funcs[n++] = f;
    }
    m->nfuncs = n;
    m->nyaml = nyaml;
}

bool og_func_kept(const og_model *m, const og_func *f) { return f && f->index < m->nfuncs && m->funcs[f->index] == f; }
