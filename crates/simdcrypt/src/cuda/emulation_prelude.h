// Host definitions of the CUDA qualifiers and built-ins the kernels use, so that the same
// `.cu` sources compile as C++ and run on the CPU (emulation.cpp). Kept deliberately small:
// a kernel that needs a built-in not defined here fails to compile in the emulation, which
// is the point — every device feature a kernel uses must have a host meaning.
//
// The emulation runs a grid block by block and, inside a block, thread by thread to
// completion. That is faithful for kernels whose threads do not communicate; shared memory
// may only hold data every thread of the block would write identically (tables staged with
// sc_stage_shared), and __syncthreads() is then a no-op. docs/gpu.md lists these limits.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#define SC_HOST_EMULATION 1

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __noinline__
// Register budgets mean nothing on the host; the launcher checks the block size instead.
#define __launch_bounds__(...)
// One copy per emulating OS thread: tests run kernels from several threads at once.
#define __shared__ static thread_local
#define __constant__
#define __restrict__ __restrict

struct sc_dim3 {
    unsigned int x, y, z;
};

extern thread_local sc_dim3 threadIdx;
extern thread_local sc_dim3 blockIdx;
extern thread_local sc_dim3 blockDim;
extern thread_local sc_dim3 gridDim;

static inline void __syncthreads() {}

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
