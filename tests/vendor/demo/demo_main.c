/* opgen skeleton 0.1.0, checksum af8fd9e27fb3d7c0: yours once you change it */
/* opgen-rt-demo: opgen's runtime on the command line, with the demo backend's
 * kernels first (per op and dtype; stubs hand calls on to opgen's own). */
#include "opgen/cli.h"
#include "demo_kernels.h"

int main(int argc, char **argv) {
    const opgen_vendor *backends[] = {&opgen_vendor_demo};
    return opgen_rt_main(argc, argv, backends, 1);
}
