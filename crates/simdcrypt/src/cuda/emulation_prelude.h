// Host definitions of the CUDA qualifiers and built-ins the kernels use, so that the same
// `.cu` sources compile as C++ and run on the CPU (emulation.cpp); the GPU's meaning of the
// two macros of our own (SC_UNROLL, SC_SHARED) is in gpu_prelude.cuh. Kept deliberately
// small: a kernel that needs a built-in not defined here fails to compile in the emulation,
// which is the point — every device feature a kernel uses must have a host meaning.
//
// The emulation runs the threads of a block as fibers (emulation.cpp): each thread runs
// until it reaches __syncthreads() or __syncwarp() or returns, in a shuffled order, and a
// barrier releases them only once every live thread it names has reached it; blocks run in a
// shuffled order too; each block's shared memory starts as junk. So a missing barrier, a
// read of shared memory no thread wrote, or two threads racing for one word give wrong
// digests here as they would on a GPU (docs/gpu.md, "The emulation").
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __noinline__
// Register budgets mean nothing on the host; the launcher checks the block size instead.
#define __launch_bounds__(...)
// No `__shared__`: kernels declare shared arrays with SC_SHARED, which the emulation places
// in the block's junk-filled arena (a kernel that uses `__shared__` does not compile here).
#define SC_SHARED(T, name, n) T* const name = static_cast<T*>(sc_emu_shared((n) * sizeof(T), alignof(T)))
#define SC_UNROLL
#define __constant__
#define __restrict__ __restrict

struct sc_dim3 {
    unsigned int x, y, z;
};

// CUDA's 16-byte vector type (a 16-byte aligned load on a GPU).
struct alignas(16) ulonglong2 {
    unsigned long long x, y;
};

extern thread_local sc_dim3 threadIdx;
extern thread_local sc_dim3 blockIdx;
extern thread_local sc_dim3 blockDim;
extern thread_local sc_dim3 gridDim;

// The block's barrier (emulation.cpp): the calling thread waits for every live thread of
// its block to reach a barrier.
void __syncthreads();

// A warp's barrier for the lanes named in `mask` (emulation.cpp): the calling thread, whose
// own lane must be in `mask`, waits for every live thread of those lanes of its warp to
// reach a __syncwarp() with the same mask. Threads of other lanes go on undisturbed, as on
// a GPU since Volta (independent thread scheduling).
void __syncwarp(unsigned mask = 0xffffffffu);

// `bytes` of the running block's shared memory, aligned to `align` (emulation.cpp).
void* sc_emu_shared(size_t bytes, size_t align);

static inline unsigned int __funnelshift_l(unsigned int lo, unsigned int hi, unsigned int shift) {
    shift &= 31;
    unsigned long long v = ((unsigned long long)hi << 32) | lo;
    return (unsigned int)((v << shift) >> 32);
}

static inline unsigned int __funnelshift_r(unsigned int lo, unsigned int hi, unsigned int shift) {
    shift &= 31;
    unsigned long long v = ((unsigned long long)hi << 32) | lo;
    return (unsigned int)(v >> shift);
}

// Selects four bytes of the eight in (y:x) by the low three bits of each selector nibble
// (the sign-replicate mode, bit 3 of a nibble, is not used by the kernels and not emulated).
static inline unsigned int __byte_perm(unsigned int x, unsigned int y, unsigned int s) {
    unsigned long long v = ((unsigned long long)y << 32) | x;
    unsigned int r = 0;
    for (int i = 0; i < 4; i++) {
        unsigned int sel = (s >> (4 * i)) & 7;
        r |= (unsigned int)((v >> (8 * sel)) & 0xff) << (8 * i);
    }
    return r;
}

template <typename T>
static inline T __ldg(const T* p) {
    return *p;
}
