/* opgen configuration: every tunable in one place (flatcc style). */
#ifndef OG_CONFIG_H
#define OG_CONFIG_H

#define OPGEN_VERSION_MAJOR 0
#define OPGEN_VERSION_MINOR 1
#define OPGEN_VERSION_PATCH 0
#define OPGEN_VERSION_STRING "0.1.0"

/* Errors reported before a run gives up (the rest are counted, not shown). */
#ifndef OPGEN_MAX_ERRORS
#define OPGEN_MAX_ERRORS 20
#endif

/* Tags a tags.yaml may define; torchgen's files have about 20. */
#ifndef OPGEN_MAX_TAGS
#define OPGEN_MAX_TAGS 128
#endif

/* Deepest YAML nesting accepted (bad input must not exhaust the stack). */
#ifndef OPGEN_MAX_YAML_DEPTH
#define OPGEN_MAX_YAML_DEPTH 64
#endif

/* Deepest type nesting accepted in a schema (int[][]?... ). */
#ifndef OPGEN_MAX_TYPE_DEPTH
#define OPGEN_MAX_TYPE_DEPTH 16
#endif

/* Bytes an output file is streamed through (its writes and its comparison with
 * the file it replaces go by this much). */
#ifndef OPGEN_OUTPUT_BUFFER
#define OPGEN_OUTPUT_BUFFER (64 * 1024)
#endif

/* Address space reserved for a session's model (touched pages only become
 * memory; 0: the model grows in malloc'd blocks). */
#ifndef OPGEN_ARENA_RESERVE_MIB
#define OPGEN_ARENA_RESERVE_MIB 1024
#endif

#endif
