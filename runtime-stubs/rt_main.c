/* opgen-rt: opgen's runtime on the command line, with opgen's own kernels. */
#include "opgen/cli.h"

int main(int argc, char **argv) { return opgen_rt_main(argc, argv, NULL, 0); }
