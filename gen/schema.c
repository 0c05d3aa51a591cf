/* The function schema language (schema.h): parsing torchgen's schema strings
 * (add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor) into
 * og_schema, checking them as torchgen does, and the schemas torchgen derives
 * (signatures, out= and functional variants). Printing is in schema_print.c. */
#include "schema_impl.h"
const char *og_basety_name(og_basety t) { return (unsigned)t < OG_BT_COUNT ? basety_names[t] : "?"; }

/* Base types are shared, not allocated per argument. */
static const og_type base_types[] = {
#define OG_BT_STATIC(n) {OG_TY_BASE, OG_BT_##n, 0, NULL, NULL},
    OG_BASE_TYPES(OG_BT_STATIC)
#undef OG_BT_STATIC
};

static bool fail(og_err *err, size_t off, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static bool fail(og_err *err, size_t off, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    err->off = (uint32_t)off;
    return false;
}

/* Quote at most 60 bytes of a span for a message. */
static const char *q(char *buf, const char *s, size_t n) {
    if (n > 60) {
        memcpy(buf, s, 57);
        memcpy(buf + 57, "...", 4);
    } else {
        memcpy(buf, s, n);
        buf[n] = 0;
    }
    return buf;
}

static bool is_ident_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
static bool is_ident_char(char c) { return is_ident_start(c) || (c >= '0' && c <= '9'); }
static bool is_ident(const char *s, size_t n) {
    if (!n || !is_ident_start(s[0])) return false;
    for (size_t i = 1; i < n; i++)
        if (!is_ident_char(s[i])) return false;
    return true;
}

/* ---------------- types and annotations ---------------- */

static const og_type *parse_type(arena *a, const og_dialect *dl, const char *s, size_t n, size_t off, int depth,
                                 og_err *err) {
    char qb[64];
    if (depth > OPGEN_MAX_TYPE_DEPTH)
        return fail(err, off, "type nested more than %d levels deep", OPGEN_MAX_TYPE_DEPTH), NULL;
    if (n == 0) return fail(err, off, "expected a type"), NULL;
    if (s[n - 1] == '?' && n > 1) {
        const og_type *e = parse_type(a, dl, s, n - 1, off, depth + 1, err);
        if (!e) return NULL;
        og_type *t = ARENA_NEW(a, og_type);
        t->kind = OG_TY_OPTIONAL;
        t->elem = e;
        return t;
    }
    if (s[n - 1] == ']') {
        size_t j = n - 1;
        while (j > 0 && s[j - 1] >= '0' && s[j - 1] <= '9') j--;
        if (j >= 2 && s[j - 1] == '[') {
            size_t lb = j - 1, nd = n - 1 - j;
            unsigned size = 0;
            if (nd) {
                if (s[j] == '0')
                    return fail(err, off + j, "list size must be a positive number without leading zeros, found '%s'",
                                q(qb, s + j, nd)),
                           NULL;
                if (nd > 9) return fail(err, off + j, "list size '%s' is too large", q(qb, s + j, nd)), NULL;
                for (size_t i = j; i < n - 1; i++) size = size * 10 + (unsigned)(s[i] - '0');
            }
            const og_type *e = parse_type(a, dl, s, lb, off, depth + 1, err);
            if (!e) return NULL;
            og_type *t = ARENA_NEW(a, og_type);
            t->kind = OG_TY_LIST;
            t->elem = e;
            t->size = size;
            return t;
        }
    }
    static const char cc[] = "__torch__.torch.classes.";
    if (n > sizeof cc - 1 && memcmp(s, cc, sizeof cc - 1) == 0) {
        for (size_t i = sizeof cc - 1; i < n; i++)
            if (!is_ident_char(s[i]) && s[i] != '.')
                return fail(err, off + i, "custom class name '%s' may use only letters, digits, '_' and '.'",
                            q(qb, s, n)),
                       NULL;
        og_type *t = ARENA_NEW(a, og_type);
        t->kind = OG_TY_CUSTOM;
        t->custom = arena_strndup(a, s + sizeof cc - 1, n - (sizeof cc - 1));
        return t;
    }
    for (int i = 0; i < OG_BT_COUNT; i++) {
        if (basety_lens[i] == n && basety_names[i][0] == s[0] && memcmp(basety_names[i], s, n) == 0) {
            if (!(dl->base_types & (1u << i)))
                return fail(err, off, "type '%s' does not exist in torchgen %s", basety_names[i], dl->name), NULL;
            return &base_types[i];
        }
    }
    return fail(err, off, "unknown type '%s'", q(qb, s, n)), NULL;
}

static bool is_lower(char c) { return c >= 'a' && c <= 'z'; }

/* ^([a-z])(\|[a-z])*(!?)( -> (\*|[a-z](\|[a-z])*))?$ */
static const og_annot *parse_annot(arena *a, const char *s, size_t n, size_t off, og_err *err) {
    char qb[64];
    og_annot *x = ARENA_NEW(a, og_annot);
    size_t i = 0, nb = 0, na = 0;
    const char *bad = "malformed alias annotation '%s' (expected forms like a, a!, a|b, a -> *, a! -> a|b)";
    if (i >= n || !is_lower(s[i])) return fail(err, off + i, bad, q(qb, s, n)), NULL;
    x->before[nb++] = s[i++];
    while (i + 1 < n && s[i] == '|' && is_lower(s[i + 1])) {
        if (nb >= 26) return fail(err, off + i, bad, q(qb, s, n)), NULL;
        x->before[nb++] = s[i + 1];
        i += 2;
    }
    if (i < n && s[i] == '!') {
        x->write = true;
        i++;
    }
    if (i < n) {
        if (n - i < 5 || memcmp(s + i, " -> ", 4) != 0) return fail(err, off + i, bad, q(qb, s, n)), NULL;
        i += 4;
        if (s[i] == '*') {
            x->after[na++] = '*';
            i++;
        } else if (is_lower(s[i])) {
            x->after[na++] = s[i++];
            while (i + 1 < n && s[i] == '|' && is_lower(s[i + 1])) {
                if (na >= 26) return fail(err, off + i, bad, q(qb, s, n)), NULL;
                x->after[na++] = s[i + 1];
                i += 2;
            }
        }
        if (i != n || na == 0) return fail(err, off + i, bad, q(qb, s, n)), NULL;
    }
    if (x->write && nb > 1)
        return fail(err, off, "alias set larger than 1 is not mutable, got '%s'", q(qb, s, n)), NULL;
    if (nb > 1 && na > 1)
        return fail(err, off, "before alias set and after alias set cannot both be larger than 1, got '%s'",
                    q(qb, s, n)),
               NULL;
    /* torchgen's regex keeps only the last repeated group, so a|b|c never round-trips */
    if (nb > 2)
        return fail(err, off, "alias set '%s' has more than two members, which torchgen cannot represent", q(qb, s, n)),
               NULL;
    return x;
}

/* Splits "Tensor(ann)suffix" / plain types. */
static bool parse_annotated_type(arena *a, const og_dialect *dl, const char *s, size_t n, size_t off,
                                 const og_type **ty, const og_annot **an, og_err *err) {
    char qb[64];
    *an = NULL;
    if (n > 7 && memcmp(s, "Tensor(", 7) == 0) {
        size_t rp = n;
        while (rp > 7 && s[rp - 1] != ')') rp--;
        if (rp > 8) { /* found ')' with at least one char inside */
            size_t close = rp - 1;
            const char *suf = s + rp;
            size_t sn = n - rp;
            if (!(sn == 0 || (sn == 1 && suf[0] == '?') || (sn == 2 && suf[0] == '[' && suf[1] == ']')))
                return fail(
                    err, off + rp,
                    "an alias annotation may only be followed by '?' or '[]' (Tensor(a), Tensor(a)?, Tensor(a)[]), found '%s'",
                    q(qb, suf, sn));
            *an = parse_annot(a, s + 7, close - 7, off + 7, err);
            if (!*an) return false;
            static const og_type tensor_opt = {OG_TY_OPTIONAL, OG_BT_Tensor, 0, &base_types[OG_BT_Tensor], NULL};
            static const og_type tensor_list = {OG_TY_LIST, OG_BT_Tensor, 0, &base_types[OG_BT_Tensor], NULL};
            *ty = sn == 0 ? &base_types[OG_BT_Tensor] : sn == 1 ? &tensor_opt : &tensor_list;
            return true;
        }
    }
    if (n == 8 && !memcmp(s, "Tensor()", 8)) return fail(err, off + 7, "empty alias annotation in 'Tensor()'");
    for (size_t i = 1; i < n && is_ident_start(s[0]); i++) {
        if (s[i] == '(') {
            return fail(
                err, off + i,
                "only Tensor may carry an alias annotation, written Tensor(a), Tensor(a)? or Tensor(a)[]; found '%s'",
                q(qb, s, n));
        }
    }
    *ty = parse_type(a, dl, s, n, off, 0, err);
    return *ty != NULL;
}

/* ---------------- operator names ---------------- */

bool og_opname_parse(arena *a, const char *s, size_t n, og_opname *out, og_err *err) {
    char qb[64];
    memset(out, 0, sizeof *out);
    size_t dot = 0;
    while (dot < n && s[dot] != '.') dot++;
    size_t bn = dot;
    if (bn == 0) return fail(err, 0, "expected an operator name");
    if (dot < n) {
        const char *ov = s + dot + 1;
        size_t on = n - dot - 1;
        if (on == 0) return fail(err, dot, "expected an overload name after '.'");
        for (size_t i = 0; i < on; i++)
            if (!is_ident_char(ov[i]))
                return fail(err, dot + 1 + i, "overload name '%s' must consist of letters, digits and '_'",
                            q(qb, ov, on));
        out->overload = arena_strndup(a, ov, on);
    } else {
        out->overload = "";
    }
    if (!is_ident(s, bn)) {
        size_t i = 0;
        while (i < bn && (i ? is_ident_char(s[i]) : is_ident_start(s[i]))) i++;
        return fail(err, i, "operator name '%s' is not an identifier", q(qb, s, bn));
    }
    if (bn >= 4 && memcmp(s + bn - 4, "_out", 4) == 0)
        return fail(err, bn - 4,
                    "the '_out' suffix is reserved for operator names; did you mean an out overload such as '%s.out'?",
                    q(qb, s, bn - 4));
    const char *base = s;
    size_t len = bn;
    /* ^__([^_]+)__$ */
    if (bn > 4 && s[0] == '_' && s[1] == '_' && s[bn - 1] == '_' && s[bn - 2] == '_' &&
        memchr(s + 2, '_', bn - 4) == NULL) {
        static const char *const aug[] = {"add",    "sub",    "mul", "div", "mod", "pow",
                                          "lshift", "rshift", "and", "xor", "or"};
        out->dunder = true;
        base = s + 2;
        len = bn - 4;
        if (base[0] == 'i') {
            bool ok = false;
            for (size_t i = 0; i < sizeof aug / sizeof *aug; i++)
                if (strlen(aug[i]) == len - 1 && memcmp(aug[i], base + 1, len - 1) == 0) ok = true;
            if (!ok)
                return fail(
                    err, 2,
                    "dunder operator '%s' starts with 'i' but names no augmented assignment (__iadd__, __iand__, ...)",
                    q(qb, s, bn));
            out->inplace = true;
            base++;
            len--;
        }
    } else if (s[bn - 1] == '_') {
        out->inplace = true;
        len--;
        if (len == 0) return fail(err, 0, "operator name '_' has no base name");
    }
    static const char fsuf[] = "_functional";
    size_t fl = sizeof fsuf - 1;
    if (len >= fl && memcmp(base + len - fl, fsuf, fl) == 0) {
        if (out->dunder || out->inplace)
            return fail(err, 0, "a '_functional' operator cannot be inplace or a dunder method: '%s'", q(qb, s, bn));
        if (len == fl) return fail(err, 0, "operator name '%s' has no base before '_functional'", q(qb, s, bn));
        out->functional_overload = true;
        len -= fl;
    }
    out->base = arena_strndup(a, base, len);
    return true;
}

/* ---------------- arguments and returns ---------------- */

static bool parse_argument(arena *a, const og_dialect *dl, const char *text, size_t st, size_t en, og_arg *x,
                           og_err *err) {
    char qb[64];
    (void)qb;
    const char *s = text + st;
    size_t n = en - st;
    memset(x, 0, sizeof *x);
    x->off = (uint32_t)st;
    size_t eq = n, neq = 0;
    for (size_t i = 0; i < n; i++)
        if (s[i] == '=') {
            if (!neq) eq = i;
            neq++;
        }
    if (neq > 1)
        return fail(err, st + eq, "argument '%s' has more than one '='; a default value cannot contain '='",
                    q(qb, s, n));
    size_t left = eq;
    if (neq && !dl->split_default_first) {
        /* torchgen 1.x splits at the last space first: no spaces after the name */
        for (size_t i = eq; i < n; i++)
            if (s[i] == ' ')
                return fail(err, st + i, "a default value cannot contain a space in torchgen %s", dl->name);
    }
    if (neq) {
        x->dflt = arena_strndup(a, s + eq + 1, n - eq - 1);
        x->dflt_off = (uint32_t)(st + eq + 1);
        if (n - eq - 1 == 0) return fail(err, st + eq + 1, "expected a default value after '='");
    }
    size_t sp = left;
    while (sp > 0 && s[sp - 1] != ' ') sp--;
    if (sp == 0) return fail(err, st, "expected an argument 'TYPE NAME', found '%s'", q(qb, s, n));
    size_t tn = sp - 1;
    x->type_off = (uint32_t)st;
    x->name_off = (uint32_t)(st + sp);
    if (!is_ident(s + sp, left - sp)) {
        if (left - sp == 0) return fail(err, st + sp, "expected an argument name after the type");
        return fail(err, st + sp, "argument name '%s' is not an identifier", q(qb, s + sp, left - sp));
    }
    x->name = arena_strndup(a, s + sp, left - sp);
    if (!parse_annotated_type(a, dl, s, tn, st, &x->type, &x->annot, err)) return false;
    return true;
}

static bool parse_return(arena *a, const og_dialect *dl, const char *text, size_t st, size_t en, og_ret *r,
                         og_err *err) {
    char qb[64];
    const char *s = text + st;
    size_t n = en - st;
    memset(r, 0, sizeof *r);
    r->off = (uint32_t)st;
    if (n == 0) return fail(err, st, "expected a return type");
    size_t sp = n;
    while (sp > 0 && s[sp - 1] != ' ') sp--;
    size_t tn = n;
    if (sp > 0) {
        tn = sp - 1;
        r->name_off = (uint32_t)(st + sp);
        if (!is_ident(s + sp, n - sp)) {
            if (n - sp == 0) return fail(err, st + sp, "expected a return name after the type");
            return fail(err, st + sp, "return name '%s' is not an identifier", q(qb, s + sp, n - sp));
        }
        r->name = arena_strndup(a, s + sp, n - sp);
    }
    return parse_annotated_type(a, dl, s, tn, st, &r->type, &r->annot, err);
}

/* Counts ", "-separated items in [st, en). */
static unsigned count_items(const char *t, size_t st, size_t en) {
    unsigned c = 1;
    for (size_t i = st; i + 1 < en; i++)
        if (t[i] == ',' && t[i + 1] == ' ') c++;
    return c;
}

static bool is_to_arg(const og_arg *x, const char *name, og_basety bt) {
    if (strcmp(x->name, name) != 0) return false;
    const og_type *t = x->type;
    if (t->kind == OG_TY_OPTIONAL) t = t->elem;
    return t->kind == OG_TY_BASE && t->base == bt;
}

static bool parse_arguments(arena *a, const og_dialect *dl, og_schema *s, const char *text, size_t st, size_t en,
                            og_err *err) {
    if (st == en) return true;
    unsigned cap = count_items(text, st, en);
    og_arg *args = ARENA_ARRAY(a, og_arg, cap);
    unsigned np = 0, nk = 0, no = 0;
    enum { POS, KW, OUT } mode = POS; /* only moves forward: parse order is schema order */
    size_t star_off = 0;
    const og_arg *first_out = NULL;
    size_t i = st;
    while (i <= en) {
        size_t j = i;
        while (j < en && !(text[j] == ',' && j + 1 < en && text[j + 1] == ' ')) j++;
        if (j == i) return fail(err, i, "expected an argument (an empty one here)");
        if (j - i == 1 && text[i] == '*') {
            if (mode != POS) return fail(err, i, "'*' (start of keyword-only arguments) may occur only once");
            mode = KW;
            star_off = i;
        } else {
            og_arg *x = &args[np + nk + no];
            if (!parse_argument(a, dl, text, i, j, x, err)) return false;
            if (og_annot_is_write(x->annot)) {
                if (mode == KW) mode = OUT;
            } else if (mode == OUT) {
                return fail(
                    err, x->off,
                    "argument '%s' follows the out argument '%s' but is not one; out arguments (write-annotated, after '*') must come last",
                    x->name, first_out->name);
            }
            if (mode == POS) {
                x->cat = OG_ARG_POST_SELF;
                np++;
            } else if (mode == KW) {
                x->cat = OG_ARG_KW_PRE;
                nk++;
            } else {
                x->cat = OG_ARG_OUT;
                if (!no) first_out = x;
                no++;
            }
        }
        i = j + 2;
    }
    if (mode != POS && nk == 0 && no == 0) return fail(err, star_off, "'*' must be followed by keyword-only arguments");
    s->args = args;
    s->nargs = np + nk + no;
    s->self_ix = -1;
    s->to_ix = -1;
    s->npos = np;
    s->nkw = nk;
    s->nout = no;
    /* self splits the positional arguments into pre-self / self / post-self */
    for (unsigned k = 0; k < np; k++)
        if (!strcmp(args[k].name, "self")) {
            s->self_ix = (int)k;
            args[k].cat = OG_ARG_SELF;
            for (unsigned p = 0; p < k; p++) args[p].cat = OG_ARG_PRE_SELF;
            break;
        }
    /* TensorOptions: the first run of dtype, layout, device, pin_memory among kwarg-only */
    og_arg *kw = args + np;
    og_argcat cat = OG_ARG_KW_PRE;
    for (unsigned k = 0; k < nk;) {
        if (k + 4 <= nk && is_to_arg(&kw[k], "dtype", OG_BT_ScalarType) &&
            is_to_arg(&kw[k + 1], "layout", OG_BT_Layout) && is_to_arg(&kw[k + 2], "device", OG_BT_Device) &&
            is_to_arg(&kw[k + 3], "pin_memory", OG_BT_bool)) {
            if (s->to_ix >= 0)
                return fail(err, kw[k].off,
                            "a second TensorOptions group (dtype, layout, device, pin_memory); only one is allowed");
            s->to_ix = (int)(np + k);
            for (int t = 0; t < 4; t++) kw[k + (unsigned)t].cat = OG_ARG_TENSOR_OPTIONS;
            k += 4;
            cat = OG_ARG_KW_POST;
            continue;
        }
        kw[k].cat = cat;
        k++;
    }
    for (unsigned k = 0; k < np; k++)
        if (args[k].cat == OG_ARG_PRE_SELF && og_annot_is_write(args[k].annot))
            return fail(err, args[k].off,
                        "argument '%s' before self is write-annotated; mutable arguments before self are not supported",
                        args[k].name);
    return true;
}

static bool parse_returns(arena *a, const og_dialect *dl, og_schema *s, const char *text, size_t st, size_t en,
                          og_err *err) {
    if (st == en) return fail(err, st, "expected return types after '->'");
    if (en - st == 2 && text[st] == '(' && text[st + 1] == ')') return true;
    bool paren = text[st] == '(' && text[en - 1] == ')';
    if (paren) st++, en--;
    unsigned cap = count_items(text, st, en);
    s->rets = ARENA_ARRAY(a, og_ret, cap);
    size_t i = st;
    while (i <= en) {
        size_t j = i;
        while (j < en && !(text[j] == ',' && j + 1 < en && text[j + 1] == ' ')) j++;
        if (j == i) return fail(err, i, "expected a return type (an empty one here)");
        og_ret *r = &s->rets[s->nrets];
        if (!parse_return(a, dl, text, i, j, r, err)) return false;
        for (unsigned k = 0; k < s->nrets; k++)
            if (r->name && s->rets[k].name && !strcmp(r->name, s->rets[k].name))
                return fail(err, r->name_off, "duplicate return name '%s'", r->name);
        s->nrets++;
        i = j + 2;
    }
    if (paren && s->nrets == 1) return fail(err, st - 1, "a single return must not be parenthesized");
    if (!paren && s->nrets > 1) return fail(err, st, "several returns must be parenthesized: (A, B)");
    return true;
}

/* Where the first byte below 0x20 or 0x7f could be: 8 bytes at a time (the
 * classic has-a-byte-less-than test); n when there is none. */
static size_t first_control(const char *s, size_t n) {
    const uint64_t ones = 0x0101010101010101u, highs = 0x8080808080808080u;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, s + i, 8);
        uint64_t del = w ^ (0x7f * ones);
        if (((w - 0x20 * ones) & ~w & highs) || ((del - ones) & ~del & highs)) return i;
    }
    return i;
}

og_schema *og_schema_parse(arena *a, const char *text, const og_dialect *dl, og_err *err) {
    char qb[64];
    size_t n = strlen(text);
    for (size_t i = first_control(text, n); i < n; i++)
        if ((unsigned char)text[i] < 0x20 || text[i] == 0x7f)
            return fail(err, i, "control character (code %d) in a schema; a schema is one line of text", text[i]), NULL;
    const char *lp = strchr(text, '(');
    if (!lp) return fail(err, n, "expected '(' and arguments after the operator name"), NULL;
    size_t lpo = (size_t)(lp - text);
    /* torchgen splits at the LAST ") -> " (greedy regex) */
    size_t arrow = (size_t)-1;
    for (size_t i = lpo + 1; i + 5 <= n; i++)
        if (text[i] == ')' && text[i + 1] == ' ' && text[i + 2] == '-' && text[i + 3] == '>' && text[i + 4] == ' ')
            arrow = i;
    if (arrow == (size_t)-1) {
        for (size_t i = lpo + 1; i + 1 < n; i++)
            if (text[i] == '-' && text[i + 1] == '>')
                return fail(err, i, "expected ') -> ' with exactly one space on each side of the arrow"), NULL;
        return fail(err, n, "expected ') -> ' and return types after the arguments"), NULL;
    }
    og_schema *s = ARENA_NEW(a, og_schema);
    s->self_ix = s->to_ix = -1;
    if (!og_opname_parse(a, text, lpo, &s->name, err)) return NULL;
    if (!parse_arguments(a, dl, s, text, lpo + 1, arrow, err)) return NULL;
    if (!parse_returns(a, dl, s, text, arrow + 5, n, err)) return NULL;
    /* torchgen asserts str(parse(s)) == s: the language is what round-trips. */
    char small[1024];
    size_t max = og_s_schema_max_len(s);
    char *printed = max <= sizeof small ? small : og_xmalloc(max);
    size_t pn = (size_t)(og_s_put_schema(printed, s) - printed);
    if (pn != n || memcmp(printed, text, n) != 0) {
        size_t k = 0;
        while (k < n && k < pn && printed[k] == text[k]) k++;
        fail(err, k, "schema is not in canonical form; it would re-print as '%s'",
             q(qb, printed + (k > 20 ? k - 20 : 0), pn - (k > 20 ? k - 20 : 0)));
        if (printed != small) free(printed);
        return NULL;
    }
    if (printed != small) free(printed);
    return s;
}

/* ---------------- semantics ---------------- */

bool og_annot_is_write(const og_annot *x) { return x && x->write; }

bool og_annot_equal(const og_annot *x, const og_annot *y) {
    if (!x || !y) return x == y;
    return x->write == y->write && x->before[0] == y->before[0] && x->after[0] == y->after[0] &&
           !strcmp(x->before, y->before) && !strcmp(x->after, y->after);
}

bool og_type_equal(const og_type *x, const og_type *y) {
    if (x->kind != y->kind) return false;
    switch (x->kind) {
    case OG_TY_BASE: return x->base == y->base;
    case OG_TY_CUSTOM: return !strcmp(x->custom, y->custom);
    case OG_TY_LIST:
        if (x->size != y->size) return false;
        return og_type_equal(x->elem, y->elem);
    case OG_TY_OPTIONAL: return og_type_equal(x->elem, y->elem);
    }
    return false;
}

bool og_type_is_tensor_like(const og_type *t) {
    switch (t->kind) {
    case OG_TY_BASE: return t->base == OG_BT_Tensor;
    case OG_TY_OPTIONAL:
    case OG_TY_LIST: return og_type_is_tensor_like(t->elem);
    default: return false;
    }
}

bool og_type_is_plain_tensor(const og_type *t) { return t->kind == OG_TY_BASE && t->base == OG_BT_Tensor; }

static bool type_has_base(const og_type *t, og_basety b) {
    switch (t->kind) {
    case OG_TY_BASE: return t->base == b;
    case OG_TY_OPTIONAL:
    case OG_TY_LIST: return type_has_base(t->elem, b);
    default: return false;
    }
}

bool og_schema_has_symint(const og_schema *s) {
    for (unsigned i = 0; i < s->nargs; i++)
        if (type_has_base(s->args[i].type, OG_BT_SymInt)) return true;
    return false;
}

og_kind og_schema_kind(const og_schema *s) {
    if (s->name.inplace) return OG_KIND_INPLACE;
    for (unsigned i = 0; i < s->nargs; i++)
        if (s->args[i].cat == OG_ARG_OUT && !strncmp(s->args[i].name, "_scratch_", 9)) return OG_KIND_SCRATCH;
    if (s->nout) return OG_KIND_OUT;
    for (unsigned i = 0; i < s->nargs; i++)
        if (s->args[i].cat == OG_ARG_POST_SELF && og_annot_is_write(s->args[i].annot)) return OG_KIND_MUTABLE;
    return OG_KIND_FUNCTIONAL;
}

const char *og_kind_name(og_kind k) {
    static const char *const n[] = {"functional", "inplace", "out", "mutable", "scratch"};
    return (unsigned)k < OG_KIND_COUNT ? n[k] : "?";
}

bool og_schema_check(const og_schema *s, og_err *err) {
    /* stricter than torchgen: argument names are unique */
    for (unsigned i = 1; i < s->nargs; i++)
        for (unsigned j = 0; j < i; j++)
            if (s->args[i].name[0] == s->args[j].name[0] && !strcmp(s->args[i].name, s->args[j].name))
                return fail(err, s->args[i].name_off, "duplicate argument name '%s'", s->args[i].name);
    if (s->name.inplace && s->nout) return fail(err, 0, "an inplace operator (trailing '_') cannot have out arguments");
    /* 1. the i-th out argument is the i-th return */
    for (unsigned k = 0; k < s->nout && k < s->nrets; k++) {
        const og_arg *o = &s->args[s->npos + s->nkw + k];
        if (!og_annot_equal(o->annot, s->rets[k].annot))
            return fail(err, s->rets[k].off,
                        "return %u must alias out argument '%s' (the i-th return matches the i-th out argument)", k + 1,
                        o->name);
    }
    /* 2. mutable positional arguments after self are not returned */
    for (unsigned i = 0; i < s->nargs; i++) {
        const og_arg *x = &s->args[i];
        if (x->cat != OG_ARG_POST_SELF || !og_annot_is_write(x->annot)) continue;
        for (unsigned k = 0; k < s->nrets; k++)
            if (og_annot_equal(x->annot, s->rets[k].annot))
                return fail(err, s->rets[k].off, "mutable positional argument '%s' must not be returned", x->name);
    }
    /* 3. returns are all mutable or all immutable */
    unsigned nmut = 0;
    for (unsigned k = 0; k < s->nrets; k++) nmut += og_annot_is_write(s->rets[k].annot);
    if (nmut && nmut != s->nrets) {
        for (unsigned k = 0; k < s->nrets; k++)
            if (!og_annot_is_write(s->rets[k].annot))
                return fail(err, s->rets[k].off, "returns must be either all mutable or all immutable");
    }
    /* 4. a mutable return aliases an out argument or self */
    for (unsigned k = 0; k < s->nrets; k++) {
        if (!og_annot_is_write(s->rets[k].annot)) continue;
        bool ok = false;
        for (unsigned i = 0; i < s->nargs && !ok; i++) {
            const og_arg *x = &s->args[i];
            if ((x->cat == OG_ARG_OUT || (x->cat <= OG_ARG_POST_SELF && !strcmp(x->name, "self"))) &&
                og_annot_equal(x->annot, s->rets[k].annot))
                ok = true;
        }
        if (!ok)
            return fail(
                err, s->rets[k].off,
                "a mutable return must alias an out argument or self; did you forget to mark an out argument keyword-only?");
    }
    /* 5. out= ops return their out tensors, or nothing when an out is not a plain Tensor */
    if (s->nout) {
        unsigned first = s->npos + s->nkw;
        bool all_plain = true;
        unsigned counted = 0;
        for (unsigned k = 0; k < s->nout; k++) {
            const og_arg *o = &s->args[first + k];
            if (!og_type_is_plain_tensor(o->type)) all_plain = false;
            if (strncmp(o->name, "_scratch_", 9)) counted++;
        }
        if (!all_plain && s->nrets)
            return fail(err, s->rets[0].off, "an out= op whose out arguments are not all plain Tensors must return ()");
        if (all_plain && counted != s->nrets)
            return fail(err, s->nrets ? s->rets[0].off : s->args[first].off,
                        "an out= op must return as many values as it has out arguments (%u), found %u", counted,
                        s->nrets);
    }
    /* 6. inplace ops mutate self and return it (or nothing for non-Tensor self) */
    if (s->name.inplace) {
        const og_arg *self = s->self_ix >= 0 ? &s->args[s->self_ix] : NULL;
        if (!self) return fail(err, 0, "an inplace operator (trailing '_') needs a positional 'self' argument");
        if (!og_annot_is_write(self->annot))
            return fail(err, self->off, "an inplace operator's self must be write-annotated, e.g. Tensor(a!) self");
        if (og_type_is_plain_tensor(self->type)) {
            if (s->nrets != 1 || !og_annot_equal(s->rets[0].annot, self->annot))
                return fail(err, s->nrets ? s->rets[0].off : self->off,
                            "an inplace operator must return self, with self's annotation");
        } else if (s->nrets) {
            return fail(err, s->rets[0].off, "an inplace operator whose self is not a plain Tensor must return ()");
        }
    }
    og_kind k = og_schema_kind(s);
    /* 7. TensorOptions only on factory (functional) functions */
    if (s->to_ix >= 0 && k != OG_KIND_FUNCTIONAL)
        return fail(
            err, s->args[s->to_ix].off,
            "TensorOptions arguments (dtype, layout, device, pin_memory) are only allowed on functional factory ops, not on a %s op",
            og_kind_name(k));
    /* 8. 'functional' in an overload name is reserved */
    if (strstr(s->name.overload, "functional") && k != OG_KIND_FUNCTIONAL)
        return fail(err, 0,
                    "overload name '%s' contains 'functional', which is reserved for functional ops; this op is %s",
                    s->name.overload, og_kind_name(k));
    return true;
}

/* ---------------- derived schemas (torchgen signature / autogen) ---------------- */

static og_schema *clone_schema(arena *a, const og_schema *s, unsigned extra_args, unsigned extra_rets) {
    og_schema *r = ARENA_NEW(a, og_schema);
    *r = *s;
    r->args = ARENA_ARRAY(a, og_arg, s->nargs + extra_args + 1);
    if (s->nargs) memcpy(r->args, s->args, s->nargs * sizeof *r->args);
    r->rets = ARENA_ARRAY(a, og_ret, s->nrets + extra_rets + 1);
    if (s->nrets) memcpy(r->rets, s->rets, s->nrets * sizeof *r->rets);
    return r;
}

/* Arguments.signature(): annotations stripped, TensorOptions and outs dropped. */
static void args_signature(og_schema *r) {
    unsigned w = 0;
    for (unsigned i = 0; i < r->nargs; i++) {
        og_arg x = r->args[i];
        if (x.cat == OG_ARG_TENSOR_OPTIONS || x.cat == OG_ARG_OUT) continue;
        if (x.cat == OG_ARG_KW_POST) x.cat = OG_ARG_KW_PRE;
        x.annot = NULL;
        r->args[w++] = x;
    }
    r->nkw = 0;
    for (unsigned i = 0; i < w; i++) r->nkw += r->args[i].cat >= OG_ARG_KW_PRE;
    r->nargs = w;
    r->nout = 0;
    r->to_ix = -1;
}

og_schema *og_schema_signature(arena *a, const og_schema *s, bool keep_return_names) {
    og_schema *r = clone_schema(a, s, 0, s->nargs);
    /* written self / out / post-self args that are not already returned become returns */
    unsigned nr = 0;
    for (unsigned k = 0; k < s->nrets; k++) {
        og_ret x = s->rets[k];
        if (!keep_return_names) x.name = NULL;
        x.annot = NULL;
        r->rets[nr++] = x;
    }
    for (int pass = 0; pass < 3; pass++) {
        for (unsigned i = 0; i < s->nargs; i++) {
            const og_arg *x = &s->args[i];
            og_argcat want = pass == 0 ? OG_ARG_SELF : pass == 1 ? OG_ARG_OUT : OG_ARG_POST_SELF;
            if (x->cat != want || !og_annot_is_write(x->annot)) continue;
            bool returned = false;
            for (unsigned k = 0; k < s->nrets; k++)
                if (og_annot_equal(x->annot, s->rets[k].annot)) returned = true;
            if (returned) continue;
            og_ret nrr;
            memset(&nrr, 0, sizeof nrr);
            nrr.type = x->type;
            nrr.name = keep_return_names ? arena_printf(a, "%s_out", x->name) : NULL;
            r->rets[nr++] = nrr;
        }
    }
    r->nrets = nr;
    args_signature(r);
    r->name.inplace = false;
    r->name.functional_overload = false;
    r->name.overload = "";
    /* torchgen's special case: bernoulli.p's signature gets p=0.5 to pair with bernoulli_.float */
    if (!s->name.dunder && !s->name.inplace && !s->name.functional_overload && !strcmp(s->name.base, "bernoulli") &&
        !strcmp(s->name.overload, "p")) {
        for (unsigned i = 0; i < r->nargs; i++)
            if (!strcmp(r->args[i].name, "p") && r->args[i].type->kind == OG_TY_BASE &&
                r->args[i].type->base == OG_BT_float && !r->args[i].dflt)
                r->args[i].dflt = "0.5";
    }
    return r;
}

void og_print_signature(strbuf *b, const og_schema *s) {
    og_opname n = s->name;
    n.inplace = n.functional_overload = false;
    size_t max = og_s_schema_max_len(s) + 8; /* the written arguments' types come again as returns */
    for (unsigned i = 0; i < s->nargs; i++)
        if (og_annot_is_write(s->args[i].annot)) max += og_type_max_len(s->args[i].type) + 2;
    char *p = PUT_LIT(og_s_put_base_name(sb_begin(b, max), &n), "(");
    bool first = true, star = false;
    bool bernoulli_p = !s->name.dunder && !s->name.inplace && !s->name.functional_overload &&
                       !strcmp(s->name.base, "bernoulli") && !strcmp(s->name.overload, "p");
    for (unsigned i = 0; i < s->nargs; i++) {
        og_arg x = s->args[i];
        if (x.cat == OG_ARG_TENSOR_OPTIONS || x.cat == OG_ARG_OUT) continue;
        if (!first) p = PUT_LIT(p, ", ");
        first = false;
        if (!star && x.cat >= OG_ARG_KW_PRE) {
            p = PUT_LIT(p, "*, ");
            star = true;
        }
        x.annot = NULL;
        if (bernoulli_p && !x.dflt && !strcmp(x.name, "p") && x.type->kind == OG_TY_BASE && x.type->base == OG_BT_float)
            x.dflt = "0.5";
        p = og_s_put_arg(p, &x);
    }
    p = PUT_LIT(p, ") -> (");
    first = true;
    for (unsigned k = 0; k < s->nrets; k++) {
        if (!first) p = PUT_LIT(p, ", ");
        first = false;
        p = og_put_type(p, s->rets[k].type);
    }
    static const og_argcat order[] = {OG_ARG_SELF, OG_ARG_OUT, OG_ARG_POST_SELF};
    for (int pass = 0; pass < 3; pass++)
        for (unsigned i = 0; i < s->nargs; i++) {
            const og_arg *x = &s->args[i];
            if (x->cat != order[pass] || !og_annot_is_write(x->annot)) continue;
            bool returned = false;
            for (unsigned k = 0; k < s->nrets; k++)
                if (og_annot_equal(x->annot, s->rets[k].annot)) returned = true;
            if (returned) continue;
            if (!first) p = PUT_LIT(p, ", ");
            first = false;
            p = og_put_type(p, x->type);
        }
    *p++ = ')';
    sb_end(b, p);
}

static const char *out_overload(arena *a, const char *ov) { return ov[0] ? arena_printf(a, "%s_out", ov) : "out"; }

/* generate_out_args_from_schema: tensor-like returns become out arguments */
static void add_out_args_from_returns(arena *a, const og_schema *s, og_schema *r) {
    char used[27] = {0};
    unsigned nu = 0;
    for (unsigned i = 0; i < s->nargs; i++)
        if (s->args[i].annot)
            for (const char *p = s->args[i].annot->before; *p; p++)
                if (!strchr(used, *p) && nu < 26) used[nu++] = *p;
    char valid[27];
    unsigned nv = 0;
    for (char c = 'a'; c <= 'z'; c++)
        if (!strchr(used, c)) valid[nv++] = c;
    bool all_plain = true;
    for (unsigned k = 0; k < s->nrets; k++)
        if (!og_type_is_plain_tensor(s->rets[k].type)) all_plain = false;
    unsigned nr = 0;
    for (unsigned k = 0; k < s->nrets; k++) {
        const og_ret *ret = &s->rets[k];
        if (og_type_is_tensor_like(ret->type) && k < nv) {
            og_annot *an = ARENA_NEW(a, og_annot);
            an->before[0] = valid[k];
            an->write = true;
            og_arg o;
            memset(&o, 0, sizeof o);
            o.name = s->nrets == 1 ? "out" : arena_printf(a, "out%u", k);
            o.type = ret->type;
            o.annot = an;
            o.cat = OG_ARG_OUT;
            r->args[r->nargs++] = o;
            r->nout++;
            if (all_plain) {
                og_ret nrr;
                memset(&nrr, 0, sizeof nrr);
                nrr.type = ret->type;
                nrr.annot = an;
                r->rets[nr++] = nrr;
            }
        } else {
            r->rets[nr++] = *ret;
        }
    }
    r->nrets = nr;
}

og_schema *og_schema_to_out(arena *a, const og_schema *s) {
    og_kind k = og_schema_kind(s);
    og_schema *r = clone_schema(a, s, s->nrets + 1, s->nrets);
    r->name.inplace = false;
    r->name.overload = out_overload(a, s->name.overload);
    if (k == OG_KIND_INPLACE) {
        /* self_to_out_signature: `out` takes self's type and annotation */
        og_arg *self = &r->args[r->self_ix];
        og_arg o;
        memset(&o, 0, sizeof o);
        o.name = "out";
        o.type = self->type;
        o.annot = self->annot;
        o.cat = OG_ARG_OUT;
        self->annot = NULL;
        r->args[r->nargs++] = o;
        r->nout = 1;
        return r;
    }
    if (k == OG_KIND_FUNCTIONAL) args_signature(r);
    r->nrets = 0;
    add_out_args_from_returns(a, s, r);
    return r;
}

og_schema *og_schema_to_functional(arena *a, const og_schema *s) {
    og_kind k = og_schema_kind(s);
    og_schema *r = og_schema_signature(a, s, true);
    r->name.overload = s->name.overload;
    r->name.functional_overload = k == OG_KIND_MUTABLE;
    r->name.dunder = s->name.dunder;
    return r;
}
