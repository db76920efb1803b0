//! The checked-in header must be what cbindgen generates from the current source, so that
//! C, Nim and Go users see every function and its documentation as they are.

use std::path::Path;

#[test]
fn header_is_up_to_date() {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let config = cbindgen::Config::from_file(crate_dir.join("cbindgen.toml")).expect("cbindgen.toml parses");
    let bindings = cbindgen::Builder::new()
        .with_crate(crate_dir)
        .with_config(config)
        .generate()
        .expect("cbindgen generates the header");
    let mut generated = Vec::new();
    bindings.write(&mut generated);
    let path = crate_dir.join("include/simdcrypt.h");
    if std::env::var_os("SIMDCRYPT_BLESS").is_some() {
        std::fs::write(&path, &generated).expect("write the header");
        return;
    }
    let checked_in = std::fs::read(&path).unwrap_or_default();
    assert!(
        checked_in == generated,
        "{} is stale: regenerate it with `SIMDCRYPT_BLESS=1 cargo test -p simdcrypt-capi --test header`",
        path.display()
    );
}
