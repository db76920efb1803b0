//! The assembly text the SSE4.1 and AVX2 kernels share: the seven rounds and their message
//! schedule, written by macros so that each kernel supplies only its own four-G step
//! (`avx2_g4!`, `sse_g4!`), and a compile-time check that the text reads the message words
//! `MSG_SCHEDULE` asks for. Hand-allocated registers, because the compiler spilled the
//! state around every block (docs/tuning-history.md, "blake3/avx2.rs").
//!
//! ## What this file holds
//!
//! the assembly text the SSE4.1 and AVX2 kernels share (`asm_round!`, `asm_rounds!`: the
//! rounds and message schedule, each kernel supplying its four-G step) and
//! `asm_message_words_match`, the compile-time check of the text against `MSG_SCHEDULE`

use super::MSG_SCHEDULE;

/// One round of an assembly kernel's text: `$g4!` writes four G functions step by step,
/// given the state words of each and the indices of their message words. `$end` says what
/// the diagonal step does with state word 8 after its last use: `park` it in its memory
/// slot, or (last round) `finish` the new chaining value's words 0..4 while it is still in
/// a register.
#[cfg(target_arch = "x86_64")]
macro_rules! asm_round {
    ($g4:ident, $end:ident, [$s0:tt, $s1:tt, $s2:tt, $s3:tt, $s4:tt, $s5:tt, $s6:tt, $s7:tt,
      $s8:tt, $s9:tt, $s10:tt, $s11:tt, $s12:tt, $s13:tt, $s14:tt, $s15:tt]) => {
        concat!(
            $g4!(
                [0, 1, 2, 3],
                [4, 5, 6, 7],
                [8, 9, 10, 11],
                [12, 13, 14, 15],
                [$s0, $s2, $s4, $s6],
                [$s1, $s3, $s5, $s7],
                park
            ),
            $g4!(
                [0, 1, 2, 3],
                [5, 6, 7, 4],
                [10, 11, 8, 9],
                [15, 12, 13, 14],
                [$s8, $s10, $s12, $s14],
                [$s9, $s11, $s13, $s15],
                $end
            ),
        )
    };
}

/// The seven rounds of an assembly kernel's text: the rows of `MSG_SCHEDULE` written out
/// (each kernel checks its text against it at compile time, `asm_message_words_match`).
/// The text ends with words 0..4 of the new chaining value done; words 4..8 are left to
/// the kernel (`h[4 + i] = v[4 + i] ^ v[12 + i]`).
#[cfg(target_arch = "x86_64")]
macro_rules! asm_rounds {
    ($g4:ident) => {
        concat!(
            asm_round!($g4, park, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]),
            asm_round!($g4, park, [2, 6, 3, 10, 7, 0, 4, 13, 1, 11, 12, 5, 9, 14, 15, 8]),
            asm_round!($g4, park, [3, 4, 10, 12, 13, 2, 7, 14, 6, 5, 9, 0, 11, 15, 8, 1]),
            asm_round!($g4, park, [10, 7, 12, 9, 14, 3, 13, 15, 4, 0, 11, 2, 5, 8, 1, 6]),
            asm_round!($g4, park, [12, 13, 9, 11, 15, 10, 14, 8, 7, 2, 5, 3, 0, 1, 6, 4]),
            asm_round!($g4, park, [9, 14, 11, 5, 8, 12, 15, 1, 13, 3, 0, 10, 2, 6, 4, 7]),
            asm_round!($g4, finish, [11, 15, 5, 0, 1, 9, 8, 6, 14, 10, 2, 12, 3, 4, 7, 13]),
        )
    };
}

/// Whether the message operands `[{buf} + W*word_bytes]` of an assembly kernel's text (the
/// message words; other operands of the buffer are plain offsets), in order, are the words
/// `MSG_SCHEDULE` asks for: 8 per four G's (the four `x` words, then the four `y`), two
/// groups per round. Checked at compile time.
#[cfg(target_arch = "x86_64")]
pub(super) const fn asm_message_words_match(text: &[u8], word_bytes: usize) -> bool {
    const ORDER: [usize; 16] = [0, 2, 4, 6, 1, 3, 5, 7, 8, 10, 12, 14, 9, 11, 13, 15];
    let pattern = b"[{buf} + ";
    let mut found = 0;
    let mut at = 0;
    while at + pattern.len() < text.len() {
        let mut k = 0;
        while k < pattern.len() && text[at + k] == pattern[k] {
            k += 1;
        }
        if k == pattern.len() {
            let mut word = 0;
            let mut p = at + k;
            while text[p].is_ascii_digit() {
                word = 10 * word + (text[p] - b'0') as usize;
                p += 1;
            }
            if text[p] == b'*' {
                let mut scale = 0;
                p += 1;
                while text[p].is_ascii_digit() {
                    scale = 10 * scale + (text[p] - b'0') as usize;
                    p += 1;
                }
                if scale != word_bytes || found >= 7 * 16 || word != MSG_SCHEDULE[found / 16][ORDER[found % 16]] {
                    return false;
                }
                found += 1;
            }
        }
        at += 1;
    }
    found == 7 * 16
}
