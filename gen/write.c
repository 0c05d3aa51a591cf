#include "write.h"
#include "arena.h"
#include "opgen/file.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char *xstrdup(const char *s) {
    size_t n = strlen(s) + 1;
    return memcpy(og_xrealloc(NULL, n), s, n);
}

void og_outputs_init(og_outputs *o) { memset(o, 0, sizeof *o); }

void og_outputs_free(og_outputs *o) {
    for (unsigned i = 0; i < o->n; i++) {
        free(o->files[i].path);
        sb_free(&o->files[i].data);
    }
    for (unsigned i = 0; i < o->ninputs; i++) free(o->inputs[i]);
    free(o->files);
    free(o->inputs);
    memset(o, 0, sizeof *o);
}

static strbuf *add(og_outputs *o, char *path) {
    if (o->n == o->cap) {
        o->cap = o->cap ? o->cap * 2 : 8;
        o->files = og_xrealloc(o->files, o->cap * sizeof *o->files);
    }
    og_output *f = &o->files[o->n++];
    f->path = path;
    sb_init(&f->data);
    return &f->data;
}

strbuf *og_outputs_add_path(og_outputs *o, const char *path) { return add(o, xstrdup(path)); }

strbuf *og_outputs_add(og_outputs *o, const char *dir, const char *name) {
    size_t dl = strlen(dir), nl = strlen(name);
    char *path = og_xrealloc(NULL, dl + nl + 2);
    memcpy(path, dir, dl);
    path[dl] = '/';
    memcpy(path + dl + 1, name, nl + 1);
    return add(o, path);
}

void og_outputs_input(og_outputs *o, const char *path) {
    for (unsigned i = 0; i < o->ninputs; i++)
        if (!strcmp(o->inputs[i], path)) return;
    if (o->ninputs == o->capinputs) {
        o->capinputs = o->capinputs ? o->capinputs * 2 : 8;
        o->inputs = og_xrealloc(o->inputs, o->capinputs * sizeof *o->inputs);
    }
    o->inputs[o->ninputs++] = xstrdup(path);
}

/* Same bytes as on disk already? (a missing or unreadable file is "different") */
static bool unchanged(const char *path, const strbuf *data) {
    FILE *f = fopen(path, "rb");
    if (!f) return false;
    bool same = true;
    char buf[65536];
    size_t off = 0, r;
    while (same && (r = fread(buf, 1, sizeof buf, f)) > 0) {
        if (off + r > data->n || memcmp(buf, data->p + off, r) != 0) same = false;
        off += r;
    }
    same = same && !ferror(f) && off == data->n;
    fclose(f);
    return same;
}

/* Writes data to a fresh temp file beside path; returns its name or NULL. */
static char *write_temp(const char *path, const strbuf *data, diag *d) {
    opgen_error err = {0};
    char *tmp;
    if (!opgen_file_write_temp(path, data->p ? data->p : "", data->n, &tmp, &err)) return tmp;
    if (err.code == OPGEN_E_NO_MEMORY) og_oom();
    diag_error(d, path, 0, 0, "%s", err.msg);
    return NULL;
}

/* Replaces the changed files: every temp file first, then the renames. Should a
 * rename fail midway (a target turned into a folder, a read-only mount), the files
 * already replaced get their old inodes back from hard links taken before, so the
 * run changes nothing: old bytes, old mtimes. */
enum { KEPT, REPLACED, CREATED, REPLACED_FOR_GOOD };
bool og_outputs_commit(og_outputs *o, diag *d, unsigned *changed) {
    char **tmps = og_xcalloc(o->n + 1, sizeof *tmps), **olds = og_xcalloc(o->n + 1, sizeof *olds);
    unsigned char *state = og_xcalloc(o->n + 1, 1);
    bool ok = tmps && olds && state;
    for (unsigned i = 0; ok && i < o->n; i++) {
        if (unchanged(o->files[i].path, &o->files[i].data)) continue;
        tmps[i] = write_temp(o->files[i].path, &o->files[i].data, d);
        if (!tmps[i]) ok = false;
    }
    unsigned count = 0;
    for (unsigned i = 0; ok && i < o->n; i++) {
        if (!tmps[i]) continue;
        size_t n = strlen(tmps[i]);
        olds[i] = og_xrealloc(NULL, n + 5);
        memcpy(olds[i], tmps[i], n);
        memcpy(olds[i] + n, ".old", 5);
        int how = REPLACED;
        if (link(o->files[i].path, olds[i]) != 0) {
            how = errno == ENOENT ? CREATED : REPLACED_FOR_GOOD; /* no links here: no way back */
            free(olds[i]);
            olds[i] = NULL;
        }
        if (rename(tmps[i], o->files[i].path) != 0) {
            diag_error(d, o->files[i].path, 0, 0, "cannot replace: %s", strerror(errno));
            ok = false;
            break;
        }
        free(tmps[i]);
        tmps[i] = NULL;
        state[i] = (unsigned char)how;
        count++;
    }
    for (unsigned i = 0; !ok && state && i < o->n; i++) { /* undo */
        if (state[i] == CREATED) unlink(o->files[i].path);
        if (state[i] == REPLACED_FOR_GOOD) diag_error(d, o->files[i].path, 0, 0, "replaced, and cannot be put back (no hard links here)");
        if (state[i] == REPLACED) {
            if (rename(olds[i], o->files[i].path) != 0) /* else its earlier content stays there, for the user */
                diag_error(d, o->files[i].path, 0, 0, "cannot put it back (its earlier content is in %s): %s", olds[i], strerror(errno));
            free(olds[i]);
            olds[i] = NULL;
        }
    }
    for (unsigned i = 0; i < o->n && tmps && olds; i++) {
        if (tmps[i]) unlink(tmps[i]);
        if (olds[i]) unlink(olds[i]);
        free(tmps[i]);
        free(olds[i]);
    }
    free(tmps);
    free(olds);
    free(state);
    if (changed) *changed = ok ? count : 0;
    return ok;
}

static void dep_escape(strbuf *b, const char *s) {
    for (; *s; s++) {
        if (*s == ' ' || *s == '#' || *s == '\\') sb_putc(b, '\\');
        if (*s == '$') sb_putc(b, '$');
        sb_putc(b, *s);
    }
}

bool og_outputs_depfile(og_outputs *o, diag *d, const char *path) {
    strbuf b; /* the depfile is an output too: same atomic, write-if-changed path */
    sb_init(&b);
    for (unsigned i = 0; i < o->n; i++) {
        if (i) sb_putc(&b, ' ');
        dep_escape(&b, o->files[i].path);
    }
    sb_putc(&b, ':');
    for (unsigned i = 0; i < o->ninputs; i++) {
        sb_puts(&b, " \\\n  ");
        dep_escape(&b, o->inputs[i]);
    }
    sb_putc(&b, '\n');
    bool ok = og_write_file(path, b.p, b.n, d);
    sb_free(&b);
    return ok;
}

bool og_write_file(const char *path, const char *data, size_t len, diag *d) {
    og_outputs outs;
    og_outputs_init(&outs);
    sb_putn(og_outputs_add_path(&outs, path), data, len);
    unsigned changed = 0;
    bool ok = og_outputs_commit(&outs, d, &changed);
    og_outputs_free(&outs);
    return ok;
}
