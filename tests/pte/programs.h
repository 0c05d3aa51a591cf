/* Programs the tests build with the suite's writer (ptew.h): test_method runs
 * them through the C API, make_programs writes them as .pte files (with inputs
 * and expected outputs) for the command-line tests. Each fills caller storage. */
#ifndef PTE_PROGRAMS_H
#define PTE_PROGRAMS_H
#include "ptew.h"

enum { F32 = 6, F64 = 7, I64 = 4, B8 = 11 };

extern const float c23[6]; /* add_program's constant */
/* forward(x f32[2,3]) = x + 2 * c23: a constant (inline with `legacy`), a planned input and output. */
pw_program add_program(pw_value *v, pw_plan *pl, bool legacy);
/* Every EValue kind, each consumed by a kernel or by the delegate "TestBackend":
 * forward(x f32[2,3]) = (gelu(x, 'tanh'), sum(x, [-1]), hardtanh(x, -0.5, 0.5),
 * cat([x, hardtanh], 0), the delegate's output). */
pw_program kinds_program(pw_value *v, pw_plan *pl); /* v: 20 */
/* forward(x f32[3], cond b8[3]) = x * 2 if all of cond, else x - 1: JumpFalseCall,
 * MoveCall, FreeCall; instruction 3 jumps to jump_to (7: the end). */
pw_program control_program(pw_value *v, pw_plan *pl, pw_instr *code, int32_t jump_to); /* v: 9, code: 7 */
pw_program two_methods_program(pw_value *fv, pw_value *dv, pw_plan *pls);              /* 4, 6, 2 */
extern const float channels_last_w[2];                                                 /* its weights */
pw_program channels_last_program(pw_value *v, pw_plan *pl);                            /* v: 14 */
/* forward(x f32[3]) = acc + x, acc a mutable buffer written back with copy_. */
pw_program state_program(pw_value *v, pw_plan *pl); /* v: 6 */
/* forward(k f32[2,2], pos i64[2]) = t + t, where t = index_put(cache, [pos], k),
 * cache f32[3,2] a mutable buffer written back with copy_ (an exported KV cache's
 * update); or cache + t before the copy back, or t + t after it. */
enum { CACHE_IN_PLACE, CACHE_READ_BETWEEN, CACHE_READ_AFTER };
pw_program cache_program(pw_value *v, pw_plan *pl, int variant); /* v: 10 */
/* forward(x f32[2,3]) = (r + x, r6 + r6, ...), r = expand_copy(x + x) to the
 * same sizes (an identity copy), r6 a view planned at r's bytes; with another
 * value planned at the copy's source after it, r returned too, half of r's bytes
 * read, or r's bytes reused after the reads (see programs.c). */
enum { COPY_ELIDED, COPY_SRC_OVERWRITTEN, COPY_RETURNED, COPY_PART_READ, COPY_BYTES_REUSED };
pw_program copy_program(pw_value *v, pw_plan *pl, int variant); /* v: 18 */
/* forward(x f32[3], a = 1.5 fixed at export, n Null) = x * a + n. */
pw_program scalars_program(pw_value *v, pw_plan *pl); /* v: 6 */
/* forward(x f32[<=4] dynamic, n Null) = (relu(x), full([n], 1.5)). */
pw_program dynamic_program(pw_value *v, pw_plan *pl); /* v: 6 */
/* forward(x f32[3]) = where(c, x, x), c a Bool constant holding a 2. */
pw_program bad_bool_program(pw_value *v, pw_plan *pl); /* v: 3 */
#endif
