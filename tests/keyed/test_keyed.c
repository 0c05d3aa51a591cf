/* Keyed kernels (ExecuTorch's arg_meta keys), as ExecuTorch's runtime test yaml
 * declares one: kernel_test_functions.yaml gives aten::add.out a kernel,
 * torch::executor::add_out, for Double tensors in dim order 0,1,2,3 only, and no
 * default kernel. This runtime's tables come from that yaml and a selection made
 * from add_f64.pte (opgen select --pte), so as in ExecuTorch's selective build the
 * key is kept and the default add.out left out: add_f64.pte loads and runs on the
 * keyed kernel; add_f32.pte (another dtype) and add_f64_cl.pte (another dim
 * order) are refused at load, naming the call's key and the one this build has.
 * usage: test_keyed PROGRAM_DIR */
#include "../check.h"
#include "opgen/method.h"
#include <stdio.h>
#include <string.h>

static int calls;

/* The keyed kernel the yaml names (its C name: '::' become '_'): contiguous
 * doubles, out = self + alpha * other. */
opgen_status torch_executor_add_out(opgen_ctx *ctx, const opgen_tensor *self, const opgen_tensor *other,
                                    const opgen_scalar *alpha, opgen_tensor *out) {
    if (ctx->meta) return OPGEN_OK; /* the planned out is already sized */
    const double *a = self->data, *b = other->data;
    double *y = out->data, al = alpha->dtype == OPGEN_DTYPE_Double ? alpha->v.f : (double)alpha->v.i;
    for (int64_t i = 0; i < opgen_numel(out); i++) y[i] = a[i] + al * b[i];
    calls++;
    return OPGEN_OK;
}

static _Alignas(16) unsigned char file[4096], load_mem[1 << 16], work_mem[1 << 12];

static int32_t load(const char *dir, const char *name, opgen_pte *p, opgen_method **m, opgen_error *err) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    if (!f) return opgen_fail(err, OPGEN_E_IO, "%s: cannot open", path);
    size_t n = fread(file, 1, sizeof file, f);
    fclose(f);
    opgen_arena a;
    opgen_arena_init(&a, load_mem, sizeof load_mem);
    if (opgen_pte_open(p, file, n, name, err)) return err->code;
    return opgen_method_load(p, "forward", NULL, &a, m, err);
}

int main(int argc, char **argv) {
    if (argc != 2) return fprintf(stderr, "usage: test_keyed PROGRAM_DIR\n"), 2;
    opgen_pte p;
    opgen_method *m;
    opgen_error err = {0};
    CHECK(!load(argv[1], "add_f64.pte", &p, &m, &err), "add_f64.pte does not load: %s", err.msg);
    if (!failures) {
        double x[12], y[12];
        for (int i = 0; i < 12; i++) x[i] = i * 0.5, y[i] = 100 - i;
        opgen_ivalue in[2] = {{.kind = OPGEN_GV_TENSOR}, {.kind = OPGEN_GV_TENSOR}}, out;
        static const int64_t sizes[] = {1, 2, 2, 3};
        opgen_tensor_shape(&in[0].t, OPGEN_DTYPE_Double, 4, sizes, &err);
        opgen_tensor_shape(&in[1].t, OPGEN_DTYPE_Double, 4, sizes, &err);
        in[0].t.data = x, in[0].t.capacity = sizeof x, in[1].t.data = y, in[1].t.capacity = sizeof y;
        opgen_arena w;
        opgen_arena_init(&w, work_mem, sizeof work_mem);
        CHECK(!opgen_method_run(m, in, &w, &out, &err), "add_f64.pte does not run: %s", err.msg);
        CHECK(calls == 1, "the keyed kernel ran %d times, expected once", calls);
        const double *r = out.t.data;
        for (int i = 0; !failures && i < 12; i++)
            CHECK(r[i] == x[i] + y[i], "element %d is %g, expected %g", i, r[i], x[i] + y[i]);
        printf("test_keyed: add_f64.pte (Double, 0,1,2,3) runs on torch_executor_add_out\n");
    }
    const char *outside[] = {"add_f32.pte", "add_f64_cl.pte"}, *want[] = {"self Float 0,1,2,3", "self Double 0,2,3,1"};
    for (int k = 0; k < 2; k++) {
        memset(&err, 0, sizeof err);
        int32_t st = load(argv[1], outside[k], &p, &m, &err);
        CHECK(st == OPGEN_E_NOT_FOUND && strstr(err.msg, "no kernel for this call's key") && strstr(err.msg, want[k]) &&
                  strstr(err.msg, "only for: self Double 0,1,2,3; other Double 0,1,2,3; out Double 0,1,2,3"),
              "%s: expected a refusal naming its key, got %d: %s", outside[k], (int)st, err.msg);
        printf("test_keyed: %s is refused at load: %s\n", outside[k], err.msg);
    }
    printf("test_keyed: %s\n", failures ? "FAILED" : "ok");
    return failures ? 1 : 0;
}
