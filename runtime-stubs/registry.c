/* The generated tables and kernel registry of this build (see generated/). */
#define OPGEN_IMPLEMENTATION
#include "opgen/kernel.h"
#include "opgen_registry.h"
#define OPGEN_FALLBACKS_IMPLEMENTATION
#include "opgen_backend.h"
