/* opgen skeleton 0.1.0, checksum b0eaa105d7e452d8: yours once you change it */
/* opgen-rt-cortex_m: opgen's runtime on the command line, with the cortex_m backend's
 * kernels first (per op and dtype; stubs hand calls on to opgen's own). */
#include "opgen/cli.h"
#include "cortex_m_kernels.h"

int main(int argc, char **argv) {
    const opgen_vendor *backends[] = {&opgen_vendor_cortex_m};
    return opgen_rt_main(argc, argv, backends, 1);
}
