// Kernels with the faults a GPU punishes and a naive emulation forgives, compiled into the
// host emulation only (emulation.cpp), never for a GPU: tests/cuda_emulation.rs runs each
// and expects the emulation to give wrong answers or refuse, and the correct one to pass.
// Each block handles blockDim.x words: word `base + t` with base = blockIdx.x * blockDim.x.

// Correct: each block reverses its words through shared memory. out[base + t] =
// in[base + blockDim.x - 1 - t].
extern "C" __global__ void __launch_bounds__(SC_MAX_BLOCK) sc_selftest_reverse(const sc_u32* in, sc_u32* out) {
    SC_SHARED(sc_u32, s, SC_MAX_BLOCK);
    const sc_u64 base = (sc_u64)blockIdx.x * blockDim.x;
    s[threadIdx.x] = in[base + threadIdx.x];
    __syncthreads();
    out[base + threadIdx.x] = s[blockDim.x - 1 - threadIdx.x];
}

// The barrier removed: a thread reads its partner's word before the partner has written it.
extern "C" __global__ void __launch_bounds__(SC_MAX_BLOCK) sc_selftest_reverse_no_barrier(const sc_u32* in, sc_u32* out) {
    SC_SHARED(sc_u32, s, SC_MAX_BLOCK);
    const sc_u64 base = (sc_u64)blockIdx.x * blockDim.x;
    s[threadIdx.x] = in[base + threadIdx.x];
    out[base + threadIdx.x] = s[blockDim.x - 1 - threadIdx.x];
}

// A staging loop with a wrong bound: only the first half of the words reaches shared memory,
// the second half is read unstaged.
extern "C" __global__ void __launch_bounds__(SC_MAX_BLOCK) sc_selftest_reverse_unstaged(const sc_u32* in, sc_u32* out) {
    SC_SHARED(sc_u32, s, SC_MAX_BLOCK);
    const sc_u64 base = (sc_u64)blockIdx.x * blockDim.x;
    if (threadIdx.x < blockDim.x / 2) s[threadIdx.x] = in[base + threadIdx.x];
    __syncthreads();
    out[base + threadIdx.x] = s[blockDim.x - 1 - threadIdx.x];
}

// A racy write: threads 2k and 2k + 1 both store to word k, then each reads "its" word back.
// out[base + t] = in[base + t] only for whichever of the two stored last.
extern "C" __global__ void __launch_bounds__(SC_MAX_BLOCK) sc_selftest_racy(const sc_u32* in, sc_u32* out) {
    SC_SHARED(sc_u32, s, SC_MAX_BLOCK);
    const sc_u64 base = (sc_u64)blockIdx.x * blockDim.x;
    s[threadIdx.x / 2] = in[base + threadIdx.x];
    __syncthreads();
    out[base + threadIdx.x] = s[threadIdx.x / 2];
}

// Barriers in divergent code: odd and even threads wait at different __syncthreads().
extern "C" __global__ void __launch_bounds__(SC_MAX_BLOCK) sc_selftest_divergent_barrier(const sc_u32* in, sc_u32* out) {
    const sc_u64 i = (sc_u64)blockIdx.x * blockDim.x + threadIdx.x;
    if (threadIdx.x & 1) {
        __syncthreads();
        out[i] = in[i];
    } else {
        __syncthreads();
        out[i] = in[i] + 1;
    }
}

// Shared memory as a block finds it: out[base + t] = word t of the arena, never written.
extern "C" __global__ void __launch_bounds__(SC_MAX_BLOCK) sc_selftest_junk(const sc_u32* in, sc_u32* out) {
    SC_SHARED(sc_u32, s, SC_MAX_BLOCK);
    const sc_u64 i = (sc_u64)blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = s[threadIdx.x] ^ (in[i] & 0);
}

// The order threads run in: each appends its global index to `log` at slot (*count)++,
// before and after a barrier (2 * blockDim.x * gridDim.x slots). Not atomic: the emulation
// runs one thread at a time.
extern "C" __global__ void __launch_bounds__(SC_MAX_BLOCK) sc_selftest_order(sc_u32* count, sc_u32* log) {
    const sc_u32 i = blockIdx.x * blockDim.x + threadIdx.x;
    log[(*count)++] = i;
    __syncthreads();
    log[(*count)++] = i;
}

// Lane groups of eight threads (as the Streebog kernel uses them): group k of a block runs
// 1 + k % 3 rounds, each reversing the group's eight words through shared memory between
// two __syncwarp()s of the group's own lanes, so groups of one warp pass different numbers
// of barriers before they meet at one __syncthreads(). out[base + t] is the group's words reversed after an odd number of rounds,
// as they came after an even one.
static __device__ __forceinline__ void sc_selftest_groups(const sc_u32* in, sc_u32* out, bool sync_first,
                                                          bool whole_warp) {
    SC_SHARED(sc_u32, s, SC_MAX_BLOCK);
    const sc_u64 i = (sc_u64)blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned group = threadIdx.x / 8, lane = threadIdx.x % 8;
    const unsigned mask = whole_warp ? 0xffffffffu : 0xffu << (threadIdx.x % 32 / 8 * 8);
    sc_u32 v = in[i];
    for (unsigned r = 0; r < 1 + group % 3; r++) {
        s[threadIdx.x] = v;
        if (sync_first) __syncwarp(mask);
        v = s[8 * group + 7 - lane];
        __syncwarp(mask);
    }
    // Groups that finished wait here for the others.
    __syncthreads();
    out[i] = v;
}

// Correct.
extern "C" __global__ void __launch_bounds__(SC_MAX_BLOCK) sc_selftest_groups_ok(const sc_u32* in, sc_u32* out) {
    sc_selftest_groups(in, out, true, false);
}

// The barrier between a lane's write and its partner's read removed.
extern "C" __global__ void __launch_bounds__(SC_MAX_BLOCK) sc_selftest_groups_no_sync(const sc_u32* in, sc_u32* out) {
    sc_selftest_groups(in, out, false, false);
}

// The whole warp named in each barrier, though its groups pass different numbers of them:
// lanes that have more rounds to go wait for lanes that wait at the __syncthreads().
extern "C" __global__ void __launch_bounds__(SC_MAX_BLOCK) sc_selftest_groups_whole_warp(const sc_u32* in, sc_u32* out) {
    sc_selftest_groups(in, out, true, true);
}
