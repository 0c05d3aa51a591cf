/* The programs the tests build (programs.h). */
#include "programs.h"
#include <string.h>

const float c23[6] = {10, 20, 30, 40, 50, 60};

/* forward(x f32[2,3]) = x + 2 * c: a constant, a planned input and output. */
pw_program add_program(pw_value *v, pw_plan *pl, bool legacy) {
    static const int32_t s23[] = {2, 3};
    v[0] = pw_tensor(F32, 2, s23, 1, 0, 0);  /* x: planned input */
    v[1] = pw_tensor(F32, 2, s23, 0, 0, 1);  /* c: constant 1 */
    v[2] = pw_int(2);                        /* alpha */
    v[3] = pw_tensor(F32, 2, s23, 1, 32, 0); /* out */
    static pw_instr code[] = {{PW_KERNEL, 0, 0, 5, {0, 1, 2, 3, 3}}};
    *pl = (pw_plan){.name = "forward",
                    .values = v,
                    .nvalues = 4,
                    .inputs = {0},
                    .ninputs = 1,
                    .outputs = {3},
                    .noutputs = 1,
                    .ops = {{"aten::add", "out"}},
                    .nops = 1,
                    .code = code,
                    .ncode = 1,
                    .buffers = {0, 64},
                    .nbuffers = 2};
    return (pw_program){.plans = pl,
                        .nplans = 1,
                        .constants = {c23},
                        .constant_sizes = {sizeof c23},
                        .nconstants = 1,
                        .legacy = legacy};
}

pw_program kinds_program(pw_value *v, pw_plan *pl) {
    static const int32_t s23[] = {2, 3}, s2[] = {2}, s43[] = {4, 3};
    int k = 0;
    v[k++] = pw_tensor(F32, 2, s23, 1, 0, 0);                               /* 0 x */
    v[k++] = pw_string("tanh");                                             /* 1 */
    v[k++] = pw_tensor(F32, 2, s23, 1, 32, 0);                              /* 2 gelu(x) */
    v[k++] = pw_int(-1);                                                    /* 3 */
    v[k++] = pw_list(PW_INT_LIST, 1, (int64_t[]){3});                       /* 4 [-1] */
    v[k++] = pw_bool(false);                                                /* 5 keepdim */
    v[k++] = pw_null();                                                     /* 6 dtype None */
    v[k++] = pw_tensor(F32, 1, s2, 1, 64, 0);                               /* 7 sum */
    v[k++] = pw_double(-0.5);                                               /* 8 */
    v[k++] = pw_double(0.5);                                                /* 9 */
    v[k++] = pw_tensor(F32, 2, s23, 1, 96, 0);                              /* 10 hardtanh */
    v[k++] = pw_list(PW_TENSOR_LIST, 2, (int64_t[]){0, 10});                /* 11 */
    v[k++] = pw_int(0);                                                     /* 12 */
    v[k++] = pw_tensor(F32, 2, s43, 1, 128, 0);                             /* 13 cat */
    v[k] = (pw_value){.kind = PW_DOUBLE_LIST, .n = 2, .d = {1.5, -2}}, k++; /* 14 */
    v[k++] = pw_list(PW_BOOL_LIST, 2, (int64_t[]){1, 0});                   /* 15 */
    v[k++] = pw_list(PW_OPT_TENSOR_LIST, 2, (int64_t[]){0, -1});            /* 16 */
    v[k++] = pw_tensor(F32, 2, s23, 1, 192, 0);                             /* 17 delegate's output */
    static pw_instr code[] = {
        {PW_KERNEL, 0, 0, 4, {0, 1, 2, 2}},       /* gelu.out(x, approximate='tanh') */
        {PW_KERNEL, 1, 0, 6, {0, 4, 5, 6, 7, 7}}, /* sum.IntList_out(x, [-1], False, None) */
        {PW_KERNEL, 2, 0, 5, {0, 8, 9, 10, 10}},  /* hardtanh.out(x, -0.5, 0.5) */
        {PW_KERNEL, 3, 0, 4, {11, 12, 13, 13}},   /* cat.out([x, h], 0) */
        {PW_DELEGATE, 0, 0, 4, {0, 14, 15, 17}},  /* the lists to a handler */
        {PW_DELEGATE, 0, 0, 4, {0, 16, 15, 17}},
    };
    *pl = (pw_plan){
        .name = "forward",
        .values = v,
        .nvalues = k,
        .inputs = {0},
        .ninputs = 1,
        .outputs = {2, 7, 10, 13, 17},
        .noutputs = 5,
        .ops = {{"aten::gelu", "out"}, {"aten::sum", "IntList_out"}, {"aten::hardtanh", "out"}, {"aten::cat", "out"}},
        .nops = 4,
        .code = code,
        .ncode = 6,
        .buffers = {0, 256},
        .nbuffers = 2,
        .delegates = {"TestBackend"},
        .ndelegates = 1};
    return (pw_program){.plans = pl, .nplans = 1};
}

/* MoveCall, JumpFalseCall (on a Bool and on a Bool tensor) and FreeCall: if all
 * of cond then out = x * 2 else out = x - 1 (torch.cond as the exporter writes it). */
pw_program control_program(pw_value *v, pw_plan *pl, pw_instr *code, int32_t jump_to) {
    static const int32_t s3[] = {3};
    v[0] = pw_tensor(F32, 1, s3, 1, 0, 0);  /* x */
    v[1] = pw_tensor(B8, 1, s3, 1, 16, 0);  /* cond (a Bool tensor input) */
    v[2] = pw_tensor(F32, 1, s3, 1, 32, 0); /* out */
    v[3] = pw_int(2);
    v[4] = pw_tensor(F32, 1, s3, 1, 48, 0); /* true branch's result */
    v[5] = pw_bool(false);                  /* always jumps */
    v[6] = pw_int(1);
    v[7] = pw_tensor(F32, 1, s3, 1, 64, 0); /* false branch's result */
    v[8] = pw_int(-1);
    pw_instr c[] = {
        {PW_JUMP_FALSE, 1, 4, 0, {0}},         /* 0: cond false -> 4 */
        {PW_KERNEL, 0, 0, 4, {0, 3, 4, 4}},    /* 1: mul.Scalar_out(x, 2) */
        {PW_MOVE, 4, 2, 0, {0}},               /* 2: out = it */
        {PW_JUMP_FALSE, 5, jump_to, 0, {0}},   /* 3: to the end */
        {PW_KERNEL, 1, 0, 5, {0, 6, 8, 7, 7}}, /* 4: add.Scalar_out(x, 1, alpha=-1) */
        {PW_MOVE, 7, 2, 0, {0}},               /* 5 */
        {PW_FREE, 4, 0, 0, {0}},               /* 6 */
    };
    memcpy(code, c, sizeof c);
    *pl = (pw_plan){.name = "forward",
                    .values = v,
                    .nvalues = 9,
                    .inputs = {0, 1},
                    .ninputs = 2,
                    .outputs = {2},
                    .noutputs = 1,
                    .ops = {{"aten::mul", "Scalar_out"}, {"aten::add", "Scalar_out"}},
                    .nops = 2,
                    .code = code,
                    .ncode = 7,
                    .buffers = {0, 96},
                    .nbuffers = 2};
    return (pw_program){.plans = pl, .nplans = 1};
}

/* Two methods: forward (add_program, constants inline) and twice_plus_one, where
 * a view the exporter removed, value 4 ([6]), shares value 3's planned bytes
 * ([2,3]) and no instruction connects them. */
pw_program two_methods_program(pw_value *fv, pw_value *dv, pw_plan *pls) {
    static const int32_t s23[] = {2, 3}, s6[] = {6};
    pw_program prog = add_program(fv, &pls[0], true);
    dv[0] = pw_tensor(F32, 2, s23, 1, 0, 0);
    dv[1] = pw_int(2);
    dv[2] = pw_int(1);
    dv[3] = pw_tensor(F32, 2, s23, 1, 32, 0);
    dv[4] = pw_tensor(F32, 1, s6, 1, 32, 0); /* the view */
    dv[5] = pw_tensor(F32, 1, s6, 1, 64, 0);
    static pw_instr code[] = {{PW_KERNEL, 0, 0, 4, {0, 1, 3, 3}}, {PW_KERNEL, 1, 0, 5, {4, 2, 2, 5, 5}}};
    pls[1] = (pw_plan){.name = "twice_plus_one",
                       .values = dv,
                       .nvalues = 6,
                       .inputs = {0},
                       .ninputs = 1,
                       .outputs = {5},
                       .noutputs = 1,
                       .ops = {{"aten::mul", "Scalar_out"}, {"aten::add", "Scalar_out"}},
                       .nops = 2,
                       .code = code,
                       .ncode = 2,
                       .buffers = {0, 96},
                       .nbuffers = 2};
    prog.nplans = 2;
    prog.plans = pls;
    return prog;
}
/* Channels-last: an input in dim order 0,2,3,1, a depthwise convolution
 * (groups 2, 1x1 weights 2 and -1) into a channels-last out, relu after. */
const float channels_last_w[2] = {2, -1};

pw_program channels_last_program(pw_value *v, pw_plan *pl) {
    const float *w = channels_last_w;
    static const int32_t sx[] = {1, 2, 2, 3}, sw[] = {2, 1, 1, 1};
    static const uint8_t cl[] = {0, 2, 3, 1};
    v[0] = pw_tensor(F32, 4, sx, 1, 0, 0), v[0].order = cl;
    v[1] = pw_tensor(F32, 4, sw, 0, 0, 1);
    v[2] = pw_null();
    v[3] = pw_list(PW_INT_LIST, 2, (int64_t[]){10, 10});
    v[4] = pw_list(PW_INT_LIST, 2, (int64_t[]){11, 11});
    v[5] = pw_bool(false);
    v[6] = pw_int(2);
    v[7] = pw_tensor(F32, 4, sx, 1, 64, 0), v[7].order = cl;
    v[8] = pw_tensor(F32, 4, sx, 1, 128, 0), v[8].order = cl;
    v[9] = pw_list(PW_INT_LIST, 2, (int64_t[]){11, 11});
    v[10] = pw_int(1);
    v[11] = pw_int(0);
    v[12] = pw_list(PW_INT_LIST, 2, (int64_t[]){10, 10});
    v[13] = pw_list(PW_INT_LIST, 2, (int64_t[]){11, 11});
    static pw_instr code[] = {{PW_KERNEL, 0, 0, 11, {0, 1, 2, 12, 4, 3, 5, 9, 6, 7, 7}},
                              {PW_KERNEL, 1, 0, 3, {7, 8, 8}}};
    *pl = (pw_plan){.name = "forward",
                    .values = v,
                    .nvalues = 14,
                    .inputs = {0},
                    .ninputs = 1,
                    .outputs = {8},
                    .noutputs = 1,
                    .ops = {{"aten::convolution", "out"}, {"aten::relu", "out"}},
                    .nops = 2,
                    .code = code,
                    .ncode = 2,
                    .buffers = {0, 192},
                    .nbuffers = 2};
    return (pw_program){.plans = pl, .nplans = 1, .constants = {w}, .constant_sizes = {sizeof w}, .nconstants = 1};
}

/* forward(x f32[3]) = acc + x, with acc a mutable buffer (zeros at load) written
 * back with aten::copy_ as ExecuTorch's exporter does: state between calls. */
pw_program state_program(pw_value *v, pw_plan *pl) {
    static const int32_t s3[] = {3};
    v[0] = pw_tensor(F32, 1, s3, 1, 0, 0);  /* x */
    v[1] = pw_tensor(F32, 1, s3, 1, 16, 0); /* acc: a mutable buffer */
    v[2] = pw_int(1);                       /* alpha */
    v[3] = pw_tensor(F32, 1, s3, 1, 32, 0); /* acc + x */
    v[4] = pw_bool(false);                  /* non_blocking */
    v[5] = pw_tensor(F32, 1, s3, 1, 16, 0); /* copy_'s result: acc's bytes, a value of its own */
    static pw_instr code[] = {{PW_KERNEL, 0, 0, 5, {1, 0, 2, 3, 3}}, {PW_KERNEL, 1, 0, 4, {1, 3, 4, 5}}};
    *pl = (pw_plan){.name = "forward",
                    .values = v,
                    .nvalues = 6,
                    .inputs = {0},
                    .ninputs = 1,
                    .outputs = {3},
                    .noutputs = 1,
                    .ops = {{"aten::add", "out"}, {"aten::copy_", ""}},
                    .nops = 2,
                    .code = code,
                    .ncode = 2,
                    .buffers = {0, 64},
                    .nbuffers = 2};
    return (pw_program){.plans = pl, .nplans = 1};
}

/* forward(x f32[3], a, n) = x * a + n: a fixed at 1.5 when exported (a Double
 * input), n a Null input (a SymInt the exporter left dynamic). */
pw_program scalars_program(pw_value *v, pw_plan *pl) {
    static const int32_t s3[] = {3};
    v[0] = pw_tensor(F32, 1, s3, 1, 0, 0);  /* x */
    v[1] = pw_double(1.5);                  /* a */
    v[2] = pw_null();                       /* n */
    v[3] = pw_tensor(F32, 1, s3, 1, 16, 0); /* x * a */
    v[4] = pw_int(1);                       /* alpha */
    v[5] = pw_tensor(F32, 1, s3, 1, 32, 0); /* + n */
    static pw_instr code[] = {{PW_KERNEL, 0, 0, 4, {0, 1, 3, 3}}, {PW_KERNEL, 1, 0, 5, {3, 2, 4, 5, 5}}};
    *pl = (pw_plan){.name = "forward",
                    .values = v,
                    .nvalues = 6,
                    .inputs = {0, 1, 2},
                    .ninputs = 3,
                    .outputs = {5},
                    .noutputs = 1,
                    .ops = {{"aten::mul", "Scalar_out"}, {"aten::add", "Scalar_out"}},
                    .nops = 2,
                    .code = code,
                    .ncode = 2,
                    .buffers = {0, 64},
                    .nbuffers = 2};
    return (pw_program){.plans = pl, .nplans = 1};
}

/* forward(x f32[<=4], n) = (relu(x), full([n], 1.5)): x a dynamic input planned at
 * its bound, n a Null input sizing full's out, planned for at most 4 elements. */
pw_program dynamic_program(pw_value *v, pw_plan *pl) {
    static const int32_t s4[] = {4};
    v[0] = pw_tensor(F32, 1, s4, 1, 0, 0);  /* x */
    v[0].dynamism = 1;                      /* DYNAMIC_BOUND */
    v[1] = pw_null();                       /* n */
    v[2] = pw_tensor(F32, 1, s4, 1, 16, 0); /* relu(x) */
    v[2].dynamism = 1;
    v[3] = pw_list(PW_INT_LIST, 1, (int64_t[]){1}); /* [n] */
    v[4] = pw_double(1.5);
    v[5] = pw_tensor(F32, 1, s4, 1, 32, 0); /* full */
    v[5].dynamism = 1;
    static pw_instr code[] = {{PW_KERNEL, 0, 0, 3, {0, 2, 2}}, {PW_KERNEL, 1, 0, 4, {3, 4, 5, 5}}};
    *pl = (pw_plan){.name = "forward",
                    .values = v,
                    .nvalues = 6,
                    .inputs = {0, 1},
                    .ninputs = 2,
                    .outputs = {2, 5},
                    .noutputs = 2,
                    .ops = {{"aten::relu", "out"}, {"aten::full", "out"}},
                    .nops = 2,
                    .code = code,
                    .ncode = 2,
                    .buffers = {0, 64},
                    .nbuffers = 2};
    return (pw_program){.plans = pl, .nplans = 1};
}

/* forward(x f32[3]) = where(c, x, x): c a Bool constant holding a byte that is
 * neither 0 nor 1 (what a damaged program can hold): refused at load. */
static const uint8_t bad_bools[3] = {1, 2, 0};
pw_program bad_bool_program(pw_value *v, pw_plan *pl) {
    static const int32_t s3[] = {3};
    v[0] = pw_tensor(F32, 1, s3, 1, 0, 0);  /* x */
    v[1] = pw_tensor(B8, 1, s3, 0, 0, 1);   /* c: constant 1 */
    v[2] = pw_tensor(F32, 1, s3, 1, 16, 0); /* out */
    static pw_instr code[] = {{PW_KERNEL, 0, 0, 5, {1, 0, 0, 2, 2}}};
    *pl = (pw_plan){.name = "forward",
                    .values = v,
                    .nvalues = 3,
                    .inputs = {0},
                    .ninputs = 1,
                    .outputs = {2},
                    .noutputs = 1,
                    .ops = {{"aten::where", "self_out"}},
                    .nops = 1,
                    .code = code,
                    .ncode = 1,
                    .buffers = {0, 32},
                    .nbuffers = 2};
    return (pw_program){
        .plans = pl, .nplans = 1, .constants = {bad_bools}, .constant_sizes = {sizeof bad_bools}, .nconstants = 1};
}

/* forward(k f32[2, 2], pos i64[2]) = add(t, t), where t = index_put(cache,
 * [pos], k) and cache f32[3, 2] is a mutable buffer written back with copy_ (an
 * exported KV cache's update); CACHE_READ_BETWEEN: add(cache, t) before the copy
 * back; CACHE_READ_AFTER: add(t, t) after it. */
pw_program cache_program(pw_value *v, pw_plan *pl, int variant) {
    static const int32_t s22[] = {2, 2}, s2[] = {2}, s32[] = {3, 2};
    v[0] = pw_tensor(F32, 2, s22, 1, 0, 0);  /* k */
    v[1] = pw_tensor(I64, 1, s2, 1, 16, 0);  /* pos */
    v[2] = pw_tensor(F32, 2, s32, 1, 32, 0); /* cache: a mutable buffer */
    v[3] = pw_list(PW_OPT_TENSOR_LIST, 1, (int64_t[]){1});
    v[4] = pw_bool(false);                   /* accumulate */
    v[5] = pw_tensor(F32, 2, s32, 1, 64, 0); /* t */
    v[6] = pw_int(1);                        /* alpha */
    v[7] = pw_tensor(F32, 2, s32, 1, 96, 0); /* the result */
    v[8] = pw_bool(false);                   /* non_blocking */
    v[9] = pw_tensor(F32, 2, s32, 1, 32, 0); /* copy_'s result: the cache's bytes */
    static pw_instr code[3];
    pw_instr put = {PW_KERNEL, 0, 0, 6, {2, 3, 0, 4, 5, 5}}, add = {PW_KERNEL, 1, 0, 5, {5, 5, 6, 7, 7}},
             back = {PW_KERNEL, 2, 0, 4, {2, 5, 8, 9}};
    add.args[0] = variant == CACHE_READ_BETWEEN ? 2 : 5;
    code[0] = put, code[1] = variant == CACHE_READ_AFTER ? back : add,
    code[2] = variant == CACHE_READ_AFTER ? add : back;
    *pl = (pw_plan){.name = "forward",
                    .values = v,
                    .nvalues = 10,
                    .inputs = {0, 1},
                    .ninputs = 2,
                    .outputs = {7},
                    .noutputs = 1,
                    .ops = {{"aten::index_put", "out"}, {"aten::add", "out"}, {"aten::copy_", ""}},
                    .nops = 3,
                    .code = code,
                    .ncode = 3,
                    .buffers = {0, 128},
                    .nbuffers = 2};
    return (pw_program){.plans = pl, .nplans = 1};
}

/* forward(x f32[2, 3]) = (r + x, r6 + r6, ...): a = x + x, r = expand_copy(a,
 * [2, 3]) (an identity copy), r6 f32[6] planned at r's bytes (a view, as
 * ExecuTorch plans one). COPY_SRC_OVERWRITTEN: z = x * x is planned at a's
 * bytes after the copy, before r is read; COPY_RETURNED: r is returned too;
 * COPY_PART_READ: h f32[3], the first half of r's bytes, is read (h + h
 * returned); COPY_BYTES_REUSED: after the reads, y = x * x is planned at r's
 * bytes and read through its own view y6 (y6 + y6 returned), and then a is read
 * again (a + x returned). */
pw_program copy_program(pw_value *v, pw_plan *pl, int variant) {
    static const int32_t s23[] = {2, 3}, s6[] = {6}, s3[] = {3};
    v[0] = pw_tensor(F32, 2, s23, 1, 0, 0);  /* x */
    v[1] = pw_int(1);                        /* alpha */
    v[2] = pw_tensor(F32, 2, s23, 1, 32, 0); /* a */
    v[3] = pw_int(2), v[4] = pw_int(3);
    v[5] = pw_list(PW_INT_LIST, 2, (int64_t[]){3, 4});
    v[6] = pw_bool(false);                     /* implicit */
    v[7] = pw_tensor(F32, 2, s23, 1, 64, 0);   /* r */
    v[8] = pw_tensor(F32, 1, s6, 1, 64, 0);    /* r6: r's bytes */
    v[9] = pw_tensor(F32, 2, s23, 1, 96, 0);   /* r + x */
    v[10] = pw_tensor(F32, 1, s6, 1, 128, 0);  /* r6 + r6 */
    v[11] = pw_tensor(F32, 2, s23, 1, 32, 0);  /* z: a's bytes */
    v[12] = pw_tensor(F32, 1, s3, 1, 64, 0);   /* h: half of r's bytes */
    v[13] = pw_tensor(F32, 1, s3, 1, 160, 0);  /* h + h */
    v[14] = pw_tensor(F32, 2, s23, 1, 64, 0);  /* y: r's bytes again */
    v[15] = pw_tensor(F32, 1, s6, 1, 64, 0);   /* y6: y's view */
    v[16] = pw_tensor(F32, 1, s6, 1, 192, 0);  /* y6 + y6 */
    v[17] = pw_tensor(F32, 2, s23, 1, 224, 0); /* a + x */
    static pw_instr code[7];
    int n = 0;
    code[n++] = (pw_instr){PW_KERNEL, 0, 0, 5, {0, 0, 1, 2, 2}};
    code[n++] = (pw_instr){PW_KERNEL, 1, 0, 5, {2, 5, 6, 7, 7}};
    if (variant == COPY_SRC_OVERWRITTEN) code[n++] = (pw_instr){PW_KERNEL, 2, 0, 4, {0, 0, 11, 11}};
    code[n++] = (pw_instr){PW_KERNEL, 0, 0, 5, {7, 0, 1, 9, 9}};
    code[n++] = (pw_instr){PW_KERNEL, 0, 0, 5, {8, 8, 1, 10, 10}};
    if (variant == COPY_PART_READ) code[n++] = (pw_instr){PW_KERNEL, 0, 0, 5, {12, 12, 1, 13, 13}};
    if (variant == COPY_BYTES_REUSED)
        code[n++] = (pw_instr){PW_KERNEL, 2, 0, 4, {0, 0, 14, 14}},
        code[n++] = (pw_instr){PW_KERNEL, 0, 0, 5, {15, 15, 1, 16, 16}},
        code[n++] = (pw_instr){PW_KERNEL, 0, 0, 5, {2, 0, 1, 17, 17}};
    int extra = variant == COPY_RETURNED ? 7 : variant == COPY_PART_READ ? 13 : variant == COPY_BYTES_REUSED ? 16 : -1;
    *pl = (pw_plan){.name = "forward",
                    .values = v,
                    .nvalues = 18,
                    .inputs = {0},
                    .ninputs = 1,
                    .outputs = {9, 10, extra, 17},
                    .noutputs = extra < 0                      ? 2
                                : variant == COPY_BYTES_REUSED ? 4
                                                               : 3,
                    .ops = {{"aten::add", "out"}, {"aten::expand_copy", "out"}, {"aten::mul", "out"}},
                    .nops = 3,
                    .code = code,
                    .ncode = n,
                    .buffers = {0, 256},
                    .nbuffers = 2};
    return (pw_program){.plans = pl, .nplans = 1};
}
