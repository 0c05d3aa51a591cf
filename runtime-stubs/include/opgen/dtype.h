/* The dtypes: c10's and ExecuTorch's ScalarType, by number (.pte files use the same
 * numbers). This is opgen's one dtype table, written by hand: the runtime includes
 * it, the generator reads names, sizes and the Edge set from it, and `opgen generate`
 * copies it into opgen_dtypes.h so that generated headers stand alone. Both files
 * have the include guard OPGEN_DTYPES_H: whichever comes first defines the dtypes. */
#ifndef OPGEN_DTYPES_H
#define OPGEN_DTYPES_H
#include <stdint.h>

/* X(name, number, element size in bytes) */
#define OPGEN_DTYPES(X)       \
    X(Byte, 0, 1)             \
    X(Char, 1, 1)             \
    X(Short, 2, 2)            \
    X(Int, 3, 4)              \
    X(Long, 4, 8)             \
    X(Half, 5, 2)             \
    X(Float, 6, 4)            \
    X(Double, 7, 8)           \
    X(ComplexHalf, 8, 4)      \
    X(ComplexFloat, 9, 8)     \
    X(ComplexDouble, 10, 16)  \
    X(Bool, 11, 1)            \
    X(QInt8, 12, 1)           \
    X(QUInt8, 13, 1)          \
    X(QInt32, 14, 4)          \
    X(BFloat16, 15, 2)        \
    X(QUInt4x2, 16, 1)        \
    X(QUInt2x4, 17, 1)        \
    X(Bits1x8, 18, 1)         \
    X(Bits2x4, 19, 1)         \
    X(Bits4x2, 20, 1)         \
    X(Bits8, 21, 1)           \
    X(Bits16, 22, 2)          \
    X(Float8_e5m2, 23, 1)     \
    X(Float8_e4m3fn, 24, 1)   \
    X(Float8_e5m2fnuz, 25, 1) \
    X(Float8_e4m3fnuz, 26, 1) \
    X(UInt16, 27, 2)          \
    X(UInt32, 28, 4)          \
    X(UInt64, 29, 8)

typedef enum opgen_dtype {
#define OPGEN_DTYPE_ENUM(name, num, size) OPGEN_DTYPE_##name = num,
    OPGEN_DTYPES(OPGEN_DTYPE_ENUM)
#undef OPGEN_DTYPE_ENUM
        OPGEN_DTYPE_COUNT = 30
} opgen_dtype;

/* A set of dtypes: bit n stands for dtype n. */
typedef uint32_t opgen_dtype_set;
#define OPGEN_DTYPE_BIT(d) ((opgen_dtype_set)1u << (d))

/* The 13 dtypes of the Edge dialect: what an unconstrained tensor may carry
 * (Byte Char Short Int Long Half Float Double ComplexFloat ComplexDouble Bool
 * BFloat16 UInt16). */
#define OPGEN_EDGE_DTYPES ((opgen_dtype_set)0x08008effu)

#endif /* OPGEN_DTYPES_H */
