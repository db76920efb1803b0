//! Blocks in rows, for the AVX-512, AVX2 and SSE4.1 backends: a block's state as four
//! 128-bit rows, one, two or four blocks side by side, one per 128-bit lane of 128-, 256- or
//! 512-bit registers. For what is left after the transposed kernels and for single
//! compressions (chunk states, parents, the root).
//!
//! One block's rounds are one dependency chain, so these kernels run at the chain's latency
//! as long as nothing is added to it. They are assembly: written with intrinsics, the
//! compiler re-associated `a + m + b` into `a + b + m` in places (the message word, ready
//! early, then waited on `b`, the last value of the step before) and turned the message
//! picks into 512-bit shuffles even for one block, well behind the crate (docs/tuning-history.md, "blake3/rows.rs").
//!
//! The message stays in four registers, each holding four words of every block (one block
//! per 128-bit lane): the column step's first and second words (`s[0], s[2], s[4], s[6]`
//! and `s[1], s[3], ...`, `s` the round's row of `MSG_SCHEDULE`), then the diagonal step's
//! (`s[14], s[8], s[10], s[12]` and `s[15], s[9], ...`). Between rounds they are permuted
//! in place with lane-local shuffles (`rows_permute!`), which work the same at every width.
//!
//! One text serves all three backends; the `$f` argument (`avx512`, `avx2` or `sse41`)
//! picks the few instructions that differ: AVX-512 rotates and merges under a mask
//! register; AVX2 rotates with byte shuffles or shifts and blends, using one more register,
//! `{t}`; SSE4.1 does the same in two-operand forms.
//!
//! With 16 registers, two blocks' chains can overlap only if the messages leave the
//! registers: the two-set kernels (`rows_rounds_mem2!`; AVX2 four blocks, SSE4.1 two) keep
//! them in a buffer and permute them from slot to slot, reading each slot once into the four
//! registers left over (read by every shuffle that needs them instead, the slots were loaded
//! nearly three times as often, and the kernel fell behind the crate's when the core was
//! shared: docs/tuning-history.md).
//!
//! ## What this file holds
//!
//! blocks in rows, for the AVX-512, AVX2 and SSE4.1 backends: a block's state as four 128-bit
//! rows, one, two or four blocks side by side in 128-, 256- or 512-bit registers; what is left
//! after the transposed kernels and every single compression (chunk states, parents, the
//! root). The seven rounds are one `asm!` text (`rows_rounds!`) for every width and backend:
//! the message stays in four registers, arranged for round 0 and then permuted between rounds
//! with lane-local `vshufps` and merged `vpshufd` (`rows_permute!`), in two register sets that
//! alternate; the few instructions that differ are picked by a backend argument (`rows_xor!`,
//! `rows_ror!`, `rows_merge!`, ...: AVX-512 rotates and merges under a mask register; AVX2 and
//! SSE4.1 rotate by byte shuffles or shifts and blend, SSE4.1 in two-operand forms). AVX2
//! hashes four leftover inputs as two sets of two blocks whose instructions are interleaved
//! one by one so that their chains overlap (`rows_half!` writes a half round for one set or
//! for two), SSE4.1 two inputs as two sets of one block: the messages in a buffer
//! (`rows_rounds_mem2!`; both sets' state and messages do not fit 16 registers), round 0's
//! arranged by the caller (`round0_order!`) so that it does not go through the buffer twice
//! before the first round. `rows_kernels!` writes each backend's single compressions and one-
//! or two-input hashing around its rounds; `Platform::compress_in_place`/`compress_xof` reach
//! them through one dispatch macro (`single_block!` in `platform.rs`). Written with intrinsics
//! the compiler lengthened the dependency chain (re-associated message additions) and fused
//! the picks into 512-bit shuffles. Message quarters are loaded by a macro (`quarters!`), not
//! a closure, which a build without LTO left out of line; for four blocks each 128-bit lane is
//! inserted into the 512-bit register in turn (two 256-bit halves joined measured slower; docs/tuning-history.md). The
//! four- and one-block kernels work out row d (counter, length, flags) once per input for
//! first, middle and last blocks (`first_middle_last`, `pick`)

use core::arch::x86_64::*;

use super::job::HashManyJob;
use super::{CvWords, BLOCK_LEN, IV};

/// `{$r} ^= {$s}`.
#[rustfmt::skip]
macro_rules! rows_xor {
    (avx512, $r:literal, $s:literal) => { concat!("vpxord {", $r, "}, {", $r, "}, {", $s, "}\n") };
    (avx2, $r:literal, $s:literal) => { concat!("vpxor {", $r, "}, {", $r, "}, {", $s, "}\n") };
    (sse41, $r:literal, $s:literal) => { concat!("pxor {", $r, "}, {", $s, "}\n") };
}

/// `{$r} = {$r} op $s` (`$s` a `rows_msg!` operand, `$imm` an optional immediate) for the
/// two-source instruction `$mn`: three operands in VEX, two in SSE.
#[rustfmt::skip]
macro_rules! rows_op {
    (sse41, $mn:literal, $r:literal, $s:tt $(, $imm:literal)?) => {
        concat!($mn, " {", $r, "}, ", rows_msg!$s, $(", ", $imm,)? "\n")
    };
    ($f:ident, $mn:literal, $r:literal, $s:tt $(, $imm:literal)?) => {
        concat!("v", $mn, " {", $r, "}, {", $r, "}, ", rows_msg!$s, $(", ", $imm,)? "\n")
    };
}

/// The mnemonic prefix of the backend's encoding: "v" (VEX or EVEX), or none (SSE).
#[rustfmt::skip]
macro_rules! rows_v {
    (sse41) => { "" };
    ($f:ident) => { "v" };
}

/// `{$q}` = `shufps` of `{$p}` and `{$s}` with `$imm` (SSE: a copy first, two operands).
#[rustfmt::skip]
macro_rules! rows_shufps {
    (sse41, $q:literal, $p:literal, $s:literal, $imm:literal) => {
        concat!("movaps {", $q, "}, {", $p, "}\nshufps {", $q, "}, {", $s, "}, ", $imm, "\n")
    };
    ($f:ident, $q:literal, $p:literal, $s:literal, $imm:literal) => {
        concat!("vshufps {", $q, "}, {", $p, "}, {", $s, "}, ", $imm, "\n")
    };
}

/// Rotation right of `{$r}` by `$n` bits (`$l` = 32 - `$n`). AVX2 has no rotation: a byte
/// shuffle (masks `{rot16}`, `{rot8}`) for 16 and 8, two shifts and an or for 12 and 7;
/// the same in SSE.
#[rustfmt::skip]
macro_rules! rows_ror {
    (avx512, $r:literal, $n:literal, $l:literal) => { concat!("vprord {", $r, "}, {", $r, "}, ", $n, "\n") };
    (avx2, $r:literal, 16, $l:literal) => { concat!("vpshufb {", $r, "}, {", $r, "}, {rot16}\n") };
    (avx2, $r:literal, 8, $l:literal) => { concat!("vpshufb {", $r, "}, {", $r, "}, {rot8}\n") };
    (avx2, $r:literal, $n:literal, $l:literal) => {
        concat!(
            "vpsrld {t}, {", $r, "}, ", $n, "\n",
            "vpslld {", $r, "}, {", $r, "}, ", $l, "\n",
            "vpor {", $r, "}, {", $r, "}, {t}\n",
        )
    };
    (sse41, $r:literal, 16, $l:literal) => { concat!("pshufb {", $r, "}, {rot16}\n") };
    (sse41, $r:literal, 8, $l:literal) => { concat!("pshufb {", $r, "}, {rot8}\n") };
    (sse41, $r:literal, $n:literal, $l:literal) => {
        concat!(
            "movdqa {t}, {", $r, "}\n",
            "psrld {t}, ", $n, "\n",
            "pslld {", $r, "}, ", $l, "\n",
            "por {", $r, "}, {t}\n",
        )
    };
}

/// A message operand: register `{$r}`, or slot `$i` of the message buffer `{buf}` (`{slot}`
/// bytes each, one register's worth), for the two-set kernels, which have too few registers
/// for their messages.
#[rustfmt::skip]
macro_rules! rows_msg {
    (reg $r:literal) => { concat!("{", $r, "}") };
    (mem $i:literal) => { concat!("[{buf} + {slot} * ", $i, "]") };
}

/// In each 128-bit lane of `{$q}`, the words picked by `$k` ("k02": words 0 and 2, "k03":
/// words 0 and 3) replaced by those of `vpshufd $p, $imm` (`$p` a `rows_msg!` operand):
/// merged under a mask register on AVX-512, blended in from `{t}` on AVX2 and SSE4.1.
#[rustfmt::skip]
macro_rules! rows_merge {
    (avx512, $q:literal, $p:tt, $imm:literal, $k:literal) => {
        concat!("vpshufd {", $q, "} {{{", $k, "}}}, ", rows_msg!$p, ", ", $imm, "\n")
    };
    (avx2, $q:literal, $p:tt, $imm:literal, "k02") => {
        concat!("vpshufd {t}, ", rows_msg!$p, ", ", $imm, "\n", "vpblendd {", $q, "}, {", $q, "}, {t}, 0x55\n")
    };
    (avx2, $q:literal, $p:tt, $imm:literal, "k03") => {
        concat!("vpshufd {t}, ", rows_msg!$p, ", ", $imm, "\n", "vpblendd {", $q, "}, {", $q, "}, {t}, 0x99\n")
    };
    (sse41, $q:literal, $p:tt, $imm:literal, "k02") => {
        concat!("pshufd {t}, ", rows_msg!$p, ", ", $imm, "\n", "pblendw {", $q, "}, {t}, 0x33\n")
    };
    (sse41, $q:literal, $p:tt, $imm:literal, "k03") => {
        concat!("pshufd {t}, ", rows_msg!$p, ", ", $imm, "\n", "pblendw {", $q, "}, {t}, 0xc3\n")
    };
}

/// Half a round in rows: the four G functions of a column (or diagonal) step, one per lane
/// of the rows `[a, b, c, d]` (register names), with message words `$x` and `$y`
/// (`rows_msg!` operands). Then rows a, c and d are rotated to line the diagonals up as
/// columns (`$sa`, `$sc`; or back after the diagonal step). Not row b: it is the last value
/// the step produces, so shuffling it would lengthen the chain; lane i then holds b[i] and
/// computes diagonal i - 1, which is why the diagonal words come in the order 14, 8, 10, 12.
/// With two sets of rows (`rows_round_mem2!`), each instruction is followed by the same one
/// for the other set, as the crate's AVX2 assembly does: with one half of each in turn, four
/// blocks on AVX2 ran at 0.955 of the crate's kernel, interleaved 0.969.
#[rustfmt::skip]
macro_rules! rows_half {
    ($f:ident, [$(([$a:literal, $b:literal, $c:literal, $d:literal], $x:tt, $y:tt)),+], $sa:literal, $sc:literal) => {
        concat!(
            $(rows_op!($f, "paddd", $a, $x),)+
            $(rows_op!($f, "paddd", $a, (reg $b)),)+
            $(rows_xor!($f, $d, $a),)+
            $(rows_ror!($f, $d, 16, 16),)+
            $(rows_op!($f, "paddd", $c, (reg $d)),)+
            $(rows_xor!($f, $b, $c),)+
            $(rows_ror!($f, $b, 12, 20),)+
            $(rows_op!($f, "paddd", $a, $y),)+
            $(rows_op!($f, "paddd", $a, (reg $b)),)+
            $(rows_xor!($f, $d, $a),)+
            $(rows_ror!($f, $d, 8, 24),)+
            $(rows_op!($f, "paddd", $c, (reg $d)),)+
            $(rows_xor!($f, $b, $c),)+
            $(rows_ror!($f, $b, 7, 25),)+
            $(rows_v!($f), "pshufd {", $a, "}, {", $a, "}, ", $sa, "\n",)+
            $(rows_v!($f), "pshufd {", $d, "}, {", $d, "}, 0x4e\n",)+
            $(rows_v!($f), "pshufd {", $c, "}, {", $c, "}, ", $sc, "\n",)+
        )
    };
}

/// The two halves of a round on the rows `$s` with the message `[$p0..$p3]` (`rows_msg!`
/// operands in the order of `rows_half!`'s words).
macro_rules! rows_halves {
    ($f:ident, $s:tt, [$p0:tt, $p1:tt, $p2:tt, $p3:tt]) => {
        concat!(rows_half!($f, [($s, $p0, $p1)], "0x93", "0x39"), rows_half!($f, [($s, $p2, $p3)], "0x39", "0x93"))
    };
}

/// The next round's message registers `$q` from this round's `$p`. Word i of the next round
/// is word `MSG_PERMUTATION[i]` of this one; with X, Y, Z, W the four registers in the
/// order of `rows_half!`'s words, per 128-bit lane:
/// X' = (X1, Y1, Y3, X2), Y' = (X3, Z2, X0, W3), Z' = (W0, Y0, Z3, W1), W' = (Z1, W2, Y2, Z0).
/// Each is one two-source `vshufps` and one `vpshufd`, for Y', Z' and W' merged into the
/// `vshufps` result (`rows_merge!`). The tests check every width against the portable
/// kernel.
#[rustfmt::skip]
macro_rules! rows_permute {
    ($f:ident, [$p0:literal, $p1:literal, $p2:literal, $p3:literal], [$q0:literal, $q1:literal, $q2:literal, $q3:literal]) => {
        concat!(
            rows_shufps!($f, $q0, $p0, $p1, "0xd9"),
            rows_v!($f), "pshufd {", $q0, "}, {", $q0, "}, 0x78\n",
            rows_shufps!($f, $q1, $p2, $p3, "0xc8"),
            rows_merge!($f, $q1, (reg $p0), "0x03", "k02"),
            rows_shufps!($f, $q2, $p1, $p2, "0x30"),
            rows_merge!($f, $q2, (reg $p3), "0x40", "k03"),
            rows_shufps!($f, $q3, $p3, $p1, "0x28"),
            rows_merge!($f, $q3, (reg $p2), "0x01", "k03"),
        )
    };
}

/// A round in rows with the message in registers `$p`, preparing the next round's in `$q`.
macro_rules! rows_round {
    ($f:ident, [$p0:literal, $p1:literal, $p2:literal, $p3:literal] $(, $q:tt)?) => {
        concat!(
            rows_halves!($f, ["a", "b", "c", "d"], [(reg $p0), (reg $p1), (reg $p2), (reg $p3)]),
            $(rows_permute!($f, [$p0, $p1, $p2, $p3], $q),)?
        )
    };
}

/// The seven rounds in rows. `{m0}`..`{m3}` come in as the block's four 16-byte quarters
/// (words 0-3, 4-7, 8-11, 12-15) and are arranged into round 0's order in `{n0}`..`{n3}`;
/// the rounds then alternate between the two sets.
macro_rules! rows_rounds {
    ($f:ident) => {
        concat!(
            rows_shufps!($f, "n0", "m0", "m1", "0x88"),
            rows_shufps!($f, "n1", "m0", "m1", "0xdd"),
            rows_shufps!($f, "n2", "m2", "m3", "0x88"),
            rows_v!($f),
            "pshufd {n2}, {n2}, 0x93\n",
            rows_shufps!($f, "n3", "m2", "m3", "0xdd"),
            rows_v!($f),
            "pshufd {n3}, {n3}, 0x93\n",
            rows_round!($f, ["n0", "n1", "n2", "n3"], ["m0", "m1", "m2", "m3"]),
            rows_round!($f, ["m0", "m1", "m2", "m3"], ["n0", "n1", "n2", "n3"]),
            rows_round!($f, ["n0", "n1", "n2", "n3"], ["m0", "m1", "m2", "m3"]),
            rows_round!($f, ["m0", "m1", "m2", "m3"], ["n0", "n1", "n2", "n3"]),
            rows_round!($f, ["n0", "n1", "n2", "n3"], ["m0", "m1", "m2", "m3"]),
            rows_round!($f, ["m0", "m1", "m2", "m3"], ["n0", "n1", "n2", "n3"]),
            rows_round!($f, ["n0", "n1", "n2", "n3"]),
        )
    };
}

/// `rows_permute!` with the message in the buffer `{buf}`: from slots `$p` to slots `$q`.
/// The four source slots are read once, into `{s0}`..`{s3}`; each result is built in `{u}`
/// and stored.
#[rustfmt::skip]
macro_rules! rows_permute_mem {
    ($f:ident, [$p0:literal, $p1:literal, $p2:literal, $p3:literal], [$q0:literal, $q1:literal, $q2:literal, $q3:literal]) => {
        concat!(
            rows_v!($f), "movdqa {s0}, ", rows_msg!(mem $p0), "\n",
            rows_v!($f), "movdqa {s1}, ", rows_msg!(mem $p1), "\n",
            rows_v!($f), "movdqa {s2}, ", rows_msg!(mem $p2), "\n",
            rows_v!($f), "movdqa {s3}, ", rows_msg!(mem $p3), "\n",
            rows_shufps!($f, "u", "s0", "s1", "0xd9"),
            rows_v!($f), "pshufd {u}, {u}, 0x78\n",
            rows_v!($f), "movdqa ", rows_msg!(mem $q0), ", {u}\n",
            rows_shufps!($f, "u", "s2", "s3", "0xc8"),
            rows_merge!($f, "u", (reg "s0"), "0x03", "k02"),
            rows_v!($f), "movdqa ", rows_msg!(mem $q1), ", {u}\n",
            rows_shufps!($f, "u", "s1", "s2", "0x30"),
            rows_merge!($f, "u", (reg "s3"), "0x40", "k03"),
            rows_v!($f), "movdqa ", rows_msg!(mem $q2), ", {u}\n",
            rows_shufps!($f, "u", "s3", "s1", "0x28"),
            rows_merge!($f, "u", (reg "s2"), "0x01", "k03"),
            rows_v!($f), "movdqa ", rows_msg!(mem $q3), ", {u}\n",
        )
    };
}

/// A round of two sets of rows, `{a}`..`{d}` and `{a2}`..`{d2}`, their instructions
/// interleaved (`rows_half!`) so that the two dependency chains overlap. `low`: the message
/// in slots 0-3 (first set) and 8-11 (second), the next round's written to slots 4-7 and
/// 12-15; `high` the other way round; `last`: no next round.
macro_rules! rows_round_mem2 {
    ($f:ident, low $(, $last:ident)?) => {
        rows_round_mem2!($f, ["0", "1", "2", "3"], ["8", "9", "10", "11"] $(, $last)?,
                         ["4", "5", "6", "7"], ["12", "13", "14", "15"])
    };
    ($f:ident, high) => {
        rows_round_mem2!($f, ["4", "5", "6", "7"], ["12", "13", "14", "15"],
                         ["0", "1", "2", "3"], ["8", "9", "10", "11"])
    };
    ($f:ident, $p:tt, $r:tt, last, $q:tt, $q2:tt) => {
        rows_round_mem2!(@halves $f, $p, $r)
    };
    ($f:ident, $p:tt, $r:tt, $q:tt, $q2:tt) => {
        concat!(rows_round_mem2!(@halves $f, $p, $r), rows_permute_mem!($f, $p, $q), rows_permute_mem!($f, $r, $q2))
    };
    (@halves $f:ident, [$p0:literal, $p1:literal, $p2:literal, $p3:literal],
     [$r0:literal, $r1:literal, $r2:literal, $r3:literal]) => {
        concat!(
            rows_half!($f, [(["a", "b", "c", "d"], (mem $p0), (mem $p1)), (["a2", "b2", "c2", "d2"], (mem $r0), (mem $r1))], "0x93", "0x39"),
            rows_half!($f, [(["a", "b", "c", "d"], (mem $p2), (mem $p3)), (["a2", "b2", "c2", "d2"], (mem $r2), (mem $r3))], "0x39", "0x93"),
        )
    };
}

/// The seven rounds of two sets of rows. The buffer `{buf}` holds 16 slots: round 0's
/// message of the first set comes in in slots 0-3 and of the second in 8-11, already in
/// round 0's order (`round0_order!`); each set's rounds alternate between those slots and
/// the next four.
macro_rules! rows_rounds_mem2 {
    ($f:ident) => {
        concat!(
            rows_round_mem2!($f, low),
            rows_round_mem2!($f, high),
            rows_round_mem2!($f, low),
            rows_round_mem2!($f, high),
            rows_round_mem2!($f, low),
            rows_round_mem2!($f, high),
            rows_round_mem2!($f, low, last),
        )
    };
}

/// Round 0's message order (what `rows_rounds!` arranges in registers) from a block's four
/// quarters `$q`, for the two-set kernels, which read it from their buffer: arranged by the
/// caller, it need not go through the buffer twice before the first round
/// (docs/tuning-history.md, "blake3/rows.rs"). `mm` or `mm256`: the width of the intrinsics.
macro_rules! round0_order {
    (mm, $q:expr) => {
        round0_order!(@ $q, _mm_shuffle_ps, _mm_shuffle_epi32, _mm_castsi128_ps, _mm_castps_si128)
    };
    (mm256, $q:expr) => {
        round0_order!(@ $q, _mm256_shuffle_ps, _mm256_shuffle_epi32, _mm256_castsi256_ps, _mm256_castps_si256)
    };
    (@ $q:expr, $shufps:ident, $pshufd:ident, $ps:ident, $si:ident) => {{
        let q = $q;
        [
            $si($shufps::<0x88>($ps(q[0]), $ps(q[1]))),
            $si($shufps::<0xdd>($ps(q[0]), $ps(q[1]))),
            $pshufd::<0x93>($si($shufps::<0x88>($ps(q[2]), $ps(q[3])))),
            $pshufd::<0x93>($si($shufps::<0xdd>($ps(q[2]), $ps(q[3])))),
        ]
    }};
}

/// The message buffer of the two-set kernels (`rows_rounds_mem2!`): 16 slots of one
/// register each.
#[repr(C, align(32))]
pub(super) struct MessageSlots<T>(pub(super) [T; 16]);

/// Runs `rows_rounds_mem2!` on two sets of rows, `$r[0..4]` and `$r[4..8]` (registers of
/// class `$class`, type `$t`), with the message buffer `$buf` (`&mut MessageSlots<$t>`)
/// and the byte-shuffle masks of the rotations.
macro_rules! rows_asm_two_sets {
    ($f:ident, $class:ident, $t:ty, $r:ident, $buf:ident, $rot16:expr, $rot8:expr) => {
        let (_t, _u, _s0, _s1, _s2, _s3): ($t, $t, $t, $t, $t, $t);
        let buf: &mut $crate::blake3::rows::MessageSlots<$t> = $buf;
        // SAFETY: the text reads and writes its register operands and the 16 slots of
        // `buf` (aligned for `movdqa`), nothing else (no stack, no flags); the backend's
        // features (AVX2, or SSE4.1 for the `sse41` text) are enabled for the calling
        // function.
        unsafe {
            core::arch::asm!(
                rows_rounds_mem2!($f),
                buf = in(reg) buf.0.as_mut_ptr(),
                slot = const core::mem::size_of::<$t>(),
                a = inout($class) $r[0],
                b = inout($class) $r[1],
                c = inout($class) $r[2],
                d = inout($class) $r[3],
                a2 = inout($class) $r[4],
                b2 = inout($class) $r[5],
                c2 = inout($class) $r[6],
                d2 = inout($class) $r[7],
                t = out($class) _t,
                u = out($class) _u,
                s0 = out($class) _s0,
                s1 = out($class) _s1,
                s2 = out($class) _s2,
                s3 = out($class) _s3,
                rot16 = in($class) $rot16,
                rot8 = in($class) $rot8,
                options(nostack, preserves_flags),
            )
        }
    };
}

/// Runs `rows_rounds!` on the rows `$r` (registers of class `$class`, type `$t`) with the
/// message quarters `$m`; AVX2 and SSE4.1 also take the byte-shuffle masks of the
/// rotations (and use a temporary), AVX-512 the merge masks.
macro_rules! rows_asm {
    (avx512, $class:ident, $t:ty, $r:ident, $m:ident) => {
        rows_asm!(@text avx512, $class, $t, $r, $m, [k02 = in(kreg) 0x5555u16, k03 = in(kreg) 0x9999u16,])
    };
    ($f:ident, $class:ident, $t:ty, $r:ident, $m:ident, $rot16:expr, $rot8:expr) => {
        let _t: $t;
        rows_asm!(@text $f, $class, $t, $r, $m, [t = out($class) _t, rot16 = in($class) $rot16, rot8 = in($class) $rot8,])
    };
    (@text $f:ident, $class:ident, $t:ty, $r:ident, $m:ident, [$($extra:tt)*]) => {
        let (_n0, _n1, _n2, _n3): ($t, $t, $t, $t);
        // SAFETY: the text reads and writes only its register operands (no memory, no
        // stack, no flags); the backend's features (AVX-512F and VL, AVX2, or SSE4.1, as
        // `$f` names) are enabled for the calling function.
        unsafe {
            core::arch::asm!(
                rows_rounds!($f),
                a = inout($class) $r[0],
                b = inout($class) $r[1],
                c = inout($class) $r[2],
                d = inout($class) $r[3],
                m0 = inout($class) $m[0] => _,
                m1 = inout($class) $m[1] => _,
                m2 = inout($class) $m[2] => _,
                m3 = inout($class) $m[3] => _,
                // Typed outputs, though unused: with `out(zmm_reg) _` the test build
                // printed an operand as "R19BH" (not a register) and failed to assemble.
                n0 = out($class) _n0,
                n1 = out($class) _n1,
                n2 = out($class) _n2,
                n3 = out($class) _n3,
                $($extra)*
                options(pure, nomem, nostack, preserves_flags),
            )
        }
    };
}

/// The four 16-byte quarters (words 0-3, 4-7, 8-11, 12-15) of one to four blocks, block i
/// in 128-bit lane i, as `rows_asm!` takes them. A macro, not a function or closure: in a
/// build without LTO the compiler left a closure for this out of line, a call per quarter
/// and block, several times slower (docs/tuning-history.md, "blake3/rows.rs").
macro_rules! quarters {
    (@one $block:expr, $q:literal) => {{
        let block: &[u8; $crate::blake3::BLOCK_LEN] = $block;
        // SAFETY: `block` is 64 readable bytes and 16 * q + 16 <= 64; loadu has no
        // alignment requirement.
        unsafe { _mm_loadu_si128(block.as_ptr().add(16 * $q).cast()) }
    }};
    (@two $a:expr, $b:expr, $q:literal) => {
        _mm256_inserti128_si256::<1>(_mm256_castsi128_si256(quarters!(@one $a, $q)), quarters!(@one $b, $q))
    };
    // Lanes 1-3 inserted one at a time into 512 bits, not two 256-bit halves joined: with
    // `vinserti128` on ymm and then `vinserti64x4` (as many shuffles), four blocks in rows
    // ran slower than the rounds alone allow (docs/tuning-history.md, "blake3/rows.rs").
    (@four $b:expr, $q:literal) => {
        _mm512_inserti32x4::<3>(
            _mm512_inserti32x4::<2>(
                _mm512_inserti32x4::<1>(_mm512_castsi128_si512(quarters!(@one $b[0], $q)), quarters!(@one $b[1], $q)),
                quarters!(@one $b[2], $q),
            ),
            quarters!(@one $b[3], $q),
        )
    };
    ($a:expr) => {
        [quarters!(@one $a, 0), quarters!(@one $a, 1), quarters!(@one $a, 2), quarters!(@one $a, 3)]
    };
    ($a:expr, $b:expr) => {
        [quarters!(@two $a, $b, 0), quarters!(@two $a, $b, 1), quarters!(@two $a, $b, 2), quarters!(@two $a, $b, 3)]
    };
    ($a:expr, $b:expr, $c:expr, $d:expr) => {{
        let blocks: [&[u8; $crate::blake3::BLOCK_LEN]; 4] = [$a, $b, $c, $d];
        [quarters!(@four blocks, 0), quarters!(@four blocks, 1), quarters!(@four blocks, 2), quarters!(@four blocks, 3)]
    }};
}

/// The kernels built on a backend's `rounds_rows1` (one block in 128-bit registers) and
/// `rounds_rows2` (two in 256-bit registers), compiled for its target features `$features`:
/// `compress_in_place` and `compress_xof` (single compressions), `hash_one_in_rows` (one
/// whole input of a batch or tree) and `hash_rows` (one or two). With `single_blocks`
/// (SSE4.1: no 256-bit registers), all but `hash_rows`.
macro_rules! rows_kernels {
    ($features:literal) => {
        rows_kernels!(single_blocks, $features);

        /// Hashes inputs `first..` (one or two) one block at a time in rows; two go side
        /// by side in 256-bit registers.
        #[target_feature(enable = $features)]
        fn hash_rows(job: &HashManyJob<'_>, first: usize, count: usize, out: &mut [u8]) {
            use $crate::blake3::rows::{block_at, block_len_and_flags, cv_rows, iv_row};
            use $crate::blake3::{BLOCK_LEN, OUT_LEN};
            let [a, b_input] = match job.inputs[first..first + count] {
                [_] => return hash_one_in_rows(job, first, out),
                [a, b] => [a, b],
                _ => unreachable!("hash_rows takes one or two inputs"),
            };
            let blocks = a.len() / BLOCK_LEN;
            let key = cv_rows(job.key);
            let both = |x: __m128i| _mm256_set_m128i(x, x);
            let mut cv = [both(key[0]), both(key[1])];
            let (ctr_a, ctr_b) = (job.counter_for(first), job.counter_for(first + 1));
            let ctr = _mm256_setr_epi64x(ctr_a as i64, 0, ctr_b as i64, 0);
            let iv = both(iv_row());
            for b in 0..blocks {
                let tail = _mm256_set1_epi64x(block_len_and_flags(job, b, blocks));
                let mut r = [cv[0], cv[1], iv, _mm256_blend_epi32::<0b1100_1100>(ctr, tail)];
                rounds_rows2(&mut r, quarters!(block_at(a, b), block_at(b_input, b)));
                cv = [_mm256_xor_si256(r[0], r[2]), _mm256_xor_si256(r[1], r[3])];
            }
            let lane = |v: __m256i| (_mm256_castsi256_si128(v), _mm256_extracti128_si256::<1>(v));
            let ((a0, b0), (a1, b1)) = (lane(cv[0]), lane(cv[1]));
            for (cv, bytes) in [[a0, a1], [b0, b1]].iter().zip(out[..2 * OUT_LEN].chunks_exact_mut(OUT_LEN)) {
                // SAFETY: `bytes` is 32 writable bytes; storeu has no alignment requirement.
                unsafe {
                    _mm_storeu_si128(bytes.as_mut_ptr().cast(), cv[0]);
                    _mm_storeu_si128(bytes.as_mut_ptr().add(16).cast(), cv[1]);
                }
            }
        }
    };
    (single_blocks, $features:literal) => {
        #[inline]
        #[target_feature(enable = $features)]
        fn compress_rows(
            cv: &$crate::blake3::CvWords,
            block: &[u8; $crate::blake3::BLOCK_LEN],
            block_len: u8,
            counter: u64,
            flags: u8,
        ) -> [__m128i; 4] {
            let mut r = $crate::blake3::rows::init_rows($crate::blake3::rows::cv_rows(cv), counter, block_len, flags);
            rounds_rows1(&mut r, quarters!(block));
            r
        }

        /// One compression keeping only the new chaining value.
        #[target_feature(enable = $features)]
        pub(super) fn compress_in_place(
            cv: &mut $crate::blake3::CvWords,
            block: &[u8; $crate::blake3::BLOCK_LEN],
            block_len: u8,
            counter: u64,
            flags: u8,
        ) {
            let r = compress_rows(cv, block, block_len, counter, flags);
            let p = cv.as_mut_ptr().cast::<__m128i>();
            // SAFETY: `cv` is 32 writable bytes; storeu has no alignment requirement.
            unsafe {
                _mm_storeu_si128(p, _mm_xor_si128(r[0], r[2]));
                _mm_storeu_si128(p.add(1), _mm_xor_si128(r[1], r[3]));
            }
        }

        /// One compression with the full 64-byte output (root blocks of extendable output).
        #[target_feature(enable = $features)]
        pub(super) fn compress_xof(
            cv: &$crate::blake3::CvWords,
            block: &[u8; $crate::blake3::BLOCK_LEN],
            block_len: u8,
            counter: u64,
            flags: u8,
        ) -> [u8; 64] {
            let r = compress_rows(cv, block, block_len, counter, flags);
            let [cv_lo, cv_hi] = $crate::blake3::rows::cv_rows(cv);
            let rows = [
                _mm_xor_si128(r[0], r[2]),
                _mm_xor_si128(r[1], r[3]),
                _mm_xor_si128(r[2], cv_lo),
                _mm_xor_si128(r[3], cv_hi),
            ];
            let mut out = [0u8; 64];
            for (chunk, row) in out.chunks_exact_mut(16).zip(rows) {
                // SAFETY: `chunk` is 16 writable bytes; storeu has no alignment requirement.
                unsafe { _mm_storeu_si128(chunk.as_mut_ptr().cast(), row) };
            }
            out
        }

        /// Hashes input `first` one block at a time in rows.
        #[target_feature(enable = $features)]
        fn hash_one_in_rows(job: &HashManyJob<'_>, first: usize, out: &mut [u8]) {
            use $crate::blake3::rows::{cv_rows, first_middle_last, iv_row, pick};
            use $crate::blake3::{BLOCK_LEN, OUT_LEN};
            let input = job.inputs[first];
            let blocks = input.len() / BLOCK_LEN;
            let mut cv = cv_rows(job.key);
            let counter = job.counter_for(first);
            let ctr = _mm_set_epi64x(0, counter as i64);
            let d_rows = first_middle_last(job, blocks).map(|tail| _mm_blend_epi16::<0xf0>(ctr, _mm_set1_epi64x(tail)));
            for (b, block) in input.as_chunks::<BLOCK_LEN>().0.iter().enumerate() {
                let mut r = [cv[0], cv[1], iv_row(), pick(&d_rows, b, blocks)];
                rounds_rows1(&mut r, quarters!(block));
                cv = [_mm_xor_si128(r[0], r[2]), _mm_xor_si128(r[1], r[3])];
            }
            let bytes = &mut out[..OUT_LEN];
            // SAFETY: `bytes` is 32 writable bytes; storeu has no alignment requirement.
            unsafe {
                _mm_storeu_si128(bytes.as_mut_ptr().cast(), cv[0]);
                _mm_storeu_si128(bytes.as_mut_ptr().add(16).cast(), cv[1]);
            }
        }
    };
}

/// Block `b` of an input (one bounds check per block).
#[inline(always)]
pub(super) fn block_at(input: &[u8], b: usize) -> &[u8; BLOCK_LEN] {
    input[b * BLOCK_LEN..][..BLOCK_LEN].try_into().expect("a block")
}

/// A chaining value (or key) as two 128-bit rows.
#[inline]
#[target_feature(enable = "sse2")]
pub(super) fn cv_rows(cv: &CvWords) -> [__m128i; 2] {
    // SAFETY: `cv` is 32 readable bytes; loadu has no alignment requirement.
    unsafe { [_mm_loadu_si128(cv.as_ptr().cast()), _mm_loadu_si128(cv.as_ptr().add(4).cast())] }
}

/// The byte shuffles that rotate each 32-bit word right by 16 and by 8, in one 128-bit lane
/// (the AVX2 and SSE4.1 kernels, rows and transposed).
#[inline]
#[target_feature(enable = "sse2")]
pub(super) fn rotation_masks() -> (__m128i, __m128i) {
    (
        _mm_setr_epi8(2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13),
        _mm_setr_epi8(1, 2, 3, 0, 5, 6, 7, 4, 9, 10, 11, 8, 13, 14, 15, 12),
    )
}

/// Row c before the first round: the IV's first half.
#[inline]
#[target_feature(enable = "sse2")]
pub(super) fn iv_row() -> __m128i {
    _mm_setr_epi32(IV[0] as i32, IV[1] as i32, IV[2] as i32, IV[3] as i32)
}

/// Block `b`'s length and flags as the 64-bit word they form in words 2 and 3 of row d.
#[inline(always)]
pub(super) fn block_len_and_flags(job: &HashManyJob<'_>, b: usize, blocks: usize) -> i64 {
    i64::from(job.block_len(b, blocks - 1)) | i64::from(job.block_flags(b, blocks - 1)) << 32
}

/// Row d's length and flags (`block_len_and_flags`) for an input's first, middle and last
/// blocks (of `blocks`; any when it is 0), worked out once per input rather than per block,
/// which brought four blocks in rows closer to the crate's kernel (the two-block kernel
/// measured slower this way and keeps its per-block form; docs/tuning-history.md, "blake3/rows.rs").
#[inline(always)]
pub(super) fn first_middle_last(job: &HashManyJob<'_>, blocks: usize) -> [i64; 3] {
    let last = blocks.max(1) - 1;
    [0, 1.min(last), last].map(|b| block_len_and_flags(job, b, last + 1))
}

/// The entry of a `first_middle_last` array that block `b` of `blocks` takes.
#[inline(always)]
pub(super) fn pick<T: Copy>(first_middle_last: &[T; 3], b: usize, blocks: usize) -> T {
    if b == 0 {
        first_middle_last[0]
    } else if b + 1 == blocks {
        first_middle_last[2]
    } else {
        first_middle_last[1]
    }
}

/// The state rows before the first round: the chaining value, the IV's first half, and
/// the counter, block length and flags.
#[inline]
#[target_feature(enable = "sse2")]
pub(super) fn init_rows(cv: [__m128i; 2], counter: u64, block_len: u8, flags: u8) -> [__m128i; 4] {
    [cv[0], cv[1], iv_row(), _mm_setr_epi32(counter as i32, (counter >> 32) as i32, block_len as i32, flags as i32)]
}
