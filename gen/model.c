#include "model.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static int dkey_parse(const char *s, size_t n) {
    for (int i = 0; i < OG_DK_COUNT; i++)
        if (dkey_lens[i] == n && !memcmp(dkey_names[i], s, n)) return i;
    return -1;
}

/* DispatchKey members torchgen knows but native_functions.yaml may not use:
 * "not a supported dispatch key" rather than "unknown dispatch key". */
static bool dkey_known(const char *s, size_t n) {
    static const char *const functionality[] = {
        "Undefined", "CatchAll", "Dense", "FPGA", "MAIA", "Vulkan", "Metal", "Quantized", "CustomRNGKeyId", "Sparse",
        "SparseCsr", "NestedTensor", "BackendSelect", "Python", "Fake", "FuncTorchDynamicLayerBackMode", "Functionalize",
        "Named", "Conjugate", "Negative", "ADInplaceOrView", "AutogradOther", "AutogradFunctionality",
        "AutogradNestedTensor", "Tracer", "AutocastCPU", "AutocastCUDA", "AutocastXPU", "AutocastMPS", "FuncTorchBatched",
        "BatchedNestedTensor", "FuncTorchVmapMode", "Batched", "VmapMode", "FuncTorchGradWrapper", "DeferredInit",
        "PythonTLSSnapshot", "FuncTorchDynamicLayerFrontMode", "TESTING_ONLY_GenericWrapper", "TESTING_ONLY_GenericMode",
        "PreDispatch", "PythonDispatcher", "Autograd", "FuncTorchBatchedDecomposition", "EndOfFunctionalityKeys"};
    static const char *const prefixes[] = {"", "Quantized", "Sparse", "SparseCsr", "NestedTensor", "Autograd"};
    static const char *const backends[] = {"CPU", "CUDA", "HIP", "XLA", "MTIA", "MPS", "IPU", "XPU", "HPU", "VE", "Lazy", "Meta", "PrivateUse1", "PrivateUse2", "PrivateUse3"};
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

#define BIT(k) (1ull << (k))
#define BT(n) (1u << OG_BT_##n)
#define DK(n) BIT(OG_DK_##n)

/* ---------------- torchgen releases ---------------- */

#define BT_COMMON (BT(Generator) | BT(ScalarType) | BT(Tensor) | BT(int) | BT(Dimname) | BT(DimVector) | BT(float) | BT(str) | BT(bool) | \
                   BT(Layout) | BT(Device) | BT(Scalar) | BT(MemoryFormat) | BT(QScheme) | BT(Storage) | BT(Stream) | BT(SymInt))
#define DK_1_13 (DK(CPU) | DK(SparseCPU) | DK(SparseCsrCPU) | DK(MkldnnCPU) | DK(CUDA) | DK(MPS) | DK(SparseCUDA) | DK(SparseCsrCUDA) | \
                 DK(QuantizedCPU) | DK(QuantizedCUDA) | DK(CompositeImplicitAutograd) | DK(CompositeImplicitAutogradNestedTensor) | \
                 DK(CompositeExplicitAutograd) | DK(CompositeExplicitAutogradNonFunctional) | DK(NestedTensorCPU) | DK(NestedTensorCUDA) | \
                 DK(Meta) | DK(SparseMeta) | DK(QuantizedMeta) | DK(NestedTensorMeta) | DK(ZeroTensor))
#define DK_2_6 (DK_1_13 | DK(XPU) | DK(SparseXPU) | DK(NestedTensorXPU) | DK(SparseCsrMeta))
#define DK_2_14 (DK_2_6 | DK(MTIA) | DK(NestedTensorHPU) | DK(SparseMPS) | DK(SparseCsrMPS) | DK(SparseCsrXPU))

const og_dialect og_dialect_1_13 = {"1.13", BT_COMMON | BT(ConstQuantizerPtr), DK_1_13, DK(CPU) | DK(CUDA) | DK(MPS), false, false, false, false, false};
const og_dialect og_dialect_2_6 = {"2.6", BT_COMMON | BT(DeviceIndex) | BT(SymBool) | BT(GraphModule), DK_2_6, DK(CPU) | DK(CUDA) | DK(MPS) | DK(XPU), true, true, true, false, true};
const og_dialect og_dialect_2_14 = {"2.14", BT_COMMON | BT(DeviceIndex) | BT(SymBool) | BT(GraphModule), DK_2_14, DK(CPU) | DK(CUDA) | DK(MPS) | DK(XPU), true, true, true, true, true};

const og_dialect *og_dialect_find(const char *name) {
    if (!strcmp(name, "1.13")) return &og_dialect_1_13;
    if (!strcmp(name, "2.6")) return &og_dialect_2_6;
    if (!strcmp(name, "2.14")) return &og_dialect_2_14;
    return NULL;
}
#define COMPOSITE_KEYS (BIT(OG_DK_CompositeExplicitAutograd) | BIT(OG_DK_CompositeExplicitAutogradNonFunctional) | BIT(OG_DK_CompositeImplicitAutograd) | BIT(OG_DK_CompositeImplicitAutogradNestedTensor))

/* torchgen's own exception lists (native_function_generation.py), union over releases */
static const char *const functional_ops_without_out[] = {
    "_assert_async", "_assert_async.msg", "_assert_scalar", "_assert_tensor_metadata", "_cslt_sparse_mm_search",
    "_dimI", "_dimV", "_has_same_storage_numel", "_linalg_check_errors", "_local_scalar_dense",
    "_nested_tensor_from_mask_left_aligned", "_nnz", "_use_cudnn_ctc_loss", "_use_cudnn_ctc_loss.Tensor", "_use_miopen_ctc_loss", "_use_miopen_ctc_loss.Tensor",
    "_validate_compressed_sparse_indices", "allclose", "dense_dim", "equal", "is_coalesced", "is_pinned", "is_same_size",
    "is_set_to", "q_per_channel_axis", "q_scale", "q_zero_point", "qscheme", "record_stream", "sparse_dim",
    "sym_constrain_range", "sym_constrain_range_for_size", "_nested_tensor_storage_offsets",
    "_chunk_grad_outputs_efficient_attention", "_fused_sdp_choice", "_print", "_sink_tokens", "_nested_get_ragged_idx", "_nested_tensor_offsets",
    NULL};
static const char *const mutable_ops_without_out[] = {"_cummax_helper", "_cummin_helper", NULL};
static const char *const inplace_ops_not_grouped[] = {"polygamma_", NULL};
static const char *const out_ops_not_grouped[] = {"adaptive_avg_pool3d_backward.grad_input", "_slow_conv2d_backward.grad_input", NULL};

static bool in_list(const char *const *l, const char *s) {
    for (; *l; l++)
        if (!strcmp(*l, s)) return true;
    return false;
}

enum { UFUNC_CUDAFunctor, UFUNC_CUDAFunctorOnOther, UFUNC_CUDAFunctorOnSelf, UFUNC_CPUScalar, UFUNC_CPUVector, UFUNC_ScalarOnly, UFUNC_Generic, UFUNC_COUNT };
static const char *const ufunc_key_names[] = {"CUDAFunctor", "CUDAFunctorOnOther", "CUDAFunctorOnSelf", "CPUScalar", "CPUVector", "ScalarOnly", "Generic"};

void og_model_init(og_model *m, arena *a, diag *d) {
    memset(m, 0, sizeof *m);
    m->a = a;
    m->d = d;
    m->tag_core = m->tag_generated = m->tag_pt2 = m->tag_inplace = m->tag_out = m->tag_nondet = m->tag_view_copy = m->tag_inplace_view = -1;
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
static void set_tag(og_func *f, int tag) {
    if (tag >= 0) f->tags[tag / 64] |= 1ull << (tag % 64);
}

/* ---------------- error helpers ---------------- */

#define ERR_AT(m, n, ...) diag_error((m)->d, (n)->file, (n)->line, (n)->col, __VA_ARGS__)

static void err_in_func(og_model *m, const og_func *f, size_t off, const char *msg) {
    unsigned line, col;
    ynode_pos(f->func_node, f->ns_prefix + off, &line, &col);
    diag_error(m->d, f->func_node->file, line, col, "%s", msg);
}

static bool want_str(og_model *m, const ynode *v, const char *key) {
    if (ynode_is_str(v)) return true;
    ERR_AT(m, v, "'%s' must be a string, found %s", key, ynode_describe(v));
    return false;
}

static bool want_bool(og_model *m, const ynode *v, const char *key, bool *out) {
    if (v->kind == YNODE_SCALAR && v->type == YVAL_BOOL) {
        *out = v->boolean;
        return true;
    }
    ERR_AT(m, v, "'%s' must be a boolean (True or False), found %s%s%s%s", key, ynode_describe(v), v->kind == YNODE_SCALAR ? " '" : "", v->kind == YNODE_SCALAR ? v->s : "", v->kind == YNODE_SCALAR ? "'" : "");
    return false;
}

/* ---------------- tags.yaml ---------------- */

int og_model_tag_find(const og_model *m, const char *s) {
    for (unsigned i = 0; i < m->ntags; i++)
        if (!strcmp(m->tags[i].name, s)) return (int)i;
    return -1;
}

static int tag_cmp(const void *x, const void *y) { return strcmp(((const og_tag *)x)->name, ((const og_tag *)y)->name); }

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
        m->dialect = t_out >= 0 && m->tags[t_out].declared ? &og_dialect_2_14 : t_pt2 >= 0 && m->tags[t_pt2].declared ? &og_dialect_2_6 : &og_dialect_1_13;
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

static bool tag_declared(const og_model *m, int t) { return t >= 0 && m->tags[t].declared; }

/* ---------------- entries ---------------- */

/* Entry nodes are reused once the entry is modeled: what the model keeps is copied. */
static const char *keep_str(og_model *m, const ynode *v) { return arena_strndup(m->a, v->s, v->len); }

static const ynode *keep_node(og_model *m, const ynode *v) {
    ynode *c = ARENA_NEW(m->a, ynode);
    *c = *v;
    c->kids = NULL;
    c->n = 0;
    c->s = keep_str(m, v);
    return c;
}

static void note_func(og_model *m, og_func *f);

static void add_func(og_model *m, og_func *f) {
    if (!m->finishing) note_func(m, f);
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
static void reserve_kernels(og_model *m, og_func *f, unsigned n) {
    f->kernels = ARENA_ARRAY(m->a, og_kernel, n ? n : 1);
}

static void add_kernel(og_model *m, og_func *f, og_dkey k, const char *name) {
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
static const char *cpp_name(og_model *m, const og_func *f) {
    return f->schema->nout ? arena_printf(m->a, "%s_out", f->base_name) : f->base_name;
}

static const char *printed_base_name(og_model *m, const og_schema *s, strbuf *b) {
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
        ERR_AT(m, kn, "unknown ufunc key '%s' (expected CUDAFunctor, CUDAFunctorOnOther, CUDAFunctorOnSelf, CPUScalar, CPUVector, ScalarOnly or Generic)", key);
        return;
    }
    if (!want_str(m, v, "ufunc_inner_loop")) return;
    /* "name (dtype, dtype class, ...)" */
    const char *sp = strchr(v->s, ' ');
    if (!sp || sp == v->s || sp[1] != '(' || v->s[v->len - 1] != ')' || v->len - (size_t)(sp - v->s) < 4) {
        ERR_AT(m, v, "ufunc inner loop must read 'NAME (DTYPES)', e.g. 'add (AllAndComplex, BFloat16, Half)'");
        return;
    }
    static const char *const dtypes[] = {"Byte", "Char", "Short", "Int", "Long", "Half", "Float", "Double", "ComplexHalf", "ComplexFloat", "ComplexDouble", "Bool", "BFloat16",
                                         "Integral", "Floating", "Complex", "All", "AllAndComplex", "FloatingAndComplex", NULL};
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
        if (!want_str(m, l, "precomputed")) return;
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
                diag_error(m->d, l->file, line, col, "precomputed parameter '%s' is not 'TYPE name': %s", decl, err.msg);
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

#define OG_ENTRY_KEYS(X) \
    X(func) X(variants) X(dispatch) X(tags) X(structured) X(structured_delegate) X(structured_inherits) X(precomputed) \
    X(ufunc_inner_loop) X(autogen) X(device_guard) X(device_check) X(manual_kernel_registration) X(manual_cpp_binding) \
    X(python_module) X(category_override) X(cpp_no_default_args) X(use_const_ref_for_mutable_tensors)

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
        if (entry_key_lens[i] == k->len && entry_keys[i][0] == k->s[0] && !memcmp(entry_keys[i], k->s, k->len)) return i;
    return KEY_UNKNOWN;
}

/* Which file an entry comes from: the keys it may have beyond native_functions'. */
enum { ENTRY_NATIVE, ENTRY_KERNEL_YAML, ENTRY_BACKEND_YAML };

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
            err_in_func(m, f, (size_t)(second - s), "only one level of namespace is supported (ns::op); '::' may not appear elsewhere in a schema");
            return NULL;
        }
        size_t nl = (size_t)(first - s);
        if (nl && !is_ident(s, nl)) {
            err_in_func(m, f, 0, "the namespace before '::' must be an identifier; '::' may not appear elsewhere in a schema");
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
        err_in_func(m, f, err.off, err.msg);
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
        err_in_func(m, f, err.off, err.msg);
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
            diag_error(m->d, v->file, line, col, "illegal variant '%.*s' (expected 'function', 'method' or 'function, method')", (int)n, p);
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
        if (!want_str(m, items[t], "tags")) continue;
        int id = og_model_tag_find(m, items[t]->s);
        if (id < 0 || !m->tags[id].declared)
            ERR_AT(m, items[t], "unknown tag '%s' (not declared in the tags file)", items[t]->s);
        else
            set_tag(f, id);
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
    if (key != KEY_structured_delegate && key != KEY_structured_inherits && key != KEY_device_check && key != KEY_python_module && key != KEY_category_override) return false;
    if (is_null(v) || !want_str(m, v, entry_keys[key])) return true;
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
    if (from == ENTRY_KERNEL_YAML && (!strcmp(k, "kernels") || !strcmp(k, "type_alias") || !strcmp(k, "dim_order_alias"))) return; /* read by kernels.c */
    if (from == ENTRY_BACKEND_YAML && (!strcmp(k, "backend") || !strcmp(k, "pattern") || !strcmp(k, "builtin") || !strcmp(k, "ignore") || !strcmp(k, "doc"))) return; /* backend.c */
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
            if (want_str(m, v, k)) key_variants(m, f, v);
        } else if (key == KEY_dispatch) {
            nd->dispatch = v;
            nd->dispatch_key = kn;
        } else if (key == KEY_tags) {
            key_tags(m, f, v);
        } else if (key == KEY_structured) {
            nd->structured = v;
            want_bool(m, v, k, &f->structured);
        } else if (key == KEY_precomputed) {
            nd->precomputed = v;
        } else if (key == KEY_ufunc_inner_loop) {
            nd->ufunc = v;
        } else if (key == KEY_autogen) {
            if (want_str(m, v, k) && v->len) key_autogen(m, f, v);
        } else if (key == KEY_device_guard) {
            want_bool(m, v, k, &f->device_guard);
        } else if (key == KEY_manual_kernel_registration) {
            want_bool(m, v, k, &f->manual_kernel_registration);
        } else if (key == KEY_manual_cpp_binding) {
            want_bool(m, v, k, &f->manual_cpp_binding);
        } else if (key == KEY_cpp_no_default_args) {
            if (v->kind != YNODE_SEQ)
                ERR_AT(m, v, "'cpp_no_default_args' must be a list of argument names, found %s", ynode_describe(v));
            else
                nd->cpp_nda = v;
        } else if (key == KEY_use_const_ref_for_mutable_tensors) {
            want_bool(m, v, k, &f->use_const_ref_for_mutable_tensors);
        } else {
            key_other(m, kn, from);
        }
    }
}

/* One dispatch entry "CPU, CUDA: kernel_name"; counts its keys in *nkeys and notes a
 * CompositeImplicitAutograd entry naming the default kernel. */
static void dispatch_entry(og_model *m, og_func *f, const ynode *kn, const ynode *v, const char *expected, unsigned *nkeys, bool *redundant_cia) {
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
        int dk = dkey_parse(ks, n);
        if (dk >= 0 && !(m->dialect->dispatch_keys & BIT(dk))) dk = -1;
        unsigned line, col;
        ynode_pos(kn, (size_t)(ks - kn->s), &line, &col);
        (*nkeys)++;
        if (dk < 0) {
            if (dkey_parse(ks, n) >= 0 || dkey_known(ks, n))
                diag_error(m->d, kn->file, line, col, "dispatch key '%.*s' of kernel %s is not a supported dispatch key in torchgen %s", (int)n, ks, v->s, m->dialect->name);
            else
                diag_error(m->d, kn->file, line, col, "unknown dispatch key '%.*s'", (int)n, ks);
        } else if (f->dispatch & BIT(dk)) {
            diag_error(m->d, kn->file, line, col, "dispatch key '%.*s' is given twice", (int)n, ks);
        } else {
            if (kname >= v->s && kname < v->s + v->len) kname = arena_strndup(m->a, kname, v->len - (size_t)(kname - v->s));
            add_kernel(m, f, (og_dkey)dk, kname);
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
    reserve_kernels(m, f, slots < OG_DK_COUNT ? slots : OG_DK_COUNT);
    bool redundant_cia = false;
    const char *expected = cpp_name(m, f);
    if (dispatch && !is_null(dispatch)) {
        if (dispatch->kind != YNODE_MAP) {
            ERR_AT(m, dispatch, "'dispatch' must be a mapping from dispatch keys to kernel names, found %s", ynode_describe(dispatch));
            return false;
        }
        if (f->manual_kernel_registration) ERR_AT(m, dispatch_key, "cannot specify both manual_kernel_registration and dispatch; with manual registration, dispatch has no effect");
        for (size_t i = 0; i < dispatch->n; i++) dispatch_entry(m, f, dispatch->kids[2 * i], dispatch->kids[2 * i + 1], expected, &nkeys, &redundant_cia);
        if (m->d->errors != before) return false;
        if (nkeys == 1 && redundant_cia) ERR_AT(m, dispatch_key, "unnecessary dispatch table for this function; just delete the dispatch key entirely");
        if (!f->has_delegate && f->dispatch == BIT(OG_DK_CompositeImplicitAutograd) && nkeys == 1 && !redundant_cia &&
            !strstr(kernel_of(f, OG_DK_CompositeImplicitAutograd), "_symint"))
            ERR_AT(m, dispatch_key, "unexpected name for a lone CompositeImplicitAutograd dispatch entry: expected %s but got %s; rename the implementation, then delete the dispatch table", expected,
                   kernel_of(f, OG_DK_CompositeImplicitAutograd));
    } else if (!f->structured && !f->has_delegate) {
        if (is_factory_like(f)) {
            err_in_func(m, f, 0, "a factory function needs a CompositeExplicitAutograd dispatch entry, but there is no dispatch table (factory functions must not be implicitly decomposed)");
            return false;
        }
        add_kernel(m, f, OG_DK_CompositeImplicitAutograd, expected);
    }
    uint64_t comp = f->dispatch & COMPOSITE_KEYS;
    if (__builtin_popcountll(comp) > 1 &&
        !(__builtin_popcountll(comp) == 2 && !(comp & BIT(OG_DK_CompositeExplicitAutogradNonFunctional)) && (comp & BIT(OG_DK_CompositeImplicitAutogradNestedTensor))))
        ERR_AT(m, dispatch_key, "cannot specify more than one of CompositeExplicitAutograd, CompositeExplicitAutogradNonFunctional or CompositeImplicitAutograd on one kernel; each strictly subsumes the other");
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
            add_kernel(m, f, k, arena_printf(m->a, "ufunc_%s", f->name));
    }
    if (names[UFUNC_ScalarOnly] && names[UFUNC_Generic] && strcmp(names[UFUNC_ScalarOnly], names[UFUNC_Generic])) ERR_AT(m, ufunc, "ScalarOnly and Generic must have the same ufunc name");
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
                ERR_AT(m, nd->dispatch_key ? nd->dispatch_key : nd->ufunc, "if structured_delegate, then must not have %s in the dispatch table (it is delegated!)", og_dkey_name(k));
                break;
            }
    }
    if (sc->nout && f->variants != OG_VARIANT_FUNCTION) err_in_func(m, f, 0, "functions with out arguments must have only the function variant ('variants: function')");
    if (f->structured) {
        if (f->kind != OG_KIND_OUT) ERR_AT(m, nd->structured, "put 'structured' on the out= variant of a function; did you mean structured_delegate?");
        if (!f->device_guard) ERR_AT(m, nd->structured, "device_guard: False is not respected by structured kernels");
    }
    if (f->has_delegate) {
        if (f->kind == OG_KIND_OUT) ERR_AT(m, nd->delegate, "structured_delegate is not allowed on out= functions; did you mean structured?");
        if (!f->device_guard) ERR_AT(m, nd->delegate, "device_guard: False is not respected by structured kernels");
        if (f->structured) ERR_AT(m, nd->delegate, "cannot have both structured and structured_delegate on a function");
    }
    for (size_t i = 0; nd->cpp_nda && i < nd->cpp_nda->n; i++) {
        const ynode *it = nd->cpp_nda->kids[i];
        bool ok = false;
        if (ynode_is_str(it))
            for (unsigned k = 0; k < sc->nargs; k++)
                if (sc->args[k].dflt && !strcmp(sc->args[k].name, it->s)) ok = true;
        if (!ok) ERR_AT(m, it, "invalid cpp_no_default_args entry '%s': not an argument with a default", it->kind == YNODE_SCALAR ? it->s : "?");
    }
    if (f->structured_inherits && !f->structured) ERR_AT(m, nd->inherits, "structured_inherits requires structured: True");
    if (!strncmp(f->name, "_foreach", 8) && f->device_check != OG_DEVICE_CHECK_NO_CHECK) err_in_func(m, f, 0, "_foreach kernels must use 'device_check: NoCheck'");
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
                if (strstr(sc->args[i].name, "dropout")) why = arena_printf(m->a, "its argument '%s' is a dropout parameter", sc->args[i].name);
    }
    if (!why && has_generator_arg(sc)) why = "it takes a Generator";
    if (why && !og_func_has_tag(f, m->tag_nondet)) err_in_func(m, f, 0, arena_printf(m->a, "this op is random (%s), so it must be tagged nondeterministic_seeded", why));
}

static og_func *load_entry(og_model *m, const ynode *e, int from) {
    unsigned before = m->d->errors;
    og_func *f = entry_func(m, e);
    if (!f) return NULL;
    entry_nodes nd = {0};
    entry_keys_read(m, f, e, from, &nd);
    if (m->d->errors != before) return NULL;
    /* auto tags, as torchgen adds them (only where tags.yaml declares them) */
    if (!strcmp(f->ns, "aten") && tag_declared(m, m->tag_pt2)) set_tag(f, m->tag_pt2);
    if (f->kind == OG_KIND_INPLACE && tag_declared(m, m->tag_inplace)) set_tag(f, m->tag_inplace);
    if (f->kind == OG_KIND_OUT && tag_declared(m, m->tag_out)) set_tag(f, m->tag_out);
    if (m->dialect->const_ref_no_out && f->use_const_ref_for_mutable_tensors && f->schema->nout)
        err_in_func(m, f, 0, "use_const_ref_for_mutable_tensors cannot be used on an op with out arguments");
    if (f->python_module && (f->variants & OG_VARIANT_METHOD)) ERR_AT(m, nd.pymod, "functions in a python_module cannot be methods");
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

static bool register_name(og_model *m, og_func *f) {
    const char *key = full_name(m, f);
    og_func *prev = strmap_put(&m->by_name, key, f);
    if (!prev) return f->full_name = key, true;
    if (f->generated) {
        err_in_func(m, prev, 0, arena_printf(m->a, "operator %s would also be generated from %s (autogen); remove one of them", key, prev == f->source ? "itself" : f->source->name));
    } else {
        err_in_func(m, f, 0, arena_printf(m->a, "duplicate operator %s", key));
        diag_note(m->d, prev->func_node->file, prev->func_node->line, prev->func_node->col, "%s was first defined here", key);
    }
    return false;
}

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
    static const char *const kw[] = {"False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue", "def", "del", "elif", "else", "except",
                                     "finally", "for", "from", "global", "if", "import", "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while", "with", "yield"};
    const og_arg *x = &f->schema->args[i];
    if (!strchr(first, x->name[0]) || strlen(x->name) > 8 || !bsearch(x->name, kw, sizeof kw / sizeof *kw, sizeof *kw, cmp_str)) return false;
    return !(!strcmp(x->name, "from") && (!strcmp(f->name, "_has_compatible_shallow_copy_type") || !strcmp(f->name, "random_.from") || !strcmp(f->name, "uniform_")));
}

static void check_python_keywords(og_model *m, const og_func *f) {
    for (unsigned i = 0; i < f->schema->nargs; i++)
        if (is_keyword_arg(m, f, i)) err_in_func(m, f, f->schema->args[i].name_off, arena_printf(m->a, "argument name '%s' is a reserved Python keyword", f->schema->args[i].name));
}

static void cross_checks(og_model *m) {
    strbuf b;
    sb_init(&b);
    for (unsigned i = 0; i < m->nyaml; i++) {
        const og_func *f = m->funcs[i];
        if (f->has_delegate) {
            const char *dn = og_opname_str(m->a, &f->delegate);
            const og_func *d = og_model_find(m, f->ns, dn);
            const ynode *at = f->delegate_node;
            if (!d)
                ERR_AT(m, at, "%s is marked as a structured_delegate pointing to %s, but %s is missing", f->name, dn, dn);
            else if (!d->structured)
                ERR_AT(m, at, "%s is marked as a structured_delegate pointing to %s, but %s is not marked as structured", f->name, dn, dn);
        }
        if (f->keyword_arg) check_python_keywords(m, f);
        if (og_func_has_tag(f, m->tag_inplace_view) && strcmp(f->name, "resize_") && strcmp(f->name, "resize_as_") && strcmp(f->base_name, "set_")) {
            if (!f->schema->name.inplace) {
                err_in_func(m, f, 0, arena_printf(m->a, "%s is tagged inplace_view, but its name does not end in '_' as inplace ops must", f->name));
                continue;
            }
            og_opname oop = f->schema->name;
            oop.inplace = false;
            oop.overload = "";
            sb_reset(&b);
            og_print_base_name(&b, &oop);
            if (!strmap_get(&m->base_names, sb_cstr(&b)))
                err_in_func(m, f, 0, arena_printf(m->a, "%s is tagged inplace_view, but there is no out-of-place view op named '%s'", f->name, sb_cstr(&b)));
        }
    }
    sb_free(&b);
    strmap_free(&m->base_names); /* done with (its slots stay in the arena) */
}

/* ---------------- autogen and grouping ---------------- */

typedef struct pregroup {
    og_func *by_kind[OG_KIND_COUNT];
    unsigned n;
} pregroup;

static const char *sigkey(og_model *m, og_func *f, strbuf *b) {
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
static void note_func(og_model *m, og_func *f) {
    const char *key = sigkey(m, f, &m->key);
    uintptr_t gi = (uintptr_t)strmap_get(&m->sigs, key);
    if (!gi) strmap_put(&m->sigs, key, (void *)(gi = ++m->nsigs));
    f->pregroup = (unsigned)gi;
    strmap_put(&m->base_names, f->base_name, f);
    for (unsigned i = 0; i < f->schema->nargs && !f->keyword_arg; i++) f->keyword_arg = is_keyword_arg(m, f, i);
}

static bool has_cia(const og_func *f) { return (f->dispatch & BIT(OG_DK_CompositeImplicitAutograd)) != 0; }

static bool is_view_op(const og_model *m, const og_func *f) {
    const og_schema *s = f->schema;
    for (unsigned k = 0; k < s->nrets; k++)
        if (s->rets[k].annot && !s->rets[k].annot->write) return true;
    if (og_func_has_tag(f, m->tag_inplace_view) && strcmp(f->name, "resize_") && strcmp(f->name, "resize_as_")) return true;
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

static og_func *generate(og_model *m, og_func *src, og_kind k, strbuf *b) {
    og_func *g = ARENA_NEW(m->a, og_func);
    g->ns = src->ns;
    g->schema = k == OG_KIND_OUT ? og_schema_to_out(m->a, src->schema) : og_schema_to_functional(m->a, src->schema);
    sb_reset(b);
    og_print_schema(b, g->schema);
    g->schema_text = arena_strndup(m->a, b->p, b->n);
    g->name = og_opname_str(m->a, &g->schema->name);
    g->base_name = printed_base_name(m, g->schema, b);
    g->kind = og_schema_kind(g->schema);
    g->func_node = src->func_node;
    g->ns_prefix = src->ns_prefix;
    g->variants = OG_VARIANT_FUNCTION;
    g->device_check = OG_DEVICE_CHECK_NO_CHECK;
    g->generated = true;
    g->source = src;
    g->use_const_ref_for_mutable_tensors = src->use_const_ref_for_mutable_tensors;
    set_tag(g, m->tag_generated);
    if (og_func_has_tag(src, m->tag_nondet)) set_tag(g, m->tag_nondet);
    if (m->dialect->autogen_2x && og_func_has_tag(src, m->tag_view_copy)) set_tag(g, m->tag_view_copy);
    if (og_func_has_tag(src, m->tag_pt2)) set_tag(g, m->tag_pt2);
    const char *kname;
    if (g->kind == OG_KIND_OUT)
        kname = arena_printf(m->a, "%s_%s", g->base_name, g->schema->name.overload);
    else
        kname = cpp_name(m, g);
    if (og_schema_has_symint(src->schema)) kname = arena_printf(m->a, "%s_symint", kname);
    reserve_kernels(m, g, 1);
    add_kernel(m, g, OG_DK_CompositeExplicitAutograd, kname);
    return g;
}

static void autogenerate(og_model *m) {
    strbuf b;
    sb_init(&b);
    pregroup *groups = og_xcalloc(m->nsigs + 1, sizeof *groups);
    unsigned ng = m->nsigs;
    for (unsigned i = 0; i < m->nyaml; i++) {
        og_func *f = m->funcs[i];
        pregroup *d = &groups[f->pregroup - 1];
        if (d->by_kind[f->kind]) {
            const og_func *p = d->by_kind[f->kind];
            err_in_func(m, f, 0, arena_printf(m->a, "%s has the same signature and kind (%s) as %s; torchgen cannot group them", f->name, og_kind_name(f->kind), p->name));
            diag_note(m->d, p->func_node->file, p->func_node->line, p->func_node->col, "%s is defined here", p->name);
            continue;
        }
        d->by_kind[f->kind] = f;
        d->n++;
    }
    for (unsigned gi = 0; gi < ng; gi++) {
        pregroup *d = &groups[gi];
        og_func *functional = d->by_kind[OG_KIND_FUNCTIONAL], *inplace = d->by_kind[OG_KIND_INPLACE], *mut = d->by_kind[OG_KIND_MUTABLE], *out = d->by_kind[OG_KIND_OUT];
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
                err_in_func(m, out, 0, arena_printf(m->a, "found an out= operator with no other variants: %s (add its functional variant)", out->name));
            continue;
        }
        if (inplace && in_list(inplace_ops_not_grouped, inplace->name)) continue;
        og_func *base = m->dialect->autogen_2x ? (mut ? mut : inplace ? inplace : out ? out : functional) : (inplace ? inplace : mut ? mut : out ? out : functional);
        bool valid = base->kind == OG_KIND_INPLACE;
        for (unsigned k = 0; k < base->schema->nrets && !valid; k++) valid = og_type_is_tensor_like(base->schema->rets[k].type);
        bool gets_out = !out && valid && autogen_mentions_out(base);
        if (!out && !valid && !in_list(mutable_ops_without_out, base->name) && !in_list(functional_ops_without_out, base->name)) {
            err_in_func(m, base, 0, arena_printf(m->a, "cannot derive an out= variant for %s: it returns no tensor (torchgen only allows this for its own list of ops)", base->name));
            continue;
        }
        if (gets_out) {
            og_func *g = generate(m, base, OG_KIND_OUT, &b);
            add_func(m, g);
            d->by_kind[OG_KIND_OUT] = g;
        }
        if (!functional && (out || gets_out)) {
            og_func *g = generate(m, base, OG_KIND_FUNCTIONAL, &b);
            add_func(m, g);
            d->by_kind[OG_KIND_FUNCTIONAL] = g;
        }
    }
    free(groups);
    sb_free(&b);
}

static void group_error(og_model *m, const og_func *f, const char *msg) { err_in_func(m, f, 0, msg); }

static void group_functions(og_model *m) {
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
            const char *key = sigkey(m, f, &b);
            gi = (uintptr_t)strmap_get(&m->sigs, key);
            if (!gi) {
                gi = ++ng;
                strmap_put(&m->sigs, key, (void *)gi);
            }
        }
        pregroup *d = &groups[gi - 1];
        if (d->by_kind[f->kind]) continue; /* reported by autogenerate() */
        d->by_kind[f->kind] = f;
        d->n++;
    }
    m->groups = og_xcalloc(ng + 1, sizeof *m->groups);
    for (unsigned gi = 0; gi < ng; gi++) {
        pregroup *d = &groups[gi];
        og_func *fn = d->by_kind[OG_KIND_FUNCTIONAL], *in = d->by_kind[OG_KIND_INPLACE], *mu = d->by_kind[OG_KIND_MUTABLE], *out = d->by_kind[OG_KIND_OUT], *sc = d->by_kind[OG_KIND_SCRATCH];
        og_func *any = fn ? fn : in ? in : mu ? mu : out ? out : sc;
        if (d->n == 1) {
            if (any->generated) group_error(m, any, arena_printf(m->a, "generated function %s could not be grouped", any->name));
            continue;
        }
        if (sc) {
            group_error(m, sc, arena_printf(m->a, "%s (a scratch op) shares its signature with other ops; torchgen cannot group it", sc->name));
            continue;
        }
        if (!fn) {
            group_error(m, any, arena_printf(m->a, "%s has inplace/mutable/out variants but no functional variant with the same signature", any->name));
            continue;
        }
        if (!out) {
            for (int k = 0; k < OG_KIND_COUNT; k++)
                if (d->by_kind[k] && d->by_kind[k]->generated) group_error(m, d->by_kind[k], arena_printf(m->a, "generated function %s could not be grouped", d->by_kind[k]->name));
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
                group_error(m, f, arena_printf(m->a, "group of %s mixes structured and unstructured functions: %s is %sstructured", out->name, f->name, part ? "" : "not "));
            if (strcmp(f->ns, out->ns)) group_error(m, f, arena_printf(m->a, "%s and %s are variants of one op but live in different namespaces", f->name, out->name));
        }
        if (mu && !fn->schema->name.functional_overload)
            group_error(m, fn, arena_printf(m->a, "%s has a mutable variant %s, so its functional variant must be named '%s_functional'", out->name, mu->name, fn->schema->name.base));
        if (out->structured) {
            if (out->dispatch & (BIT(OG_DK_CompositeImplicitAutograd) | BIT(OG_DK_CompositeImplicitAutogradNestedTensor)))
                group_error(m, out, arena_printf(m->a, "structured %s must not have a CompositeImplicitAutograd kernel", out->name));
            og_func *dl[2] = {fn, in};
            for (int k = 0; k < 2; k++) {
                og_func *f = dl[k];
                if (!f) continue;
                const char *dn = f->has_delegate ? og_opname_str(m->a, &f->delegate) : "nothing";
                if (strcmp(dn, out->name)) group_error(m, f, arena_printf(m->a, "%s delegates to %s but its actual delegate is %s", f->name, dn, out->name));
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
                group_error(m, src, arena_printf(m->a, "autogen names '%s', but nothing is generated for this group", sb_cstr(&b)));
            else
                group_error(m, src, arena_printf(m->a, "the codegen generates '%s' for this group; it expects the line 'autogen: %s', found 'autogen: %s'", want, want, sb_cstr(&b)));
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

void og_model_begin_native(og_model *m) { m->errors_before_native = m->d->errors; }

void og_model_native_entry(void *model, const ynode *entry) {
    og_model *m = model;
    og_func *f = load_entry(m, entry, ENTRY_NATIVE);
    if (f && register_name(m, f)) add_func(m, f);
}

void og_model_kernel_yaml_entry(og_model *m, const ynode *entry) {
    if (entry->kind != YNODE_MAP || !ymap_get(entry, "func") || ymap_get(entry, "op")) return; /* op: entries and malformed ones: og_kernels_load */
    og_func *f = load_entry(m, entry, ENTRY_KERNEL_YAML);
    if (!f) return;
    /* ExecuTorch's functions.yaml declares some ATen ops again with func: (for
     * older native_functions): the same schema is the same op */
    const og_func *prev = og_model_find(m, f->ns, f->name);
    if (prev && !strcmp(prev->schema_text, f->schema_text)) return;
    if (prev) {
        err_in_func(m, f, 0, arena_printf(m->a, "%s::%s is declared with a schema other than its first one", f->ns, f->name));
        diag_note(m->d, prev->func_node->file, prev->func_node->line, prev->func_node->col, "first declared here: %s", prev->schema_text);
        return;
    }
    f->custom = true;
    if (register_name(m, f)) add_func(m, f);
}

bool og_model_is_entry_key(const char *k) {
    for (const char *const *p = entry_keys; *p; p++)
        if (!strcmp(*p, k)) return true;
    return false;
}

void og_model_backend_entry(og_model *m, const ynode *entry) {
    if (entry->kind != YNODE_MAP || !ymap_get(entry, "func")) return; /* reported by og_backend_load */
    og_func *f = load_entry(m, entry, ENTRY_BACKEND_YAML);
    if (!f) return;
    f->custom = f->backend = true;
    if (f->kind != OG_KIND_FUNCTIONAL) {
        const char *what = f->kind == OG_KIND_OUT ? "has out= arguments" : f->kind == OG_KIND_INPLACE ? "works in place" : "writes to an argument";
        err_in_func(m, f, 0, arena_printf(m->a, "a backend op is functional (its kernel is made from its pattern); %s::%s %s", f->ns, f->name, what));
        return;
    }
    if (!register_name(m, f)) return;
    add_func(m, f);
    bool tensors = false;
    for (unsigned i = 0; i < f->schema->nrets; i++) tensors |= og_type_is_tensor_like(f->schema->rets[i].type);
    if (!tensors) return; /* a scalar prim: its kernel computes the op itself */
    /* its out= variant, which the fallback (or a native kernel) implements */
    strbuf b;
    sb_init(&b);
    og_func *out = generate(m, f, OG_KIND_OUT, &b);
    sb_free(&b);
    out->custom = out->backend = true;
    if (register_name(m, out)) add_func(m, out);
}

bool og_model_finish_native(og_model *m, const ydoc *doc) {
    unsigned before = m->errors_before_native;
    const ynode *r = doc->root;
    if (!r || r->kind != YNODE_SEQ) {
        if (r)
            ERR_AT(m, r, "native functions file must be a list of '- func: ...' entries, found %s", ynode_describe(r));
        else
            diag_error(m->d, doc->file, 1, 1, "native functions file is empty; expected a list of '- func: ...' entries");
        return false;
    }
    m->nyaml = m->nfuncs;
    m->finishing = true;
    if (m->d->errors != before) return false;
    cross_checks(m);
    if (m->d->errors != before) return false;
    autogenerate(m);
    for (unsigned i = m->nyaml; i < m->nfuncs; i++) register_name(m, m->funcs[i]);
    if (m->d->errors != before) return false;
    group_functions(m);
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
