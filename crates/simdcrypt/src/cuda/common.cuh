// Shared by every kernel file: fixed-width types, byte-order loads and stores, rotations,
// and the one shared-memory helper. Compiled by NVRTC after gpu_prelude.cuh (no standard
// headers there, so the types are spelled out) and by the host compiler after
// emulation_prelude.h; nothing here depends on which (no branch on the emulation).
//
// The runtime, the emulation and the compile check all prepend this file to each kernel
// source, so the `.cu` files do not include it themselves.
//
// The helpers are inline rather than static: every file uses only some of them, and NVRTC
// warns about each unused static function (warning 177), which the compile check rejects.
#pragma once

// The most threads a block of any kernel may have: every kernel is declared
// `__launch_bounds__(SC_MAX_BLOCK)`, so the compiler keeps its registers within what a block
// of this size can get (Streebog's round needs well over 100 a thread; unbounded, a block of
// more than about 448 threads would fail to launch). The host refuses larger blocks before
// launching (cuda::MAX_BLOCK, checked equal to this by a test).
#define SC_MAX_BLOCK 256

typedef unsigned char sc_u8;
typedef unsigned int sc_u32;
typedef unsigned long long sc_u64;

// The global thread index of a one-dimensional launch.
__device__ __forceinline__ sc_u64 sc_thread_index() {
    return (sc_u64)blockIdx.x * blockDim.x + threadIdx.x;
}

__device__ __forceinline__ sc_u32 sc_rotr32(sc_u32 x, sc_u32 n) {
    return __funnelshift_r(x, x, n);
}

__device__ __forceinline__ sc_u32 sc_rotl32(sc_u32 x, sc_u32 n) {
    return __funnelshift_l(x, x, n);
}

__device__ __forceinline__ sc_u32 sc_load_le32(const sc_u8* p) {
    return (sc_u32)p[0] | ((sc_u32)p[1] << 8) | ((sc_u32)p[2] << 16) | ((sc_u32)p[3] << 24);
}

__device__ __forceinline__ sc_u32 sc_load_be32(const sc_u8* p) {
    return ((sc_u32)p[0] << 24) | ((sc_u32)p[1] << 16) | ((sc_u32)p[2] << 8) | (sc_u32)p[3];
}

__device__ __forceinline__ sc_u64 sc_load_le64(const sc_u8* p) {
    return (sc_u64)sc_load_le32(p) | ((sc_u64)sc_load_le32(p + 4) << 32);
}

__device__ __forceinline__ void sc_store_le32(sc_u8* p, sc_u32 v) {
    p[0] = (sc_u8)v;
    p[1] = (sc_u8)(v >> 8);
    p[2] = (sc_u8)(v >> 16);
    p[3] = (sc_u8)(v >> 24);
}

__device__ __forceinline__ void sc_store_be32(sc_u8* p, sc_u32 v) {
    p[0] = (sc_u8)(v >> 24);
    p[1] = (sc_u8)(v >> 16);
    p[2] = (sc_u8)(v >> 8);
    p[3] = (sc_u8)v;
}

__device__ __forceinline__ void sc_store_le64(sc_u8* p, sc_u64 v) {
    sc_store_le32(p, (sc_u32)v);
    sc_store_le32(p + 4, (sc_u32)(v >> 32));
}

// Copies a read-only table of `words` words into shared memory for the whole block: the
// block's threads copy it together (consecutive threads, consecutive words) and wait for
// each other. Every thread of the block must call it.
template <typename T>
__device__ __forceinline__ void sc_stage_shared(T* dst, const T* src, sc_u32 words) {
    for (sc_u32 i = threadIdx.x; i < words; i += blockDim.x) dst[i] = src[i];
    __syncthreads();
}

// a += b modulo 2^(64 words), both as little-endian arrays of 64-bit words (the checksums and
// bit counters of the GOST hashes).
__device__ __forceinline__ void sc_add_words(sc_u64* a, const sc_u64* b, int words) {
    sc_u64 carry = 0;
    for (int w = 0; w < words; w++) {
        sc_u64 s = a[w] + b[w];
        sc_u64 c = s < b[w];
        s += carry;
        // Both additions cannot overflow at once: after an overflow s is at most 2^64 - 2.
        c |= s < carry;
        a[w] = s;
        carry = c;
    }
}

// `n` little-endian 32-bit words from `p`: one load a word where `p` is 4-byte aligned (packed
// batches and device arrays nearly always are), bytes otherwise. Both branches give the same
// words; the aligned one only saves loads.
__device__ __forceinline__ void sc_load_words_le(const sc_u8* p, sc_u32* w, int n) {
    if (((sc_u64)p & 3) == 0) {
        const sc_u32* q = (const sc_u32*)p;
        for (int i = 0; i < n; i++) w[i] = q[i];
    } else {
        for (int i = 0; i < n; i++) w[i] = sc_load_le32(p + 4 * i);
    }
}

// `n` little-endian 64-bit words from `p`: 16-byte vector loads (two words each) where `p`
// is 16-byte aligned, 8-byte loads where it is 8-byte aligned (packed batches of messages
// whose lengths are multiples of 8 or 16: the common case), bytes otherwise. `n` is even.
// Every branch gives the same words; the aligned ones only save loads.
__device__ __forceinline__ void sc_load_words_le64(const sc_u8* p, sc_u64* w, int n) {
    if (((sc_u64)p & 15) == 0) {
        const ulonglong2* q = (const ulonglong2*)p;
        for (int i = 0; i < n / 2; i++) {
            const ulonglong2 v = q[i];
            w[2 * i] = v.x;
            w[2 * i + 1] = v.y;
        }
    } else if (((sc_u64)p & 7) == 0) {
        const sc_u64* q = (const sc_u64*)p;
        for (int i = 0; i < n; i++) w[i] = q[i];
    } else {
        for (int i = 0; i < n; i++) w[i] = sc_load_le64(p + 8 * i);
    }
}

// The offsets of `count` messages of `len` bytes laid back to back, offsets[i] = i len for
// i = 0..=count: the rows of a 2-D array (Layout::Rows in batch.rs), written on the device
// before a batch kernel that reads them, on the same stream. Every module has its own copy.
extern "C" __global__ void __launch_bounds__(SC_MAX_BLOCK) sc_row_offsets(sc_u64* offsets, sc_u64 count, sc_u64 len) {
    const sc_u64 i = sc_thread_index();
    if (i <= count) offsets[i] = i * len;
}

// A 32-bit word with its bytes reversed (big- to little-endian and back).
__device__ __forceinline__ sc_u32 sc_bswap32(sc_u32 x) {
    return __byte_perm(x, 0, 0x0123);
}
