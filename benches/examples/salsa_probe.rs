use cipher::{KeyIvInit, StreamCipher};
use std::hint::black_box;
#[inline(never)]
pub fn ours64(key: &[u8; 32], nonce: &[u8; 8], buf: &mut [u8; 64]) {
    simdcrypt::salsa20::Salsa20::new(key, nonce).xor_keystream(buf).unwrap();
}
#[inline(never)]
pub fn rc64(key: &[u8; 32], nonce: &[u8; 8], buf: &mut [u8; 64]) {
    let mut c = salsa20::Salsa20::new(key.into(), nonce.into());
    c.apply_keystream(buf);
}
#[inline(never)]
pub fn ours_reuse(c: &mut simdcrypt::salsa20::Salsa20, buf: &mut [u8; 64]) {
    c.seek(0).unwrap();
    c.xor_keystream(buf).unwrap();
}
#[inline(never)]
pub fn rc_reuse(c: &mut salsa20::Salsa20, buf: &mut [u8; 64]) {
    use cipher::StreamCipherSeek;
    c.seek(0u64);
    c.apply_keystream(buf);
}
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let which = args[1].as_str();
    let n: usize = args[2].parse().unwrap();
    let key = [7u8; 32];
    let nonce = [1u8; 8];
    let mut buf = [0u8; 64];
    for round in 0..5 {
        let mut oc = simdcrypt::salsa20::Salsa20::new(&key, &nonce);
        let mut rcc = salsa20::Salsa20::new(black_box(&key).into(), black_box(&nonce).into());
        for w in ["ours", "rc", "oursr", "rcr"] {
            if which != "all" && !(which == "both" && w.len() <= 4) && which != w {
                continue;
            }
            let t = std::time::Instant::now();
            for _ in 0..n {
                match w {
                    "ours" => ours64(black_box(&key), black_box(&nonce), black_box(&mut buf)),
                    "rc" => rc64(black_box(&key), black_box(&nonce), black_box(&mut buf)),
                    "oursr" => ours_reuse(black_box(&mut oc), black_box(&mut buf)),
                    _ => rc_reuse(black_box(&mut rcc), black_box(&mut buf)),
                }
            }
            println!("{round} {w} {:.2} ns", t.elapsed().as_nanos() as f64 / n as f64);
        }
    }
}
