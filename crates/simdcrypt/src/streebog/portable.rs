//! Table-driven Streebog: LPS as 64 lookups in the generated tables, any CPU.
//!
//! ## What this file holds
//!
//! table-driven LPS and g_N: the reference the other backend is tested against; the table
//! indices are byte loads from the state stored in memory (`black_box` keeps the optimizer
//! from turning them into shifts spilled to the stack)

use super::tables::{C, LPS};
use super::{State, BLOCK_LEN};

/// x ← L∘P∘S(x ⊕ y) on 512-bit values as eight little-endian words.
#[inline(always)]
pub(crate) fn lpsx(x: &mut [u64; 8], y: &[u64; 8]) {
    #[cfg(target_arch = "x86_64")]
    x86_64::lpsx(x, y);
    #[cfg(not(target_arch = "x86_64"))]
    {
        *x = lps_bytes(&core::array::from_fn(|i| x[i] ^ y[i]));
    }
}

/// L∘P∘S(x) through [`lpsx`], for the tests.
#[cfg(test)]
pub(crate) fn lps(x: &[u64; 8]) -> [u64; 8] {
    let mut out = *x;
    lpsx(&mut out, &[0; 8]);
    out
}

/// L∘P∘S with the 64 table indices read as bytes of the state stored in memory: one load
/// and one XOR with a table entry per lookup.
///
/// `black_box` hides the stored bytes' origin from the optimizer; seeing that they come
/// from words in registers, it extracted all 64 with shifts up front and spilled them to
/// the stack.
#[cfg_attr(all(target_arch = "x86_64", not(test)), allow(dead_code))]
#[inline(always)]
pub(crate) fn lps_bytes(x: &[u64; 8]) -> [u64; 8] {
    let mut bytes = [0u8; 64];
    for (chunk, w) in bytes.chunks_exact_mut(8).zip(x) {
        chunk.copy_from_slice(&w.to_le_bytes());
    }
    let bytes = core::hint::black_box(bytes);
    let mut out = [0u64; 8];
    for (i, o) in out.iter_mut().enumerate() {
        let mut r = 0;
        for (j, table) in LPS.iter().enumerate() {
            r ^= table[bytes[8 * j + i] as usize];
        }
        *o = r;
    }
    out
}

/// LPS in inline assembly on x86-64, in the order the Rust versions could not keep.
///
/// The 64 lookups are bound by the load ports when each index is a byte load (two loads
/// per lookup), and by the ALUs when each index is shifted out of a copy of its word
/// (Nettle's C: one load, three ALU operations). Here each input word is consumed in a
/// register two bytes at a time: `movzx` of its low byte, `movzx` of its second byte
/// through the legacy high-byte register (`ah`), then one shift by 16 for the next two,
/// so a lookup costs one load, its XOR and one or two other ALU operations. LLVM compiles
/// every Rust spelling of this (the shifts, the byte-register reads) into 64 indices
/// extracted up front and spilled to the stack, so it is written out here.
#[cfg(target_arch = "x86_64")]
mod x86_64 {
    use super::LPS;

    /// One lookup: the index is byte register `$byte` (`al` or `ah`), zero-extended into
    /// rsi; the entry of the table at byte offset `$t` is XORed into (`$op` = `xor`) or
    /// moved to (`mov`) the output word in `$out`.
    macro_rules! lookup {
        ($op:literal, $out:literal, $byte:literal, $t:literal) => {
            concat!("movzx esi, ", $byte, "\n", $op, " ", $out, ", qword ptr [{t} + rsi*8 + ", $t, "]\n")
        };
    }

    /// The eight lookups of input word `j` (at byte `$w` of x and y; its table at byte
    /// offset `$t`): byte `i` of x ⊕ y selects the entry for output word `i`, held in r8..r15.
    /// `$op` is `mov` for the first word, which starts the outputs, then `xor`.
    macro_rules! word {
        ($op:literal, $w:literal, $t:literal) => {
            concat!(
                concat!("mov rax, qword ptr [{x} + ", $w, "]\n"),
                concat!("xor rax, qword ptr [{y} + ", $w, "]\n"),
                lookup!($op, "r8", "al", $t),
                lookup!($op, "r9", "ah", $t),
                "shr rax, 16\n",
                lookup!($op, "r10", "al", $t),
                lookup!($op, "r11", "ah", $t),
                "shr rax, 16\n",
                lookup!($op, "r12", "al", $t),
                lookup!($op, "r13", "ah", $t),
                "shr eax, 16\n",
                lookup!($op, "r14", "al", $t),
                lookup!($op, "r15", "ah", $t),
            )
        };
    }

    /// x ← LPS(x ⊕ y).
    #[inline(always)]
    pub(super) fn lpsx(x: &mut [u64; 8], y: &[u64; 8]) {
        // SAFETY: the assembly reads the 64 bytes behind `x` and `y` and the 16 KiB table
        // behind `t` (every index is one byte, below 256, and the offsets select table 0..8
        // of `LPS`, which is [[u64; 256]; 8]), and writes only the 64 bytes behind `x`,
        // after its last read of them (x and y may not overlap: `x` is borrowed
        // exclusively). Every register it changes is declared; xor and shr change the
        // flags, so `preserves_flags` is not claimed; it touches no stack.
        unsafe {
            core::arch::asm!(
                word!("mov", 0, 0),
                word!("xor", 8, 2048),
                word!("xor", 16, 4096),
                word!("xor", 24, 6144),
                word!("xor", 32, 8192),
                word!("xor", 40, 10240),
                word!("xor", 48, 12288),
                word!("xor", 56, 14336),
                "mov qword ptr [{x}], r8",
                "mov qword ptr [{x} + 8], r9",
                "mov qword ptr [{x} + 16], r10",
                "mov qword ptr [{x} + 24], r11",
                "mov qword ptr [{x} + 32], r12",
                "mov qword ptr [{x} + 40], r13",
                "mov qword ptr [{x} + 48], r14",
                "mov qword ptr [{x} + 56], r15",
                x = in(reg) x.as_mut_ptr(),
                y = in(reg) y.as_ptr(),
                t = in(reg) LPS.as_ptr(),
                out("rax") _, out("rsi") _,
                out("r8") _, out("r9") _, out("r10") _, out("r11") _,
                out("r12") _, out("r13") _, out("r14") _, out("r15") _,
                options(nostack),
            );
        }
    }
}

/// The compression function g_N(h, m) (the standard's 7): h ← E(LPS(h ⊕ N), m) ⊕ h ⊕ m.
pub(crate) fn g(h: &mut [u64; 8], n: &[u64; 8], m: &[u64; 8]) {
    let mut k = *h;
    lpsx(&mut k, n);
    let mut t = *m;
    for c in &C {
        lpsx(&mut t, &k);
        lpsx(&mut k, c);
    }
    for i in 0..8 {
        h[i] ^= t[i] ^ k[i] ^ m[i];
    }
}

/// g_0(IV, m) with the precomputed key schedule of a first compression.
pub(crate) fn g_keys(h: &mut [u64; 8], keys: &[[u64; 8]; 13], m: &[u64; 8]) {
    let mut t = *m;
    for k in &keys[..12] {
        lpsx(&mut t, k);
    }
    for i in 0..8 {
        h[i] ^= t[i] ^ keys[12][i] ^ m[i];
    }
}

/// Compresses each 64-byte block of `blocks` in turn (stage 2 of the standard).
pub(crate) fn compress_blocks(state: &mut State, blocks: &[u8]) {
    for block in blocks.chunks_exact(BLOCK_LEN) {
        let m = super::load_block(block);
        g(&mut state.h, &state.n, &m);
        state.absorb(&m);
    }
}
