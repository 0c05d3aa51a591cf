/* A bare-metal application: one ExecuTorch program run on a microcontroller
 * with no operating system and no heap. Copy it and change what model.h holds.
 *
 * - The program is linked into flash as const bytes (model.h: model_program) and
 *   used in place: its constants are never copied.
 * - Memory is two static arrays whose sizes come from the build: model.h is
 *   written by `opgen-rt info MODEL.pte --format c-header --name model`, run by
 *   the device's own runtime (tests/cross/meson.build runs it on QEMU), so
 *   MODEL_LOAD_BYTES and MODEL_WORK_BYTES are what this runtime takes.
 * - The input comes from a const array, and the output is checked on the device
 *   against the expected one (model.h: model_input0, model_expected0): the same
 *   bytes (MODEL_RTOL 0), or floats within MODEL_RTOL (eager PyTorch's outputs).
 * - Nothing here or in the runtime calls malloc, free or printf (tests/cross
 *   checks the linked program's symbols); the only output is semihosting's, in
 *   report() below: replace it with the board's UART.
 *
 * Built with BARE_METAL_CORTEX_M, the cortex_m backend's kernels
 * (tests/vendor/cortex_m) are registered at load, for ExecuTorch's
 * keyword-spotting model; MODEL_HEADER names the header (default "model.h"). */
#ifndef MODEL_HEADER
#define MODEL_HEADER "model.h"
#endif
#include MODEL_HEADER
#include "opgen/method.h"
#ifdef BARE_METAL_CORTEX_M
#include "cortex_m_kernels.h"
#endif
#include <math.h>
#include <stdint.h>
#include <string.h>

#ifndef MODEL_RTOL
#define MODEL_RTOL 1e-4
#endif

static _Alignas(16) unsigned char load_memory[MODEL_LOAD_BYTES]; /* the method, its planned memory */
static _Alignas(16) unsigned char work_memory[MODEL_WORK_BYTES]; /* a run's scratch */

/* Semihosting's SYS_WRITE0: a line on the debugger's (or QEMU's) console. */
static void report(const char *text) {
    register uintptr_t op __asm__("r0") = 0x04;
    register const char *arg __asm__("r1") = text;
    __asm__ volatile("bkpt 0xab" : "+r"(op) : "r"(arg) : "memory");
}

static int fail(const char *what, const opgen_error *err) {
    report("bare_metal: ");
    report(what);
    report(err ? err->msg : "");
    report("\n");
    return 1;
}

/* The output against the expected bytes: equal, or floats within MODEL_RTOL
 * (0: equal too). */
static int same_output(const opgen_tensor *t, const void *expected, size_t n) {
    if (opgen_nbytes(t) != n) return 0;
    if (t->dtype != OPGEN_DTYPE_Float || MODEL_RTOL == 0) return !memcmp(t->data, expected, n);
    const float *y = t->data;
    for (size_t i = 0; i < n / sizeof(float); i++) {
        float want;
        memcpy(&want, (const unsigned char *)expected + i * sizeof want, sizeof want);
        if (!(fabsf(y[i] - want) <= 1e-6f + (float)MODEL_RTOL * fabsf(want))) return 0;
    }
    return 1;
}

int main(void) {
#ifdef BARE_METAL_CORTEX_M
    const opgen_vendor *backends[] = {&opgen_vendor_cortex_m};
    opgen_load_options kernels = {.vendors = backends, .nvendors = 1};
#else
    opgen_load_options kernels = {0};
#endif
    opgen_method_options options = {.kernels = &kernels};
    opgen_error err = {0};
    opgen_pte program;
    opgen_method_memory need;
    if (opgen_pte_open(&program, model_program, sizeof model_program, "model", &err) ||
        opgen_method_memory_of(&program, MODEL_METHOD, &options, &need, &err))
        return fail("cannot read the program: ", &err);
    if (need.load_bytes > sizeof load_memory) return fail("load_memory is smaller than the method needs", NULL);

    opgen_arena load_arena, work_arena;
    opgen_method *method;
    opgen_arena_init(&load_arena, load_memory, sizeof load_memory);
    if (opgen_method_load(&program, MODEL_METHOD, &options, &load_arena, &method, &err))
        return fail("cannot load: ", &err);
    if (opgen_method_work_bytes(method) > sizeof work_memory)
        return fail("work_memory is smaller than a run needs", NULL);

    /* the input: the declared dtype, the array's sizes, its bytes in place */
    opgen_ivalue input = {.kind = OPGEN_GV_TENSOR}, output;
    if (opgen_tensor_shape(&input.t, opgen_method_input(method, 0)->t.dtype, MODEL_INPUT0_DIM, model_input0_sizes,
                           &err))
        return fail("bad input: ", &err);
    input.t.data = (void *)model_input0; /* read only */
    input.t.capacity = sizeof model_input0;

    opgen_arena_init(&work_arena, work_memory, sizeof work_memory);
    if (opgen_method_run(method, &input, &work_arena, &output, &err)) return fail("the run failed: ", &err);
    if (output.kind != OPGEN_GV_TENSOR || !same_output(&output.t, model_expected0, sizeof model_expected0))
        return fail("the output differs from the expected one", NULL);
    report(output.t.dtype == OPGEN_DTYPE_Float && MODEL_RTOL != 0
               ? "bare_metal: the output is the expected one (within MODEL_RTOL)\n"
               : "bare_metal: the output is the expected one, bit for bit\n");
    return 0;
}
