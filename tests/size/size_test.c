/* ExecuTorch's size test (test/size_test.cpp) for opgen: a program that reads a
 * .pte into a buffer, loads its method into static memory and runs it, linked
 * with a runtime trimmed to a selection: none at all (size_test: the runtime
 * alone) or aten::add.out on Float (size_test_add). Its binary's size is the
 * figure (tests/size/sizes.sh); exit 0 ran, 1 did not load or run (a runtime
 * without kernels refuses a program with operators at load), 2 bad usage.
 * usage: size_test MODEL.pte */
#include "opgen/method.h"
#include <stdio.h>
#include <string.h>
#if defined(__arm__) && !defined(__linux__)
/* A bare-metal build starts from picolibc's plain crt0 (its semihosting crt0
 * links a fault reporter with printf) and reads its command line itself. */
#include <semihost.h>
static char cmdline[256];
static int device_args(char **argv) {
    if (sys_semihost_get_cmdline(cmdline, sizeof cmdline)) return 0;
    int argc = 0;
    argv[argc++] = "size_test";
    for (char *c = cmdline; *c && argc < 2;) { /* the arguments (QEMU's arg=), split at spaces */
        while (*c == ' ') c++;
        if (!*c) break;
        argv[argc++] = c;
        while (*c && *c != ' ') c++;
        if (*c) *c++ = 0;
    }
    return argc;
}
#endif

static _Alignas(16) unsigned char program[1 << 16], load_memory[1 << 16], work_memory[1 << 14], input_memory[1 << 14];

int main(int argc, char **argv) {
#if defined(__arm__) && !defined(__linux__)
    char *args[2];
    argc = device_args(args), argv = args;
#endif
    if (argc != 2) return 2;
    FILE *f = fopen(argv[1], "rb");
    if (!f) return 1;
    size_t n = fread(program, 1, sizeof program, f);
    fclose(f);
    opgen_error err = {0};
    opgen_pte pte;
    opgen_method *m;
    opgen_arena load, work;
    opgen_arena_init(&load, load_memory, sizeof load_memory);
    if (opgen_pte_open(&pte, program, n, "model", &err) || opgen_method_load(&pte, "forward", NULL, &load, &m, &err))
        return 1;
    opgen_ivalue in[8], out[8];
    int ni = opgen_method_ninputs(m);
    if (ni > 8 || opgen_method_noutputs(m) > 8) return 1;
    size_t used = 0;
    for (int i = 0; i < ni; i++) { /* every input as declared, zeros */
        in[i] = *opgen_method_input(m, i);
        if (in[i].kind != OPGEN_GV_TENSOR) continue;
        size_t bytes = opgen_nbytes(&in[i].t);
        if (bytes > sizeof input_memory - used) return 1;
        in[i].t.data = input_memory + used, in[i].t.capacity = bytes, used += (bytes + 15) & ~(size_t)15;
    }
    opgen_arena_init(&work, work_memory, sizeof work_memory);
    return opgen_method_run(m, in, &work, out, &err) ? 1 : 0;
}
