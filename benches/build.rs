//! With the `peer-libsodium` feature, links libsodium for the Salsa20 benchmark: the
//! development symlink `libsodium.so` when `libsodium-dev` is installed, else the runtime
//! library `libsodium.so.23` by its full name.
fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    if std::env::var_os("CARGO_FEATURE_PEER_LIBSODIUM").is_none() {
        return;
    }
    let dirs = ["/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib", "/usr/local/lib"];
    if dirs.iter().any(|d| std::path::Path::new(d).join("libsodium.so").exists()) {
        println!("cargo:rustc-link-lib=dylib=sodium");
    } else {
        println!("cargo:rustc-link-lib=dylib:+verbatim=libsodium.so.23");
    }
}
