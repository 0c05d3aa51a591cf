/* The opgen-rt command line (run, print, lower, decompose, verify) as a function:
 * opgen-rt is `opgen_rt_main(argc, argv, NULL, 0)`; a backend's runner passes its
 * kernel tables, which then win per (op, dtype). */
#ifndef OPGEN_CLI_H
#define OPGEN_CLI_H
#include "opgen/vendor.h"

#ifdef __cplusplus
extern "C" {
#endif

int opgen_rt_main(int argc, char **argv, const opgen_vendor *const *vendors, int nvendors);

#ifdef __cplusplus
}
#endif
#endif
