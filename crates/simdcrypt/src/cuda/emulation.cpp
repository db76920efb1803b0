// The host emulation of the CUDA kernels: every `.cu` file of this folder compiled as C++ in
// one translation unit, and one entry point that runs a kernel's grid block by block and
// thread by thread (emulated.rs calls it). Built by build.rs when the `cuda-emulation`
// feature is on; see emulation_prelude.h for what "emulated" means and its limits.
#include "emulation_prelude.h"

#include <tuple>
#include <type_traits>
#include <utility>

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
    SC_KERNEL(sc_sha256_blocks)
    SC_KERNEL(sc_sha256_layer)
    SC_KERNEL(sc_blake3_many)
    SC_KERNEL(sc_blake3_chunks)
    SC_KERNEL(sc_blake3_parents)
    SC_KERNEL(sc_blake3_root)
    SC_KERNEL(sc_streebog_256)
    SC_KERNEL(sc_streebog_512)
    SC_KERNEL(sc_gost94_cryptopro)
    SC_KERNEL(sc_gost94_test)
    Entry{nullptr, 0, nullptr},  // end of the table
};

}  // namespace

// Runs `name` over a grid of `grid` blocks of `block` threads (one-dimensional). Returns 0,
// or 1 for an unknown kernel, 2 for a wrong argument count, 3 for an empty launch.
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
    for (unsigned b = 0; b < grid; b++) {
        blockIdx = sc_dim3{b, 1, 1};
        for (unsigned t = 0; t < block; t++) {
            threadIdx = sc_dim3{t, 1, 1};
            entry->call(args);
        }
    }
    return 0;
}
