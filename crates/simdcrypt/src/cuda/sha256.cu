// SHA-256 of 64-byte messages, one message per thread: the blocks of hashtree's
// `sha256(out, in, count)` contract and the layers of SSZ Merkle trees (a parent is the
// SHA-256 of its two 32-byte children). Every message is one data block and the same padding
// block (0x80, zeros, the bit length 512), whose message schedule is therefore the same for
// every thread and is computed by the compiler from constants.
//
// The round constants are indexed by the round only, the same address in every thread, so
// they stay in constant memory (a broadcast) or become immediates once the rounds unroll.

static __constant__ const sc_u32 sc_sha256_k[64] = {
    0x428a2f98u, 0x71374491u, 0xb5c0fbcfu, 0xe9b5dba5u, 0x3956c25bu, 0x59f111f1u, 0x923f82a4u, 0xab1c5ed5u,
    0xd807aa98u, 0x12835b01u, 0x243185beu, 0x550c7dc3u, 0x72be5d74u, 0x80deb1feu, 0x9bdc06a7u, 0xc19bf174u,
    0xe49b69c1u, 0xefbe4786u, 0x0fc19dc6u, 0x240ca1ccu, 0x2de92c6fu, 0x4a7484aau, 0x5cb0a9dcu, 0x76f988dau,
    0x983e5152u, 0xa831c66du, 0xb00327c8u, 0xbf597fc7u, 0xc6e00bf3u, 0xd5a79147u, 0x06ca6351u, 0x14292967u,
    0x27b70a85u, 0x2e1b2138u, 0x4d2c6dfcu, 0x53380d13u, 0x650a7354u, 0x766a0abbu, 0x81c2c92eu, 0x92722c85u,
    0xa2bfe8a1u, 0xa81a664bu, 0xc24b8b70u, 0xc76c51a3u, 0xd192e819u, 0xd6990624u, 0xf40e3585u, 0x106aa070u,
    0x19a4c116u, 0x1e376c08u, 0x2748774cu, 0x34b0bcb5u, 0x391c0cb3u, 0x4ed8aa4au, 0x5b9cca4fu, 0x682e6ff3u,
    0x748f82eeu, 0x78a5636fu, 0x84c87814u, 0x8cc70208u, 0x90befffau, 0xa4506cebu, 0xbef9a3f7u, 0xc67178f2u,
};

static __constant__ const sc_u32 sc_sha256_iv[8] = {
    0x6a09e667u, 0xbb67ae85u, 0x3c6ef372u, 0xa54ff53au, 0x510e527fu, 0x9b05688cu, 0x1f83d9abu, 0x5be0cd19u,
};

// One compression of the 16-word block `w` (big-endian words, overwritten: the message
// schedule is kept in these 16 words) into `state`.
__device__ __forceinline__ void sc_sha256_compress(sc_u32* state, sc_u32* w) {
    sc_u32 a = state[0], b = state[1], c = state[2], d = state[3];
    sc_u32 e = state[4], f = state[5], g = state[6], h = state[7];
SC_UNROLL
    for (int i = 0; i < 64; i++) {
        sc_u32 wi;
        if (i < 16) {
            wi = w[i];
        } else {
            sc_u32 w15 = w[(i - 15) & 15], w2 = w[(i - 2) & 15];
            sc_u32 s0 = sc_rotr32(w15, 7) ^ sc_rotr32(w15, 18) ^ (w15 >> 3);
            sc_u32 s1 = sc_rotr32(w2, 17) ^ sc_rotr32(w2, 19) ^ (w2 >> 10);
            wi = w[i & 15] + s0 + w[(i - 7) & 15] + s1;
            w[i & 15] = wi;
        }
        sc_u32 t1 = h + (sc_rotr32(e, 6) ^ sc_rotr32(e, 11) ^ sc_rotr32(e, 25)) + ((e & f) ^ (~e & g)) + sc_sha256_k[i] + wi;
        sc_u32 t2 = (sc_rotr32(a, 2) ^ sc_rotr32(a, 13) ^ sc_rotr32(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
        h = g;
        g = f;
        f = e;
        e = d + t1;
        d = c;
        c = b;
        b = a;
        a = t1 + t2;
    }
    state[0] += a;
    state[1] += b;
    state[2] += c;
    state[3] += d;
    state[4] += e;
    state[5] += f;
    state[6] += g;
    state[7] += h;
}

// SHA-256 of the 64-byte message `left[0..32] || right[0..32]` into `out[0..32]` (`left + 32 ==
// right` for a plain 64-byte block).
__device__ __forceinline__ void sc_sha256_pair(const sc_u8* left, const sc_u8* right, sc_u8* out) {
    sc_u32 w[16];
    sc_load_words_le(left, w, 8);
    sc_load_words_le(right, w + 8, 8);
SC_UNROLL
    for (int i = 0; i < 16; i++) w[i] = sc_bswap32(w[i]);
    sc_u32 state[8];
SC_UNROLL
    for (int i = 0; i < 8; i++) state[i] = sc_sha256_iv[i];
    sc_sha256_compress(state, w);
    // The padding block of a 64-byte message.
SC_UNROLL
    for (int i = 0; i < 16; i++) w[i] = 0;
    w[0] = 0x80000000u;
    w[15] = 512;
    sc_sha256_compress(state, w);
SC_UNROLL
    for (int i = 0; i < 8; i++) sc_store_be32(out + 4 * i, state[i]);
}

// The SHA-256 digests of `count` 64-byte blocks: thread i reads in[64 i .. 64 i + 64] and
// writes out[32 i .. 32 i + 32].
extern "C" __global__ void __launch_bounds__(SC_MAX_BLOCK) sc_sha256_blocks(const sc_u8* in, sc_u64 count, sc_u8* out) {
    sc_u64 i = sc_thread_index();
    if (i >= count) return;
    sc_sha256_pair(in + 64 * i, in + 64 * i + 32, out + 32 * i);
}

// One layer of a Merkle tree: the `(count + 1) / 2` parents of `count` 32-byte nodes. Thread i
// reads nodes 2i and 2i + 1 (in[64 i .. 64 i + 64]) and writes parent i (out[32 i .. 32 i + 32]);
// when `count` is odd the last parent pairs the last node with the 32 bytes at `pad` (the
// zero hash of the layer's height).
extern "C" __global__ void __launch_bounds__(SC_MAX_BLOCK) sc_sha256_layer(const sc_u8* in, sc_u64 count, sc_u8* out, const sc_u8* pad) {
    sc_u64 i = sc_thread_index();
    if (2 * i >= count) return;
    const sc_u8* right = 2 * i + 1 < count ? in + 64 * i + 32 : pad;
    sc_sha256_pair(in + 64 * i, right, out + 32 * i);
}
