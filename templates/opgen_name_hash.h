/* The operator-name hash of opgen_ops.h. The generator compiles this file to
 * build the perfect hash and pastes it into opgen_ops.h, where opgen_op_lookup
 * uses it: one definition, so the two cannot disagree. */
/* The generated perfect hash: a name is hashed once (64-bit FNV-1a); the bucket
 * (seed 0) and the slot (its bucket's seed) each remix that with murmur3's
 * 64-bit finalizer. */
static inline uint64_t opgen_name_hash(const char *s) {
    uint64_t h = UINT64_C(14695981039346656037);
    while (*s) {
        h ^= (unsigned char)*s++;
        h *= UINT64_C(1099511628211);
    }
    return h;
}
static inline uint32_t opgen_hash_mix(uint64_t h, uint32_t seed) {
    h ^= seed * UINT64_C(0x9e3779b97f4a7c15);
    h ^= h >> 33;
    h *= UINT64_C(0xff51afd7ed558ccd);
    h ^= h >> 33;
    h *= UINT64_C(0xc4ceb9fe1a85ec53);
    h ^= h >> 33;
    return (uint32_t)h;
}
