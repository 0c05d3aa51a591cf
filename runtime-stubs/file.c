/* Whole files read into memory and written atomically (opgen/file.h), with the
 * file named in every error. */
#include "opgen/file.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
/* A POSIX file system (folders, renames, modes), or a bare-metal C library's
 * files (picolibc's semihosting: open, fstat, read, close; no folders, renames
 * or modes), where writes are plain stdio. */
#if defined(__unix__) || defined(__APPLE__)
#define POSIX_FS 1
#else
#define POSIX_FS 0
#endif

static opgen_status fail(opgen_error *err, const char *path, opgen_status code, const char *why) {
    return opgen_fail_at(err, code, path, 0, 0, "cannot read: %s", why);
}

/* Reads what fd holds (a pipe or a device has no size: it is read until its end,
 * up to max bytes). */
static opgen_status read_all(int fd, const char *path, size_t hint, size_t max, opgen_arena *a, char **data,
                             size_t *len, opgen_error *err) {
    size_t cap = hint ? hint : 1 << 16, n = 0;
    char *buf = opgen_arena_alloc(a, cap + 1);
    for (;;) {
        if (!buf) return fail(err, path, OPGEN_E_NO_MEMORY, "out of memory");
        if (n == cap) { /* grow: the old copy stays in the arena (rare: devices, pipes, a growing file) */
            if (cap >= max) return fail(err, path, OPGEN_E_IO, "larger than this tool reads");
            size_t nc = cap > max / 2 ? max : cap * 2;
            char *nb = opgen_arena_alloc(a, nc + 1);
            if (nb) memcpy(nb, buf, n);
            buf = nb, cap = nc;
            continue;
        }
        ssize_t r = read(fd, buf + n, cap - n);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) return fail(err, path, OPGEN_E_IO, strerror(errno));
        if (r == 0) break;
        n += (size_t)r;
        if (hint && n == hint) break; /* a regular file: all of it */
    }
    buf[n] = 0;
    *data = buf;
    *len = n;
    return OPGEN_OK;
}

bool opgen_file_exists(const char *path) {
    int fd = open(path, O_RDONLY);
    if (fd >= 0) close(fd);
    return fd >= 0;
}

opgen_status opgen_file_read(const char *path, size_t max, opgen_arena *a, char **data, size_t *len, opgen_error *err) {
    int fd = open(path, O_RDONLY);
    if (fd < 0) return fail(err, path, OPGEN_E_IO, strerror(errno));
    struct stat st;
    int32_t st_code = OPGEN_OK;
    if (fstat(fd, &st) != 0)
        st_code = fail(err, path, OPGEN_E_IO, strerror(errno));
    else if (S_ISDIR(st.st_mode))
        st_code = fail(err, path, OPGEN_E_IO, "is a folder, not a file");
    else if (S_ISREG(st.st_mode) && (uint64_t)st.st_size > max)
        st_code = fail(err, path, OPGEN_E_IO, "larger than this tool reads");
    else
        st_code = read_all(fd, path, S_ISREG(st.st_mode) ? (size_t)st.st_size : 0, max, a, data, len, err);
    close(fd);
    return st_code;
}

#if POSIX_FS
opgen_status opgen_file_temp_open(const char *path, int *fd_out, char **tmp_out, opgen_error *err) {
    struct stat st; /* never replace a device or a pipe (a folder makes the rename fail) */
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
        return opgen_fail_at(err, OPGEN_E_IO, path, 0, 0, "cannot write: not a regular file");
    size_t pl = strlen(path);
    char *tmp = malloc(pl + 12);
    if (!tmp) return opgen_fail_at(err, OPGEN_E_NO_MEMORY, path, 0, 0, "out of memory");
    memcpy(tmp, path, pl);
    memcpy(tmp + pl, ".tmp.XXXXXX", 12);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        free(tmp);
        return opgen_fail_at(err, OPGEN_E_IO, path, 0, 0, "cannot create a temporary file beside it: %s",
                             strerror(errno));
    }
    *fd_out = fd;
    *tmp_out = tmp;
    return OPGEN_OK;
}

opgen_status opgen_file_temp_put(int fd, const char *path, const void *data, size_t len, opgen_error *err) {
    for (size_t off = 0; off < len;) {
        ssize_t w = write(fd, (const char *)data + off, len - off);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0)
            return opgen_fail_at(err, OPGEN_E_IO, path, 0, 0, "cannot write: %s",
                                 w < 0 ? strerror(errno) : "nothing written");
        off += (size_t)w;
    }
    return OPGEN_OK;
}

opgen_status opgen_file_temp_close(int fd, const char *path, opgen_error *err) {
    mode_t um = umask(0); /* mkstemp makes it 0600: give it the mode a plain create would */
    umask(um);
    opgen_status rc = OPGEN_OK;
    if (fchmod(fd, 0666 & ~um) != 0)
        rc = opgen_fail_at(err, OPGEN_E_IO, path, 0, 0, "cannot write: %s", strerror(errno));
    if (close(fd) != 0 && !rc) rc = opgen_fail_at(err, OPGEN_E_IO, path, 0, 0, "cannot write: %s", strerror(errno));
    return rc;
}

opgen_status opgen_file_write(const char *path, const void *data, size_t len, opgen_error *err) {
    char *tmp;
    int fd;
    opgen_status rc = opgen_file_temp_open(path, &fd, &tmp, err);
    if (rc) return rc;
    rc = opgen_file_temp_put(fd, path, data, len, err);
    if (rc)
        close(fd);
    else
        rc = opgen_file_temp_close(fd, path, err);
    if (!rc && rename(tmp, path) != 0)
        rc = opgen_fail_at(err, OPGEN_E_IO, path, 0, 0, "cannot replace: %s", strerror(errno));
    if (rc) unlink(tmp);
    free(tmp);
    return rc;
}

opgen_status opgen_file_make_dir(const char *path, opgen_error *err) {
    struct stat st;
    if (mkdir(path, 0777) != 0 && errno != EEXIST)
        return opgen_fail_at(err, OPGEN_E_IO, path, 0, 0, "cannot create: %s", strerror(errno));
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) /* there already, as a file */
        return opgen_fail_at(err, OPGEN_E_IO, path, 0, 0, "cannot create: %s", strerror(ENOTDIR));
    return OPGEN_OK;
}
#else
/* Plain writes through stdio: no rename. */
opgen_status opgen_file_write(const char *path, const void *data, size_t len, opgen_error *err) {
    FILE *f = fopen(path, "wb");
    if (!f) return opgen_fail_at(err, OPGEN_E_IO, path, 0, 0, "cannot write: %s", strerror(errno));
    bool ok = fwrite(data, 1, len, f) == len;
    if (fclose(f) != 0) ok = false;
    return ok ? OPGEN_OK : opgen_fail_at(err, OPGEN_E_IO, path, 0, 0, "cannot write: write error");
}

opgen_status opgen_file_make_dir(const char *path, opgen_error *err) {
    (void)path, (void)err; /* no folders here: the host's must exist (a write into it says so) */
    return OPGEN_OK;
}
#endif
