//! The CUDA kernels' host emulation must not be skipped silently: the test command sets
//! SIMDCRYPT_REQUIRE_CUDA_EMULATION=1 and runs the suite with `--features cuda-emulation`;
//! without the feature, the `cuda_*` test files compile to nothing, and this test fails.

#[test]
fn emulation_built_when_required() {
    let required = std::env::var_os("SIMDCRYPT_REQUIRE_CUDA_EMULATION").is_some_and(|v| v == "1");
    let built = cfg!(feature = "cuda-emulation");
    println!("CUDA kernels' host emulation: {}", if built { "built, kernel tests run" } else { "not built" });
    assert!(
        built || !required,
        "SIMDCRYPT_REQUIRE_CUDA_EMULATION=1 but the cuda-emulation feature is off: the kernel tests did not run"
    );
}
