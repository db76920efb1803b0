//! GOST R 34.11-94's step function in plain Rust: GOST 28147-89 with combined
//! S-box-and-rotation tables, the four encryptions of a step run side by side.
//!
//! ## What this file holds
//!
//! the step function: key generation (A, P), the four GOST 28147-89 encryptions interleaved
//! round by round (`encrypt4`: x86-64 assembly, tested against the Rust definition, which
//! other architectures run; its round is four lookups in the 4 KiB `words` tables, or three in
//! the 33 KiB `wide` ones where the L1 data cache has at least 48 KiB, `wide_fits`), ψ^12 /
//! ψ^61 four 16-bit words at a time (`psi4`, tested against ψ by definition)

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
pub(crate) fn encrypt4(t: &Tables, k: &[[u32; 8]; 4], h: [u64; 4]) -> [u64; 4] {
    #[cfg(target_arch = "x86_64")]
    return x86_64::encrypt4(t, k, h);
    #[cfg(not(target_arch = "x86_64"))]
    return encrypt4_rust(t, k, h);
}

/// [`encrypt4`] in Rust: the definition on every architecture but x86-64, where the
/// tests hold the assembly to it.
#[cfg_attr(all(target_arch = "x86_64", not(test)), allow(dead_code))]
#[inline(always)]
fn encrypt4_rust(t: &Tables, k: &[[u32; 8]; 4], h: [u64; 4]) -> [u64; 4] {
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

/// The four encryptions in inline assembly on x86-64.
///
/// Each round of each encryption is n2 ^= f(n1 + key) with f from combined tables, the
/// halves changing roles instead of places. There are two forms of the round:
/// - `narrow`: four lookups in the 4 KiB of `Tables::words`. The sum's bytes come out of
///   one register (`movzx` of `al` and of `ah`, a shift by 16, `al` and `ah` again), so a
///   lookup costs one load and about one other operation: 12 instructions a round.
///   LLVM's code for the Rust version extracted each byte with its own shift and mask and
///   moved the halves between registers (the whole step took 3,394 instructions against
///   2,732 with this form, callgrind).
/// - `wide`: three lookups in the 33 KiB of `Tables::wide` (a byte and two 12-bit
///   pieces): 11 instructions a round and one XOR less on its chain.
///
/// [`wide_fits`] chooses. The four chains are written one after another; the core runs
/// them side by side, as the renamed `eax`, `esi` and `edx` of each chain do not depend on
/// the previous chain's.
#[cfg(target_arch = "x86_64")]
mod x86_64 {
    use super::Tables;
    use std::sync::OnceLock;

    /// Whether the `wide` round's tables fit this CPU's L1 data cache with room to spare: at
    /// least 48 KiB. Chosen by that measured property, not by vendor: the wide round was
    /// faster with a 48 KiB cache and slower than the narrow one with its tables spread over
    /// twice the footprint, standing in for a 32 KiB cache such as Skylake's or AMD Zen 2–4's
    /// (docs/tuning-history.md, "GOST R 34.11-94, one message: three lookups a round"), so
    /// smaller caches, and CPUs whose CPUID does not say, keep the 4 KiB tables.
    pub(super) fn wide_fits() -> bool {
        static FITS: OnceLock<bool> = OnceLock::new();
        *FITS.get_or_init(|| crate::cpu::l1d_bytes().is_some_and(|bytes| bytes >= 48 * 1024))
    }

    /// One round of encryption `$chain`: `$y` ^= f(`$x` + key word `$word`).
    macro_rules! chain_round {
        // Bytes 0 and 1 of the sum are one `movzx` away from it, bytes 2 and 3 a shift and a
        // `movzx` (of `al` and `ah` again); the four entries are XORed as a tree so that
        // only one XOR follows the last load (edx is a scratch).
        (narrow, $x:literal, $y:literal, $chain:literal, $word:literal) => {
            concat!(
                "mov eax, ", $x, "\n",
                "add eax, dword ptr [{k} + ", $chain, " * 32 + ", $word, " * 4]\n",
                "movzx esi, al\n",
                "movzx edi, ah\n",
                "shr eax, 16\n",
                "mov edx, dword ptr [{t} + rsi * 4]\n",
                "xor edx, dword ptr [{t} + rdi * 4 + 1024]\n",
                "movzx esi, al\n",
                "movzx edi, ah\n",
                "xor ", $y, ", dword ptr [{t} + rsi * 4 + 2048]\n",
                "xor ", $y, ", dword ptr [{t} + rdi * 4 + 3072]\n",
                "xor ", $y, ", edx\n",
            )
        };
        // Bits 0..8, 8..20 and 20..32 of the sum; entries at 0, 1024 and 17408 bytes.
        (wide, $x:literal, $y:literal, $chain:literal, $word:literal) => {
            concat!(
                "mov eax, ", $x, "\n",
                "add eax, dword ptr [{k} + ", $chain, " * 32 + ", $word, " * 4]\n",
                "movzx esi, al\n",
                "mov edx, dword ptr [{t} + rsi * 4]\n",
                "mov esi, eax\n",
                "shr esi, 8\n",
                "and esi, 0xfff\n",
                "xor edx, dword ptr [{t} + rsi * 4 + 1024]\n",
                "shr eax, 20\n",
                "xor ", $y, ", dword ptr [{t} + rax * 4 + 17408]\n",
                "xor ", $y, ", edx\n",
            )
        };
    }

    /// One round of all four encryptions with key word `$word`. Encryption i keeps its low
    /// half in r(8+2i)d and its high half in r(9+2i)d; `even` rounds update the high halves.
    macro_rules! round {
        ($form:ident, even, $word:literal) => {
            concat!(
                chain_round!($form, "r8d", "r9d", 0, $word),
                chain_round!($form, "r10d", "r11d", 1, $word),
                chain_round!($form, "r12d", "r13d", 2, $word),
                chain_round!($form, "r14d", "r15d", 3, $word),
            )
        };
        ($form:ident, odd, $word:literal) => {
            concat!(
                chain_round!($form, "r9d", "r8d", 0, $word),
                chain_round!($form, "r11d", "r10d", 1, $word),
                chain_round!($form, "r13d", "r12d", 2, $word),
                chain_round!($form, "r15d", "r14d", 3, $word),
            )
        };
    }

    /// The 32 rounds: key words 0..7 three times, then 7..0 (unrolled: the loop counter's
    /// register serves as a scratch).
    #[rustfmt::skip]
    macro_rules! thirty_two_rounds {
        ($form:ident) => {
            concat!(
                round!($form, even, 0), round!($form, odd, 1), round!($form, even, 2), round!($form, odd, 3),
                round!($form, even, 4), round!($form, odd, 5), round!($form, even, 6), round!($form, odd, 7),
                round!($form, even, 0), round!($form, odd, 1), round!($form, even, 2), round!($form, odd, 3),
                round!($form, even, 4), round!($form, odd, 5), round!($form, even, 6), round!($form, odd, 7),
                round!($form, even, 0), round!($form, odd, 1), round!($form, even, 2), round!($form, odd, 3),
                round!($form, even, 4), round!($form, odd, 5), round!($form, even, 6), round!($form, odd, 7),
                round!($form, even, 7), round!($form, odd, 6), round!($form, even, 5), round!($form, odd, 4),
                round!($form, even, 3), round!($form, odd, 2), round!($form, even, 1), round!($form, odd, 0),
            )
        };
    }

    /// The four encryptions with the round `$form` on the table at `$table`.
    macro_rules! encrypt4_asm {
        ($form:ident, $table:expr, $k:expr, $h:expr) => {{
            let [mut a0, mut a1, mut a2, mut a3] = $h.map(|w| w as u32);
            let [mut b0, mut b1, mut b2, mut b3] = $h.map(|w| (w >> 32) as u32);
            // SAFETY: the assembly reads the 128 bytes of `k` (offsets 32·chain + 4·word,
            // both below 4 and 8) and the table behind `$table`: `words` ([[u32; 256]; 4],
            // each index one byte, below 256, the displacements 0, 1024, 2048, 3072 selecting
            // table 0..4) for `narrow`; `wide` ([u32; 256 + 2 · 4096], indices below 256 at
            // 0 and below 4096 at 1024 and 17408 bytes) for `wide`. It writes no memory.
            // Every register it changes is an output or declared clobbered; `add`, `xor`,
            // `and` and `shr` change the flags, so `preserves_flags` is not claimed; it
            // touches no stack.
            unsafe {
                core::arch::asm!(
                    thirty_two_rounds!($form),
                    k = in(reg) $k.as_ptr(),
                    t = in(reg) $table.as_ptr(),
                    inout("r8") a0, inout("r9") b0,
                    inout("r10") a1, inout("r11") b1,
                    inout("r12") a2, inout("r13") b2,
                    inout("r14") a3, inout("r15") b3,
                    out("rax") _, out("rsi") _, out("rdx") _, out("rdi") _,
                    options(nostack, readonly),
                );
            }
            // After an even number of rounds the low half holds n1 and the high half n2;
            // the last round does not swap, so the result is n2 ‖ n1 with n1 on top.
            [
                b0 as u64 | (a0 as u64) << 32,
                b1 as u64 | (a1 as u64) << 32,
                b2 as u64 | (a2 as u64) << 32,
                b3 as u64 | (a3 as u64) << 32,
            ]
        }};
    }

    /// The four encryptions with the narrow round (four lookups).
    #[inline(always)]
    pub(super) fn encrypt4_narrow(t: &Tables, k: &[[u32; 8]; 4], h: [u64; 4]) -> [u64; 4] {
        encrypt4_asm!(narrow, t.words, k, h)
    }

    /// The four encryptions with the wide round (three lookups).
    #[inline(always)]
    pub(super) fn encrypt4_wide(t: &Tables, k: &[[u32; 8]; 4], h: [u64; 4]) -> [u64; 4] {
        encrypt4_asm!(wide, t.wide, k, h)
    }

    /// The four encryptions in the form that suits this CPU ([`wide_fits`]).
    #[inline(always)]
    pub(super) fn encrypt4(t: &Tables, k: &[[u32; 8]; 4], h: [u64; 4]) -> [u64; 4] {
        if wide_fits() {
            encrypt4_wide(t, k, h)
        } else {
            encrypt4_narrow(t, k, h)
        }
    }
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

    /// The encryptions [`step`] runs against the Rust definition, on random keys and blocks
    /// with both S-boxes: on x86-64 both forms of the assembly round, whichever this CPU's
    /// cache chooses (`x86_64::wide_fits`).
    #[test]
    fn encrypt4_matches_rust() {
        type Encrypt4 = fn(&Tables, &[[u32; 8]; 4], [u64; 4]) -> [u64; 4];
        #[cfg(target_arch = "x86_64")]
        let forms: [(&str, Encrypt4); 2] = [("narrow", x86_64::encrypt4_narrow), ("wide", x86_64::encrypt4_wide)];
        #[cfg(not(target_arch = "x86_64"))]
        let forms: [(&str, Encrypt4); 1] = [("rust", encrypt4)];
        let mut rng = crate::test_rng::XorShift64::new(0x1319_8A2E_0370_7344);
        for sbox in [crate::gost94::SBox::CryptoPro, crate::gost94::SBox::Test] {
            let t = sbox.tables();
            for _ in 0..200 {
                let k: [[u32; 8]; 4] = core::array::from_fn(|_| core::array::from_fn(|_| rng.next_u64() as u32));
                let h: [u64; 4] = core::array::from_fn(|_| rng.next_u64());
                let expected = encrypt4_rust(t, &k, h);
                for (name, form) in forms {
                    assert_eq!(form(t, &k, h), expected, "{name} {}", sbox.name());
                }
                assert_eq!(encrypt4(t, &k, h), expected);
            }
        }
        let names: Vec<&str> = forms.iter().map(|(name, _)| *name).collect();
        println!("encrypt4_matches_rust: exercised {}", names.join(", "));
    }

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
