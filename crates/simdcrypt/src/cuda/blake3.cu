// BLAKE3 on a device: batches of messages, one message per thread, and one large input, one
// chunk per thread and then one parent per thread a tree layer at a time.
//
// A message hashed by one thread goes through BLAKE3's incremental algorithm: chunk chaining
// values pushed on a stack and merged as the chunk count's trailing zero bits say. The stack
// is per thread (local memory, reserved for every resident thread of the GPU), so it is kept
// short: sc_blake3_many hashes messages of at most SC_BLAKE3_MANY_MAX_LEN bytes and skips
// longer ones, which the host hashes with the one-input path (one chunk per thread). The one-input path pairs adjacent chaining values layer by layer and carries an odd
// last one up unchanged; that builds exactly BLAKE3's tree, whose left subtrees are the
// largest powers of two chunks.
//
// Keys and domain flags come from the host: the key words (the IV for the plain hash, the key,
// or the context key of key derivation, computed on the host) at a device address, and the
// mode's flag (0, KEYED_HASH or DERIVE_KEY_MATERIAL).

#define SC_BLAKE3_CHUNK_START 1u
#define SC_BLAKE3_CHUNK_END 2u
#define SC_BLAKE3_PARENT 4u
#define SC_BLAKE3_ROOT 8u
#define SC_BLAKE3_CHUNK_LEN 1024ull
// 2^8 chunks: 256 KiB. A thread's stack holds popcount(chunks - 1) <= 8 chaining values,
// 256 bytes, instead of the 1,728 bytes of BLAKE3's largest inputs.
#define SC_BLAKE3_MANY_DEPTH 8
#define SC_BLAKE3_MANY_MAX_LEN (SC_BLAKE3_CHUNK_LEN << SC_BLAKE3_MANY_DEPTH)

static __constant__ const sc_u32 sc_blake3_iv[8] = {
    0x6A09E667u, 0xBB67AE85u, 0x3C6EF372u, 0xA54FF53Au, 0x510E527Fu, 0x9B05688Cu, 0x1F83D9ABu, 0x5BE0CD19u,
};

__device__ __forceinline__ void sc_blake3_g(sc_u32* v, int a, int b, int c, int d, sc_u32 x, sc_u32 y) {
    v[a] = v[a] + v[b] + x;
    v[d] = sc_rotr32(v[d] ^ v[a], 16);
    v[c] = v[c] + v[d];
    v[b] = sc_rotr32(v[b] ^ v[c], 12);
    v[a] = v[a] + v[b] + y;
    v[d] = sc_rotr32(v[d] ^ v[a], 8);
    v[c] = v[c] + v[d];
    v[b] = sc_rotr32(v[b] ^ v[c], 7);
}

// The compression function: all 16 output words (the first 8 are the new chaining value, all
// 16 an output block of the extendable output).
__device__ __forceinline__ void sc_blake3_compress(const sc_u32* cv, const sc_u32* block, sc_u64 counter,
                                                   sc_u32 block_len, sc_u32 flags, sc_u32* out) {
    sc_u32 v[16] = {
        cv[0], cv[1], cv[2], cv[3], cv[4], cv[5], cv[6], cv[7],
        sc_blake3_iv[0], sc_blake3_iv[1], sc_blake3_iv[2], sc_blake3_iv[3],
        (sc_u32)counter, (sc_u32)(counter >> 32), block_len, flags,
    };
    sc_u32 m[16];
SC_UNROLL
    for (int i = 0; i < 16; i++) m[i] = block[i];
SC_UNROLL
    for (int round = 0; round < 7; round++) {
        sc_blake3_g(v, 0, 4, 8, 12, m[0], m[1]);
        sc_blake3_g(v, 1, 5, 9, 13, m[2], m[3]);
        sc_blake3_g(v, 2, 6, 10, 14, m[4], m[5]);
        sc_blake3_g(v, 3, 7, 11, 15, m[6], m[7]);
        sc_blake3_g(v, 0, 5, 10, 15, m[8], m[9]);
        sc_blake3_g(v, 1, 6, 11, 12, m[10], m[11]);
        sc_blake3_g(v, 2, 7, 8, 13, m[12], m[13]);
        sc_blake3_g(v, 3, 4, 9, 14, m[14], m[15]);
        if (round < 6) {
            // BLAKE3's message permutation; unrolled, it only renames registers.
            sc_u32 p[16] = {m[2], m[6], m[3], m[10], m[7], m[0], m[4], m[13],
                            m[1], m[11], m[12], m[5], m[9], m[14], m[15], m[8]};
SC_UNROLL
            for (int i = 0; i < 16; i++) m[i] = p[i];
        }
    }
SC_UNROLL
    for (int i = 0; i < 8; i++) {
        out[i] = v[i] ^ v[i + 8];
        out[i + 8] = v[i + 8] ^ cv[i];
    }
}

// What the last compression of a node needs: from it come the node's chaining value or, with
// the ROOT flag, any number of output blocks.
struct sc_blake3_output {
    sc_u32 cv[8];
    sc_u32 block[16];
    sc_u64 counter;
    sc_u32 block_len;
    sc_u32 flags;
};

__device__ __forceinline__ void sc_blake3_output_cv(const sc_blake3_output* o, sc_u32* cv) {
    sc_u32 words[16];
    sc_blake3_compress(o->cv, o->block, o->counter, o->block_len, o->flags, words);
SC_UNROLL
    for (int i = 0; i < 8; i++) cv[i] = words[i];
}

// Output block `t` of the root `o`: min(64, len) bytes to `out`.
__device__ __forceinline__ void sc_blake3_root_block(const sc_blake3_output* o, sc_u64 t, sc_u8* out, sc_u64 len) {
    sc_u32 words[16];
    sc_blake3_compress(o->cv, o->block, t, o->block_len, o->flags | SC_BLAKE3_ROOT, words);
    sc_u8 bytes[64];
SC_UNROLL
    for (int i = 0; i < 16; i++) sc_store_le32(bytes + 4 * i, words[i]);
    sc_u64 n = len < 64 ? len : 64;
    for (sc_u64 i = 0; i < n; i++) out[i] = bytes[i];
}

// The first `len` (<= 64) bytes at `p` as 16 little-endian words, zero-padded.
__device__ __forceinline__ void sc_blake3_load_block(const sc_u8* p, sc_u64 len, sc_u32* block) {
    if (len == 64) {
        sc_load_words_le(p, block, 16);
        return;
    }
    sc_u8 bytes[64];
    for (int i = 0; i < 64; i++) bytes[i] = (sc_u64)i < len ? p[i] : 0;
SC_UNROLL
    for (int i = 0; i < 16; i++) block[i] = sc_load_le32(bytes + 4 * i);
}

// Chunk `counter` (the `len` <= 1024 bytes at `p`, at least one byte unless it is the only
// chunk): every block but the last compressed, the last left in `o`.
__device__ void sc_blake3_chunk(const sc_u8* p, sc_u64 len, sc_u64 counter, const sc_u32* key, sc_u32 flags,
                                sc_blake3_output* o) {
    sc_u32 cv[8];
SC_UNROLL
    for (int i = 0; i < 8; i++) cv[i] = key[i];
    sc_u64 blocks = len == 0 ? 1 : (len + 63) / 64;
    sc_u32 start = SC_BLAKE3_CHUNK_START;
    for (sc_u64 b = 0; b + 1 < blocks; b++) {
        sc_u32 block[16];
        sc_u32 words[16];
        sc_blake3_load_block(p + 64 * b, 64, block);
        sc_blake3_compress(cv, block, counter, 64, flags | start, words);
SC_UNROLL
        for (int i = 0; i < 8; i++) cv[i] = words[i];
        start = 0;
    }
    sc_u64 last = len - 64 * (blocks - 1);
SC_UNROLL
    for (int i = 0; i < 8; i++) o->cv[i] = cv[i];
    sc_blake3_load_block(p + 64 * (blocks - 1), last, o->block);
    o->counter = counter;
    o->block_len = (sc_u32)last;
    o->flags = flags | start | SC_BLAKE3_CHUNK_END;
}

// The parent node over two chaining values.
__device__ __forceinline__ void sc_blake3_parent(const sc_u32* left, const sc_u32* right, const sc_u32* key, sc_u32 flags,
                                                 sc_blake3_output* o) {
SC_UNROLL
    for (int i = 0; i < 8; i++) {
        o->cv[i] = key[i];
        o->block[i] = left[i];
        o->block[i + 8] = right[i];
    }
    o->counter = 0;
    o->block_len = 64;
    o->flags = flags | SC_BLAKE3_PARENT;
}

__device__ __forceinline__ void sc_blake3_load_cv(const sc_u8* p, sc_u32* cv) {
    sc_load_words_le(p, cv, 8);
}

__device__ __forceinline__ void sc_blake3_store_cv(sc_u8* p, const sc_u32* cv) {
SC_UNROLL
    for (int i = 0; i < 8; i++) sc_store_le32(p + 4 * i, cv[i]);
}

// The root output of the `len` bytes at `p`, hashed by this thread alone; `len` is at most
// SC_BLAKE3_MANY_MAX_LEN.
__device__ void sc_blake3_message(const sc_u8* p, sc_u64 len, const sc_u32* key, sc_u32 flags, sc_blake3_output* o) {
    sc_u32 stack[SC_BLAKE3_MANY_DEPTH][8];
    int depth = 0;
    sc_u64 chunks = len == 0 ? 1 : (len + SC_BLAKE3_CHUNK_LEN - 1) / SC_BLAKE3_CHUNK_LEN;
    for (sc_u64 c = 0; c + 1 < chunks; c++) {
        sc_u32 cv[8];
        sc_blake3_chunk(p + c * SC_BLAKE3_CHUNK_LEN, SC_BLAKE3_CHUNK_LEN, c, key, flags, o);
        sc_blake3_output_cv(o, cv);
        // Merge completed subtrees: as many as the chunk count has trailing zero bits.
        for (sc_u64 total = c + 1; (total & 1) == 0; total >>= 1) {
            depth--;
            sc_blake3_parent(stack[depth], cv, key, flags, o);
            sc_blake3_output_cv(o, cv);
        }
SC_UNROLL
        for (int i = 0; i < 8; i++) stack[depth][i] = cv[i];
        depth++;
    }
    sc_u64 start = (chunks - 1) * SC_BLAKE3_CHUNK_LEN;
    sc_blake3_chunk(p + start, len - start, chunks - 1, key, flags, o);
    while (depth > 0) {
        sc_u32 cv[8];
        sc_blake3_output_cv(o, cv);
        depth--;
        sc_blake3_parent(stack[depth], cv, key, flags, o);
    }
}

// The key words at `key` (8 little-endian words, 32 bytes).
__device__ __forceinline__ void sc_blake3_load_key(const sc_u8* key, sc_u32* words) {
    sc_load_words_le(key, words, 8);
}

// BLAKE3 of `count` messages, one per thread: message i is data[offsets[i] .. offsets[i + 1]]
// (reads offsets[0 ..= count] and those bytes), its `out_len` output bytes go to
// out[i * out_len .. (i + 1) * out_len]. A message longer than SC_BLAKE3_MANY_MAX_LEN is
// skipped (its output bytes are not written): the host hashes it on its own. Reads the 32 key
// bytes at `key`; `flags` is the mode's flag.
extern "C" __global__ void __launch_bounds__(SC_MAX_BLOCK) sc_blake3_many(const sc_u8* data, const sc_u64* offsets, sc_u64 count, sc_u8* out,
                                          const sc_u8* key, sc_u64 flags, sc_u64 out_len) {
    sc_u64 i = sc_thread_index();
    if (i >= count) return;
    sc_u32 k[8];
    sc_blake3_load_key(key, k);
    sc_blake3_output o;
    sc_u64 start = offsets[i];
    sc_u64 len = offsets[i + 1] - start;
    if (len > SC_BLAKE3_MANY_MAX_LEN) return;
    sc_blake3_message(data + start, len, k, (sc_u32)flags, &o);
    sc_u8* dst = out + i * out_len;
    for (sc_u64 t = 0; 64 * t < out_len; t++) sc_blake3_root_block(&o, t, dst + 64 * t, out_len - 64 * t);
}

// The chaining values of the chunks of the `len` bytes at `input` (more than one chunk: the
// root is not a chunk). Thread i reads input[1024 i .. min(1024 (i + 1), len)] and writes the
// 32-byte chaining value of chunk i to cvs[32 i ..]; reads the 32 key bytes at `key`.
extern "C" __global__ void __launch_bounds__(SC_MAX_BLOCK) sc_blake3_chunks(const sc_u8* input, sc_u64 len, sc_u8* cvs, const sc_u8* key, sc_u64 flags) {
    sc_u64 i = sc_thread_index();
    sc_u64 chunks = (len + SC_BLAKE3_CHUNK_LEN - 1) / SC_BLAKE3_CHUNK_LEN;
    if (i >= chunks) return;
    sc_u32 k[8];
    sc_blake3_load_key(key, k);
    sc_u64 start = i * SC_BLAKE3_CHUNK_LEN;
    sc_u64 n = len - start < SC_BLAKE3_CHUNK_LEN ? len - start : SC_BLAKE3_CHUNK_LEN;
    sc_blake3_output o;
    sc_blake3_chunk(input + start, n, i, k, (sc_u32)flags, &o);
    sc_u32 cv[8];
    sc_blake3_output_cv(&o, cv);
    sc_blake3_store_cv(cvs + 32 * i, cv);
}

// One layer of the tree over `count` chaining values (more than two: the top parent is the
// root, see sc_blake3_root): thread i reads in[64 i .. 64 i + 64] and writes the chaining value
// of their parent to out[32 i ..]; when `count` is odd the last thread copies the last value
// up. Reads the 32 key bytes at `key`.
extern "C" __global__ void __launch_bounds__(SC_MAX_BLOCK) sc_blake3_parents(const sc_u8* in, sc_u64 count, sc_u8* out, const sc_u8* key, sc_u64 flags) {
    sc_u64 i = sc_thread_index();
    if (2 * i >= count) return;
    sc_u32 left[8];
    sc_blake3_load_cv(in + 64 * i, left);
    if (2 * i + 1 == count) {
        sc_blake3_store_cv(out + 32 * i, left);
        return;
    }
    sc_u32 k[8], right[8], cv[8];
    sc_blake3_load_key(key, k);
    sc_blake3_load_cv(in + 64 * i + 32, right);
    sc_blake3_output o;
    sc_blake3_parent(left, right, k, (sc_u32)flags, &o);
    sc_blake3_output_cv(&o, cv);
    sc_blake3_store_cv(out + 32 * i, cv);
}

// The root over the two chaining values at `in` (64 bytes): thread t writes output block t,
// out[64 t .. min(64 (t + 1), out_len)]. Reads the 32 key bytes at `key`.
extern "C" __global__ void __launch_bounds__(SC_MAX_BLOCK) sc_blake3_root(const sc_u8* in, sc_u8* out, sc_u64 out_len, const sc_u8* key, sc_u64 flags) {
    sc_u64 t = sc_thread_index();
    if (64 * t >= out_len) return;
    sc_u32 k[8], left[8], right[8];
    sc_blake3_load_key(key, k);
    sc_blake3_load_cv(in, left);
    sc_blake3_load_cv(in + 32, right);
    sc_blake3_output o;
    sc_blake3_parent(left, right, k, (sc_u32)flags, &o);
    sc_blake3_root_block(&o, t, out + 64 * t, out_len - 64 * t);
}
