/* Writes the built programs as .pte files for the command-line tests, each with
 * inputs (NAME.in0.npy, ...) and the outputs it must give (NAME.out0.npy, ...),
 * computed here independently of the runtime.
 * usage: make_programs DIR */
#include "opgen/file.h"
#include "opgen/npy.h"
#include "programs.h"
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *dir;
static int failed;

static void write_file(const char *name, const void *data, size_t n) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    opgen_error err = {0};
    if (opgen_file_write(path, data, n, &err)) fprintf(stderr, "%s: %s\n", path, err.msg), failed = 1;
}

static void write_npy(const char *name, opgen_dtype d, int dim, const int64_t *sizes, const void *data) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    opgen_tensor t;
    opgen_error err = {0};
    opgen_tensor_shape(&t, d, dim, sizes, &err);
    t.data = (void *)(uintptr_t)data;
    t.capacity = opgen_nbytes(&t);
    if (opgen_npy_write(path, &t, &err)) fprintf(stderr, "%s: %s\n", path, err.msg), failed = 1;
}

static void program(const char *name, const pw_program *prog) {
    size_t n;
    uint8_t *b = pw_build(prog, &n);
    char file[256];
    snprintf(file, sizeof file, "%s.pte", name);
    write_file(file, b, n);
    free(b);
}

int main(int argc, char **argv) {
    if (argc != 2) return fputs("usage: make_programs DIR\n", stderr), 2;
    dir = argv[1];
    pw_value v[20], dv[6];
    pw_plan pl[2];
    pw_instr code[7];
    float x[6] = {1, 2, 3, 4, 5, 6}, y[6];
    int64_t s23[] = {2, 3}, s3[] = {3}, s6[] = {6}, s1223[] = {1, 2, 2, 3};

    pw_program p = add_program(v, pl, false);
    program("add", &p);
    p = add_program(v, pl, true);
    program("add_legacy", &p);
    write_npy("add.in0.npy", OPGEN_DTYPE_Float, 2, s23, x);
    for (int i = 0; i < 6; i++) y[i] = x[i] + 2 * c23[i];
    write_npy("add.out0.npy", OPGEN_DTYPE_Float, 2, s23, y);

    p = control_program(v, pl, code, 7);
    program("control", &p);
    bool all[3] = {true, true, true}, some[3] = {true, false, true};
    write_npy("control.in0.npy", OPGEN_DTYPE_Float, 1, s3, x);
    write_npy("control.in1.npy", OPGEN_DTYPE_Bool, 1, s3, all);
    write_npy("control.in1_false.npy", OPGEN_DTYPE_Bool, 1, s3, some);
    for (int i = 0; i < 3; i++) y[i] = 2 * x[i];
    write_npy("control.out0.npy", OPGEN_DTYPE_Float, 1, s3, y);
    for (int i = 0; i < 3; i++) y[i] = x[i] - 1;
    write_npy("control.out0_false.npy", OPGEN_DTYPE_Float, 1, s3, y);

    p = two_methods_program(v, dv, pl);
    program("two_methods", &p);
    for (int i = 0; i < 6; i++) y[i] = 2 * x[i] + 1;
    write_npy("two_methods.out0.npy", OPGEN_DTYPE_Float, 1, s6, y);

    p = channels_last_program(v, pl);
    program("channels_last", &p);
    float cx[12] = {1, -2, 3, 4, 5, -6, 7, 8, 9, 10, -11, 12}, cy[12];
    for (int i = 0; i < 12; i++) cy[i] = fmaxf(cx[i] * channels_last_w[i / 6], 0);
    write_npy("channels_last.in0.npy", OPGEN_DTYPE_Float, 4, s1223, cx);
    write_npy("channels_last.out0.npy", OPGEN_DTYPE_Float, 4, s1223, cy);

    p = kinds_program(v, pl);
    program("delegated", &p);

    /* state: call K adds x_K to the buffer; the folder --calls reads */
    p = state_program(v, pl);
    program("state", &p);
    char calls[4096];
    snprintf(calls, sizeof calls, "%s/state_calls", dir);
    if (mkdir(calls, 0777) != 0 && errno != EEXIST) fprintf(stderr, "%s: %s\n", calls, strerror(errno)), failed = 1;
    float acc[3] = {0, 0, 0};
    for (int k = 0; k < 3; k++) {
        char name[64];
        float xk[3] = {(float)k + 1, -2.5f * (float)k, 0.25f};
        for (int i = 0; i < 3; i++) acc[i] += xk[i];
        snprintf(name, sizeof name, "state_calls/%d_0.npy", k);
        write_npy(name, OPGEN_DTYPE_Float, 1, s3, xk);
        snprintf(name, sizeof name, "state.out%d.npy", k);
        write_npy(name, OPGEN_DTYPE_Float, 1, s3, acc);
    }
    p = state_program(v, pl); /* the buffer's initial data in a mutable segment the program lacks */
    v[1].data = 1;
    program("state_bad_segment", &p);
    p = bad_bool_program(v, pl);
    program("bad_bool", &p);
    p = dynamic_program(v, pl);
    program("dynamic", &p);
    int64_t s2[] = {2}, s5[] = {5};
    float d5[5] = {-1, 2, -3, 4, 5}, r2[2] = {0, 2};
    write_npy("dynamic.in2.npy", OPGEN_DTYPE_Float, 1, s2, d5);
    write_npy("dynamic.in5.npy", OPGEN_DTYPE_Float, 1, s5, d5);
    write_npy("dynamic.relu2.npy", OPGEN_DTYPE_Float, 1, s2, r2);
    float f3[3] = {1.5f, 1.5f, 1.5f};
    write_npy("dynamic.full3.npy", OPGEN_DTYPE_Float, 1, s3, f3);
    p = scalars_program(v, pl);
    program("scalars", &p);
    for (int i = 0; i < 3; i++) y[i] = x[i] * 1.5f + 4;
    write_npy("scalars.out0.npy", OPGEN_DTYPE_Float, 1, s3, y);
    /* what load rewrites (test_method runs them; here: seeds for fuzz-pte) */
    static const char *const caches[] = {"cache_in_place", "cache_read_between", "cache_read_after"};
    static const char *const copies[] = {"copy_elided", "copy_src_overwritten", "copy_returned", "copy_part_read",
                                         "copy_bytes_reused"};
    for (int k = 0; k < 3; k++) p = cache_program(v, pl, k), program(caches[k], &p);
    for (int k = 0; k < 5; k++) p = copy_program(v, pl, k), program(copies[k], &p);
    return failed;
}
