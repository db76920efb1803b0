//! HighwayHash backend selection and the one dispatch point into the kernels.
//!
//! ## What this file holds
//!
//! `Platform` (`avx512`, `avx2`, `sse41`, `neon`, `portable`; avx512 runs single messages on
//! the AVX2 rounds, with an AVX-512VL remainder in the one-shot path) and the single dispatch
//! point: `update_packets`, `finish` (remainder + finalization rounds), `hash`/`hash64`
//! (one-shot; `hash64` reaches the AVX2/AVX-512VL kernel by one compare and a tail jump, the
//! other backends behind a call never inlined), `new_state`, and the batch entry points
//! `hash_group` and `hash_equal64_groups`

use super::{portable, Size, State, KEY_LEN, PACKET_LEN};

#[cfg(target_arch = "aarch64")]
use super::neon;
#[cfg(target_arch = "x86_64")]
use super::{avx2, avx512, sse41};

crate::backend::kernel_kinds! {
    algorithm: "highwayhash",
    /// A HighwayHash kernel set. Chosen once per hasher; [`Platform`]'s methods are the only
    /// place that enters a SIMD kernel.
    pub type Platform = Checked<Kind>;

    pub enum Kind {
        /// x86-64 AVX-512 (F, BW, VL): batches run two messages per 512-bit register; single
        /// messages use the AVX2 rounds (one message is a chain of dependent rounds that a
        /// wider register cannot shorten), with AVX-512VL for the one-shot remainder.
        // vpshufb on 512 bits is BW; ragged batch tails finish on the AVX2 kernels.
        Avx512 = "avx512" on "x86_64" needs [Sse41, Avx, Avx2, Avx512F, Avx512Bw, Avx512Vl],
        /// x86-64 AVX2: one 256-bit vector per state variable.
        Avx2 = "avx2" on "x86_64" needs [Sse41, Avx, Avx2],
        /// x86-64 SSE4.1: the 256-bit state as pairs of 128-bit vectors.
        // pshufb is SSSE3; named after the reference's SSE4.1 target, whose bundle it keeps.
        Sse41 = "sse41" on "x86_64" needs [Ssse3, Sse41],
        /// aarch64 NEON: the state as pairs of 128-bit vectors.
        Neon = "neon" on "aarch64" needs [Neon],
        /// Plain Rust, any CPU.
        Portable = "portable",
    }
}

impl Platform {
    /// Hashes whole 32-byte packets into `state`.
    ///
    /// Panics if `packets` is not a whole number of packets (an internal bug).
    #[inline]
    pub(crate) fn update_packets(self, state: &mut State, packets: &[u8]) {
        assert!(packets.len().is_multiple_of(PACKET_LEN), "highwayhash update_packets takes whole packets");
        match self.kind() {
            Kind::Portable => portable::update_packets(state, packets),
            // SAFETY: the CPU has this kind's `requires` (checked for every Platform), which cover the kernel.
            #[cfg(target_arch = "x86_64")]
            Kind::Sse41 => unsafe { sse41::update_packets(state, packets) },
            // SAFETY: the CPU has this kind's `requires` (checked for every Platform), which cover the kernel.
            #[cfg(target_arch = "x86_64")]
            Kind::Avx2 | Kind::Avx512 => unsafe { avx2::update_packets(state, packets) },
            // SAFETY: the CPU has this kind's `requires` (checked for every Platform), which cover the kernel.
            #[cfg(target_arch = "aarch64")]
            Kind::Neon => unsafe { neon::update_packets(state, packets) },
        }
    }

    /// Hashes the final partial packet (`remainder`: 0 to 31 bytes) and does `rounds`
    /// permute-and-update rounds, leaving the state ready for `State::output`.
    #[inline]
    pub(crate) fn finish(self, state: &mut State, remainder: &[u8], rounds: usize) {
        assert!(remainder.len() < PACKET_LEN, "highwayhash finish takes under a packet");
        match self.kind() {
            Kind::Portable => portable::finish(state, remainder, rounds),
            // SAFETY: the CPU has this kind's `requires` (checked for every Platform), which cover the kernel.
            #[cfg(target_arch = "x86_64")]
            Kind::Sse41 => unsafe { sse41::finish(state, remainder, rounds) },
            // SAFETY: the CPU has this kind's `requires` (checked for every Platform), which cover the kernel.
            #[cfg(target_arch = "x86_64")]
            Kind::Avx2 | Kind::Avx512 => unsafe { avx2::finish(state, remainder, rounds) },
            // SAFETY: the CPU has this kind's `requires` (checked for every Platform), which cover the kernel.
            #[cfg(target_arch = "aarch64")]
            Kind::Neon => unsafe { neon::finish(state, remainder, rounds) },
        }
    }

    /// A whole message, from the key to the finished state, in one kernel call (no
    /// buffering: the one-shot path for short inputs).
    #[inline]
    pub(crate) fn hash(self, key: &[u8; KEY_LEN], data: &[u8], rounds: usize) -> State {
        match self.kind() {
            Kind::Portable => portable::hash(key, data, rounds),
            // SAFETY: the CPU has this kind's `requires` (checked for every Platform), which cover the kernel.
            #[cfg(target_arch = "x86_64")]
            Kind::Sse41 => unsafe { sse41::hash(key, data, rounds) },
            // SAFETY: the CPU has this kind's `requires` (checked for every Platform), which cover the kernel.
            #[cfg(target_arch = "x86_64")]
            Kind::Avx512 => unsafe { avx512::hash_one(key, data, rounds) },
            // SAFETY: the CPU has this kind's `requires` (checked for every Platform), which cover the kernel.
            #[cfg(target_arch = "x86_64")]
            Kind::Avx2 => unsafe { avx2::hash(key, data, rounds) },
            // SAFETY: the CPU has this kind's `requires` (checked for every Platform), which cover the kernel.
            #[cfg(target_arch = "aarch64")]
            Kind::Neon => unsafe { neon::hash(key, data, rounds) },
        }
    }

    /// The initial state for `key`.
    #[inline]
    pub(crate) fn new_state(self, key: &[u8; KEY_LEN]) -> State {
        match self.kind() {
            // SAFETY: the CPU has this kind's `requires` (checked for every Platform), which cover the kernel.
            #[cfg(target_arch = "x86_64")]
            Kind::Avx2 | Kind::Avx512 => unsafe { avx2::new_state(key) },
            _ => State::new(&super::key_words(key)),
        }
    }

    /// A whole message's 64-bit result (the one-shot path; kept in registers on AVX2).
    /// Inlined into `hash64` so that the AVX2 kernel is reached by a tail jump after one
    /// load and one compare; the other backends sit behind a call that is never inlined,
    /// so that their register saves and stack frame do not land on the AVX2 path.
    #[inline(always)]
    pub(crate) fn hash64(self, key: &[u8; KEY_LEN], data: &[u8]) -> u64 {
        match self.kind() {
            // SAFETY: the CPU has this kind's `requires` (checked for every Platform), which cover the kernel.
            #[cfg(target_arch = "x86_64")]
            Kind::Avx512 => unsafe { avx512::hash64_one(key, data) },
            // SAFETY: the CPU has this kind's `requires` (checked for every Platform), which cover the kernel.
            #[cfg(target_arch = "x86_64")]
            Kind::Avx2 => unsafe { avx2::hash64(key, data) },
            _ => self.hash64_other(key, data),
        }
    }

    #[inline(never)]
    fn hash64_other(self, key: &[u8; KEY_LEN], data: &[u8]) -> u64 {
        let mut out = [0u64; 1];
        self.hash(key, data, Size::Bits64.rounds()).output(Size::Bits64, &mut out);
        out[0]
    }

    /// How many messages a batch kernel advances in lockstep (1: one at a time).
    pub(crate) fn batch_lanes(self) -> usize {
        match self.kind() {
            #[cfg(target_arch = "x86_64")]
            Kind::Avx512 => avx512::LANES,
            _ => 1,
        }
    }

    /// The 64-bit results of a prefix of `msgs`, whole lane groups of equal-length
    /// messages, in one kernel call; returns how many messages it did (0 where no such
    /// kernel exists: the caller goes on with `hash_group`).
    pub(crate) fn hash_equal64_groups(self, key: &[u8; KEY_LEN], msgs: &[&[u8]], bytes: &mut [u8]) -> usize {
        match self.kind() {
            // SAFETY: the CPU has this kind's `requires` (checked for every Platform), which cover the kernel.
            #[cfg(target_arch = "x86_64")]
            Kind::Avx512 => unsafe { avx512::hash_equal64_groups(key, msgs, bytes) },
            _ => {
                let _ = (key, msgs, bytes); // used only where such a kernel exists
                0
            }
        }
    }

    /// Hashes `batch_lanes()` messages (`msgs.len()`) and writes their `size` results to
    /// `bytes`: all the way in lockstep when the lengths are equal, otherwise in lockstep
    /// over the packets they all have and then one at a time. `out` is room for the
    /// finished states.
    ///
    /// Panics unless `msgs.len() == out.len() == self.batch_lanes()` and `bytes` holds
    /// one result per message (an internal bug).
    pub(crate) fn hash_group(
        self,
        key: &[u8; KEY_LEN],
        msgs: &[&[u8]],
        size: Size,
        out: &mut [State],
        bytes: &mut [u8],
    ) {
        assert!(msgs.len() == self.batch_lanes() && out.len() == msgs.len(), "hash_group takes one lane group");
        assert_eq!(bytes.len(), msgs.len() * size.len(), "hash_group writes one result per message");
        let rounds = size.rounds();
        match self.kind() {
            #[cfg(target_arch = "x86_64")]
            Kind::Avx512 => {
                let msgs: &[&[u8]; avx512::LANES] = msgs.try_into().unwrap();
                let out: &mut [State; avx512::LANES] = out.try_into().unwrap();
                if msgs.iter().all(|m| m.len() == msgs[0].len()) {
                    // SAFETY: the CPU has this kind's `requires` (checked for every Platform),
                    // which cover the kernel (avx512f/bw/vl and avx2).
                    unsafe { avx512::hash_equal(key, msgs, rounds, out) };
                } else {
                    // SAFETY: as above.
                    let done = unsafe { avx512::start_ragged(key, msgs, out) } * PACKET_LEN;
                    for (state, msg) in out.iter_mut().zip(msgs) {
                        let rest = &msg[done..];
                        let whole = rest.len() - rest.len() % PACKET_LEN;
                        self.update_packets(state, &rest[..whole]);
                        self.finish(state, &rest[whole..], rounds);
                    }
                }
            }
            _ => out[0] = self.hash(key, msgs[0], rounds),
        }
        let mut words = [0u64; 4];
        let words = &mut words[..size.len() / 8];
        for (state, o) in out.iter().zip(bytes.chunks_exact_mut(size.len())) {
            state.output(size, words);
            super::words_to_bytes(words, o);
        }
    }
}
