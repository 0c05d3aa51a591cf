/* Writes the keyed-kernel test's programs: out = x + y (aten::add.out, alpha 1)
 * over two planned inputs of shape [1, 2, 2, 3], in three kernel keys:
 *   add_f64.pte  Double, dim order 0,1,2,3 (the key of kernel_test_functions.yaml)
 *   add_f32.pte  Float, dim order 0,1,2,3  (another dtype)
 *   add_f64_cl.pte Double, dim order 0,2,3,1 (another dim order)
 * usage: make_keyed DIR */
#include "opgen/file.h"
#include "programs.h"
#include <stdio.h>
#include <stdlib.h>

static int write_program(const char *dir, const char *name, int dtype, const uint8_t *order) {
    static const int32_t s[] = {1, 2, 2, 3};
    uint64_t bytes = 12u * (dtype == F64 ? 8u : 4u);
    pw_value v[4];
    v[0] = pw_tensor(dtype, 4, s, 1, 0, 0), v[0].order = order;   /* x */
    v[1] = pw_tensor(dtype, 4, s, 1, 128, 0), v[1].order = order; /* y */
    v[2] = pw_int(1);                                             /* alpha */
    v[3] = pw_tensor(dtype, 4, s, 1, 256, 0), v[3].order = order; /* out */
    static pw_instr code[] = {{PW_KERNEL, 0, 0, 5, {0, 1, 2, 3, 3}}};
    pw_plan pl = {.name = "forward",
                  .values = v,
                  .nvalues = 4,
                  .inputs = {0, 1},
                  .ninputs = 2,
                  .outputs = {3},
                  .noutputs = 1,
                  .ops = {{"aten::add", "out"}},
                  .nops = 1,
                  .code = code,
                  .ncode = 1,
                  .buffers = {0, 256 + bytes},
                  .nbuffers = 2};
    pw_program prog = {.plans = &pl, .nplans = 1};
    size_t n;
    uint8_t *b = pw_build(&prog, &n);
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    opgen_error err = {0};
    int rc = opgen_file_write(path, b, n, &err);
    if (rc) fprintf(stderr, "%s: %s\n", path, err.msg);
    free(b);
    return rc ? 1 : 0;
}

int main(int argc, char **argv) {
    if (argc != 2) return fputs("usage: make_keyed DIR\n", stderr), 2;
    static const uint8_t contiguous[] = {0, 1, 2, 3}, channels_last[] = {0, 2, 3, 1};
    return write_program(argv[1], "add_f64.pte", F64, contiguous) |
           write_program(argv[1], "add_f32.pte", F32, contiguous) |
           write_program(argv[1], "add_f64_cl.pte", F64, channels_last);
}
