/* ExecuTorch's keyword-spotting model (a DS-CNN for Cortex-M, int8,
 * channels-last) on the cortex_m backend, loaded and run as an embedded
 * application would: the .pte's bytes, one fixed arena of the size
 * opgen_method_memory_of reports, the backend's kernels registered at load.
 * Every instruction must be served by a cortex_m kernel or opgen's dim order
 * kernel; three inputs (kws/input*.npy) must give finite logits, the outputs
 * pinned in kws/expected*.npy exactly (OPGEN_UPDATE_GOLDEN=1 rewrites them),
 * and three different classes.
 * usage: test_kws CORPUS KWS_DIR */
#include "../../check.h"
#include "opgen/method.h"
#include "opgen/npy.h"
#include "cortex_m_kernels.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static _Alignas(16) unsigned char program[1 << 17];
static _Alignas(16) unsigned char load_mem[1 << 18], work_mem[1 << 16], io_mem[1 << 16];

static void each_instruction(void *ctx, const opgen_instr_info *in) {
    ++*(int *)ctx;
    CHECK(in->origin && (!strcmp(in->origin, "cortex_m") || !strcmp(in->kernel, "opgen_portable__clone_dim_order_out")),
          "instruction %d (%s) runs on %s (%s)", in->index, in->op, in->kernel ? in->kernel : "nothing",
          in->origin ? in->origin : "-");
}

int main(int argc, char **argv) {
    if (argc != 3) return fprintf(stderr, "usage: test_kws CORPUS KWS_DIR\n"), 2;
    char path[4096];
    snprintf(path, sizeof path, "%s/executorch/pte/keyword_spotting.pte", argv[1]);
    FILE *f = fopen(path, "rb");
    if (!f) return printf("SKIP: %s is absent\n", path), 77;
    size_t n = fread(program, 1, sizeof program, f);
    fclose(f);
    const opgen_vendor *vendors[] = {&opgen_vendor_cortex_m};
    opgen_load_options kernels = {.vendors = vendors, .nvendors = 1};
    opgen_method_options opt = {.kernels = &kernels};
    opgen_error err = {0};
    opgen_pte pte;
    opgen_method_memory mem;
    opgen_method *m = NULL;
    opgen_arena la, wa, io;
    opgen_arena_init(&la, load_mem, sizeof load_mem);
    if (opgen_pte_open(&pte, program, n, path, &err) || opgen_method_memory_of(&pte, "forward", &opt, &mem, &err) ||
        opgen_method_load(&pte, "forward", &opt, &la, &m, &err)) {
        printf("FAIL: %s does not load: %s\n", path, err.msg);
        return 1;
    }
    printf("test_kws: loaded: %zu bytes of load memory (%zu planned), %zu bytes of work memory\n", mem.load_bytes,
           mem.planned_bytes, opgen_method_work_bytes(m));
    CHECK(mem.load_bytes <= sizeof load_mem && opgen_method_work_bytes(m) <= sizeof work_mem,
          "the arenas are too small");
    int ni = 0;
    opgen_method_instructions(m, each_instruction, &ni);
    CHECK(ni == 16, "%d instructions, expected 16", ni);
    int classes[3];
    for (int k = 1; k <= 3; k++) {
        opgen_arena_init(&io, io_mem, sizeof io_mem);
        opgen_arena_init(&wa, work_mem, sizeof work_mem);
        opgen_ivalue in = {.kind = OPGEN_GV_TENSOR}, out;
        snprintf(path, sizeof path, "%s/input%d.npy", argv[2], k);
        if (opgen_npy_read(path, &io, &in.t, &err) || opgen_method_run(m, &in, &wa, &out, &err)) {
            printf("FAIL: input %d: %s\n", k, err.msg);
            failures++;
            continue;
        }
        const float *y = out.t.data;
        int64_t len = opgen_numel(&out.t);
        classes[k - 1] = 0;
        for (int64_t i = 0; i < len; i++) {
            CHECK(isfinite(y[i]), "input %d: logit %lld is %g", k, (long long)i, y[i]);
            if (y[i] > y[classes[k - 1]]) classes[k - 1] = (int)i;
        }
        snprintf(path, sizeof path, "%s/expected%d.npy", argv[2], k);
        const char *update = getenv("OPGEN_UPDATE_GOLDEN");
        if (update && !strcmp(update, "1"))
            CHECK(!opgen_npy_write(path, &out.t, &err), "writing %s: %s", path, err.msg);
        opgen_tensor want;
        CHECK(!opgen_npy_read(path, &io, &want, &err) && want.dtype == OPGEN_DTYPE_Float && opgen_numel(&want) == len &&
                  !memcmp(want.data, y, sizeof(float) * (size_t)len),
              "input %d: the logits differ from %s", k, path);
        printf("test_kws: input %d: class %d (logit %.4f), %lld logits as pinned\n", k, classes[k - 1],
               y[classes[k - 1]], (long long)len);
    }
    CHECK(classes[0] != classes[1] && classes[1] != classes[2] && classes[0] != classes[2],
          "the three inputs do not give three classes");
    printf("test_kws: %s\n", failures ? "FAILED" : "ok");
    return failures ? 1 : 0;
}
