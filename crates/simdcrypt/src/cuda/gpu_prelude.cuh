// What the kernels mean on a GPU, where the host emulation has its own meaning
// (emulation_prelude.h): NVRTC compiles this file, then common.cuh, then a kernel file
// (Module::full_source); the emulation includes its own prelude instead. Both preludes
// define exactly these names, so common.cuh and the kernels have no branch on where they
// run: the code a test runs is the code a GPU runs.

// Asks the compiler to unroll the loop that follows (the host compiler, which would warn
// about an unknown pragma, unrolls what it sees fit).
#define SC_UNROLL _Pragma("unroll")

// A block's shared array `name` of `n` items of type T (a pointer to its first item). On the
// host each block gets a fresh arena filled with junk, so a read of anything no thread of
// the block wrote differs from run to run and from the CPU's answer.
#define SC_SHARED(T, name, n) __shared__ T name[n]
