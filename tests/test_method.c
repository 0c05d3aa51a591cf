/* The .pte loader and executor (opgen/method.h) on programs built here with the
 * suite's writer (tests/pte/ptew.c): every EValue kind, every instruction kind,
 * two methods, constants in a segment and inline (the legacy constant_buffer),
 * planned buffers from the arena or from the caller, a delegate with and without
 * a handler, views sharing planned bytes, dim orders; then errors, each with its
 * message (truncations, offsets out of bounds, offsets that point back, an unknown
 * op, a dtype no Edge row allows, wrong inputs, a jump past the end, a loop that
 * never ends), and load into exactly the memory opgen_method_memory_of reports.
 * With the corpus: every program ExecuTorch's exporter wrote (../shared/corpus/exir)
 * against eager PyTorch's outputs, and ExecuTorch's add_model and module_linear.
 * usage: test_method [CORPUS_DIR] */
#include "check.h"
#include "opgen/method.h"
#include "opgen/npy.h"
#include "pte/programs.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A loaded program: its bytes (16-aligned, as a device would map them), the
 * reader over them, the method, and the arenas load and run take. */
typedef struct loaded {
    uint8_t *bytes;
    opgen_pte pte;
    opgen_method *m;
    opgen_arena load, work;
    void *load_mem, *work_mem;
    opgen_method_memory mem;
    char msg[1024];
} loaded;

static void unload(loaded *l) {
    free(l->bytes);
    free(l->load_mem);
    free(l->work_mem);
    memset(l, 0, sizeof *l);
}

/* Loads method `name` of the program into exactly the memory it reports. */
static int32_t load(loaded *l, const pw_program *prog, const char *name, const opgen_method_options *opt) {
    size_t n;
    uint8_t *b = pw_build(prog, &n);
    memset(l, 0, sizeof *l);
    l->bytes = aligned_alloc(16, (n + 15) & ~(size_t)15);
    memcpy(l->bytes, b, n);
    free(b);
    opgen_error err = {0};
    int32_t st = opgen_pte_open(&l->pte, l->bytes, n, "built.pte", &err);
    if (!st) st = opgen_method_memory_of(&l->pte, name, opt, &l->mem, &err);
    if (!st) {
        l->load_mem = malloc(l->mem.load_bytes);
        opgen_arena_init(&l->load, l->load_mem, l->mem.load_bytes);
        st = opgen_method_load(&l->pte, name, opt, &l->load, &l->m, &err);
    }
    if (!st) {
        size_t wb = opgen_method_work_bytes(l->m);
        l->work_mem = malloc(wb);
        opgen_arena_init(&l->work, l->work_mem, wb);
    }
    if (st) opgen_error_format(&err, l->msg, sizeof l->msg);
    return st;
}

static int32_t run(loaded *l, const opgen_ivalue *in, opgen_ivalue *out) {
    opgen_error err = {0};
    int32_t st = opgen_method_run(l->m, in, &l->work, out, &err);
    if (st) opgen_error_format(&err, l->msg, sizeof l->msg);
    opgen_arena_reset(&l->work);
    return st;
}

static opgen_ivalue tensor_in(opgen_dtype d, int dim, const int64_t *sizes, void *data) {
    opgen_ivalue v = {0};
    v.kind = OPGEN_GV_TENSOR;
    opgen_tensor_shape(&v.t, d, dim, sizes, NULL);
    v.t.data = data;
    v.t.capacity = opgen_nbytes(&v.t);
    return v;
}

static void test_add(bool legacy) {
    pw_value v[4];
    pw_plan pl;
    pw_program prog = add_program(v, &pl, legacy);
    loaded l;
    CHECK(!load(&l, &prog, "forward", NULL), "add (%s constants) does not load: %s", legacy ? "inline" : "segment",
          l.msg);
    if (!l.m) return unload(&l);
    CHECK(l.mem.planned_bytes == 64 && l.mem.nbuffers == 1,
          "planned %zu bytes in %d buffers, the program declares 64 in 1", l.mem.planned_bytes, l.mem.nbuffers);
    float x[6] = {1, 2, 3, 4, 5, 6};
    opgen_ivalue in = tensor_in(OPGEN_DTYPE_Float, 2, (int64_t[]){2, 3}, x), out;
    CHECK(!run(&l, &in, &out), "add does not run: %s", l.msg);
    const float *y = out.t.data;
    for (int i = 0; i < 6; i++)
        CHECK(y[i] == x[i] + 2 * c23[i], "add: element %d is %g, expected %g", i, y[i], x[i] + 2 * c23[i]);
    CHECK(!run(&l, &in, &out) && ((const float *)out.t.data)[5] == 126, "a second run differs: %s", l.msg);
    unload(&l);
}

/* How instruction `index` runs: its kernel, or why it is not run. */
typedef struct kernel_at {
    int index;
    const char *kernel;
} kernel_at;
static void find_kernel(void *ctx, const opgen_instr_info *info) {
    kernel_at *k = ctx;
    if (info->index == k->index) k->kernel = info->kernel;
}

/* A KV cache's update, index_put to a temporary that copy_ writes back, runs
 * in place where nothing between reads the cache and nothing after reads the
 * temporary (the copy back is folded); the results and the state are the same
 * either way, and a bad index leaves the cache whole. */
static void test_cache_update(int variant) {
    bool reads_cache = variant == CACHE_READ_BETWEEN;
    pw_value v[10];
    pw_plan pl;
    pw_program prog = cache_program(v, &pl, variant);
    loaded l;
    CHECK(!load(&l, &prog, "forward", NULL), "cache program does not load: %s", l.msg);
    if (!l.m) return unload(&l);
    kernel_at copy = {variant == CACHE_READ_AFTER ? 1 : 2, NULL};
    opgen_method_instructions(l.m, find_kernel, &copy);
    bool folded = copy.kernel && strstr(copy.kernel, "in place");
    CHECK(folded == (variant == CACHE_IN_PLACE), "variant %d: copy_ back to the cache: %s", variant,
          copy.kernel ? copy.kernel : "?");
    float k[4], want[6], cache[6] = {0};
    int64_t pos[2];
    opgen_ivalue in[2] = {tensor_in(OPGEN_DTYPE_Float, 2, (int64_t[]){2, 2}, k),
                          tensor_in(OPGEN_DTYPE_Long, 1, (int64_t[]){2}, pos)},
                 out;
    static const int64_t rows[4][2] = {{0, 1}, {2, 0}, {1, 7}, {2, 2}}; /* 7: out of bounds, after a good row */
    for (int c = 0; c < 4; c++) {
        pos[0] = rows[c][0], pos[1] = rows[c][1];
        for (int i = 0; i < 4; i++) k[i] = (float)((c + 1) * (i + 1) * 10 + i);
        int32_t st = run(&l, in, &out);
        if (pos[1] >= 3) {
            CHECK(st && strstr(l.msg, "index 7 is out of bounds"), "call %d: a bad index gives: %s", c,
                  st ? l.msg : "no error");
            continue;
        }
        CHECK(!st, "call %d does not run: %s", c, l.msg);
        if (st) break;
        float t[6];
        memcpy(t, cache, sizeof t);
        for (int r = 0; r < 2; r++)
            t[2 * pos[r]] = k[2 * r], t[2 * pos[r] + 1] = k[2 * r + 1]; /* the last write wins */
        for (int i = 0; i < 6; i++) want[i] = (reads_cache ? cache[i] : t[i]) + t[i];
        memcpy(cache, t, sizeof t);
        for (int i = 0; i < 6; i++)
            CHECK(((const float *)out.t.data)[i] == want[i], "call %d: element %d is %g, expected %g", c, i,
                  ((const float *)out.t.data)[i], want[i]);
    }
    unload(&l);
}

/* A copy to the same sizes and layout is not run where its readers can read
 * its source instead (through the views the plan placed at its bytes too): not
 * where the source's bytes are written before the last read, nor where the
 * caller receives the copy. The results are the same either way. */
static void test_identity_copy(int variant) {
    pw_value v[18];
    pw_plan pl;
    pw_program prog = copy_program(v, &pl, variant);
    loaded l;
    CHECK(!load(&l, &prog, "forward", NULL), "copy program %d does not load: %s", variant, l.msg);
    if (!l.m) return unload(&l);
    kernel_at copy = {1, NULL};
    opgen_method_instructions(l.m, find_kernel, &copy);
    bool folded = copy.kernel && strstr(copy.kernel, "identity copy");
    CHECK(folded == (variant == COPY_ELIDED || variant == COPY_BYTES_REUSED), "variant %d: the identity copy: %s",
          variant, copy.kernel ? copy.kernel : "?");
    float x[6] = {1.5f, -2, 3.25f, 0.5f, -7, 11};
    opgen_ivalue in = tensor_in(OPGEN_DTYPE_Float, 2, (int64_t[]){2, 3}, x), out[4];
    for (int call = 0; call < 2; call++) {
        CHECK(!run(&l, &in, out), "variant %d does not run: %s", variant, l.msg);
        for (int i = 0; i < 6; i++) {
            CHECK(((const float *)out[0].t.data)[i] == 3 * x[i], "variant %d: r + x [%d] is %g, expected %g", variant,
                  i, ((const float *)out[0].t.data)[i], 3 * x[i]);
            CHECK(((const float *)out[1].t.data)[i] == 4 * x[i], "variant %d: r6 + r6 [%d] is %g, expected %g", variant,
                  i, ((const float *)out[1].t.data)[i], 4 * x[i]);
            const float *third = out[2].t.data, want = variant == COPY_RETURNED    ? 2 * x[i]
                                                       : variant == COPY_PART_READ ? 4 * x[i]
                                                                                   : 2 * x[i] * x[i];
            if (variant >= COPY_RETURNED && (variant != COPY_PART_READ || i < 3))
                CHECK(third[i] == want, "variant %d: its third result [%d] is %g, expected %g", variant, i, third[i],
                      want);
            if (variant == COPY_BYTES_REUSED)
                CHECK(((const float *)out[3].t.data)[i] == 3 * x[i], "variant %d: a + x [%d] is %g, expected %g",
                      variant, i, ((const float *)out[3].t.data)[i], 3 * x[i]);
        }
    }
    unload(&l);
}

/* Every EValue kind, each consumed by a kernel (DoubleList, BoolList and an
 * OptionalTensorList by a delegate's handler, as no kernel here takes them). */
static int handled;
static int32_t check_args(void *user, void *handle, opgen_ivalue *const *args, int nargs, opgen_error *err) {
    (void)user;
    if (nargs != 4 || strcmp(handle, "TestBackend") || args[0]->kind != OPGEN_GV_TENSOR ||
        args[1]->kind != OPGEN_GV_OTHER || args[3]->kind != OPGEN_GV_TENSOR)
        return opgen_fail(err, OPGEN_E_INVALID, "unexpected delegate arguments");
    const float *x = args[0]->t.data;
    float *o = args[3]->t.data;
    for (int64_t i = 0; i < opgen_numel(&args[3]->t); i++) o[i] = x[i] * 3;
    handled++;
    return OPGEN_OK;
}
static int32_t init_backend(void *user, const opgen_pte *p, const opgen_pte_delegate *d, void **handle,
                            opgen_error *err) {
    (void)user, (void)p;
    if (d->size != 11 || memcmp(d->data, "TestBackend", 11))
        return opgen_fail(err, OPGEN_E_INVALID, "the payload is not the program's");
    *handle = (void *)(uintptr_t) "TestBackend";
    return OPGEN_OK;
}

static void test_kinds(void) {
    pw_value v[20];
    pw_plan pl;
    pw_program prog = kinds_program(v, &pl);
    loaded l;
    CHECK(load(&l, &prog, "forward", NULL) &&
              strstr(l.msg, "delegate 0 runs on backend 'TestBackend', and no handler for it is registered"),
          "a delegate without a handler: %s", l.msg);
    unload(&l);
    opgen_delegate_handler h = {"TestBackend", NULL, init_backend, check_args};
    opgen_method_options opt = {NULL, &h, 1, NULL, 0, 0, NULL, NULL};
    CHECK(!load(&l, &prog, "forward", &opt), "every kind does not load: %s", l.msg);
    if (!l.m) return unload(&l);
    float x[6] = {-2, -0.25, 0, 0.25, 1, 3};
    opgen_ivalue in = tensor_in(OPGEN_DTYPE_Float, 2, (int64_t[]){2, 3}, x), out[5];
    handled = 0;
    CHECK(!run(&l, &in, out), "every kind does not run: %s", l.msg);
    CHECK(handled == 2, "the handler ran %d times, not 2", handled);
    const float *g = out[0].t.data, *s = out[1].t.data, *h2 = out[2].t.data, *c = out[3].t.data, *d = out[4].t.data;
    for (int i = 0; i < 6; i++) {
        double gt = 0.5 * x[i] * (1 + tanh(0.7978845608028654 * (x[i] + 0.044715 * x[i] * x[i] * x[i])));
        CHECK(fabs(g[i] - gt) < 1e-6, "gelu(%g) = %g, expected %g", x[i], g[i], gt);
        CHECK(h2[i] == (x[i] < -0.5f ? -0.5f : x[i] > 0.5f ? 0.5f : x[i]), "hardtanh(%g) = %g", x[i], h2[i]);
        CHECK(c[i] == x[i] && c[6 + i] == h2[i], "cat: element %d", i);
        CHECK(d[i] == 3 * x[i], "the delegate's output %d is %g", i, d[i]);
    }
    CHECK(s[0] == x[0] + x[1] + x[2] && s[1] == x[3] + x[4] + x[5], "sum over [-1]: %g %g", s[0], s[1]);
    unload(&l);
}

static void test_control(void) {
    pw_value v[9];
    pw_plan pl;
    pw_instr code[7];
    pw_program prog = control_program(v, &pl, code, 7);
    loaded l;
    CHECK(!load(&l, &prog, "forward", NULL), "control flow does not load: %s", l.msg);
    if (!l.m) return unload(&l);
    float x[3] = {1, 2, 3};
    bool yes[3] = {true, true, true}, no[3] = {true, false, true};
    opgen_ivalue in[2] = {tensor_in(OPGEN_DTYPE_Float, 1, (int64_t[]){3}, x),
                          tensor_in(OPGEN_DTYPE_Bool, 1, (int64_t[]){3}, yes)},
                 out;
    CHECK(!run(&l, in, &out) && ((float *)out.t.data)[2] == 6, "the true branch: %s", l.msg);
    in[1].t.data = no;
    CHECK(!run(&l, in, &out) && ((float *)out.t.data)[2] == 2, "the false branch: %s", l.msg);
    in[1].t.data = yes;
    CHECK(!run(&l, in, &out) && ((float *)out.t.data)[0] == 2, "the true branch again (moves do not outlive a run): %s",
          l.msg);
    unload(&l);
    prog = control_program(v, &pl, code, 8);
    CHECK(
        load(&l, &prog, "forward", NULL) &&
            strstr(l.msg,
                   "instruction 3 (JumpFalseCall): jumps to instruction 8, past the end of its chain (7 instructions)"),
        "a jump past the end: %s", l.msg);
    unload(&l);
    prog = control_program(v, &pl, code, 0); /* back to the start, for ever */
    opgen_method_options opt = {NULL, NULL, 0, NULL, 0, 1000, NULL, NULL};
    CHECK(!load(&l, &prog, "forward", &opt), "a loop does not load: %s", l.msg);
    if (l.m)
        CHECK(run(&l, in, &out) && strstr(l.msg, "executed 1000 instructions without ending"),
              "a loop that never ends: %s", l.msg);
    unload(&l);
}

/* Two methods; the legacy constant_buffer; a view the exporter removed: value 4
 * ([6]) shares value 3's planned bytes ([2,3]) and no instruction connects them. */
static void test_methods_and_views(void) {
    pw_value fv[4], dv[6];
    pw_plan pls[2];
    pw_program prog = two_methods_program(fv, dv, pls);
    loaded l;
    CHECK(load(&l, &prog, "missing", NULL) &&
              strstr(l.msg, "no method 'missing' (the program has 'forward', 'twice_plus_one')"),
          "a missing method: %s", l.msg);
    unload(&l);
    CHECK(!load(&l, &prog, "twice_plus_one", NULL), "the second method does not load: %s", l.msg);
    if (l.m) {
        float x[6] = {1, 2, 3, 4, 5, 6};
        opgen_ivalue in = tensor_in(OPGEN_DTYPE_Float, 2, (int64_t[]){2, 3}, x), out;
        CHECK(!run(&l, &in, &out) && out.t.dim == 1 && ((float *)out.t.data)[5] == 13,
              "a view through shared planned bytes: %s", l.msg);
    }
    unload(&l);
    CHECK(!load(&l, &prog, "forward", NULL), "the first method (inline constants) does not load: %s", l.msg);
    unload(&l);
}

/* Channels-last tensors: an input in dim order 0,2,3,1 given contiguous, a
 * kernel that writes contiguously (convolution) into a channels-last out (a
 * stand-in, copied), an elementwise one (relu) writing it in place. */
static void test_dim_order(void) {
    pw_value v[14];
    pw_plan pl;
    pw_program prog = channels_last_program(v, &pl);
    loaded l;
    CHECK(!load(&l, &prog, "forward", NULL), "channels-last does not load: %s", l.msg);
    if (!l.m) return unload(&l);
    float x[12] = {1, -2, 3, 4, 5, -6, 7, 8, 9, 10, -11, 12}; /* contiguous NCHW */
    opgen_ivalue in = tensor_in(OPGEN_DTYPE_Float, 4, (int64_t[]){1, 2, 2, 3}, x), out;
    CHECK(!run(&l, &in, &out), "channels-last does not run: %s", l.msg);
    CHECK(out.t.dim_order[1] == 2 && out.t.dim_order[3] == 1 && out.t.strides[1] == 1, "the output lost its dim order");
    /* groups=2: channel c is x[c] * w[c]; relu after */
    for (int c = 0; c < 2; c++)
        for (int i = 0; i < 6; i++) {
            float want = x[c * 6 + i] * channels_last_w[c],
                  got =
                      ((float *)
                           out.t.data)[(i / 3) * out.t.strides[2] + (i % 3) * out.t.strides[3] + c * out.t.strides[1]];
            if (want < 0) want = 0;
            CHECK(got == want, "channel %d element %d is %g, expected %g", c, i, got, want);
        }
    unload(&l);
}

/* Load takes what opgen_method_memory_of says, no more: 16 bytes less fails
 * cleanly; planned buffers may come from the caller. */
static void test_memory(void) {
    pw_value v[20];
    pw_plan pl;
    pw_program prog = kinds_program(v, &pl);
    opgen_delegate_handler h = {"TestBackend", NULL, init_backend, check_args};
    opgen_method_options opt = {NULL, &h, 1, NULL, 0, 0, NULL, NULL};
    loaded l;
    CHECK(!load(&l, &prog, "forward", &opt), "%s", l.msg);
    size_t need = l.mem.load_bytes;
    CHECK(l.load.used <= need && need - l.load.used < 16, "load took %zu bytes, it said %zu", l.load.used, need);
    opgen_arena small;
    void *mem = malloc(need - 16);
    opgen_arena_init(&small, mem, need - 16);
    opgen_method *m;
    opgen_error err = {0};
    CHECK(opgen_method_load(&l.pte, "forward", &opt, &small, &m, &err) == OPGEN_E_NO_MEMORY &&
              strstr(err.msg, "memory"),
          "16 bytes short: %s", err.msg);
    free(mem);
    /* the caller's planned buffer: outputs point into it */
    static _Alignas(16) uint8_t buffer[256];
    void *buffers[1] = {buffer};
    opgen_method_options given = {NULL, &h, 1, buffers, 1, 0, NULL, NULL};
    opgen_method_memory gm;
    CHECK(!opgen_method_memory_of(&l.pte, "forward", &given, &gm, &err) && gm.load_bytes + 256 == need,
          "given buffers: load takes %zu, not %zu", gm.load_bytes, need - 256);
    mem = malloc(gm.load_bytes);
    opgen_arena_init(&small, mem, gm.load_bytes);
    CHECK(!opgen_method_load(&l.pte, "forward", &given, &small, &m, &err), "given buffers: %s", err.msg);
    if (!err.code) {
        float x[6] = {1, 2, 3, 4, 5, 6};
        opgen_ivalue in = tensor_in(OPGEN_DTYPE_Float, 2, (int64_t[]){2, 3}, x), out[5];
        CHECK(!opgen_method_run(m, &in, &l.work, out, &err) && (uint8_t *)out[3].t.data == buffer + 128,
              "outputs in the given buffer: %s", err.msg);
    }
    free(mem);
    unload(&l);
}

/* A corrupted program: an error whose text names the problem, or (a byte that
 * does not matter) the same program. */
static int expect_error(const pw_program *prog, const char *want) {
    loaded l;
    int32_t st = load(&l, prog, "forward", NULL);
    CHECK(st && strstr(l.msg, want), "expected an error containing '%s', got: %s", want, st ? l.msg : "(loaded)");
    unload(&l);
    return st;
}

static void test_errors(void) {
    pw_value v[4];
    pw_plan pl;
    pw_program prog = add_program(v, &pl, false);
    v[3].mem_off = 48;
    expect_error(&prog, "value 3 (24 bytes at offset 48) lies outside planned buffer 1 (64 bytes)");
    prog = add_program(v, &pl, false);
    v[3].mem_off = 34;
    expect_error(&prog, "value 3 is planned at offset 34, not a multiple of its 4-byte elements");
    prog = add_program(v, &pl, false);
    v[3].mem_id = 2;
    expect_error(&prog, "value 3 is planned in buffer 2, and the method has 1");
    prog = add_program(v, &pl, false);
    v[3].mem_id = INT32_MIN + 1; /* memory_id 0x80000001: negative as an int (found by fuzz-pte) */
    expect_error(&prog, "value 3 is planned in buffer 2147483649, and the method has 1");
    prog = add_program(v, &pl, false);
    pl.ops[0][0] = "aten::nope";
    expect_error(&prog, "method 'forward', instruction 0: unknown operator aten::nope.out");
    prog = add_program(v, &pl, false);
    pl.ops[0][1] = "Tensor";
    expect_error(&prog, "aten::add.Tensor is not an out= variant");
    prog = add_program(v, &pl, false);
    v[3] = pw_tensor(F32, 2, (int32_t[]){2, 3}, 0, 0, 1); /* the out is the constant */
    expect_error(&prog, "its out 'out' (value 3) has no planned memory to write");
    prog = add_program(v, &pl, false);
    v[0].dtype = 4, v[3].dtype = 6; /* Long + Long -> a Float out */
    v[1] = pw_tensor(I64, 2, (int32_t[]){2, 3}, 1, 0, 0);
    expect_error(&prog, "out has dtype Float, the result is Long");
    prog = add_program(v, &pl, false);
    v[1].data = 0; /* neither constant, nor planned, nor an input */
    expect_error(
        &prog,
        "method 'forward', instruction 0 (aten::add.out): it reads value 1, which has no memory (neither a constant, nor planned, nor an input)");
    prog = add_program(v, &pl, false);
    v[0].storage_offset = 3;
    expect_error(&prog, "value 0 has storage offset 3; only 0 is supported");
    prog = add_program(v, &pl, false);
    v[1].data = 7;
    expect_error(&prog, "constant buffer 7 out of range: the program has 2");
    prog = add_program(v, &pl, false);
    v[2] = pw_double(2.5); /* alpha a float on float tensors is fine; on Long it is refused */
    v[0].dtype = v[3].dtype = 4;
    v[1] = pw_tensor(I64, 2, (int32_t[]){2, 3}, 1, 0, 0);
    v[3].mem_off = 0;
    expect_error(&prog, "for integral input tensors, alpha must not be a floating point number");
    prog = add_program(v, &pl, false);
    v[2] = pw_string("two");
    expect_error(&prog, "argument 'alpha' (Scalar) is value 2, a String");
    /* where.self_out with a Byte condition: the kernel takes it, no Edge row does */
    static const int32_t s3[] = {3};
    pw_value w[4] = {pw_tensor(0, 1, s3, 1, 0, 0), pw_tensor(F32, 1, s3, 1, 16, 0), pw_tensor(F32, 1, s3, 1, 32, 0),
                     pw_tensor(F32, 1, s3, 1, 48, 0)};
    static pw_instr wc[] = {{PW_KERNEL, 0, 0, 5, {0, 1, 2, 3, 3}}};
    pw_plan wpl = {.name = "forward",
                   .values = w,
                   .nvalues = 4,
                   .inputs = {0, 1, 2},
                   .ninputs = 3,
                   .outputs = {3},
                   .noutputs = 1,
                   .ops = {{"aten::where", "self_out"}},
                   .nops = 1,
                   .code = wc,
                   .ncode = 1,
                   .buffers = {0, 64},
                   .nbuffers = 2};
    pw_program wp = {.plans = &wpl, .nplans = 1};
    expect_error(
        &wp,
        "aten::where.self: no Edge constraint row allows (condition=Byte, self=Float, other=Float, __ret_0=Float)");
    /* wrong inputs at run */
    prog = add_program(v, &pl, false);
    loaded l;
    if (!load(&l, &prog, "forward", NULL)) {
        double d[6] = {0};
        opgen_ivalue in = tensor_in(OPGEN_DTYPE_Double, 2, (int64_t[]){2, 3}, d), out;
        CHECK(run(&l, &in, &out) && strstr(l.msg, "input 0 is declared f32[2, 3], got f64[2, 3]"),
              "a wrong input dtype: %s", l.msg);
        in = tensor_in(OPGEN_DTYPE_Float, 1, (int64_t[]){6}, d);
        CHECK(run(&l, &in, &out) && strstr(l.msg, "input 0 is declared f32[2, 3], got f32[6]"),
              "a wrong input shape: %s", l.msg);
        in.kind = OPGEN_GV_INT;
        CHECK(run(&l, &in, &out) && strstr(l.msg, "input 0 is a tensor, got an int"), "a wrong input kind: %s", l.msg);
    }
    unload(&l);
}

/* Offsets that point back: FlatBuffers offsets are unsigned and point forward, so
 * no chain of them loops; one that would reach back (2^32 - 4: four bytes back in
 * 32-bit arithmetic) or a vtable at its own table is an error, never a loop. */
static void test_cycles(void) {
    pw_value v[4];
    pw_plan pl;
    pw_program prog = add_program(v, &pl, false);
    size_t n;
    uint8_t *b = pw_build(&prog, &n);
    uint32_t root = (uint32_t)(b[0] | b[1] << 8 | b[2] << 16 | (uint32_t)b[3] << 24);
    int32_t so = (int32_t)(b[root] | b[root + 1] << 8 | b[root + 2] << 16 | (uint32_t)b[root + 3] << 24);
    uint32_t vt = root - (uint32_t)so,
             plans = root + (uint32_t)(b[vt + 6] | b[vt + 7] << 8); /* Program.execution_plan */
    opgen_pte p;
    opgen_error err = {0};
    uint8_t saved[4];
    memcpy(saved, b + plans, 4);
    memcpy(b + plans, (uint8_t[]){0xfc, 0xff, 0xff, 0xff}, 4);
    CHECK(opgen_pte_open(&p, b, n, "back.pte", &err) &&
              strstr(err.msg, "corrupt or truncated program: Program.execution_plan at byte"),
          "an offset pointing back: %s", err.msg);
    memcpy(b + plans, saved, 4);
    memset(&err, 0, sizeof err);
    memset(b + root, 0, 4); /* the root table's vtable is itself */
    CHECK(opgen_pte_open(&p, b, n, "self.pte", &err) &&
              strstr(err.msg, "corrupt or truncated program: the Program table at byte"),
          "a vtable at its own table: %s", err.msg);
    free(b);
}

/* Every truncation and every single-byte corruption of a program: an error or a
 * program that loads and runs; never a read outside the buffer (ASan watches). */
static void test_corruptions(void) {
    pw_value v[9];
    pw_plan pl;
    pw_instr code[7];
    pw_program prog = control_program(v, &pl, code, 7);
    size_t n;
    uint8_t *good = pw_build(&prog, &n), *b = malloc(n);
    unsigned errors = 0, ran = 0;
    float x[3] = {1, 2, 3};
    bool yes[3] = {true, true, true};
    opgen_ivalue in[2] = {tensor_in(OPGEN_DTYPE_Float, 1, (int64_t[]){3}, x),
                          tensor_in(OPGEN_DTYPE_Bool, 1, (int64_t[]){3}, yes)},
                 out[4];
    static _Alignas(16) uint8_t arena_mem[1 << 16], work_mem[1 << 14];
    for (size_t k = 0; k < n * 3 + n; k++) {
        size_t len = n;
        memcpy(b, good, n);
        if (k < n)
            len = k; /* truncated */
        else
            b[(k - n) / 3] = (uint8_t)((k - n) % 3 == 0 ? 0x00 : (k - n) % 3 == 1 ? 0xff : 0x7f);
        opgen_pte p;
        opgen_error err = {0};
        opgen_method_memory mem;
        opgen_method *m;
        opgen_arena a, w;
        opgen_arena_init(&a, arena_mem, sizeof arena_mem);
        opgen_arena_init(&w, work_mem, sizeof work_mem);
        if (opgen_pte_open(&p, b, len, "c.pte", &err) || opgen_method_memory_of(&p, "forward", NULL, &mem, &err) ||
            mem.load_bytes > sizeof arena_mem || opgen_method_load(&p, "forward", NULL, &a, &m, &err) ||
            opgen_method_work_bytes(m) > sizeof work_mem) {
            errors++;
            continue;
        }
        opgen_method_options opt = {NULL, NULL, 0, NULL, 0, 10000, NULL, NULL};
        (void)opt;
        if (opgen_method_ninputs(m) == 2 && opgen_method_noutputs(m) <= 4 &&
            opgen_method_input(m, 0)->kind == OPGEN_GV_TENSOR && opgen_method_input(m, 1)->kind == OPGEN_GV_TENSOR) {
            opgen_method_run(m, in, &w, out, &err);
            ran++;
        }
    }
    CHECK(errors > n, "only %u of %zu corruptions were errors", errors, 4 * n);
    printf("test_method: %zu truncations and %zu corruptions of a %zu-byte program: %u refused, %u loaded and ran\n", n,
           3 * n, n, errors, ran);
    free(good);
    free(b);
}

/* ---- the corpus: programs from ExecuTorch's own exporter and repository ---- */

static uint8_t *read_all(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *b = aligned_alloc(16, ((size_t)(len > 0 ? len : 1) + 15) & ~(size_t)15);
    *n = fread(b, 1, (size_t)len, f);
    fclose(f);
    return b;
}

typedef struct corpus_run {
    uint8_t *bytes;
    opgen_pte pte;
    opgen_method *m;
    opgen_arena a;
    char msg[1024];
} corpus_run;

static int32_t corpus_load_with(corpus_run *c, const char *path, const opgen_method_options *opt) {
    size_t n;
    opgen_error err = {0};
    memset(c, 0, sizeof *c);
    opgen_arena_init_growing(&c->a);
    c->bytes = read_all(path, &n);
    int32_t st = !c->bytes ? OPGEN_E_IO : opgen_pte_open(&c->pte, c->bytes, n, path, &err);
    if (!st) st = opgen_method_load(&c->pte, "forward", opt, &c->a, &c->m, &err);
    if (st) opgen_error_format(&err, c->msg, sizeof c->msg);
    return st;
}

static int32_t corpus_load(corpus_run *c, const char *path) { return corpus_load_with(c, path, NULL); }

static void corpus_free(corpus_run *c) {
    opgen_arena_release(&c->a);
    free(c->bytes);
}

/* Element e of t in row-major order, whatever t's dim order (nonzero's result
 * is column-major). */
static double logical_f64(const opgen_tensor *t, int64_t e) {
    int64_t off = 0;
    for (int32_t i = t->dim - 1; i >= 0; i--) {
        off += (e % t->sizes[i]) * t->strides[i];
        e /= t->sizes[i];
    }
    return opgen_load_f64(t, off);
}

/* Call k's inputs of exir/NAME (inputs/K_I.npy; a 0-d array for a scalar
 * input): false when there is no call k. */
static bool call_inputs(const char *dir, const char *name, int k, corpus_run *c, opgen_ivalue *in, opgen_error *err) {
    char path[4096];
    for (int i = 0; i < opgen_method_ninputs(c->m); i++) {
        snprintf(path, sizeof path, "%s/exir/%s/inputs/%d_%d.npy", dir, name, k, i);
        in[i].kind = OPGEN_GV_TENSOR;
        if (opgen_npy_read(path, &c->a, &in[i].t, err)) return false;
        if (opgen_method_input(c->m, i)->kind != OPGEN_GV_TENSOR) /* a scalar input */
            in[i].kind = opgen_is_float(in[i].t.dtype) ? OPGEN_GV_FLOAT : OPGEN_GV_INT,
            in[i].f = opgen_load_f64(&in[i].t, 0), in[i].i = opgen_load_i64(&in[i].t, 0);
    }
    return true;
}

/* exir/NAME: every call K's inputs K_I.npy (a 0-d array for a scalar input)
 * against the eager outputs K_O.npy, one loaded method (its state kept), `ncalls`
 * of them, floats within rtol relative + atol absolute, ints exact. */
static void exir_program(const char *dir, const char *name, int ncalls, double rtol, double atol) {
    char path[4096];
    snprintf(path, sizeof path, "%s/exir/%s/model.pte", dir, name);
    corpus_run c, u; /* u: loaded unfused (opgen_load_options.unfused): the same bytes every call */
    static const opgen_load_options unfused = {.unfused = true};
    static const opgen_method_options uopt = {&unfused, NULL, 0, NULL, 0, 0, NULL, NULL};
    CHECK(!corpus_load(&c, path), "%s does not load: %s", name, c.msg);
    CHECK(!corpus_load_with(&u, path, &uopt), "%s does not load unfused: %s", name, u.msg);
    double worst_abs = 0, worst_rel = 0;
    int calls = 0;
    for (int k = 0; c.m; k++) {
        opgen_ivalue in[8], out[8];
        int no = opgen_method_noutputs(c.m);
        opgen_error err = {0};
        if (!call_inputs(dir, name, k, &c, in, &err)) break; /* no call k */
        calls++;
        CHECK(!opgen_method_run(c.m, in, &c.a, out, &err), "%s call %d: %s", name, k, err.msg);
        opgen_ivalue uout[8];
        CHECK(!u.m || !opgen_method_run(u.m, in, &u.a, uout, &err), "%s call %d unfused: %s", name, k, err.msg);
        for (int o = 0; u.m && o < no && !err.code; o++)
            CHECK(out[o].kind != OPGEN_GV_TENSOR || (opgen_nbytes(&out[o].t) == opgen_nbytes(&uout[o].t) &&
                                                     !memcmp(out[o].t.data, uout[o].t.data, opgen_nbytes(&out[o].t))),
                  "%s call %d output %d: not the bytes of the unfused run", name, k, o);
        for (int o = 0; o < no && !err.code; o++) {
            opgen_tensor want;
            snprintf(path, sizeof path, "%s/exir/%s/expected/%d_%d.npy", dir, name, k, o);
            CHECK(!opgen_npy_read(path, &c.a, &want, &err) && want.dim == out[o].t.dim &&
                      opgen_numel(&want) == opgen_numel(&out[o].t),
                  "%s call %d output %d: %s", name, k, o, err.msg);
            double rt = opgen_is_float(want.dtype) ? rtol : 0, at = opgen_is_float(want.dtype) ? atol : 0;
            for (int64_t e = 0; !err.code && e < opgen_numel(&want); e++) {
                double w = opgen_load_f64(&want, e), g = logical_f64(&out[o].t, e), d = fabs(w - g);
                if (d > worst_abs) worst_abs = d;
                if (d / (fabs(w) + 1e-30) > worst_rel && fabs(w) > 1e-6) worst_rel = d / fabs(w);
                CHECK(d <= rt * fabs(w) + at, "%s call %d output %d element %lld: %.9g, PyTorch %.9g", name, k, o,
                      (long long)e, g, w);
            }
        }
    }
    if (c.m)
        printf(
            "test_method: exir/%s: %d calls match eager PyTorch: max abs error %.3g, max rel error %.3g (tolerance %g relative + %g absolute)\n",
            name, calls, worst_abs, worst_rel, rtol, atol);
    CHECK(!c.m || calls == ncalls, "%s: %d calls, not %d", name, calls, ncalls);
    corpus_free(&c);
    corpus_free(&u);
}

/* Row r's argmax of t viewed as [rows, last dim] (greedy decoding's choice). */
static int64_t argmax_row(const opgen_tensor *t, int64_t r) {
    int64_t n = t->dim ? t->sizes[t->dim - 1] : 1, best = 0;
    for (int64_t e = 1; e < n; e++)
        if (logical_f64(t, r * n + e) > logical_f64(t, r * n + best)) best = e;
    return best;
}

/* exir/NAME in bfloat16 or float16 (tests/exir/export_reduced.py): every call's
 * outputs no further from eager float32 (f32/K_O.npy) than twice eager's own in
 * that dtype (expected/K_O.npy) is, as max abs error; with `greedy`, each row's
 * argmax eager's (the greedy tokens). */
static void reduced_program(const char *dir, const char *name, int ncalls, bool greedy) {
    char path[4096];
    snprintf(path, sizeof path, "%s/exir/%s/model.pte", dir, name);
    corpus_run c;
    CHECK(!corpus_load(&c, path), "%s does not load: %s", name, c.msg);
    double worst = 0; /* opgen's error over eager's */
    int calls = 0;
    for (int k = 0; c.m; k++) {
        opgen_ivalue in[8], out[8];
        int no = opgen_method_noutputs(c.m);
        opgen_error err = {0};
        if (!call_inputs(dir, name, k, &c, in, &err)) break; /* no call k */
        calls++;
        CHECK(!opgen_method_run(c.m, in, &c.a, out, &err), "%s call %d: %s", name, k, err.msg);
        for (int o = 0; o < no && !err.code; o++) {
            opgen_tensor low, f32;
            snprintf(path, sizeof path, "%s/exir/%s/expected/%d_%d.npy", dir, name, k, o);
            bool ok = !opgen_npy_read(path, &c.a, &low, &err);
            snprintf(path, sizeof path, "%s/exir/%s/f32/%d_%d.npy", dir, name, k, o);
            ok = ok && !opgen_npy_read(path, &c.a, &f32, &err);
            CHECK(ok && out[o].t.dtype == low.dtype && opgen_numel(&low) == opgen_numel(&out[o].t) &&
                      opgen_numel(&f32) == opgen_numel(&low),
                  "%s call %d output %d: %s", name, k, o, err.code ? err.msg : "not eager's dtype or size");
            double e_eager = 0, e_opgen = 0;
            for (int64_t e = 0; !err.code && e < opgen_numel(&low); e++) {
                double r = opgen_load_f64(&f32, e);
                e_eager = fmax(e_eager, fabs(opgen_load_f64(&low, e) - r));
                e_opgen = fmax(e_opgen, fabs(logical_f64(&out[o].t, e) - r));
            }
            CHECK(e_opgen <= 2 * e_eager, "%s call %d output %d: %.4g from eager float32, eager %s %.4g", name, k, o,
                  e_opgen, opgen_dtype_name(low.dtype), e_eager);
            if (e_eager > 0 && e_opgen / e_eager > worst) worst = e_opgen / e_eager;
            int64_t rows = low.dim ? opgen_numel(&low) / low.sizes[low.dim - 1] : 1;
            for (int64_t r = 0; greedy && r < rows; r++)
                CHECK(argmax_row(&out[o].t, r) == argmax_row(&low, r), "%s call %d: greedy token %lld, eager's %lld",
                      name, k, (long long)argmax_row(&out[o].t, r), (long long)argmax_row(&low, r));
        }
    }
    if (c.m)
        printf("test_method: exir/%s: %d calls, at most %.2fx eager's own distance from eager float32%s\n", name, calls,
               worst, greedy ? "; greedy tokens eager's" : "");
    CHECK(!c.m || calls == ncalls, "%s: %d calls, not %d", name, calls, ncalls);
    corpus_free(&c);
}

/* add_model (x + c, c a 0-d constant) and module_linear (x * a + b): the
 * expected values computed from the constants the programs hold. */
static void executorch_program(const char *dir, const char *name, bool linear) {
    char path[4096];
    snprintf(path, sizeof path, "%s/executorch/pte/%s.pte", dir, name);
    corpus_run c;
    CHECK(!corpus_load(&c, path), "%s does not load: %s", name, c.msg);
    if (!c.m) return corpus_free(&c);
    const opgen_ivalue *iv = opgen_method_input(c.m, 0);
    opgen_pte_plan pl;
    opgen_error err = {0};
    opgen_pte_plan_at(&c.pte, 0, &pl, &err);
    const float *k[2] = {NULL, NULL};
    for (uint32_t i = 0, nk = 0; i < pl.values.len && nk < 2; i++) { /* the constants, in value order */
        opgen_pte_value v;
        const void *d;
        if (!opgen_pte_value_at(&c.pte, &pl, i, &v, &err) && v.kind == OPGEN_EV_TENSOR && v.t.data_buffer_idx &&
            !v.t.planned && !opgen_pte_constant(&c.pte, v.t.data_buffer_idx, 4, &d, &err))
            k[nk++] = d;
    }
    float x[4] = {1.5f, -2, 0.25f, 8};
    opgen_ivalue in = {0}, out;
    in.kind = OPGEN_GV_TENSOR;
    opgen_tensor_shape(&in.t, OPGEN_DTYPE_Float, iv->t.dim, iv->t.sizes, &err);
    in.t.data = x;
    CHECK(k[0] && !opgen_method_run(c.m, &in, &c.a, &out, &err), "%s: %s", name, err.msg);
    for (int64_t e = 0; !err.code && e < opgen_numel(&in.t); e++) {
        float want = linear ? x[e] * k[0][e] + k[1][e] : x[e] + k[0][0], got = ((float *)out.t.data)[e];
        CHECK(got == want, "%s element %lld: %g, expected %g", name, (long long)e, got, want);
    }
    if (!err.code)
        printf("test_method: executorch/pte/%s.pte runs: %s\n", name,
               linear ? "x * a + b with its constants" : "x + c with its constant");
    corpus_free(&c);
}

static void corpus(const char *dir) {
    char probe[4096];
    snprintf(probe, sizeof probe, "%s/exir/mlp/model.pte", dir);
    FILE *f = fopen(probe, "rb");
    if (!f) {
        printf("SKIP corpus programs: %s is absent\n", probe);
        return;
    }
    fclose(f);
    static const char *const names[] = {"mlp", "small_cnn", "two_outputs", "cond", "embed_mean"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) exir_program(dir, names[i], 3, 1e-5, 1e-6);
    /* state between calls, a Null scalar input, a dynamic batch: rtol 1e-4 */
    exir_program(dir, "running_stats", 4, 1e-4, 1e-5);
    exir_program(dir, "scalar_inputs", 3, 1e-4, 1e-5);
    exir_program(dir, "dynamic_mlp", 4, 1e-4, 1e-5);
    exir_program(dir, "llama_decode", 8, 1e-4, 1e-5);
    executorch_program(dir, "add_model", false);
    executorch_program(dir, "module_linear", true);
}

int main(int argc, char **argv) {
    test_add(false);
    test_add(true);
    test_kinds();
    test_control();
    test_methods_and_views();
    test_dim_order();
    test_memory();
    test_errors();
    test_cache_update(CACHE_IN_PLACE);
    test_cache_update(CACHE_READ_BETWEEN);
    test_cache_update(CACHE_READ_AFTER);
    test_identity_copy(COPY_ELIDED);
    test_identity_copy(COPY_SRC_OVERWRITTEN);
    test_identity_copy(COPY_RETURNED);
    test_identity_copy(COPY_PART_READ);
    test_identity_copy(COPY_BYTES_REUSED);
    test_cycles();
    test_corruptions();
    if (argc > 1) corpus(argv[1]);
    if (argc > 2) { /* the suite's own exported programs (tests/exir/) */
        exir_program(argv[2], "seq_dynamic", 4, 1e-4, 1e-5);
        exir_program(argv[2], "lists", 2, 1e-5, 1e-6);
        exir_program(argv[2], "lstm", 2, 1e-4, 1e-5);
        exir_program(argv[2], "transformer_block", 2, 1e-4, 1e-5);
        exir_program(argv[2], "residual_blocks", 2, 1e-4, 1e-5); /* conv -> batch norm -> add (-> relu) fused */
        exir_program(argv[2], "wide_blocks", 2, 1e-4, 1e-5);     /* Winograd, U transformed at load */
        /* ExecuTorch's LLM recipe: linear.out everywhere, an int8 embedding (embedding_byte.dtype_out); 7 decode
         * calls, the KV cache kept between them */
        exir_program(argv[2], "llm_linear", 7, 1e-4, 1e-5);
        exir_program(argv[2], "llm_int8_emb", 7, 1e-4, 1e-5);
        /* data-dependent sizes within their exported bounds: counts 12, 10, 0 and the bound 30; 16, 18, 0, 39 */
        exir_program(argv[2], "nonzero", 4, 0, 0);
        exir_program(argv[2], "mask_index", 4, 0, 0);
        exir_program(argv[2], "masked_scatter", 4, 0, 0);      /* 0 to all 28 source values consumed */
        exir_program(argv[2], "embedding_bag", 2, 1e-5, 1e-6); /* sum (weighted), mean, max; aux results empty */
        /* bfloat16 and float16: a transformer block, a CNN, ExecuTorch's llama (KV cache in bf16, 10 greedy calls) */
        reduced_program(argv[2], "bf16_block", 2, false);
        reduced_program(argv[2], "fp16_cnn", 2, false);
        reduced_program(argv[2], "llm_bf16", 10, true);
    }
    printf("test_method: %d checks, %d failed\n", checks, failures);
    return failures ? 1 : 0;
}
