//! With the `cuda-emulation` feature: compiles the CUDA kernels of src/cuda as C++ for the
//! host (src/cuda/emulation.cpp includes every `.cu` file), so that tests can run them
//! without a GPU. Nothing to do otherwise. (The emulation's fibers use ucontext: Linux and
//! other POSIX systems with glibc-like libcs.)

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    #[cfg(feature = "cuda-emulation")]
    emulation();
}

#[cfg(feature = "cuda-emulation")]
fn emulation() {
    let dir = std::path::Path::new("src/cuda");
    for entry in std::fs::read_dir(dir).expect("src/cuda is readable") {
        let path = entry.expect("src/cuda is readable").path();
        let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
        if matches!(ext, "cu" | "cuh" | "h" | "cpp") {
            println!("cargo:rerun-if-changed={}", path.display());
        }
    }
    cc::Build::new()
        .cpp(true)
        .std("c++17")
        .file(dir.join("emulation.cpp"))
        .include(dir)
        .warnings(true)
        .extra_warnings(true)
        .warnings_into_errors(true)
        .opt_level(2)
        // common.cuh reads aligned message words through a `const sc_u32*`, as a GPU does;
        // C++'s aliasing rules would let the host compiler reorder those loads.
        .flag("-fno-strict-aliasing")
        .compile("simdcrypt_cuda_emulation");
}
