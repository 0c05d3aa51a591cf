/* The graph text format: accepted programs satisfy parse(print(g)) == g and print
 * is idempotent; rejected ones give the exact line:col and message. */
#include "opgen/graph.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    bool pattern;
    const char *text;
    const char *canonical; /* expected print(parse(text)), or NULL to skip */
} good[] = {
    {false,
     "# a quantized residual add, written in the Edge dialect\n"
     "graph(%x: u8[1, 8], %y: u8[1, 8]):\n"
     "  %xf = quantized_decomposed::dequantize_per_tensor(%x, 0.05, 128, 0, 255, torch.uint8)\n"
     "  %yf = quantized_decomposed::dequantize_per_tensor(%y, 0.05, 128, 0, 255, torch.uint8)\n"
     "  %s = aten::add.Tensor(%xf, %yf)\n"
     "  %q = quantized_decomposed::quantize_per_tensor(%s, 0.1, 128, 0, 255, torch.uint8)\n"
     "  return %q\n",
     "graph(%x: u8[1, 8], %y: u8[1, 8]):\n"
     "  %xf = quantized_decomposed::dequantize_per_tensor(%x, 0.05, 128, 0, 255, torch.uint8)\n"
     "  %yf = quantized_decomposed::dequantize_per_tensor(%y, 0.05, 128, 0, 255, torch.uint8)\n"
     "  %s = aten::add.Tensor(%xf, %yf)\n"
     "  %q = quantized_decomposed::quantize_per_tensor(%s, 0.1, 128, 0, 255, torch.uint8)\n"
     "  return %q\n"},
    {false,
     "graph(%x: f32[2, 3], %n: int, %r: float, %b: bool):\n\n  %a, %i = aten::max.dim(%x, 1, keepdim=True)  # two results\n  return (%a, %i)\n",
     "graph(%x: f32[2, 3], %n: int, %r: float, %b: bool):\n  %a, %i = aten::max.dim(%x, 1, keepdim=True)\n  return (%a, %i)\n"},
    {false, "graph(%x: f32[]):\n  %y = aten::clone(%x, memory_format=torch.contiguous_format)\n  return (%y)\n",
     "graph(%x: f32[]):\n  %y = aten::clone(%x, memory_format=torch.contiguous_format)\n  return (%y)\n"},
    {false,
     "graph(%a: f64[2], %b: f64[2]):\n  %c = aten::cat([%a, %b], -1)\n  %d = aten::hardtanh(%c, -inf, inf)\n  %e = aten::mul.Scalar(%d, 1e-05)\n  %f = aten::gelu(%e, approximate=\"tanh\")\n  return %f\n",
     "graph(%a: f64[2], %b: f64[2]):\n  %c = aten::cat([%a, %b], -1)\n  %d = aten::hardtanh(%c, -inf, inf)\n  %e = aten::mul.Scalar(%d, 1e-05)\n  %f = aten::gelu(%e, approximate=\"tanh\")\n  return %f\n"},
    {false,
     "graph(%x: i64[0, 4]):\n  %y = aten::view_copy(%x, [4, 0])\n  %z = aten::full([2], 3, dtype=torch.float, layout=None, device=None, pin_memory=False)\n  return (%y, %z)\n",
     "graph(%x: i64[0, 4]):\n  %y = aten::view_copy(%x, [4, 0])\n  %z = aten::full([2], 3, dtype=torch.float32, layout=None, device=None, pin_memory=False)\n  return (%y, %z)\n"},
    {false,
     "graph():\n  %s = aten::scalar_tensor(2.0, dtype=torch.float64)\n  %n = aten::mul.Scalar(%s, nan)\n  return %n\n",
     NULL},
    {false, "graph(%x: b8[3], %y: bf16[1], %z: c128[2], %w: u16[1]):\n  return ()\n",
     "graph(%x: b8[3], %y: bf16[1], %z: c128[2], %w: u16[1]):\n  return ()\n"},
    {false,
     "graph(%x: f32[2]):\n  %y = aten::add.Scalar(%x, 1)\n  %z = aten::add.Scalar(%x, 1.0)\n  %s = aten::foo(\"a \\\"quoted\\\" \\\\ word\", [[1, 2], [3]], [])\n  return (%y, %z, %s)\n",
     NULL},
    {true,
     "%x = quantized_decomposed::dequantize_per_tensor(%a, %a_scale, %a_zero_point, %a_quant_min, %a_quant_max, torch.uint8)\n%r = aten::relu(%x)\nreturn %r\n",
     "%x = quantized_decomposed::dequantize_per_tensor(%a, %a_scale, %a_zero_point, %a_quant_min, %a_quant_max, torch.uint8)\n%r = aten::relu(%x)\nreturn %r\n"},
};

static const struct {
    bool pattern;
    const char *text, *expect; /* "line:col: message" */
} bad[] = {
    {false, "", "1:1: expected 'graph(' to start the program, found the end of the text"},
    {false, "grap(%x: f32[1]):\n  return %x\n", "1:1: expected 'graph(' to start the program, found 'grap'"},
    {false, "graph(%x f32[1]):\n  return %x\n", "1:10: expected ':' and a type after the input name, found 'f32'"},
    {false, "graph(%x: f33[1]):\n  return %x\n",
     "1:11: unknown dtype 'f33' (expected b8, u8, i8, i16, i32, i64, f16, bf16, f32, f64, u16, c64, c128)"},
    {false, "graph(%x: f32[2, -1]):\n  return %x\n", "1:18: expected a non-negative size, found '-1'"},
    {false, "graph(%x: f32[2 3]):\n  return %x\n", "1:17: expected ',' or ']' in the sizes, found '3'"},
    {false, "graph(%x: f32[1], %x: f32[1]):\n  return %x\n", "1:19: %x is defined twice (first at 1:7)"},
    {false, "graph(%x: f32[1])\n  return %x\n", "2:3: expected ':' after the inputs, found 'return'"},
    {false, "graph(%x: f32[1]):\n  %y = aten::relu(%z)\n  return %y\n", "2:19: %z is used before it is defined"},
    {false, "graph(%x: f32[1]):\n  %y = aten::relu(%x)\n  %y = aten::relu(%x)\n  return %y\n",
     "3:3: %y is defined twice (first at 2:3)"},
    {false, "graph(%x: f32[1]):\n  %x = aten::relu(%x)\n  return %x\n", "2:3: %x is defined twice (first at 1:7)"},
    {false, "graph(%x: f32[1]):\n  %y = relu(%x)\n  return %y\n",
     "2:8: expected an operator name like aten::add.Tensor, found 'relu'"},
    {false, "graph(%x: f32[1]):\n  %y aten::relu(%x)\n  return %y\n",
     "2:6: expected '=' after the results, found 'aten::relu'"},
    {false, "graph(%x: f32[1]):\n  %y = aten::relu %x\n  return %y\n",
     "2:19: expected '(' after the operator name, found '%x'"},
    {false, "graph(%x: f32[1]):\n  %y = aten::relu(%x\n  return %y\n",
     "3:3: expected ',' or ')' after an argument, found 'return'"},
    {false, "graph(%x: f32[1]):\n  %y = aten::add.Tensor(alpha=2, %x)\n  return %y\n",
     "2:34: a positional argument follows a keyword argument"},
    {false, "graph(%x: f32[1]):\n  %y = aten::add.Tensor(%x, %x, alpha=1, alpha=2)\n  return %y\n",
     "2:42: keyword argument 'alpha' given twice"},
    {false, "graph(%x: f32[1]):\n  %y = aten::foo(%x, banana)\n  return %y\n",
     "2:22: expected a value (%name, a number, True, False, None, a string, a list, torch.<dtype> or a memory format), found 'banana'"},
    {false, "graph(%x: f32[1]):\n  %y = aten::foo(%x, [1, 2)\n  return %y\n",
     "2:27: expected ',' or ']' in a list, found ')'"},
    {false, "graph(%x: f32[1]):\n  %y = aten::foo(%x, \"open)\n  return %y\n", "2:22: unterminated string"},
    {false, "graph(%x: f32[1]):\n  %y = aten::foo(%x, 99999999999999999999)\n  return %y\n",
     "2:22: integer '99999999999999999999' out of range"},
    {false, "graph(%x: f32[1]):\n  %y = aten::foo(%x, 1.5.5)\n  return %y\n",
     "2:25: expected ',' or ')' after an argument, found '.5'"},
    {false, "graph(%x: f32[1]):\n  %y = aten::foo(%x) $\n  return %y\n", "2:22: unexpected character '$'"},
    {false, "graph(%x: f32[1]):\n  %y = aten::relu(%x)\n", "3:1: expected 'return' to end the graph"},
    {false, "graph(%x: f32[1]):\n  return %x\n  %y = aten::relu(%x)\n",
     "3:3: expected the end of the graph after 'return', found '%y'"},
    {false, "graph(%x: f32[1]):\n  return (%x, %y)\n", "2:15: %y is used before it is defined"},
    {false, "graph(%x: f32[1]):\n  return x\n", "2:10: expected a value to return like %y, found 'x'"},
    {false, "graph(%: f32[1]):\n  return %x\n", "1:7: expected a value name after '%'"},
    {true, "%y = aten::relu(%x)\n%x = aten::relu(%y)\nreturn %x\n", "2:1: %x is defined after its use at 1:17"},
    {false, "graph(%x: f32[1]):\n  %y = aten::foo([[[[[[[[[[1]]]]]]]]]])\n  return %y\n",
     "2:27: lists nested too deeply"},
};

/* names longer than any internal buffer (found by fuzz-graph) */
static void check_long_names(int *failed) {
    char text[2048], name[400];
    memset(name, 's', sizeof name - 1);
    name[sizeof name - 1] = 0;
    snprintf(text, sizeof text, "graph(%%%s: f32[1]):\n  %%y = ns::%s(%%%s, %s=1)\n  return %%y\n", name, name, name,
             name);
    opgen_arena a;
    opgen_arena_init_growing(&a);
    opgen_error err = {0};
    opgen_graph g, h;
    char out[4096];
    if (opgen_graph_parse("t", text, strlen(text), false, &a, &g, &err)) {
        printf("FAIL long names: %s\n", err.msg);
        (*failed)++;
    } else {
        size_t n = opgen_graph_print(&g, out, sizeof out);
        if (strcmp(out, text) || opgen_graph_parse("p", out, n, false, &a, &h, &err) || !opgen_graph_equal(&g, &h)) {
            printf("FAIL long names do not round-trip\n");
            (*failed)++;
        }
    }
    opgen_arena_release(&a);
}

int main(void) {
    int failed = 0;
    check_long_names(&failed);
    char buf[8192], buf2[8192];
    for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
        opgen_arena a;
        opgen_arena_init_growing(&a);
        opgen_error err = {0};
        opgen_graph g, h;
        if (opgen_graph_parse("t.graph", good[i].text, strlen(good[i].text), good[i].pattern, &a, &g, &err)) {
            printf("FAIL good %zu: %u:%u: %s\n", i, err.line, err.col, err.msg);
            failed++;
        } else {
            size_t n = opgen_graph_print(&g, buf, sizeof buf);
            if (good[i].canonical && strcmp(buf, good[i].canonical)) {
                printf("FAIL good %zu printed as:\n%s", i, buf);
                failed++;
            }
            if (opgen_graph_parse("p.graph", buf, n, good[i].pattern, &a, &h, &err) || !opgen_graph_equal(&g, &h)) {
                printf("FAIL good %zu: parse(print(g)) != g (%s)\n%s", i, err.msg, buf);
                failed++;
            } else {
                opgen_graph_print(&h, buf2, sizeof buf2);
                if (strcmp(buf, buf2)) printf("FAIL good %zu: print not idempotent\n", i), failed++;
            }
            if (opgen_graph_print(&g, buf, 5) != n)
                printf("FAIL good %zu: print length depends on the buffer\n", i), failed++;
        }
        opgen_arena_release(&a);
    }
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        opgen_arena a;
        opgen_arena_init_growing(&a);
        opgen_error err = {0};
        opgen_graph g;
        char got[512];
        if (!opgen_graph_parse("t.graph", bad[i].text, strlen(bad[i].text), bad[i].pattern, &a, &g, &err)) {
            printf("FAIL bad %zu accepted: %s\n", i, bad[i].text);
            failed++;
        } else {
            snprintf(got, sizeof got, "%u:%u: %s", err.line, err.col, err.msg);
            if (strcmp(got, bad[i].expect)) {
                printf("FAIL bad %zu:\n  expected %s\n  got      %s\n", i, bad[i].expect, got);
                failed++;
            }
        }
        /* every prefix of a bad or good text fails cleanly or parses: never a crash */
        for (size_t cut = 0; cut < strlen(bad[i].text); cut++) {
            opgen_error e2 = {0};
            opgen_graph_parse("t.graph", bad[i].text, cut, bad[i].pattern, &a, &g, &e2);
        }
        opgen_arena_release(&a);
    }
    printf("test_graph: %zu accepted, %zu rejected cases, %d failed\n", sizeof good / sizeof *good,
           sizeof bad / sizeof *bad, failed);
    return failed ? 1 : 0;
}
