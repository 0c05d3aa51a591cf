/* c10 / ExecuTorch ScalarType: names and numbers (they agree, and .pte files use them). */
#ifndef OG_DTYPE_H
#define OG_DTYPE_H
#include <stddef.h>
#include <stdint.h>

/* X(name, number) */
#define OG_SCALAR_TYPES(X) \
    X(Byte, 0) X(Char, 1) X(Short, 2) X(Int, 3) X(Long, 4) X(Half, 5) X(Float, 6) X(Double, 7) X(ComplexHalf, 8) \
    X(ComplexFloat, 9) X(ComplexDouble, 10) X(Bool, 11) X(QInt8, 12) X(QUInt8, 13) X(QInt32, 14) X(BFloat16, 15) \
    X(QUInt4x2, 16) X(QUInt2x4, 17) X(Bits1x8, 18) X(Bits2x4, 19) X(Bits4x2, 20) X(Bits8, 21) X(Bits16, 22) \
    X(Float8_e5m2, 23) X(Float8_e4m3fn, 24) X(Float8_e5m2fnuz, 25) X(Float8_e4m3fnuz, 26) X(UInt16, 27) X(UInt32, 28) \
    X(UInt64, 29)

#define OG_DTYPE_COUNT 30

/* A set of dtypes: bit n is ScalarType n. */
typedef uint32_t og_dtset;

/* The 13 dtypes of the Edge dialect: what an op absent from edge.yaml accepts. */
#define OG_EDGE_DTYPES                                                                                                   \
    ((og_dtset)((1u << 11) | (1u << 0) | (1u << 1) | (1u << 2) | (1u << 3) | (1u << 4) | (1u << 5) | (1u << 15) | \
                (1u << 6) | (1u << 7) | (1u << 27) | (1u << 9) | (1u << 10)))

/* Number of the dtype called `name` (n bytes), or -1. */
int og_dtype_parse(const char *name, size_t n);
const char *og_dtype_name(int dtype);
/* Element size in bytes. */
int og_dtype_size(int dtype);
#endif
