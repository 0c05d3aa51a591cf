/* Output files (write.h): streamed, compared block by block with the file
 * they replace, written atomically only where they differ, with a depfile. */
#include "write.h"
#include "arena.h"
#include "opgen/file.h"
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
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

static void close_output(og_output *f) {
    if (f->old_fd >= 0) close(f->old_fd);
    if (f->tmp_fd >= 0) close(f->tmp_fd);
    f->old_fd = f->tmp_fd = -1;
}

void og_outputs_free(og_outputs *o) {
    for (unsigned i = 0; i < o->n; i++) {
        og_output *f = o->files[i];
        close_output(f);
        if (f->tmp) unlink(f->tmp); /* not committed */
        free(f->tmp);
        free(f->error);
        free(f->path);
        free(f);
    }
    for (unsigned i = 0; i < o->ninputs; i++) free(o->inputs[i]);
    free(o->files);
    free(o->inputs);
    free(o->mem);
    memset(o, 0, sizeof *o);
}

/* The first failure of an output, kept for the commit to report. */
static void fail(og_output *f, const opgen_error *err) {
    if (err->code == OPGEN_E_NO_MEMORY) og_oom();
    if (!f->error) f->error = xstrdup(err->msg);
    close_output(f);
}

/* The content differs from the old file's (or there is none): a temp file, with
 * the equal prefix (size bytes) copied over from the old file. */
static bool start_temp(og_output *f) {
    f->differs = true;
    opgen_error err = {0};
    if (opgen_file_temp_open(f->path, &f->tmp_fd, &f->tmp, &err)) return fail(f, &err), false;
    for (size_t off = 0; off < f->size;) {
        size_t want = f->size - off < OPGEN_OUTPUT_BUFFER ? f->size - off : OPGEN_OUTPUT_BUFFER;
        ssize_t r = pread(f->old_fd, f->set->cmp, want, (off_t)off);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) { /* it changed under us: the run's view of it is gone */
            opgen_fail_at(&err, OPGEN_E_IO, f->path, 0, 0, "cannot read it back: %s",
                          r < 0 ? strerror(errno) : "it shrank");
            return fail(f, &err), false;
        }
        if (opgen_file_temp_put(f->tmp_fd, f->path, f->set->cmp, (size_t)r, &err)) return fail(f, &err), false;
        off += (size_t)r;
    }
    if (f->old_fd >= 0) close(f->old_fd);
    f->old_fd = -1;
    return true;
}

/* Are the old file's next n bytes these? (reads them, a buffer at a time; false
 * at its end) */
static bool old_equal(og_output *f, const char *p, size_t n) {
    while (n) {
        size_t want = n < OPGEN_OUTPUT_BUFFER ? n : OPGEN_OUTPUT_BUFFER, got = 0;
        while (got < want) {
            ssize_t r = read(f->old_fd, f->set->cmp + got, want - got);
            if (r < 0 && errno == EINTR) continue;
            if (r <= 0) return false;
            got += (size_t)r;
        }
        if (memcmp(f->set->cmp, p, want) != 0) return false;
        p += want;
        n -= want;
    }
    return true;
}

/* An output's next bytes: compared with the old file while equal, then written
 * to the temp file. */
static void io_put(og_output *f, const char *p, size_t n) {
    if (!f->error && (f->differs || !old_equal(f, p, n))) {
        opgen_error err = {0};
        if (f->tmp_fd < 0 && !start_temp(f)) return;
        if (opgen_file_temp_put(f->tmp_fd, f->path, p, n, &err)) return fail(f, &err);
    }
    f->size += n;
}

/* An output's end: a longer old file differs too; the temp file is closed. */
static void io_end(og_output *f) {
    if (f->error) return;
    char extra;
    if (!f->differs && read(f->old_fd, &extra, 1) != 0) f->differs = true; /* the old file is longer (or unreadable) */
    if (f->differs && f->tmp_fd < 0 && !start_temp(f)) return;
    opgen_error err = {0};
    if (f->tmp_fd >= 0) {
        int fd = f->tmp_fd;
        f->tmp_fd = -1;
        if (opgen_file_temp_close(fd, f->path, &err)) fail(f, &err);
    }
    close_output(f);
}

/* The stream's flush. */
static void put(strbuf *b, const char *p, size_t n) {
    og_output *f = (og_output *)((char *)b - offsetof(og_output, data));
    og_outputs *o = f->set;
    if (o->dry) {
        f->size += n;
        return;
    }
    io_put(f, p, n);
}

void og_outputs_end(og_outputs *o) {
    og_output *f = o->n ? o->files[o->n - 1] : NULL;
    if (!f || f->done) return;
    sb_drain(&f->data);
    f->done = true;
    if (!o->dry) io_end(f);
}

/* The old file to compare with: a regular file we can read; anything else makes
 * the content differ (a folder then fails the rename, a device the temp file). */
static void open_old(og_output *f) {
    f->old_fd = f->tmp_fd = -1;
    int fd = open(f->path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
        f->old_fd = fd;
        return;
    }
    if (fd >= 0) close(fd);
    f->differs = true;
}

static strbuf *add(og_outputs *o, char *path) {
    og_outputs_end(o);
    if (o->n == o->cap) {
        o->cap = o->cap ? o->cap * 2 : 8;
        o->files = og_xrealloc(o->files, o->cap * sizeof *o->files);
    }
    if (!o->mem) { /* the stream's buffer, then the old file's bytes beside it */
        o->mem = og_xmalloc(2 * (size_t)OPGEN_OUTPUT_BUFFER);
        o->cmp = o->mem + OPGEN_OUTPUT_BUFFER;
    }
    og_output *f = og_xcalloc(1, sizeof *f);
    o->files[o->n++] = f;
    f->path = path;
    f->set = o;
    f->old_fd = f->tmp_fd = -1;
    if (!o->dry) open_old(f);
    sb_stream(&f->data, o->mem, OPGEN_OUTPUT_BUFFER, put);
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

/* Replaces the changed files: every temp file first, then the renames. Should a
 * rename fail midway (a target turned into a folder, a read-only mount), the files
 * already replaced get their old inodes back from hard links taken before, so the
 * run changes nothing: old bytes, old mtimes. */
enum { KEPT, REPLACED, CREATED, REPLACED_FOR_GOOD };
bool og_outputs_commit(og_outputs *o, diag *d, unsigned *changed) {
    og_outputs_end(o);
    char **olds = og_xcalloc(o->n + 1, sizeof *olds);
    unsigned char *state = og_xcalloc(o->n + 1, 1);
    bool ok = true;
    for (unsigned i = 0; i < o->n; i++)
        if (o->files[i]->error) diag_error(d, o->files[i]->path, 0, 0, "%s", o->files[i]->error), ok = false;
    unsigned count = 0;
    for (unsigned i = 0; ok && i < o->n; i++) {
        char *tmp = o->files[i]->tmp;
        if (!tmp) continue;
        size_t n = strlen(tmp);
        olds[i] = og_xrealloc(NULL, n + 5);
        memcpy(olds[i], tmp, n);
        memcpy(olds[i] + n, ".old", 5);
        int how = REPLACED;
        if (link(o->files[i]->path, olds[i]) != 0) {
            how = errno == ENOENT ? CREATED : REPLACED_FOR_GOOD; /* no links here: no way back */
            free(olds[i]);
            olds[i] = NULL;
        }
        if (rename(tmp, o->files[i]->path) != 0) {
            diag_error(d, o->files[i]->path, 0, 0, "cannot replace: %s", strerror(errno));
            ok = false;
            break;
        }
        free(tmp);
        o->files[i]->tmp = NULL;
        state[i] = (unsigned char)how;
        count++;
    }
    for (unsigned i = 0; !ok && i < o->n; i++) { /* undo */
        if (state[i] == CREATED) unlink(o->files[i]->path);
        if (state[i] == REPLACED_FOR_GOOD)
            diag_error(d, o->files[i]->path, 0, 0, "replaced, and cannot be put back (no hard links here)");
        if (state[i] == REPLACED) {
            if (rename(olds[i], o->files[i]->path) != 0) /* else its earlier content stays there, for the user */
                diag_error(d, o->files[i]->path, 0, 0, "cannot put it back (its earlier content is in %s): %s", olds[i],
                           strerror(errno));
            free(olds[i]);
            olds[i] = NULL;
        }
    }
    for (unsigned i = 0; i < o->n; i++) {
        og_output *f = o->files[i];
        if (f->tmp) unlink(f->tmp);
        free(f->tmp);
        f->tmp = NULL;
        if (olds[i]) unlink(olds[i]);
        free(olds[i]);
    }
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
        dep_escape(&b, o->files[i]->path);
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
