/* Greedy decoding with a language model exported by ExecuTorch's llama example,
 * on opgen's C API: load the method once, then per token set its inputs
 * (tokens i64[1, 1], input_pos i64[1]), execute, and read the logits. The KV
 * cache lives in the method's planned memory and persists between the calls.
 * Memory is taken once, up front, in the amounts the runtime reports; nothing
 * is allocated while decoding.
 *
 *     usage: greedy MODEL.pte PROMPT STEPS     (PROMPT: ids, comma-separated)
 *     prints the STEPS generated ids, the first from the last prompt call */
#include "opgen/file.h"
#include "opgen/method.h"
#include <stdio.h>
#include <stdlib.h>

static int fail(const opgen_error *err) {
    char msg[1024];
    opgen_error_format(err, msg, sizeof msg);
    fprintf(stderr, "%s\n", msg);
    return 1;
}

/* The largest of the last row of logits (the first, on a tie, as torch.argmax). */
static int64_t argmax_last(const opgen_tensor *logits) {
    int64_t vocab = logits->sizes[logits->dim - 1], base = opgen_numel(logits) - vocab, best = 0;
    for (int64_t j = 1; j < vocab; j++)
        if (opgen_load_f64(logits, base + j) > opgen_load_f64(logits, base + best)) best = j;
    return best;
}

int main(int argc, char **argv) {
    if (argc != 4) return fputs("usage: greedy MODEL.pte PROMPT STEPS\n", stderr), 2;
    int64_t prompt[256];
    int np = 0;
    for (char *s = argv[2], *end; *s && np < 256; s = *end ? end + 1 : end) prompt[np++] = strtoll(s, &end, 10);
    long steps = atol(argv[3]);

    /* the program's bytes: read once, used in place (constants are not copied) */
    opgen_arena files;
    opgen_arena_init_growing(&files);
    opgen_error err = {0};
    char *bytes;
    size_t size;
    opgen_pte pte;
    if (opgen_file_read(argv[1], (size_t)1 << 30, &files, &bytes, &size, &err) ||
        opgen_pte_open(&pte, bytes, size, argv[1], &err))
        return fail(&err);

    /* load: one block of exactly the size the method asks for */
    opgen_method_memory mem;
    if (opgen_method_memory_of(&pte, "forward", NULL, &mem, &err)) return fail(&err);
    void *load_block = malloc(mem.load_bytes + 16);
    opgen_arena load;
    opgen_arena_init(&load, load_block, mem.load_bytes + 16);
    opgen_method *m;
    if (opgen_method_load(&pte, "forward", NULL, &load, &m, &err)) return fail(&err);
    void *work_block = malloc(opgen_method_work_bytes(m) + 16);
    opgen_arena work;
    opgen_arena_init(&work, work_block, opgen_method_work_bytes(m) + 16);

    /* decode: the inputs as the program declares them, over two int64s */
    int64_t token = prompt[0], pos;
    if (opgen_method_ninputs(m) != 2 || opgen_method_noutputs(m) > 8)
        return fputs("greedy: not a llama export (tokens, input_pos -> logits)\n", stderr), 1;
    opgen_ivalue inputs[2] = {*opgen_method_input(m, 0), *opgen_method_input(m, 1)}, outputs[8];
    inputs[0].t.data = &token;
    inputs[1].t.data = &pos;
    for (long made = 0, k = 0; made < steps; k++) {
        pos = k;
        if (opgen_method_run(m, inputs, &work, outputs, &err)) return fail(&err);
        token = k + 1 < np ? prompt[k + 1] : argmax_last(&outputs[0].t);
        if (k + 1 >= np) printf("%s%lld", made++ ? " " : "", (long long)token);
    }
    printf("\n");
    free(work_block);
    free(load_block);
    opgen_arena_release(&files);
    return 0;
}
