/* The kernel ABI of schema types (abi.h): how each argument crosses into a C
 * kernel, for prototypes, trampolines and the op tables alike. */
#include "abi.h"
#include <string.h>
#include <stdlib.h>

og_abi og_abi_of(const og_type *t, bool write) {
    bool opt = t->kind == OG_TY_OPTIONAL;
    const og_type *u = opt ? t->elem : t;
    if (u->kind == OG_TY_BASE) {
        switch (u->base) {
        case OG_BT_Tensor:
            return (og_abi){opt ? "OPT_TENSOR" : "TENSOR", write ? "opgen_tensor *" : "const opgen_tensor *",
                            "a[%u].v.t"};
        case OG_BT_int:
        case OG_BT_SymInt:
            return opt ? (og_abi){"OPT_INT", "const int64_t *", "(a[%u].none ? NULL : &a[%u].v.i)"}
                       : (og_abi){"INT", "int64_t", "a[%u].v.i"};
        case OG_BT_float:
            return opt ? (og_abi){"OPT_FLOAT", "const double *", "(a[%u].none ? NULL : &a[%u].v.f)"}
                       : (og_abi){"FLOAT", "double", "a[%u].v.f"};
        case OG_BT_bool:
        case OG_BT_SymBool:
            return opt ? (og_abi){"OPT_BOOL", "const bool *", "(a[%u].none ? NULL : &a[%u].v.b)"}
                       : (og_abi){"BOOL", "bool", "a[%u].v.b"};
        case OG_BT_Scalar:
            return opt ? (og_abi){"OPT_SCALAR", "const opgen_scalar *", "(a[%u].none ? NULL : &a[%u].v.s)"}
                       : (og_abi){"SCALAR", "const opgen_scalar *", "&a[%u].v.s"};
        case OG_BT_ScalarType:
            return opt ? (og_abi){"OPT_DTYPE", "const opgen_dtype *", "(a[%u].none ? NULL : &a[%u].v.d)"}
                       : (og_abi){"DTYPE", "opgen_dtype", "a[%u].v.d"};
        case OG_BT_str:
            return opt ? (og_abi){"OPT_STR", "const char *", "(a[%u].none ? NULL : a[%u].v.str)"}
                       : (og_abi){"STR", "const char *", "a[%u].v.str"};
        case OG_BT_MemoryFormat:
        case OG_BT_Layout:
        case OG_BT_QScheme:
        case OG_BT_DeviceIndex:
            return opt ? (og_abi){"OPT_ENUM", "const int32_t *", "(a[%u].none ? NULL : &a[%u].v.e)"}
                       : (og_abi){"ENUM", "int32_t", "a[%u].v.e"};
        default: return (og_abi){"OPAQUE", "const void *", "a[%u].v.p"};
        }
    }
    if (u->kind == OG_TY_LIST) {
        const og_type *e = u->elem;
        bool eopt = e->kind == OG_TY_OPTIONAL;
        const og_type *eb = eopt ? e->elem : e;
        if (eb->kind == OG_TY_BASE && eb->base == OG_BT_Tensor && !opt)
            return (og_abi){"TENSOR_LIST", "opgen_tensor_list", "a[%u].v.tl"};
        if (eb->kind == OG_TY_BASE && !eopt) {
            switch (eb->base) {
            case OG_BT_int:
            case OG_BT_SymInt:
                return opt ? (og_abi){"OPT_INT_LIST", "const opgen_int_list *", "(a[%u].none ? NULL : &a[%u].v.il)"}
                           : (og_abi){"INT_LIST", "opgen_int_list", "a[%u].v.il"};
            case OG_BT_float:
                return opt ? (og_abi){"OPT_FLOAT_LIST", "const opgen_float_list *", "(a[%u].none ? NULL : &a[%u].v.fl)"}
                           : (og_abi){"FLOAT_LIST", "opgen_float_list", "a[%u].v.fl"};
            case OG_BT_bool:
                if (!opt) return (og_abi){"BOOL_LIST", "opgen_bool_list", "a[%u].v.bl"};
                break;
            case OG_BT_Scalar:
                if (!opt) return (og_abi){"SCALAR_LIST", "opgen_scalar_list", "a[%u].v.sl"};
                break;
            default: break;
            }
        }
    }
    return (og_abi){"OPAQUE", "const void *", "a[%u].v.p"};
}

og_abi og_abi_ret_of(const og_type *t) {
    if (t->kind == OG_TY_BASE) switch (t->base) {
        case OG_BT_Tensor: return (og_abi){"RET_TENSOR", "opgen_tensor *", "(opgen_tensor *)a[%u].v.ret"};
        case OG_BT_int:
        case OG_BT_SymInt: return (og_abi){"RET_INT", "int64_t *", "(int64_t *)a[%u].v.ret"};
        case OG_BT_float: return (og_abi){"RET_FLOAT", "double *", "(double *)a[%u].v.ret"};
        case OG_BT_bool:
        case OG_BT_SymBool: return (og_abi){"RET_BOOL", "bool *", "(bool *)a[%u].v.ret"};
        default: break;
        }
    return (og_abi){"OPAQUE", "void *", "a[%u].v.ret"};
}

bool og_schema_returns_scalars(const og_schema *s) {
    if (s->nout || !s->nrets) return false;
    for (unsigned r = 0; r < s->nrets; r++) {
        const char *k = og_abi_ret_of(s->rets[r].type).kind;
        if (!strcmp(k, "OPAQUE") || !strcmp(k, "RET_TENSOR")) return false;
    }
    return true;
}

unsigned og_kernel_params(const og_schema *s, og_kparam *out, unsigned cap) {
    unsigned n = 0;
    for (unsigned i = 0; i < s->nargs; i++)
        if (n < cap)
            out[n++] = (og_kparam){s->args[i].name, og_abi_of(s->args[i].type, og_annot_is_write(s->args[i].annot))};
    /* a functional op without out= arguments returns through pointers (scalar
     * prims; ops a kernel yaml gives a kernel though they have no out= form) */
    if (!s->nout && s->nrets && og_schema_kind(s) == OG_KIND_FUNCTIONAL) {
        static const char *const names[] = {"ret0", "ret1", "ret2", "ret3", "ret4", "ret5", "ret6", "ret7"};
        for (unsigned r = 0; r < s->nrets && r < 8; r++)
            if (n < cap) out[n++] = (og_kparam){names[r], og_abi_ret_of(s->rets[r].type)};
    }
    return n;
}

void og_print_kernel_params(strbuf *b, const og_schema *s) {
    og_kparam ps[96];
    unsigned n = og_kernel_params(s, ps, 96);
    for (unsigned i = 0; i < n; i++) {
        const char *ct = ps[i].abi.ctype;
        size_t cl = strlen(ct);
        char *p = put_mem(PUT_LIT(sb_begin(b, cl + strlen(ps[i].name) + 8), ", "), ct, cl);
        if (ct[cl - 1] != '*') *p++ = ' ';
        p = put_str(p, ps[i].name);
        if (og_abi_reserved(ps[i].name)) *p++ = '_';
        sb_end(b, p);
    }
}

bool og_abi_reserved(const char *s) {
    if (!strncmp(s, "og_", 3)) return true; /* the prefix of generated code's own locals */
    /* C and C++ keywords and ctx, by first letter: "|word|" is looked for in its row */
    static const char *const kw[26] = {
        "|alignas|alignof|and|and_eq|asm|auto|",
        "|bitand|bitor|bool|break|",
        "|case|catch|char|char16_t|char32_t|class|compl|const|const_cast|constexpr|continue|ctx|",
        "|decltype|default|delete|do|double|dynamic_cast|",
        "|else|enum|explicit|export|extern|",
        "|false|float|for|friend|",
        "|goto|",
        "",
        "|if|inline|int|",
        "",
        "",
        "|long|",
        "|mutable|",
        "|namespace|new|noexcept|not|not_eq|nullptr|",
        "|operator|or|or_eq|",
        "|private|protected|public|",
        "",
        "|register|reinterpret_cast|restrict|return|",
        "|short|signed|sizeof|static|static_assert|static_cast|struct|switch|",
        "|template|this|thread_local|throw|true|try|typedef|typeid|typename|",
        "|union|unsigned|using|",
        "|virtual|void|volatile|",
        "|wchar_t|while|",
        "|xor|xor_eq|",
        "",
        ""};
    size_t n = strlen(s);
    if (*s < 'a' || *s > 'z' || n > 16) return false;
    char key[20] = {'|'};
    memcpy(key + 1, s, n);
    key[n + 1] = '|';
    return strstr(kw[*s - 'a'], key) != NULL;
}

bool og_is_c_ident(const char *s) {
    if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_')) return false;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_'))
            return false;
    return true;
}
