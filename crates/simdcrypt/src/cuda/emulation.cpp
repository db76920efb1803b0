// The host emulation of the CUDA kernels: every `.cu` file of this folder compiled as C++ in
// one translation unit, and one entry point that runs a kernel's grid (emulated.rs calls
// it). Built by build.rs when the `cuda-emulation` feature is on; emulation_prelude.h says
// what "emulated" means.
//
// How a grid runs: blocks one at a time, in a shuffled order; a block's threads as fibers
// (ucontext) on the calling OS thread, each with its own stack. The scheduler runs every
// runnable thread, in a shuffled order, until it reaches a barrier or returns. When none is
// left to run, every __syncwarp(mask) whose lanes have all arrived (with the same mask)
// opens; only when none can, the block's __syncthreads() opens, once every live thread
// waits at the same one. Threads that returned count as arrived (as on a GPU). Threads
// that can never all meet (two __syncthreads() calls in divergent code, a warp barrier
// some of whose lanes wait at another barrier, a mask without the caller's lane) make the
// launch fail. Each block's shared
// memory is an arena filled with pseudo-random junk as its first thread declares it. The
// shuffles and the junk come from a generator seeded per launch (SIMDCRYPT_EMULATION_SEED
// fixes the first seed, to replay a failure).
#include "emulation_prelude.h"

#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

thread_local sc_dim3 threadIdx;
thread_local sc_dim3 blockIdx;
thread_local sc_dim3 blockDim;
thread_local sc_dim3 gridDim;

#include "common.cuh"

// Every kernel file, in the order of Module::ALL (mod.rs).
// (kernel files: one #include line each)
#include "sha256.cu"
#include "blake3.cu"
#include "streebog.cu"
#include "gost94.cu"
// Deliberately broken kernels that the emulation must catch (tests/cuda_emulation.rs);
// never compiled for a GPU.
#include "emulation_selftest.cu"

namespace {

// Every kernel parameter is eight bytes on the wire (a pointer or a 64-bit integer), so the
// runtime and the emulation pass the same array of u64 arguments.
template <typename T>
T sc_arg(unsigned long long v) {
    static_assert(sizeof(T) == 8, "kernel parameters must be pointers or 64-bit integers");
    if constexpr (std::is_pointer<T>::value) {
        return reinterpret_cast<T>(static_cast<uintptr_t>(v));
    } else {
        return static_cast<T>(v);
    }
}

template <typename... P, size_t... I>
void sc_call(void (*kernel)(P...), const unsigned long long* args, std::index_sequence<I...>) {
    kernel(sc_arg<P>(args[I])...);
}

template <typename... P>
constexpr size_t sc_arity(void (*)(P...)) {
    return sizeof...(P);
}

template <typename... P>
void sc_invoke(void (*kernel)(P...), const unsigned long long* args) {
    sc_call(kernel, args, std::index_sequence_for<P...>{});
}

struct Entry {
    const char* name;
    size_t arity;
    void (*call)(const unsigned long long*);
};

#define SC_KERNEL(k) Entry{#k, sc_arity(k), [](const unsigned long long* a) { sc_invoke(k, a); }},

// Every `__global__` function of the files above; the runtime loads the same names.
const Entry ENTRIES[] = {
    // (kernels: one SC_KERNEL(name) line each)
    SC_KERNEL(sc_row_offsets)
    SC_KERNEL(sc_sha256_blocks)
    SC_KERNEL(sc_sha256_layer)
    SC_KERNEL(sc_blake3_many)
    SC_KERNEL(sc_blake3_chunks)
    SC_KERNEL(sc_blake3_parents)
    SC_KERNEL(sc_blake3_root)
    SC_KERNEL(sc_streebog_256)
    SC_KERNEL(sc_streebog_512)
    SC_KERNEL(sc_streebog_256_x8)
    SC_KERNEL(sc_streebog_512_x8)
    SC_KERNEL(sc_gost94_cryptopro)
    SC_KERNEL(sc_gost94_test)
    SC_KERNEL(sc_gost94_cryptopro_x4)
    SC_KERNEL(sc_gost94_test_x4)
    SC_KERNEL(sc_selftest_reverse)
    SC_KERNEL(sc_selftest_reverse_no_barrier)
    SC_KERNEL(sc_selftest_reverse_unstaged)
    SC_KERNEL(sc_selftest_racy)
    SC_KERNEL(sc_selftest_divergent_barrier)
    SC_KERNEL(sc_selftest_junk)
    SC_KERNEL(sc_selftest_order)
    SC_KERNEL(sc_selftest_groups_ok)
    SC_KERNEL(sc_selftest_groups_no_sync)
    SC_KERNEL(sc_selftest_groups_whole_warp)
    Entry{nullptr, 0, nullptr},  // end of the table
};

// splitmix64: the shuffles and the junk.
struct Rng {
    unsigned long long s;
    unsigned long long next() {
        unsigned long long z = (s += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    unsigned below(unsigned n) { return (unsigned)(next() % n); }
    template <typename T>
    void shuffle(std::vector<T>& v) {
        for (size_t i = v.size(); i > 1; i--) std::swap(v[i - 1], v[below((unsigned)i)]);
    }
};

// The first launch's seed; each launch takes the next (so two launches of one test differ).
unsigned long long first_seed() {
    const char* env = std::getenv("SIMDCRYPT_EMULATION_SEED");
    return env != nullptr ? std::strtoull(env, nullptr, 0) : 0x5EED5EED5EEDull;
}
std::atomic<unsigned long long> launches{0};

// A GPU's static shared memory per block.
constexpr size_t SHARED_BYTES = 48 * 1024;
// Each fiber's stack, and the guard page below it that turns an overflow into a fault.
constexpr size_t STACK_BYTES = 128 * 1024;

struct Fiber {
    ucontext_t context;
    bool done;
    const void* barrier;  // where it waits, or null while it runs
    bool at_warp;         // the barrier is a __syncwarp() with warp_mask, not __syncthreads()
    unsigned warp_mask;
    size_t shared_used;   // its bump pointer into the block's arena
};

// The launch running on this OS thread (tests launch from several threads at once).
struct Block {
    ucontext_t scheduler;
    std::vector<Fiber> fibers;
    unsigned current;
    alignas(16) unsigned char shared[SHARED_BYTES];
    const Entry* entry;
    const unsigned long long* args;
    bool divergent;
    size_t junk_to;         // how much of `shared` holds this block's junk so far
    ucontext_t prototype;   // getcontext() once per launch; each fiber starts as a copy
    Rng* rng;
};
thread_local Block* running = nullptr;

// This OS thread's fiber stacks, each above a guard page that turns an overflow into a
// fault: mapped once for the largest block seen, kept for the thread's later launches.
struct Stacks {
    unsigned char* base = nullptr;
    unsigned count = 0;
    ~Stacks() {
        if (base != nullptr) munmap(base, (size_t)count * (STACK_BYTES + 4096));
    }
};
thread_local Stacks stacks_of_thread;

unsigned char* fiber_stacks(unsigned block) {
    Stacks& s = stacks_of_thread;
    if (s.count < block) {
        if (s.base != nullptr) munmap(s.base, (size_t)s.count * (STACK_BYTES + 4096));
        s.base = nullptr;
        s.count = 0;
        const size_t len = (size_t)block * (STACK_BYTES + 4096);
        void* mapped = mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (mapped == MAP_FAILED) return nullptr;
        s.base = static_cast<unsigned char*>(mapped);
        s.count = block;
        for (unsigned t = 0; t < block; t++) mprotect(s.base + (size_t)t * (STACK_BYTES + 4096), 4096, PROT_NONE);
    }
    return s.base;
}

void fiber_main() {
    Block* b = running;
    b->entry->call(b->args);
    b->fibers[b->current].done = true;
    // Returning resumes uc_link: the scheduler.
}

// The launch's prototype context. Its own function: getcontext returns twice, which would
// make the caller's locals suspect.
__attribute__((noinline)) bool init_prototype(ucontext_t* prototype) {
    return getcontext(prototype) == 0;
}

// A fiber that will run fiber_main on `stack` (STACK_BYTES) and return to `link`.
void init_fiber(Fiber& f, const ucontext_t& prototype, unsigned char* stack, ucontext_t* link) {
    f.context = prototype;
    f.context.uc_stack.ss_sp = stack;
    f.context.uc_stack.ss_size = STACK_BYTES;
    f.context.uc_link = link;
    makecontext(&f.context, fiber_main, 0);
    f.done = false;
    f.barrier = nullptr;
    f.at_warp = false;
    f.warp_mask = 0;
    f.shared_used = 0;
}

// Called when no thread of the block can run: opens every warp barrier whose lanes have
// all arrived; if none can open, the block barrier, when every live thread waits at the
// same __syncthreads(). Returns false once every thread has returned. Threads that can
// never all meet mark the launch divergent and are released, so that it ends.
bool open_barriers(Block* b, unsigned block) {
    bool live = false, opened = false;
    for (unsigned t = 0; t < block; t++) {
        Fiber& f = b->fibers[t];
        if (f.done) continue;
        live = true;
        if (!f.at_warp || f.barrier == nullptr) continue;
        const unsigned base = t / 32 * 32;
        bool complete = true;
        for (unsigned lane = 0; lane < 32 && complete; lane++) {
            if ((f.warp_mask >> lane & 1) == 0 || base + lane >= block) continue;
            const Fiber& g = b->fibers[base + lane];
            complete = g.done || (g.barrier != nullptr && g.at_warp && g.warp_mask == f.warp_mask);
        }
        if (!complete) continue;
        for (unsigned lane = 0; lane < 32; lane++) {
            if ((f.warp_mask >> lane & 1) == 0 || base + lane >= block) continue;
            Fiber& g = b->fibers[base + lane];
            g.barrier = nullptr;
            g.at_warp = false;
        }
        opened = true;
    }
    if (!live) return false;
    if (opened) return true;
    // Every live thread waits, and no warp barrier can open: all must be at one
    // __syncthreads(), or the block has diverged.
    const void* site = nullptr;
    for (unsigned t = 0; t < block; t++) {
        Fiber& f = b->fibers[t];
        if (f.done) continue;
        if (f.at_warp || (site != nullptr && f.barrier != site)) b->divergent = true;
        if (site == nullptr) site = f.barrier;
        f.barrier = nullptr;
        f.at_warp = false;
    }
    return true;
}

// Runs block `index` of the launch described by `b` to completion. Returns false if the
// fibers could not be set up.
bool run_block(Block* b, unsigned index, unsigned block, unsigned char* stacks, Rng& rng) {
    blockIdx = sc_dim3{index, 1, 1};
    // The shared arena is filled with junk as the block's first thread asks for it
    // (sc_emu_shared), before any thread can write to it.
    b->junk_to = 0;
    for (unsigned t = 0; t < block; t++) {
        init_fiber(b->fibers[t], b->prototype, stacks + (size_t)t * (STACK_BYTES + 4096) + 4096, &b->scheduler);
    }
    std::vector<unsigned> order;
    for (;;) {
        order.clear();
        for (unsigned t = 0; t < block; t++) {
            if (!b->fibers[t].done && b->fibers[t].barrier == nullptr) order.push_back(t);
        }
        if (order.empty() && !open_barriers(b, block)) return true;
        if (order.empty()) continue;
        rng.shuffle(order);
        for (unsigned t : order) {
            b->current = t;
            threadIdx = sc_dim3{t, 1, 1};
            if (swapcontext(&b->scheduler, &b->fibers[t].context) != 0) return false;
        }
    }
}

}  // namespace

void __syncthreads() {
    Block* b = running;
    Fiber& f = b->fibers[b->current];
    f.barrier = __builtin_return_address(0);
    f.at_warp = false;
    swapcontext(&f.context, &b->scheduler);
}

void __syncwarp(unsigned mask) {
    Block* b = running;
    Fiber& f = b->fibers[b->current];
    // A mask without the caller's own lane is undefined on a GPU.
    if ((mask >> (b->current % 32) & 1) == 0) b->divergent = true;
    f.barrier = __builtin_return_address(0);
    f.at_warp = true;
    f.warp_mask = mask;
    swapcontext(&f.context, &b->scheduler);
}

void* sc_emu_shared(size_t bytes, size_t align) {
    Block* b = running;
    Fiber& f = b->fibers[b->current];
    size_t start = (f.shared_used + align - 1) / align * align;
    if (bytes > SHARED_BYTES || start > SHARED_BYTES - bytes) {
        // More than a GPU block can have: such a kernel would fail to load on a GPU, and
        // going on here would write past the arena.
        std::fprintf(stderr, "simdcrypt CUDA emulation: a block asked for more than %zu bytes of shared memory\n",
                     SHARED_BYTES);
        std::abort();
    }
    f.shared_used = start + bytes;
    for (; b->junk_to < f.shared_used; b->junk_to += 8) {
        const unsigned long long junk = b->rng->next();
        std::memcpy(b->shared + b->junk_to, &junk, 8);
    }
    return b->shared + start;
}

// Runs `name` over a grid of `grid` blocks of `block` threads (one-dimensional). Returns 0,
// or 1 for an unknown kernel, 2 for a wrong argument count, 3 for an empty launch, 4 when
// threads of a block waited at different barriers, 6 when the fibers could not be set up
// (a block asking for more shared memory than a GPU has aborts the process).
extern "C" int simdcrypt_emu_launch(const char* name, unsigned grid, unsigned block,
                                    const unsigned long long* args, size_t nargs) {
    const Entry* entry = nullptr;
    for (const Entry& e : ENTRIES) {
        if (e.name != nullptr && std::strcmp(e.name, name) == 0) entry = &e;
    }
    if (entry == nullptr) return 1;
    if (entry->arity != nargs) return 2;
    if (grid == 0 || block == 0) return 3;
    gridDim = sc_dim3{grid, 1, 1};
    blockDim = sc_dim3{block, 1, 1};
    Rng rng{first_seed() + 0x9E3779B97F4A7C15ull * launches.fetch_add(1)};
    unsigned char* stacks = fiber_stacks(block);
    if (stacks == nullptr) return 6;
    Block* b = new Block();
    b->fibers.resize(block);
    b->entry = entry;
    b->args = args;
    b->divergent = false;
    b->rng = &rng;
    if (!init_prototype(&b->prototype)) {
        delete b;
        return 6;
    }
    Block* outer = running;
    running = b;
    std::vector<unsigned> blocks(grid);
    for (unsigned i = 0; i < grid; i++) blocks[i] = i;
    rng.shuffle(blocks);
    bool ok = true;
    for (unsigned index : blocks) {
        if (!(ok = run_block(b, index, block, stacks, rng))) break;
    }
    running = outer;
    int rc = !ok ? 6 : b->divergent ? 4 : 0;
    delete b;
    return rc;
}
