/* The one CHECK of the C test programs: a failed check prints
 * "FAIL file:line: message" and counts; a test's main reports the counts
 * ("NAME: N passed, N failed") and exits non-zero when failures is not 0. */
#ifndef OPGEN_TEST_CHECK_H
#define OPGEN_TEST_CHECK_H
#include <stdio.h>

static int checks;   /* CHECKs run */
static int failures; /* CHECKs that failed */

/* An expression: it serves as a statement and inside other macros' expressions. */
#define CHECK(cond, ...) \
    ((void)checks++,     \
     (cond) ? (void)0    \
            : (void)(failures++, printf("FAIL %s:%d: ", __FILE__, __LINE__), printf(__VA_ARGS__), printf("\n")))

#endif
