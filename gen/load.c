/* The YAML layer (load.h): libyaml events into nodes that know file:line:col,
 * scalars resolved as PyYAML's SafeLoader resolves them. */
#include "load.h"
#include "config.h"
#include "strmap.h"
#include "opgen/file.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

/* ---- YAML 1.1 implicit resolution (PyYAML resolver.py, SafeLoader) ---- */

static bool is_digit(char c) { return c >= '0' && c <= '9'; }

static bool all_in(const char *s, const char *e, const char *set) {
    if (s == e) return false;
    for (; s < e; s++)
        if (!strchr(set, *s) || !*s) return false;
    return true;
}

static bool match_bool(const char *s, size_t n, bool *v) {
    /* yes|Yes|YES|true|True|TRUE|on|On|ON and their negations, by length */
    static const char *const words[6][6] = {{0},
                                            {0},
                                            {"on", "On", "ON", "no", "No", "NO"},
                                            {"yes", "Yes", "YES", "off", "Off", "OFF"},
                                            {"true", "True", "TRUE"},
                                            {"false", "False", "FALSE"}};
    static const bool truth[6][6] = {{0}, {0}, {1, 1, 1, 0, 0, 0}, {1, 1, 1, 0, 0, 0}, {1, 1, 1}, {0, 0, 0}};
    if (n < 2 || n > 5) return false;
    for (int i = 0; i < 6 && words[n][i]; i++)
        if (words[n][i][0] == s[0] && words[n][i][1] == s[1] && !memcmp(words[n][i], s, n))
            return *v = truth[n][i], true;
    return false;
}

static bool match_null(const char *s) {
    return !*s || !strcmp(s, "~") || !strcmp(s, "null") || !strcmp(s, "Null") || !strcmp(s, "NULL");
}

/* (?::[0-5]?[0-9])+ */
static bool sexagesimal_tail(const char **ps, const char *e) {
    const char *s = *ps;
    int groups = 0;
    while (s < e && *s == ':') {
        s++;
        if (s < e && is_digit(*s) && s + 1 < e && is_digit(s[1])) {
            if (*s > '5') return false;
            s += 2;
        } else if (s < e && is_digit(*s)) {
            s++;
        } else {
            return false;
        }
        groups++;
    }
    *ps = s;
    return groups > 0;
}

static bool match_int(const char *s) {
    const char *e = s + strlen(s);
    if (*s == '-' || *s == '+') s++;
    if (s == e) return false;
    if (s[0] == '0' && s[1] == 'b') return all_in(s + 2, e, "01_");
    if (s[0] == '0' && s[1] == 'x') return all_in(s + 2, e, "0123456789abcdefABCDEF_");
    if (s[0] == '0') return s + 1 == e || all_in(s + 1, e, "01234567_");
    if (*s < '1' || *s > '9') return false;
    const char *p = s + 1;
    while (p < e && (is_digit(*p) || *p == '_')) p++;
    if (p == e) return true;
    /* [1-9][0-9_]*(?::[0-5]?[0-9])+ */
    return sexagesimal_tail(&p, e) && p == e;
}

static bool match_float(const char *s) {
    const char *e = s + strlen(s);
    const char *p = s;
    if (*p == '.') { /* \.[0-9_]+(?:[eE][-+][0-9]+)? | \.(inf|nan) */
        if (!strcmp(p, ".nan") || !strcmp(p, ".NaN") || !strcmp(p, ".NAN")) return true;
        if (!strcmp(p, ".inf") || !strcmp(p, ".Inf") || !strcmp(p, ".INF")) return true;
        p++;
        const char *q = p;
        while (p < e && (is_digit(*p) || *p == '_')) p++;
        if (p == q) return false;
        goto exponent;
    }
    if (*p == '-' || *p == '+') p++;
    if (!strcmp(p, ".inf") || !strcmp(p, ".Inf") || !strcmp(p, ".INF")) return true;
    if (p >= e || !is_digit(*p)) return false;
    while (p < e && (is_digit(*p) || *p == '_')) p++;
    if (p < e && *p == ':') { /* [0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]* */
        if (!sexagesimal_tail(&p, e) || p >= e || *p != '.') return false;
        p++;
        while (p < e && (is_digit(*p) || *p == '_')) p++;
        return p == e;
    }
    if (p >= e || *p != '.') return false;
    p++;
    while (p < e && (is_digit(*p) || *p == '_')) p++;
exponent:
    if (p == e) return true;
    if (*p != 'e' && *p != 'E') return false;
    p++;
    if (p >= e || (*p != '-' && *p != '+')) return false;
    p++;
    if (p >= e) return false;
    while (p < e && is_digit(*p)) p++;
    return p == e;
}

static bool match_timestamp(const char *s) {
    size_t n = strlen(s);
    if (n < 8 || !is_digit(s[0]) || !is_digit(s[1]) || !is_digit(s[2]) || !is_digit(s[3]) || s[4] != '-') return false;
    /* Enough to classify: PyYAML would build a date/datetime, which no opgen field accepts. */
    const char *p = s + 5;
    if (!is_digit(*p)) return false;
    p++;
    if (is_digit(*p)) p++;
    if (*p != '-') return false;
    p++;
    if (!is_digit(*p)) return false;
    return true;
}

static void resolve_plain(ynode *n) {
    const char *s = n->s;
    bool b;
    char c0 = s[0], lc = (char)(c0 | 0x20);
    if ((lc >= 'a' && lc <= 'z') || c0 == '_') { /* a word: only a bool or a null can start so */
        n->type = YVAL_STR;
        if ((lc == 'y' || lc == 'n' || lc == 't' || lc == 'f' || lc == 'o') && match_bool(s, n->len, &b)) {
            n->type = YVAL_BOOL;
            n->boolean = b;
        } else if (lc == 'n' && n->len == 4 && match_null(s)) {
            n->type = YVAL_NULL;
        }
        return;
    }
    if (match_null(s)) {
        n->type = YVAL_NULL;
    } else if (match_int(s)) {
        n->type = YVAL_INT;
    } else if (match_float(s)) {
        n->type = YVAL_FLOAT;
    } else if (match_timestamp(s)) {
        n->type = YVAL_TIMESTAMP;
    } else {
        n->type = YVAL_STR;
    }
}

/* ---- tree building ---- */

typedef struct frame {
    ynode *node;
    size_t first; /* index of the first kid in the kid stack */
    const char *anchor;
} frame;

typedef struct builder {
    arena *a;    /* nodes: the caller's arena, or a scratch arena when streaming */
    arena *keep; /* the caller's arena */
    diag *d;
    ynode_item_fn item; /* streaming callback, or NULL */
    void *ctx;
    bool streaming; /* the root is a sequence and items go to `item` */
    ydoc *doc;
    ynode **kids; /* pending kids of all open collections */
    size_t nkids, capkids;
    frame stack[OPGEN_MAX_YAML_DEPTH];
    int depth;
    strmap anchors;
    bool failed;
} builder;

static void push_kid(builder *b, ynode *n) {
    if (b->nkids == b->capkids) {
        b->capkids = b->capkids ? b->capkids * 2 : 256;
        ynode **k = og_xrealloc(b->kids, b->capkids * sizeof *k);
        b->kids = k;
    }
    b->kids[b->nkids++] = n;
}

static void err_at(builder *b, const yaml_mark_t *m, const char *fmt, const char *arg) {
    char msg[512];
    snprintf(msg, sizeof msg, fmt, arg);
    diag_error(b->d, b->doc->file, (unsigned)m->line + 1, (unsigned)m->column + 1, "%s", msg);
    b->failed = true;
}

static ynode *new_node(builder *b, ynode_kind k, const yaml_mark_t *m) {
    ynode *n = arena_alloc(b->a, sizeof *n);
    *n = (ynode){
        .kind = (unsigned char)k, .line = (unsigned)m->line + 1, .col = (unsigned)m->column + 1, .file = b->doc->file};
    return n;
}

static void add_node(builder *b, ynode *n, const char *anchor) {
    if (anchor) strmap_put(&b->anchors, arena_strdup(b->a, anchor), n);
    if (b->depth == 0) {
        b->doc->root = n;
    } else if (b->depth == 1 && b->streaming) {
        b->stack[0].node->n++;
        if (!b->failed) b->item(b->ctx, n);
        /* anchored nodes may be aliased by later items: then nothing is reused */
        if (!b->anchors.len) arena_reset(b->a);
    } else {
        push_kid(b, n);
    }
}

static bool scalar_keys_equal(const ynode *x, const ynode *y) {
    if (x->kind != YNODE_SCALAR || y->kind != YNODE_SCALAR) return false;
    /* PyYAML compares constructed values: True == yes == on, null == ~ */
    if (x->type == YVAL_BOOL && y->type == YVAL_BOOL) return x->boolean == y->boolean;
    if (x->type == YVAL_NULL && y->type == YVAL_NULL) return true;
    if (x->type != y->type) return false;
    return x->len == y->len && memcmp(x->s, y->s, x->len) == 0;
}

static void check_map(builder *b, ynode *m) {
    for (size_t i = 0; i < m->n; i++) {
        const ynode *k = m->kids[2 * i];
        if (k->kind != YNODE_SCALAR) {
            diag_error(b->d, k->file, k->line, k->col, "a mapping key must be a scalar, not %s", ynode_describe(k));
            b->failed = true;
        }
    }
    if (m->n <= 16) {
        for (size_t i = 1; i < m->n; i++)
            for (size_t j = 0; j < i; j++) {
                const ynode *k = m->kids[2 * i], *p = m->kids[2 * j];
                if (scalar_keys_equal(k, p)) {
                    diag_error(b->d, k->file, k->line, k->col, "duplicate key '%s' in this mapping", k->s);
                    diag_note(b->d, p->file, p->line, p->col, "'%s' was first given here", p->s);
                    b->failed = true;
                    break;
                }
            }
        return;
    }
    strmap seen;
    strmap_init(&seen, m->n);
    for (size_t i = 0; i < m->n; i++) {
        const ynode *k = m->kids[2 * i];
        if (k->kind != YNODE_SCALAR) continue;
        const char *key = k->type == YVAL_BOOL   ? (k->boolean ? "\001true" : "\001false")
                          : k->type == YVAL_NULL ? "\001null"
                                                 : k->s;
        const ynode *p = strmap_put(&seen, key, (void *)k);
        if (p && scalar_keys_equal(k, p)) {
            diag_error(b->d, k->file, k->line, k->col, "duplicate key '%s' in this mapping", k->s);
            diag_note(b->d, p->file, p->line, p->col, "'%s' was first given here", p->s);
            b->failed = true;
        }
    }
    strmap_free(&seen);
}

static bool explicit_tag(builder *b, ynode *n, const char *tag, const yaml_mark_t *m) {
    static const char pfx[] = "tag:yaml.org,2002:";
    if (!strcmp(tag, "!")) { /* non-specific: a string */
        n->type = YVAL_STR;
        return true;
    }
    if (strncmp(tag, pfx, sizeof pfx - 1) != 0) {
        err_at(b, m, "unsupported YAML tag '%s' (only the standard tags !!str, !!int, !!float, !!bool, !!null)", tag);
        return false;
    }
    const char *t = tag + sizeof pfx - 1;
    bool v;
    if (!strcmp(t, "str")) {
        n->type = YVAL_STR;
    } else if (!strcmp(t, "bool") && match_bool(n->s, n->len, &v)) {
        n->type = YVAL_BOOL;
        n->boolean = v;
    } else if (!strcmp(t, "null") && match_null(n->s)) {
        n->type = YVAL_NULL;
    } else if (!strcmp(t, "int") && match_int(n->s)) {
        n->type = YVAL_INT;
    } else if (!strcmp(t, "float") && (match_float(n->s) || match_int(n->s))) {
        n->type = YVAL_FLOAT;
    } else if (strcmp(t, "str") && strcmp(t, "bool") && strcmp(t, "null") && strcmp(t, "int") && strcmp(t, "float")) {
        err_at(b, m, "unsupported YAML tag '%s' (only the standard tags !!str, !!int, !!float, !!bool, !!null)", tag);
        return false;
    } else {
        err_at(b, m, "a scalar tagged '%s' must have a matching value", tag);
        return false;
    }
    return true;
}

static void on_scalar(builder *b, const yaml_event_t *ev) {
    ynode *n = new_node(b, YNODE_SCALAR, &ev->start_mark);
    n->s = arena_strndup(b->a, (const char *)ev->data.scalar.value, ev->data.scalar.length);
    n->len = (uint32_t)ev->data.scalar.length;
    switch (ev->data.scalar.style) {
    case YAML_SINGLE_QUOTED_SCALAR_STYLE: n->style = YSTYLE_SINGLE; break;
    case YAML_DOUBLE_QUOTED_SCALAR_STYLE: n->style = YSTYLE_DOUBLE; break;
    case YAML_LITERAL_SCALAR_STYLE: n->style = YSTYLE_LITERAL; break;
    case YAML_FOLDED_SCALAR_STYLE: n->style = YSTYLE_FOLDED; break;
    default: n->style = YSTYLE_PLAIN; break;
    }
    const char *tag = (const char *)ev->data.scalar.tag;
    if (tag && !ev->data.scalar.plain_implicit && !ev->data.scalar.quoted_implicit) {
        if (!explicit_tag(b, n, tag, &ev->start_mark)) return;
    } else if (n->style == YSTYLE_PLAIN) {
        if (n->len == 2 && n->s[0] == '<' && n->s[1] == '<') {
            err_at(b, &ev->start_mark, "YAML merge keys ('%s') are not supported", "<<");
            return;
        }
        if (n->len == 1 && n->s[0] == '=') {
            err_at(b, &ev->start_mark, "the YAML value key '%s' is not supported", "=");
            return;
        }
        resolve_plain(n);
    } else {
        n->type = YVAL_STR;
    }
    /* Map value offsets onto source columns where the source is the value, byte for byte. */
    size_t si = ev->start_mark.index, ei = ev->end_mark.index;
    if (ev->start_mark.line == ev->end_mark.line && ei <= b->doc->srclen && si <= ei) {
        const char *raw = b->doc->src + si;
        size_t rl = ei - si;
        if (n->style == YSTYLE_PLAIN && rl == n->len && memcmp(raw, n->s, n->len) == 0)
            n->exact = true;
        else if ((n->style == YSTYLE_SINGLE || n->style == YSTYLE_DOUBLE) && rl == n->len + 2 &&
                 memcmp(raw + 1, n->s, n->len) == 0)
            n->exact = true;
    }
    add_node(b, n, (const char *)ev->data.scalar.anchor);
}

static void open_collection(builder *b, const yaml_event_t *ev, ynode_kind k, const char *anchor) {
    if (b->depth >= OPGEN_MAX_YAML_DEPTH) {
        err_at(b, &ev->start_mark, "YAML nested deeper than %s levels", "64");
        return;
    }
    ynode *n;
    if (b->depth == 0 && b->item && k == YNODE_SEQ) { /* the root outlives the items */
        b->streaming = true;
        arena *scratch = b->a;
        b->a = b->keep;
        n = new_node(b, k, &ev->start_mark);
        b->a = scratch;
    } else {
        n = new_node(b, k, &ev->start_mark);
    }
    frame *f = &b->stack[b->depth++];
    f->node = n;
    f->first = b->nkids;
    f->anchor = anchor ? arena_strdup(b->a, anchor) : NULL;
}

static void close_collection(builder *b) {
    frame *f = &b->stack[--b->depth];
    ynode *n = f->node;
    if (b->depth == 0 && b->streaming) { /* the root: its items went to the callback */
        add_node(b, n, f->anchor);
        return;
    }
    size_t cnt = b->nkids - f->first;
    n->kids = ARENA_ARRAY(b->a, ynode *, cnt ? cnt : 1);
    if (cnt) memcpy(n->kids, b->kids + f->first, cnt * sizeof *n->kids);
    b->nkids = f->first;
    n->n = (uint32_t)(n->kind == YNODE_MAP ? cnt / 2 : cnt);
    if (n->kind == YNODE_MAP) check_map(b, n);
    add_node(b, n, f->anchor);
}

/* libyaml marks scanner and parser errors; a reader error (bad UTF-8, a control
 * character) has only a byte offset, turned into line:col here. */
static void parser_error(builder *b, yaml_parser_t *p, const char *buf, size_t len) {
    const yaml_mark_t *m = &p->problem_mark;
    char msg[512];
    if (p->error == YAML_READER_ERROR) {
        unsigned line = 1, col = 1;
        for (size_t i = 0; i < p->problem_offset && i < len; i++) {
            if (buf[i] == '\n')
                line++, col = 1;
            else if (((unsigned char)buf[i] & 0xc0) != 0x80)
                col++;
        }
        const char *what = p->problem ? p->problem : "unreadable text";
        if (p->problem_value >= 0)
            snprintf(msg, sizeof msg, "invalid YAML: %s (byte 0x%02x)", what, (unsigned)p->problem_value & 0xffu);
        else
            snprintf(msg, sizeof msg, "invalid YAML: %s", what);
        diag_error(b->d, b->doc->file, line, col, "%s", msg);
        b->failed = true;
        return;
    }
    if (p->error == YAML_MEMORY_ERROR) {
        snprintf(msg, sizeof msg, "out of memory while parsing YAML");
    } else if (p->context) {
        snprintf(msg, sizeof msg, "invalid YAML: %s %s", p->problem ? p->problem : "syntax error", p->context);
    } else {
        snprintf(msg, sizeof msg, "invalid YAML: %s", p->problem ? p->problem : "syntax error");
    }
    diag_error(b->d, b->doc->file, (unsigned)m->line + 1, (unsigned)m->column + 1, "%s", msg);
    b->failed = true;
}

/* libyaml's events into nodes, one at a time. */
static void build(builder *b, yaml_parser_t *parser) {
    int docs = 0;
    bool done = false;
    yaml_event_t event, *ev = &event;
    while (!done && !b->failed) {
        if (!yaml_parser_parse(parser, ev)) {
            parser_error(b, parser, b->doc->src, b->doc->srclen);
            break;
        }
        switch (ev->type) {
        case YAML_STREAM_END_EVENT: done = true; break;
        case YAML_DOCUMENT_START_EVENT:
            if (++docs > 1) err_at(b, &ev->start_mark, "expected a single YAML document, found %s", "another");
            break;
        case YAML_SCALAR_EVENT: on_scalar(b, ev); break;
        case YAML_SEQUENCE_START_EVENT:
            open_collection(b, ev, YNODE_SEQ, (const char *)ev->data.sequence_start.anchor);
            break;
        case YAML_MAPPING_START_EVENT:
            open_collection(b, ev, YNODE_MAP, (const char *)ev->data.mapping_start.anchor);
            break;
        case YAML_SEQUENCE_END_EVENT:
        case YAML_MAPPING_END_EVENT: close_collection(b); break;
        case YAML_ALIAS_EVENT: {
            ynode *t = strmap_get(&b->anchors, (const char *)ev->data.alias.anchor);
            if (!t)
                err_at(b, &ev->start_mark, "undefined YAML alias '*%s'", (const char *)ev->data.alias.anchor);
            else
                add_node(b, t, NULL);
            break;
        }
        default: break;
        }
        yaml_event_delete(ev);
    }
}

bool og_yaml_stream_buffer(arena *keep, diag *d, const char *name, const char *buf, size_t len, ydoc *out,
                           ynode_item_fn item, void *ctx) {
    memset(out, 0, sizeof *out);
    out->file = name;
    out->src = (char *)buf;
    out->srclen = len;
    arena scratch;
    arena_init(&scratch);
    builder b;
    memset(&b, 0, sizeof b);
    b.a = item ? &scratch : keep;
    b.keep = keep;
    b.item = item;
    b.ctx = ctx;
    b.d = d;
    b.doc = out;
    strmap_init(&b.anchors, 8);
    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser)) og_oom();
    yaml_parser_set_input_string(&parser, (const unsigned char *)buf, len);
    build(&b, &parser);
    yaml_parser_delete(&parser);
    free(b.kids);
    strmap_free(&b.anchors);
    if (item && out->root && !b.streaming) { /* not a sequence: keep the root's kind and place only */
        ynode *r = ARENA_NEW(keep, ynode);
        *r = *out->root;
        r->kids = NULL;
        r->n = 0;
        r->s = r->kind == YNODE_SCALAR ? arena_strndup(keep, r->s, r->len) : NULL;
        out->root = r;
    }
    arena_free(&scratch);
    return !b.failed;
}

bool og_yaml_load_buffer(arena *a, diag *d, const char *name, const char *buf, size_t len, ydoc *out) {
    return og_yaml_stream_buffer(a, d, name, buf, len, out, NULL, NULL);
}

bool og_yaml_load_file(arena *a, diag *d, const char *path, ydoc *out) {
    return og_yaml_stream_file(a, d, path, out, NULL, NULL);
}

bool og_yaml_stream_file(arena *a, diag *d, const char *path, ydoc *out, ynode_item_fn item, void *ctx) {
    memset(out, 0, sizeof *out);
    out->file = path;
    char *src; /* in the arena: the source stays alive for column mapping */
    size_t n;
    if (!og_read_file(a, d, path, &src, &n)) return false;
    return og_yaml_stream_buffer(a, d, path, src, n, out, item, ctx);
}

bool og_read_file(arena *a, diag *d, const char *path, char **data, size_t *len) {
    opgen_error err = {0};
    if (!opgen_file_read(path, OG_MAX_INPUT_FILE, a, data, len, &err)) return true;
    if (err.code == OPGEN_E_NO_MEMORY) og_oom();
    if (d) diag_error(d, path, 0, 0, "%s", err.msg);
    return false;
}

bool og_read_file_sb(strbuf *b, diag *d, const char *path) {
    arena a;
    arena_init(&a);
    char *data;
    size_t n;
    bool ok = og_read_file(&a, d, path, &data, &n);
    if (ok) sb_putn(b, data, n);
    arena_free(&a);
    return ok;
}

const ynode *ymap_get(const ynode *map, const char *key) {
    if (!map || map->kind != YNODE_MAP) return NULL;
    for (size_t i = 0; i < map->n; i++) {
        const ynode *k = map->kids[2 * i];
        if (k->kind == YNODE_SCALAR && k->type == YVAL_STR && !strcmp(k->s, key)) return map->kids[2 * i + 1];
    }
    return NULL;
}

bool ynode_is_str(const ynode *n) { return n && n->kind == YNODE_SCALAR && n->type == YVAL_STR; }

const char *ynode_describe(const ynode *n) {
    if (!n) return "nothing";
    switch (n->kind) {
    case YNODE_SEQ: return "a list";
    case YNODE_MAP: return "a mapping";
    default: break;
    }
    switch (n->type) {
    case YVAL_NULL: return "null";
    case YVAL_BOOL: return n->boolean ? "the boolean True" : "the boolean False";
    case YVAL_INT: return "an integer";
    case YVAL_FLOAT: return "a float";
    case YVAL_TIMESTAMP: return "a timestamp";
    default: return "a string";
    }
}

void ynode_pos(const ynode *n, size_t off, unsigned *line, unsigned *col) {
    *line = n->line;
    *col = n->col;
    if (n->kind != YNODE_SCALAR || off > n->len) return;
    if (n->exact) {
        size_t lead = n->style == YSTYLE_PLAIN ? 0 : 1;
        *col = n->col + (unsigned)(lead + off);
    }
}
