/* The YAML layer: YAML 1.1 scalar resolution as PyYAML's SafeLoader does it,
 * positions, and the loader's refusals. */
#include "load.h"
#include <stdio.h>
#include <string.h>

static const struct {
    const char *text; /* the value, as written after "- " */
    const char *type; /* str null bool:1 bool:0 int float timestamp, or "error" */
} cases[] = {
    {"True", "bool:1"},
    {"true", "bool:1"},
    {"TRUE", "bool:1"},
    {"yes", "bool:1"},
    {"Yes", "bool:1"},
    {"YES", "bool:1"},
    {"on", "bool:1"},
    {"On", "bool:1"},
    {"ON", "bool:1"},
    {"False", "bool:0"},
    {"false", "bool:0"},
    {"FALSE", "bool:0"},
    {"no", "bool:0"},
    {"No", "bool:0"},
    {"NO", "bool:0"},
    {"off", "bool:0"},
    {"Off", "bool:0"},
    {"OFF", "bool:0"},
    {"y", "str"},
    {"n", "str"},
    {"tRUE", "str"},
    {"yEs", "str"},
    {"~", "null"},
    {"null", "null"},
    {"Null", "null"},
    {"NULL", "null"},
    {"", "null"},
    {"nULL", "str"},
    {"0", "int"},
    {"-0", "int"},
    {"+12", "int"},
    {"1_000", "int"},
    {"0x1F", "int"},
    {"0b101", "int"},
    {"017", "int"},
    {"08", "str"},
    {"0o17", "str"},
    {"190:20:30", "int"},
    {"0x", "str"},
    {"0b", "str"},
    {"1.0", "float"},
    {"-1.5", "float"},
    {"1.", "float"},
    {".5", "float"},
    {"1.0e+5", "float"},
    {"1.0e5", "str"},
    {"1e5", "str"},
    {"1e-05", "str"},
    {".inf", "float"},
    {"-.inf", "float"},
    {"+.INF", "float"},
    {".nan", "float"},
    {".NaN", "float"},
    {"-.nan", "str"},
    {"190:20:30.15", "float"},
    {"inf", "str"},
    {"nan", "str"},
    {"2001-12-14", "timestamp"},
    {"2001-12-14t21:59:43.10-05:00", "timestamp"},
    {"\"1\"", "str"},
    {"'true'", "str"},
    {"!!str 1", "str"},
    {"!!int 7", "int"},
    {"!!bool yes", "bool:1"},
    {"!!int x", "error"},
    {"!foo x", "error"},
    {"=", "error"},
    {"<<", "error"},
    {"foo(Tensor self) -> Tensor", "str"},
    {"CPU, CUDA", "str"},
};

static int check_positions(void) {
    /* columns inside a plain and a single-quoted scalar map 1:1 onto the source */
    static const char src[] = "- func: foo(Tensor self) -> Tensor\n- func: 'bar(int x) -> ()'\n- a: [1, {b: c}]\n";
    arena a;
    arena_init(&a);
    diag d;
    diag_init(&d, stderr);
    ydoc doc;
    int bad = 0;
    if (!og_yaml_load_buffer(&a, &d, "t.yaml", src, sizeof src - 1, &doc)) return 1;
    const ynode *f0 = ymap_get(doc.root->kids[0], "func"), *f1 = ymap_get(doc.root->kids[1], "func");
    unsigned line, col;
    ynode_pos(f0, 4, &line, &col);
    if (line != 1 || col != 13) printf("FAIL plain position: %u:%u\n", line, col), bad++;
    ynode_pos(f1, 4, &line, &col);
    if (line != 2 || col != 14) printf("FAIL quoted position: %u:%u\n", line, col), bad++;
    const ynode *m = doc.root->kids[2];
    if (m->line != 3 || m->col != 3) printf("FAIL mapping position: %u:%u\n", m->line, m->col), bad++;
    arena_free(&a);
    return bad;
}

static int check_refusals(void) {
    static const char *const bad_docs[] = {"- a\n---\n- b\n", "- [1, 2\n", "a: 1\na: 2\n", "- *nope\n", "? [a]\n: b\n"};
    int bad = 0;
    for (size_t i = 0; i < sizeof bad_docs / sizeof *bad_docs; i++) {
        arena a;
        arena_init(&a);
        diag d;
        diag_init(&d, NULL);
        ydoc doc;
        if (og_yaml_load_buffer(&a, &d, "t.yaml", bad_docs[i], strlen(bad_docs[i]), &doc) || d.errors == 0)
            printf("FAIL accepted bad YAML: %s\n", bad_docs[i]), bad++;
        arena_free(&a);
    }
    /* nesting deeper than the limit is an error, not a stack overflow */
    char deep[400];
    memset(deep, '[', 300);
    deep[300] = 0;
    arena a;
    arena_init(&a);
    diag d;
    diag_init(&d, NULL);
    ydoc doc;
    if (og_yaml_load_buffer(&a, &d, "t.yaml", deep, 300, &doc)) printf("FAIL accepted deep nesting\n"), bad++;
    arena_free(&a);
    return bad;
}

int main(void) {
    unsigned n = sizeof cases / sizeof *cases, failed = 0;
    for (unsigned i = 0; i < n; i++) {
        char src[200];
        snprintf(src, sizeof src, "- %s\n", cases[i].text);
        arena a;
        arena_init(&a);
        diag d;
        diag_init(&d, NULL);
        ydoc doc;
        const char *got;
        char buf[32];
        if (!og_yaml_load_buffer(&a, &d, "t.yaml", src, strlen(src), &doc) || !doc.root || doc.root->n != 1) {
            got = "error";
        } else {
            const ynode *v = doc.root->kids[0];
            static const char *const names[] = {"str", "null", "bool", "int", "float", "timestamp"};
            if (v->type == YVAL_BOOL)
                snprintf(buf, sizeof buf, "bool:%d", v->boolean);
            else
                snprintf(buf, sizeof buf, "%s", names[v->type]);
            got = buf;
        }
        if (strcmp(got, cases[i].type)) {
            printf("FAIL '%s': expected %s, got %s\n", cases[i].text, cases[i].type, got);
            failed++;
        }
        arena_free(&a);
    }
    failed += (unsigned)check_positions();
    failed += (unsigned)check_refusals();
    printf("test_yaml: %u scalar cases, %u failed\n", n, failed);
    return failed ? 1 : 0;
}
