//! The constant tables of the kernels. NVRTC compiles the `.cu` files on their own, so they
//! hold their tables as literal arrays; this test renders those arrays from the CPU backends'
//! tables and fails when a file's differ, so the two can never drift. With
//! `SIMDCRYPT_BLESS=1` it writes the rendered arrays into the files instead.

use super::Module;

const BEGIN: &str = "// BEGIN GENERATED TABLES\n";
const END: &str = "// END GENERATED TABLES\n";

/// `static __device__ const <ty> <name>[<len>] = { ... };` with `per_line` values a line.
/// Every table lives in global memory, from which the kernels stage it into shared memory
/// with coalesced loads: lookup tables are read at a different index by each thread, and
/// Streebog's round constants at a different one by each of a message's lanes, reads that
/// constant memory would serialise.
fn array(ty: &str, name: &str, len: &str, values: &[String], per_line: usize) -> String {
    let mut s = format!("static __device__ const {ty} {name}[{len}] = {{\n");
    for line in values.chunks(per_line) {
        s.push_str("    ");
        s.push_str(&line.join(", "));
        s.push_str(",\n");
    }
    s.push_str("};\n");
    s
}

fn u64s<'a>(words: impl IntoIterator<Item = &'a u64>) -> Vec<String> {
    words.into_iter().map(|w| format!("0x{w:016x}ull")).collect()
}

fn streebog_tables() -> String {
    use crate::streebog::tables::{C, LPS};
    let lps = array("sc_u64", "sc_streebog_lps", "8 * 256", &u64s(LPS.iter().flatten()), 4);
    let c = array("sc_u64", "sc_streebog_c", "12 * 8", &u64s(C.iter().flatten()), 4);
    format!("// LPS tables: entry 256 j + v is T[j][v] = l(π(v) << 8j).\n{lps}// The round constants C_1..C_12, eight little-endian words each.\n{c}")
}

fn gost94_tables() -> String {
    use crate::gost94::SBox;
    let mut s = String::from(
        "// Per parameter set, entry 256 j + b is S-boxes 2j and 2j + 1 applied to byte b in byte\n\
         // position j of a 32-bit word, rotated left by 11.\n",
    );
    for (sbox, name) in [(SBox::CryptoPro, "sc_gost94_cryptopro_tables"), (SBox::Test, "sc_gost94_test_tables")] {
        let words: Vec<String> = sbox.tables().words.iter().flatten().map(|w| format!("0x{w:08x}u")).collect();
        s.push_str(&array("sc_u32", name, "4 * 256", &words, 8));
    }
    s
}

/// Checks (or, blessing, writes) the generated part of `module`'s file.
fn check(module: Module, generated: &str) {
    let text = module.source();
    let file = module.file_name();
    let start = text.find(BEGIN).unwrap_or_else(|| panic!("{file} has no line {BEGIN:?}")) + BEGIN.len();
    let end = text[start..].find(END).unwrap_or_else(|| panic!("{file} has no line {END:?} after the first")) + start;
    if std::env::var_os("SIMDCRYPT_BLESS").is_some() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/cuda").join(file);
        let on_disk = std::fs::read_to_string(&path).expect("read the kernel file");
        assert_eq!(on_disk, text, "{file} changed since this test was built; run it again");
        std::fs::write(&path, format!("{}{generated}{}", &text[..start], &text[end..])).expect("write the kernel file");
        return;
    }
    assert!(
        text[start..end] == *generated,
        "the tables in src/cuda/{file} differ from the CPU tables: regenerate them with \
         `SIMDCRYPT_BLESS=1 cargo test -p simdcrypt --lib cuda::tables`"
    );
}

#[test]
fn streebog_tables_match_the_cpu() {
    check(Module::Streebog, &streebog_tables());
}

#[test]
fn gost94_tables_match_the_cpu() {
    check(Module::Gost94, &gost94_tables());
}
