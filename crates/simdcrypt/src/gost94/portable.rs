//! GOST R 34.11-94's step function in plain Rust: GOST 28147-89 with combined
//! S-box-and-rotation tables, the four encryptions of a step run side by side.

use super::{State, Tables, BLOCK_LEN};

/// C_3 of the key generation (the others are zero), as little-endian words.
pub(crate) const C3: [u64; 4] = [0xff00ff00ff00ff00, 0x00ff00ff00ff00ff, 0xff0000ff00ffff00, 0xff00ffff000000ff];

/// A(Y) = (y1 ⊕ y2) ‖ y4 ‖ y3 ‖ y2 on 64-bit words y1 (least significant) .. y4.
#[inline(always)]
pub(crate) fn a(y: [u64; 4]) -> [u64; 4] {
    [y[1], y[2], y[3], y[0] ^ y[1]]
}

/// P(Y): output byte i + 4k is input byte 8i + k (i < 4, k < 8), bytes numbered from the
/// least significant; as 32-bit key words: word k takes byte k of each 64-bit word.
#[inline(always)]
fn p(y: [u64; 4]) -> [u32; 8] {
    core::array::from_fn(|k| {
        let byte = |i: usize| (y[i] >> (8 * k)) as u8 as u32;
        byte(0) | byte(1) << 8 | byte(2) << 16 | byte(3) << 24
    })
}

/// f(x) = S(x) rotated left by 11, from the combined tables.
#[inline(always)]
fn f(t: &Tables, x: u32) -> u32 {
    let t = &t.words;
    t[0][x as u8 as usize] ^ t[1][(x >> 8) as u8 as usize] ^ t[2][(x >> 16) as u8 as usize] ^ t[3][(x >> 24) as usize]
}

/// Four GOST 28147-89 encryptions (keys `k`, blocks `h`) interleaved round by round.
#[inline(always)]
fn encrypt4(t: &Tables, k: &[[u32; 8]; 4], h: [u64; 4]) -> [u64; 4] {
    let mut n1: [u32; 4] = core::array::from_fn(|i| h[i] as u32);
    let mut n2: [u32; 4] = core::array::from_fn(|i| (h[i] >> 32) as u32);
    for round in 0..32 {
        // Key words k0..k7 three times, then k7..k0.
        let idx = if round < 24 { round % 8 } else { 7 - round % 8 };
        for i in 0..4 {
            let x = n2[i] ^ f(t, n1[i].wrapping_add(k[i][idx]));
            n2[i] = n1[i];
            n1[i] = x;
        }
    }
    // The last round does not swap: the halves come out exchanged.
    core::array::from_fn(|i| n2[i] as u64 | (n1[i] as u64) << 32)
}

/// ψ^4 on a 256-bit value: ψ shifts the sixteen 16-bit words down by one and puts
/// x0 ⊕ x1 ⊕ x2 ⊕ x3 ⊕ x12 ⊕ x15 on top; four at once is a 64-bit word of new values
/// whose last terms form a prefix XOR.
#[inline(always)]
fn psi4(y: [u64; 4]) -> [u64; 4] {
    let w = y[0] ^ (y[0] >> 16 | y[1] << 48) ^ (y[0] >> 32 | y[1] << 32) ^ (y[0] >> 48 | y[1] << 16) ^ y[3];
    let mut pre = w ^ (w << 16);
    pre ^= pre << 32;
    let x15 = y[3] >> 48;
    [y[1], y[2], y[3], pre ^ x15.wrapping_mul(0x0001_0001_0001_0001)]
}

/// ψ once.
#[inline(always)]
pub(crate) fn psi(y: [u64; 4]) -> [u64; 4] {
    let x = y[0] ^ y[0] >> 16 ^ y[0] >> 32 ^ y[0] >> 48 ^ y[3] ^ y[3] >> 48;
    [y[0] >> 16 | y[1] << 48, y[1] >> 16 | y[2] << 48, y[2] >> 16 | y[3] << 48, y[3] >> 16 | (x & 0xffff) << 48]
}

#[inline(always)]
pub(crate) fn xor(a: [u64; 4], b: [u64; 4]) -> [u64; 4] {
    core::array::from_fn(|i| a[i] ^ b[i])
}

/// The key generation's inputs W_j = U_j ⊕ V_j, whose P transforms are the four keys.
#[inline(always)]
pub(crate) fn key_inputs(h: [u64; 4], m: [u64; 4]) -> [[u64; 4]; 4] {
    let (mut u, mut v) = (h, m);
    let mut w = [[0u64; 4]; 4];
    w[0] = xor(u, v);
    for (j, wj) in w.iter_mut().enumerate().skip(1) {
        u = a(u);
        if j == 2 {
            u = xor(u, C3);
        }
        v = a(a(v));
        *wj = xor(u, v);
    }
    w
}

/// The step function f(H, M).
#[inline(always)]
pub(crate) fn step(t: &Tables, h: [u64; 4], m: [u64; 4]) -> [u64; 4] {
    let w = key_inputs(h, m);
    let keys = [p(w[0]), p(w[1]), p(w[2]), p(w[3])];
    // Encryption of the four 64-bit words of H.
    let s = encrypt4(t, &keys, h);
    // Mixing: ψ^61(H ⊕ ψ(M ⊕ ψ^12(S))).
    let mut x = s;
    for _ in 0..3 {
        x = psi4(x);
    }
    x = psi(xor(m, x));
    x = xor(h, x);
    for _ in 0..15 {
        x = psi4(x);
    }
    psi(x)
}

/// Hashes each 32-byte block of `blocks` in turn (H, Σ and the length).
pub(crate) fn compress_blocks(t: &Tables, state: &mut State, blocks: &[u8]) {
    for block in blocks.chunks_exact(BLOCK_LEN) {
        let m = super::load_block(block);
        state.h = step(t, state.h, m);
        super::add256(&mut state.sigma, &m);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// ψ^4 and ψ against the definition on sixteen 16-bit words.
    #[test]
    fn psi_matches_definition() {
        let mut rng = crate::test_rng::XorShift64::new(0x243F_6A88_85A3_08D3);
        for _ in 0..100 {
            let y: [u64; 4] = core::array::from_fn(|_| rng.next_u64());
            let mut words: Vec<u16> = (0..16).map(|i| (y[i / 4] >> (16 * (i % 4))) as u16).collect();
            for r in 1..=4 {
                let top = words[0] ^ words[1] ^ words[2] ^ words[3] ^ words[12] ^ words[15];
                words.remove(0);
                words.push(top);
                let expected: [u64; 4] = core::array::from_fn(|w| {
                    (0..4).map(|i| (words[4 * w + i] as u64) << (16 * i)).fold(0, |a, b| a | b)
                });
                if r == 1 {
                    assert_eq!(psi(y), expected);
                }
                if r == 4 {
                    assert_eq!(psi4(y), expected);
                }
            }
        }
    }
}
