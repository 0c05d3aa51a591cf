/* The schema module's internals shared by its parts (schema.c: parsing and
 * semantics; schema_print.c: printing). Not a public header: the API is schema.h. */
#ifndef OPGEN_SCHEMA_IMPL_H
#define OPGEN_SCHEMA_IMPL_H
#include "schema.h"
#include "config.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Base type names and their lengths, by og_basety. */
static const char *const basety_names[] = {
#define OG_BT_NAME(n) #n,
    OG_BASE_TYPES(OG_BT_NAME)
#undef OG_BT_NAME
};

static const unsigned char basety_lens[] = {
#define OG_BT_LEN(x) sizeof #x - 1,
    OG_BASE_TYPES(OG_BT_LEN)
#undef OG_BT_LEN
};

char *og_s_put_arg(char *p, const og_arg *x);
char *og_s_put_base_name(char *p, const og_opname *n);
char *og_s_put_schema(char *p, const og_schema *s);
size_t og_s_schema_max_len(const og_schema *s);

#endif
