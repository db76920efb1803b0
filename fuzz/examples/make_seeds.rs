//! Writes the library-made seeds of fuzz/seeds/ (run by fuzz/make-seeds.sh, which also
//! writes the seeds made from test-vectors/ and by the CLI): an encrypted sample of each
//! sealed-file kind, one Bao encoding per mode, a saved state of every algorithm and
//! HighwayHash checkpoints. Each seed is the targets' parameter head (zeros: the raw
//! parser path, default options) followed by the bytes; the keys and secrets are the
//! ones the targets use on that path.

use std::path::Path;

use simdcrypt::any::{AnyHasher, HashOptions};
use simdcrypt::blake3::bao;
use simdcrypt::registry::{KeyUse, REGISTRY};
use simdcrypt::salsa20::sealed_stream::{self, Argon2Params, Secret};
use simdcrypt::threads::Threads;
use simdcrypt_fuzz::HEAD_LEN;

/// The constants of fuzz_targets/sealed_file.rs.
const KEY: [u8; 32] = *b"the right key, thirty-two bytes!";
const PASS: &[u8] = b"passphrase";
const CHEAP: Argon2Params = Argon2Params { memory_kib: 8, iterations: 1, parallelism: 1 };

fn write(dir: &Path, target: &str, name: &str, head: &[u8], payload: &[u8]) {
    let folder = dir.join(target);
    std::fs::create_dir_all(&folder).unwrap();
    let mut bytes = vec![0u8; HEAD_LEN];
    bytes[..head.len()].copy_from_slice(head);
    bytes.extend_from_slice(payload);
    std::fs::write(folder.join(name), bytes).unwrap();
}

/// The BLAKE3 test vectors' input pattern: 0, 1, ..., 250, 0, 1, ...
fn pattern(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i % 251) as u8).collect()
}

fn main() {
    let dir = Path::new(&std::env::args().nth(1).expect("usage: make_seeds SEEDS_DIR")).to_path_buf();
    let text = b"simdcrypt seed: the quick brown fox jumps over the lazy dog";

    // Sealed files: version 1, version 2 with a key, version 2 with a passphrase.
    let nonce = [7u8; 16];
    let salt = [9u8; 16];
    let mut v1 = Vec::new();
    sealed_stream::encrypt(&KEY, &nonce, &text[..], &mut v1).unwrap();
    write(&dir, "sealed_file", "v1-key", &[], &v1);
    let mut v2 = Vec::new();
    sealed_stream::encrypt_v2(&Secret::Key(&KEY), &nonce, &salt, CHEAP, &text[..], &mut v2, Threads::One).unwrap();
    write(&dir, "sealed_file", "v2-key", &[], &v2);
    let mut v2p = Vec::new();
    sealed_stream::encrypt_v2(&Secret::Passphrase(PASS), &nonce, &salt, CHEAP, &text[..], &mut v2p, Threads::One)
        .unwrap();
    write(&dir, "sealed_file", "v2-passphrase", &[], &v2p);

    // Bao: the root, then the combined encoding, the outboard (after the content) and a
    // slice, of content that spans a few chunks.
    let content = pattern(5000);
    let (root, encoded) = bao::encode(&content);
    write(&dir, "bao_decode", "combined", &[], &[&root[..], &encoded].concat());
    let (_, outboard) = bao::encode_outboard(&content);
    write(&dir, "bao_decode", "outboard", &[], &[&root[..], &content, &outboard].concat());
    let slice = bao::slice(&encoded, 0, 1).unwrap();
    write(&dir, "bao_decode", "slice", &[], &[&root[..], &slice].concat());

    // States: every algorithm after some input; keyed ones under the zero key, which the
    // state target uses when head byte 1 is 1 (a 32-byte key from the zero head).
    for algorithm in REGISTRY.iter() {
        let keyed = matches!(algorithm.key, KeyUse::Required(_));
        let mut opts = HashOptions::default();
        if keyed {
            opts.key = Some(vec![0u8; 32]);
        }
        let mut h = AnyHasher::new(algorithm.name, &opts).unwrap();
        h.update(&pattern(100));
        let head: &[u8] = if keyed { &[0, 1] } else { &[] };
        write(&dir, "state_restore", algorithm.name, head, &h.export());
        if algorithm.name.starts_with("highwayhash") {
            write(&dir, "highway_checkpoint", algorithm.name, &[], &h.export());
        }
    }
    let mut keyed =
        AnyHasher::new("blake3", &HashOptions { key: Some(vec![0u8; 32]), ..HashOptions::default() }).unwrap();
    keyed.update(&pattern(2000));
    write(&dir, "state_restore", "blake3-keyed", &[0, 1], &keyed.export());
}
