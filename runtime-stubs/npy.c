/* NumPy .npy files (opgen/npy.h): read into tensors and written from them,
 * every malformed header refused with the file named. */
#include "opgen/npy.h"
#include "opgen/file.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const struct {
    const char *code; /* descr without the byte-order character */
    opgen_dtype dtype;
} kinds[] = {
    {"b1", OPGEN_DTYPE_Bool},         {"u1", OPGEN_DTYPE_Byte},
    {"i1", OPGEN_DTYPE_Char},         {"i2", OPGEN_DTYPE_Short},
    {"i4", OPGEN_DTYPE_Int},          {"i8", OPGEN_DTYPE_Long},
    {"f2", OPGEN_DTYPE_Half},         {"f4", OPGEN_DTYPE_Float},
    {"f8", OPGEN_DTYPE_Double},       {"u2", OPGEN_DTYPE_UInt16},
    {"u4", OPGEN_DTYPE_UInt32},       {"u8", OPGEN_DTYPE_UInt64},
    {"c8", OPGEN_DTYPE_ComplexFloat}, {"c16", OPGEN_DTYPE_ComplexDouble},
    {"V2", OPGEN_DTYPE_BFloat16}, /* numpy has no bfloat16: raw bits, written as NumPy writes a V2 array ('|V2';
                                     ml_dtypes saves '<V2') */
};

static const char *skip_ws(const char *p, const char *e) {
    while (p < e && (*p == ' ' || *p == '\t')) p++;
    return p;
}

/* Parses the header dict: {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), } */
static opgen_status parse_header(const char *p, const char *e, const char *name, opgen_tensor *t, opgen_error *err) {
    bool have_descr = false, have_order = false, have_shape = false;
    int64_t sizes[OPGEN_MAX_DIM];
    int dim = 0;
    opgen_dtype dtype = OPGEN_DTYPE_Float;
    p = skip_ws(p, e);
    if (p >= e || *p++ != '{')
        return opgen_fail_at(err, OPGEN_E_FORMAT, name, 0, 0, "malformed .npy header: expected '{'");
    for (;;) {
        p = skip_ws(p, e);
        if (p < e && *p == '}') break;
        if (p >= e || (*p != '\'' && *p != '"'))
            return opgen_fail_at(err, OPGEN_E_FORMAT, name, 0, 0, "malformed .npy header: expected a quoted key");
        char q = *p++;
        const char *k = p;
        while (p < e && *p != q) p++;
        if (p >= e) return opgen_fail_at(err, OPGEN_E_FORMAT, name, 0, 0, "malformed .npy header: unterminated key");
        size_t kl = (size_t)(p - k);
        p = skip_ws(p + 1, e);
        if (p >= e || *p++ != ':')
            return opgen_fail_at(err, OPGEN_E_FORMAT, name, 0, 0, "malformed .npy header: expected ':'");
        p = skip_ws(p, e);
        if (kl == 5 && !memcmp(k, "descr", 5)) {
            if (p >= e || (*p != '\'' && *p != '"'))
                return opgen_fail_at(
                    err, OPGEN_E_FORMAT, name, 0, 0,
                    "descr must be a dtype string such as '<f4' (structured arrays are not supported)");
            char dq = *p++;
            const char *d = p;
            while (p < e && *p != dq) p++;
            if (p >= e)
                return opgen_fail_at(err, OPGEN_E_FORMAT, name, 0, 0, "malformed .npy header: unterminated descr");
            size_t dl = (size_t)(p++ - d);
            if (dl < 2) return opgen_fail_at(err, OPGEN_E_FORMAT, name, 0, 0, "unsupported dtype '%.*s'", (int)dl, d);
            if (d[0] == '>' && !(dl == 3 && d[2] == '1'))
                return opgen_fail_at(err, OPGEN_E_FORMAT, name, 0, 0,
                                     "big-endian data ('%.*s') is not supported; save little-endian arrays", (int)dl,
                                     d);
            if (d[0] != '<' && d[0] != '|' && d[0] != '=' && d[0] != '>')
                return opgen_fail_at(err, OPGEN_E_FORMAT, name, 0, 0, "unsupported dtype '%.*s'", (int)dl, d);
            bool found = false;
            for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
                if (strlen(kinds[i].code) == dl - 1 && !memcmp(kinds[i].code, d + 1, dl - 1))
                    dtype = kinds[i].dtype, found = true;
            if (!found)
                return opgen_fail_at(
                    err, OPGEN_E_FORMAT, name, 0, 0,
                    "unsupported dtype '%.*s' (supported: bool, int8-64, uint8-64, float16/32/64, bfloat16 as 'V2', "
                    "complex64/128)",
                    (int)dl, d);
            have_descr = true;
        } else if (kl == 13 && !memcmp(k, "fortran_order", 13)) {
            if (e - p >= 5 && !memcmp(p, "False", 5)) {
                p += 5;
            } else if (e - p >= 4 && !memcmp(p, "True", 4)) {
                return opgen_fail_at(err, OPGEN_E_FORMAT, name, 0, 0,
                                     "Fortran-ordered arrays are not supported; save with numpy.ascontiguousarray");
            } else {
                return opgen_fail_at(err, OPGEN_E_FORMAT, name, 0, 0, "fortran_order must be True or False");
            }
            have_order = true;
        } else if (kl == 5 && !memcmp(k, "shape", 5)) {
            if (p >= e || *p++ != '(') return opgen_fail_at(err, OPGEN_E_FORMAT, name, 0, 0, "shape must be a tuple");
            for (;;) {
                p = skip_ws(p, e);
                if (p < e && *p == ')') {
                    p++;
                    break;
                }
                if (p >= e || *p < '0' || *p > '9')
                    return opgen_fail_at(err, OPGEN_E_FORMAT, name, 0, 0,
                                         "shape must be a tuple of non-negative integers");
                int64_t v = 0;
                while (p < e && *p >= '0' && *p <= '9') {
                    if (v > (INT64_MAX - 9) / 10)
                        return opgen_fail_at(err, OPGEN_E_FORMAT, name, 0, 0, "shape dimension too large");
                    v = v * 10 + (*p++ - '0');
                }
                if (p < e && *p == 'L') p++; /* Python 2 longs */
                if (dim == OPGEN_MAX_DIM)
                    return opgen_fail_at(err, OPGEN_E_FORMAT, name, 0, 0, "more than %d dimensions", OPGEN_MAX_DIM);
                sizes[dim++] = v;
                p = skip_ws(p, e);
                if (p < e && *p == ',') p++;
            }
            have_shape = true;
        } else {
            return opgen_fail_at(err, OPGEN_E_FORMAT, name, 0, 0, "unexpected key '%.*s' in the .npy header", (int)kl,
                                 k);
        }
        p = skip_ws(p, e);
        if (p < e && *p == ',') p++;
    }
    if (!have_descr || !have_order || !have_shape)
        return opgen_fail_at(err, OPGEN_E_FORMAT, name, 0, 0, "the .npy header lacks '%s'",
                             !have_descr   ? "descr"
                             : !have_order ? "fortran_order"
                                           : "shape");
    opgen_status st = opgen_tensor_shape(t, dtype, dim, sizes, err);
    if (st) return st;
    return OPGEN_OK;
}

static opgen_status decode(const void *vbuf, size_t len, const char *name, opgen_arena *a, opgen_tensor *out,
                           size_t *used, opgen_error *err);

opgen_status opgen_npy_decode(const void *vbuf, size_t len, const char *name, opgen_arena *a, opgen_tensor *out,
                              opgen_error *err) {
    return decode(vbuf, len, name, a, out, NULL, err);
}

opgen_status opgen_npy_decode_prefix(const void *buf, size_t len, const char *name, opgen_arena *a, opgen_tensor *out,
                                     size_t *used, opgen_error *err) {
    return decode(buf, len, name, a, out, used, err);
}

static opgen_status decode(const void *vbuf, size_t len, const char *name, opgen_arena *a, opgen_tensor *out,
                           size_t *used, opgen_error *err) {
    const unsigned char *buf = vbuf;
    if (len < 10 || memcmp(buf, "\x93NUMPY", 6) != 0)
        return opgen_fail_at(err, OPGEN_E_FORMAT, name, 0, 0, "not a .npy file (no \\x93NUMPY magic)");
    unsigned major = buf[6];
    size_t hlen, hstart;
    if (major == 1) {
        hlen = (size_t)buf[8] | (size_t)buf[9] << 8;
        hstart = 10;
    } else if (major == 2 || major == 3) {
        if (len < 12) return opgen_fail_at(err, OPGEN_E_FORMAT, name, 0, 0, "truncated .npy header");
        hlen = (size_t)buf[8] | (size_t)buf[9] << 8 | (size_t)buf[10] << 16 | (size_t)buf[11] << 24;
        hstart = 12;
    } else {
        return opgen_fail_at(err, OPGEN_E_FORMAT, name, 0, 0,
                             ".npy format version %u.%u is not supported (1.0 to 3.0 are)", major, buf[7]);
    }
    if (hlen > len - hstart)
        return opgen_fail_at(err, OPGEN_E_FORMAT, name, 0, 0,
                             "truncated .npy header: it claims %zu bytes, the file holds %zu after the preamble", hlen,
                             len - hstart);
    opgen_tensor t;
    memset(&t, 0, sizeof t);
    opgen_status st = parse_header((const char *)buf + hstart, (const char *)buf + hstart + hlen, name, &t, err);
    if (st) return st;
    size_t need = opgen_nbytes(&t), have = len - hstart - hlen;
    if (have < need)
        return opgen_fail_at(err, OPGEN_E_FORMAT, name, 0, 0,
                             "truncated .npy data: the shape and dtype need %zu bytes, the file has %zu", need, have);
    if (have > need && !used)
        return opgen_fail_at(err, OPGEN_E_FORMAT, name, 0, 0, "%zu unexpected bytes after the .npy data", have - need);
    if (used) *used = hstart + hlen + need;
    t.data = opgen_arena_alloc(a, need ? need : 1);
    if (!t.data) return opgen_fail_at(err, OPGEN_E_NO_MEMORY, name, 0, 0, "out of memory for %zu bytes of data", need);
    if (need) memcpy(t.data, buf + hstart + hlen, need);
    int64_t bad = t.dtype == OPGEN_DTYPE_Bool ? opgen_bool_check(t.data, opgen_numel(&t)) : -1;
    if (bad >= 0)
        return opgen_fail_at(err, OPGEN_E_FORMAT, name, 0, 0, "element %lld of a bool array is %u, not 0 or 1",
                             (long long)bad, ((const unsigned char *)t.data)[bad]);
    *out = t;
    return OPGEN_OK;
}

opgen_status opgen_npy_read(const char *path, opgen_arena *a, opgen_tensor *out, opgen_error *err) {
    char *buf;
    size_t n;
    opgen_status st = opgen_file_read(path, SIZE_MAX / 2, a, &buf, &n, err);
    return st ? st : opgen_npy_decode(buf, n, path, a, out, err);
}

size_t opgen_npy_encode(const opgen_tensor *t, void *vbuf, size_t cap, opgen_error *err) {
    const char *code = NULL;
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
        if (kinds[i].dtype == t->dtype) code = kinds[i].code;
    if (!code) {
        opgen_fail(err, OPGEN_E_FORMAT, "%s has no NumPy dtype", opgen_dtype_name(t->dtype));
        return 0;
    }
    if (!opgen_tensor_is_contiguous(t)) {
        opgen_fail(err, OPGEN_E_INVALID, "only contiguous tensors are written as .npy");
        return 0;
    }
    char header[1024];
    int n = snprintf(
        header, sizeof header, "{'descr': '%c%s', 'fortran_order': False, 'shape': (",
        t->dtype == OPGEN_DTYPE_Bool || t->dtype == OPGEN_DTYPE_BFloat16 || opgen_dtype_size(t->dtype) == 1 ? '|' : '<',
        code);
    for (int i = 0; i < t->dim; i++)
        n += snprintf(header + n, sizeof header - (size_t)n, "%lld%s", (long long)t->sizes[i],
                      t->dim == 1      ? ","
                      : i + 1 < t->dim ? ", "
                                       : "");
    n += snprintf(header + n, sizeof header - (size_t)n, "), }");
    /* pad with spaces and a newline so that the data starts 64-byte aligned */
    size_t total = 10 + (size_t)n + 1;
    size_t pad = (64 - total % 64) % 64;
    size_t hlen = (size_t)n + pad + 1, data = opgen_nbytes(t), size = 10 + hlen + data;
    if (cap < size) return size;
    unsigned char *buf = vbuf;
    memcpy(buf, "\x93NUMPY\x01\x00", 8);
    buf[8] = (unsigned char)(hlen & 0xff);
    buf[9] = (unsigned char)(hlen >> 8);
    memcpy(buf + 10, header, (size_t)n);
    memset(buf + 10 + n, ' ', pad);
    buf[10 + hlen - 1] = '\n';
    if (data) memcpy(buf + 10 + hlen, t->data, data);
    return size;
}

opgen_status opgen_npy_write(const char *path, const opgen_tensor *t, opgen_error *err) {
    size_t size = opgen_npy_encode(t, NULL, 0, err);
    if (!size) return err ? err->code : OPGEN_E_INVALID;
    unsigned char *buf = malloc(size);
    if (!buf) return opgen_fail_at(err, OPGEN_E_NO_MEMORY, path, 0, 0, "out of memory");
    opgen_npy_encode(t, buf, size, err);
    opgen_status st = opgen_file_write(path, buf, size, err);
    free(buf);
    return st;
}
