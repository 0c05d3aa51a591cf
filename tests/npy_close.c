/* Compares two .npy files for the test scripts: opgen-rt compare (same dtype and
 * shape, |expected - actual| <= atol + rtol * |expected|), with the tolerances
 * given by position. usage: npy_close EXPECTED ACTUAL [RTOL [ATOL]]
 * (exit 0 close, 1 not or unreadable, 2 bad usage) */
#include "opgen/cli.h"

int main(int argc, char **argv) {
    if (argc < 3 || argc > 5) return 2;
    char *args[] = {"opgen-rt", "compare",
                    argv[1],    argv[2],
                    "--rtol",   argc > 3 ? argv[3] : "1e-5",
                    "--atol",   argc > 4 ? argv[4] : "1e-6",
                    NULL};
    return opgen_rt_main(8, args, NULL, 0);
}
