/* Phase planes, shared by convolution (conv.c: padded with zeros) and max
 * pooling (pool.c: padded with -infinity): a plane x of H x W (rows hs apart,
 * columns ws) padded by p0 rows and p1 columns of PAD on each side, split by
 * stride (s0, s1) into s0 * s1 planes of Hq x Wq at dst: plane (py, px) holds the
 * padded input's rows py, py + s0, ... and columns px, px + s1, ..., PAD past its
 * edges. A tap of a strided window over every output at once is then one plane
 * read from an offset: one long vector loop, no border cases, no gathers. */
#ifndef OPGEN_KERNELS_PHASES_H
#define OPGEN_KERNELS_PHASES_H
#include <stdint.h>

#define OPGEN_FILL_PHASES(T, X, HS, WS, H, W, S0, S1, P0, P1, HQ, WQ, PAD, DST)                     \
    for (int64_t py_ = 0; py_ < (S0); py_++)                                                        \
        for (int64_t px_ = 0; px_ < (S1); px_++) {                                                  \
            T *plane_ = (DST) + (py_ * (S1) + px_) * (HQ) * (WQ);                                   \
            /* the plane's columns inside the input: [lo_, hi_) */                                  \
            int64_t lo_ = px_ >= (P1) ? 0 : ((P1)-px_ + (S1)-1) / (S1),                             \
                    hi_ = (W) + (P1)-px_ <= 0 ? 0 : ((W) + (P1)-px_ + (S1)-1) / (S1);               \
            if (hi_ > (WQ)) hi_ = (WQ);                                                             \
            if (lo_ > hi_) lo_ = hi_;                                                               \
            for (int64_t r_ = 0; r_ < (HQ); r_++) {                                                 \
                T *restrict d_ = plane_ + r_ * (WQ);                                                \
                int64_t iy_ = r_ * (S0) + py_ - (P0);                                               \
                if (iy_ < 0 || iy_ >= (H)) {                                                        \
                    for (int64_t q_ = 0; q_ < (WQ); q_++) d_[q_] = (PAD);                           \
                    continue;                                                                       \
                }                                                                                   \
                const T *restrict src_ = (X) + iy_ * (HS) + (px_ - (P1)) * (WS);                    \
                for (int64_t q_ = 0; q_ < lo_; q_++) d_[q_] = (PAD);                                \
                if ((S1) == 1 && (WS) == 1) /* constant strides: short rows are loops, not calls */ \
                    for (int64_t q_ = lo_; q_ < hi_; q_++) d_[q_] = src_[q_];                       \
                else if ((S1) == 2 && (WS) == 1)                                                    \
                    for (int64_t q_ = lo_; q_ < hi_; q_++) d_[q_] = src_[2 * q_];                   \
                else                                                                                \
                    for (int64_t q_ = lo_; q_ < hi_; q_++) d_[q_] = src_[q_ * (S1) * (WS)];         \
                for (int64_t q_ = hi_; q_ < (WQ); q_++) d_[q_] = (PAD);                             \
            }                                                                                       \
        }

/* Where a tap displaced (dy, dx) from its window's corner starts in the phase
 * planes of OPGEN_FILL_PHASES: its plane (dy % s0, dx % s1), from row dy / s0 and
 * column dx / s1 on. */
static inline int64_t opgen_phase_offset(int64_t dy, int64_t dx, int64_t s0, int64_t s1, int64_t hq, int64_t wq) {
    return ((dy % s0) * s1 + dx % s1) * hq * wq + dy / s0 * wq + dx / s1;
}

/* The direct paths' other way round (no planes: a row read where it lies, the
 * lanes past its ends masked): the lanes e < 16 of a load from column c0 that
 * lie in [0, W), as a bit mask. */
static inline uint32_t opgen_lanes_inside(int64_t c0, int64_t W) {
    int64_t a = c0 < 0 ? -c0 : 0, b = W - c0 < 16 ? W - c0 : 16;
    return b <= a ? 0 : ((((uint32_t)1 << b) - 1) & ~(((uint32_t)1 << a) - 1));
}
#endif
