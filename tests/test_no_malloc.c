/* Load and run take no memory but the caller's: this program replaces malloc,
 * calloc, realloc, aligned_alloc and posix_memalign (glibc's own underneath) and
 * counts the calls made while opgen_method_load and opgen_method_run work, on
 * the suite's built programs and every exported program of the corpus. Also:
 * load takes no more than opgen_method_memory_of said, and the planned memory is
 * the sum of the program's non_const_buffer_sizes. Not built with sanitizers
 * (they replace malloc themselves).
 * usage: test_no_malloc [CORPUS_DIR] */
#include "opgen/method.h"
#include "opgen/npy.h"
#include "pte/programs.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void __libc_free(void *);

static int counting, calls;
void *malloc(size_t n) { return calls += counting, __libc_malloc(n); }
void *calloc(size_t n, size_t k) { return calls += counting, __libc_calloc(n, k); }
void *realloc(void *p, size_t n) { return calls += counting, __libc_realloc(p, n); }
void *aligned_alloc(size_t a, size_t n) { return calls += counting, __libc_memalign(a, n); }
int posix_memalign(void **p, size_t a, size_t n) { return calls += counting, (*p = __libc_memalign(a, n)) ? 0 : 12; }
void free(void *p) { __libc_free(p); }

static int failures, programs;

/* Loads and runs method `name` of the program in data, inputs given; counts. */
static void check(const char *what, const uint8_t *data, size_t n, const opgen_ivalue *inputs) {
    opgen_pte pte;
    opgen_method_memory mem;
    opgen_error err = {0};
    if (opgen_pte_open(&pte, data, n, what, &err) || opgen_method_memory_of(&pte, "forward", NULL, &mem, &err)) {
        printf("FAIL %s: %s\n", what, err.msg), failures++;
        return;
    }
    opgen_pte_plan pl;
    opgen_pte_plan_find(&pte, "forward", &pl, &err);
    size_t declared = 0;
    for (uint32_t b = 1; b < pl.buffer_sizes.len; b++) declared += (size_t)opgen_pte_i64(&pte, pl.buffer_sizes, b);
    if (mem.planned_bytes != declared)
        printf("FAIL %s: planned %zu bytes, the program declares %zu\n", what, mem.planned_bytes, declared), failures++;
    void *lm = aligned_alloc(16, (mem.load_bytes + 15) & ~(size_t)15), *wm = NULL;
    opgen_arena la, wa;
    opgen_arena_init(&la, lm, mem.load_bytes);
    opgen_method *m;
    opgen_ivalue out[16];
    calls = 0;
    counting = 1;
    int32_t st = opgen_method_load(&pte, "forward", NULL, &la, &m, &err);
    counting = 0;
    int load_calls = calls;
    if (!st) {
        wm = aligned_alloc(16, (opgen_method_work_bytes(m) + 15) & ~(size_t)15);
        opgen_arena_init(&wa, wm, opgen_method_work_bytes(m));
        calls = 0;
        counting = 1;
        st = opgen_method_run(m, inputs, &wa, out, &err);
        if (!st) st = opgen_method_run(m, inputs, &wa, out, &err); /* again, from the state the first left */
        if (!st) st = opgen_method_reset(m, &err);
        counting = 0;
    }
    if (st) printf("FAIL %s: %s\n", what, err.msg), failures++;
    if (load_calls || calls)
        printf("FAIL %s: %d allocations in load, %d in run\n", what, load_calls, calls), failures++;
    if (la.used > mem.load_bytes)
        printf("FAIL %s: load took %zu bytes, it said %zu\n", what, la.used, mem.load_bytes), failures++;
    programs++;
    free(lm);
    free(wm);
}

static void built(const char *name, const pw_program *prog, const opgen_ivalue *inputs) {
    size_t n;
    uint8_t *b = pw_build(prog, &n), *a = aligned_alloc(16, (n + 15) & ~(size_t)15);
    memcpy(a, b, n);
    check(name, a, n, inputs);
    free(b);
    free(a);
}

static opgen_ivalue tensor(opgen_dtype d, int dim, const int64_t *sizes, void *data) {
    opgen_ivalue v = {0};
    v.kind = OPGEN_GV_TENSOR;
    opgen_tensor_shape(&v.t, d, dim, sizes, NULL);
    v.t.data = data;
    return v;
}

/* Exported programs DIR/exir/NAME/model.pte, run on their call 0's inputs. */
static void exported(const char *dir, const char *const *names, size_t count) {
    for (size_t k = 0; k < count; k++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/exir/%s/model.pte", dir, names[k]);
        FILE *f = fopen(path, "rb");
        if (!f) {
            printf("SKIP corpus programs: %s is absent\n", path);
            return;
        }
        static _Alignas(16) uint8_t data[1 << 18];
        size_t n = fread(data, 1, sizeof data, f);
        fclose(f);
        opgen_arena a;
        opgen_arena_init_growing(&a);
        opgen_ivalue in[4];
        opgen_error err = {0};
        for (int i = 0; i < 4; i++) {
            snprintf(path, sizeof path, "%s/exir/%s/inputs/0_%d.npy", dir, names[k], i);
            in[i].kind = OPGEN_GV_TENSOR;
            if (opgen_npy_read(path, &a, &in[i].t, &err)) break;
            if (in[i].t.dim == 0 && in[i].t.dtype == OPGEN_DTYPE_Long)
                in[i].kind = OPGEN_GV_INT, in[i].i = *(const int64_t *)in[i].t.data; /* a scalar input */
        }
        check(names[k], data, n, in);
        opgen_arena_release(&a);
    }
}

int main(int argc, char **argv) {
    pw_value v[20], dv[6];
    pw_plan pl[2];
    pw_instr code[7];
    float x[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
    bool yes[3] = {true, true, true};
    opgen_ivalue in23 = tensor(OPGEN_DTYPE_Float, 2, (int64_t[]){2, 3}, x),
                 inc[2] = {tensor(OPGEN_DTYPE_Float, 1, (int64_t[]){3}, x),
                           tensor(OPGEN_DTYPE_Bool, 1, (int64_t[]){3}, yes)},
                 incl = tensor(OPGEN_DTYPE_Float, 4, (int64_t[]){1, 2, 2, 3}, x);
    pw_program p = add_program(v, pl, false);
    built("add", &p, &in23);
    p = add_program(v, pl, true);
    built("add (inline constants)", &p, &in23);
    p = control_program(v, pl, code, 7);
    built("control", &p, inc);
    p = two_methods_program(v, dv, pl);
    built("two methods", &p, &in23);
    p = channels_last_program(v, pl);
    built("channels-last", &p, &incl);
    p = state_program(v, pl);
    built("state (copy_ into a mutable buffer)", &p, inc);
    opgen_ivalue insc[3] = {inc[0], {.kind = OPGEN_GV_FLOAT, .f = 1.5}, {.kind = OPGEN_GV_INT, .i = 4}};
    p = scalars_program(v, pl);
    built("scalars (fixed and Null inputs)", &p, insc);
    opgen_ivalue indy[2] = {tensor(OPGEN_DTYPE_Float, 1, (int64_t[]){2}, x), {.kind = OPGEN_GV_INT, .i = 3}};
    p = dynamic_program(v, pl);
    built("dynamic (an input within its bound)", &p, indy);
    static const char *const corpus[] = {"mlp",           "small_cnn",     "two_outputs",  "cond",       "embed_mean",
                                         "running_stats", "scalar_inputs", "llama_decode", "dynamic_mlp"};
    static const char *const own[] = {"seq_dynamic"}; /* tests/exir/: prim ops and views sized at run */
    if (argc > 1) exported(argv[1], corpus, sizeof corpus / sizeof *corpus);
    if (argc > 2) exported(argv[2], own, sizeof own / sizeof *own);
    printf("test_no_malloc: %d programs loaded and run with no allocation of their own, %d failed\n", programs,
           failures);
    return failures ? 1 : 0;
}
