//! What the single-message kernels (`avx2`, `sse41`, `neon`) share: the state in registers
//! ([`Regs`]), a round, the key set-up, the entry points' bodies, and for the kernels that
//! hold a state variable as two 128-bit halves, the remainder and finalization. Each kernel
//! implements [`Vector`] (one 256-bit state variable) with `#[inline(always)]` methods, so
//! all of this is inlined into the kernel's `#[target_feature]` functions and compiles to
//! the same instructions as code written with the intrinsics in place.
//!
//! ## What this file holds
//!
//! the single-message kernels' shared body over a per-ISA `Vector` trait: the registers
//! (`Regs<V>`), one round, key set-up, state load/store, and the entry points' bodies (the ISA
//! files pass their loads as closures, so constants stay local); SSE4.1 and NEON also share
//! the remainder and finalization

use super::{remainder_packet, State, INIT0, INIT1, KEY_LEN, PACKET_LEN};

/// One 256-bit state variable (four 64-bit words) in a kernel's registers.
///
/// # Safety
///
/// The methods use the kernel's SIMD instructions without declaring them: they may only be
/// called from code compiled with the kernel's target features (into which they are
/// inlined), which runs only once its `Platform` was checked.
pub(super) unsafe trait Vector: Copy {
    /// Reads 32 bytes (little-endian words) from `p`, unaligned.
    ///
    /// # Safety
    ///
    /// See the trait; `p` is valid for 32 bytes.
    unsafe fn load(p: *const u8) -> Self;
    /// Writes the four words to `p`, unaligned.
    ///
    /// # Safety
    ///
    /// See the trait; `p` is valid for 32 bytes.
    unsafe fn store(self, p: *mut u8);
    /// Word-wise wrapping addition.
    ///
    /// # Safety
    ///
    /// See the trait.
    unsafe fn add(a: Self, b: Self) -> Self;
    /// Word-wise XOR.
    ///
    /// # Safety
    ///
    /// See the trait.
    unsafe fn xor(a: Self, b: Self) -> Self;
    /// The low 32 bits of each word of `a` times the high 32 bits of each word of `b`.
    ///
    /// # Safety
    ///
    /// See the trait.
    unsafe fn mul_lo_hi(a: Self, b: Self) -> Self;
    /// The zipper merge: the bytes of each 128-bit half permuted by `ZIPPER`.
    ///
    /// # Safety
    ///
    /// See the trait.
    unsafe fn zipper(a: Self) -> Self;
    /// Each word rotated by 32 (its 32-bit halves swapped).
    ///
    /// # Safety
    ///
    /// See the trait.
    unsafe fn rot32(a: Self) -> Self;
}

/// The state variables in registers.
#[derive(Clone, Copy)]
pub(super) struct Regs<V> {
    pub(super) v0: V,
    pub(super) v1: V,
    pub(super) mul0: V,
    pub(super) mul1: V,
}

impl<V: Vector> Regs<V> {
    /// The state for `key`.
    ///
    /// # Safety
    ///
    /// See [`Vector`].
    #[inline(always)]
    pub(super) unsafe fn init(key: &[u8; KEY_LEN]) -> Self {
        // SAFETY: `key`, INIT0 and INIT1 are 32 readable bytes each; the caller has the
        // kernel's features. (A vector load of the caller's bytes: converting them to words
        // first would store four u64 that the load could not be forwarded from.)
        unsafe {
            let k = V::load(key.as_ptr());
            let mul0 = V::load(INIT0.as_ptr().cast());
            let mul1 = V::load(INIT1.as_ptr().cast());
            Self { v0: V::xor(mul0, k), v1: V::xor(mul1, V::rot32(k)), mul0, mul1 }
        }
    }

    /// # Safety
    ///
    /// See [`Vector`].
    #[inline(always)]
    pub(super) unsafe fn load(s: &State) -> Self {
        // SAFETY: each field is four readable u64; the caller has the kernel's features.
        unsafe {
            let l = |w: &[u64; 4]| V::load(w.as_ptr().cast());
            Self { v0: l(&s.v0), v1: l(&s.v1), mul0: l(&s.mul0), mul1: l(&s.mul1) }
        }
    }

    /// # Safety
    ///
    /// See [`Vector`].
    #[inline(always)]
    pub(super) unsafe fn store(&self, s: &mut State) {
        // SAFETY: each field is four writable u64; the caller has the kernel's features.
        unsafe {
            self.v0.store(s.v0.as_mut_ptr().cast());
            self.v1.store(s.v1.as_mut_ptr().cast());
            self.mul0.store(s.mul0.as_mut_ptr().cast());
            self.mul1.store(s.mul1.as_mut_ptr().cast());
        }
    }

    /// The state written out.
    ///
    /// # Safety
    ///
    /// See [`Vector`].
    #[inline(always)]
    pub(super) unsafe fn written(&self) -> State {
        let mut s = State { v0: [0; 4], v1: [0; 4], mul0: [0; 4], mul1: [0; 4] };
        // SAFETY: the caller has the kernel's features.
        unsafe { self.store(&mut s) };
        s
    }

    /// A round whose packet was already added to v1.
    ///
    /// # Safety
    ///
    /// See [`Vector`].
    #[inline(always)]
    pub(super) unsafe fn round_packet_added(&mut self) {
        // SAFETY: the caller has the kernel's features.
        unsafe {
            self.v1 = V::add(self.v1, self.mul0);
            self.mul0 = V::xor(self.mul0, V::mul_lo_hi(self.v1, self.v0));
            self.v0 = V::add(self.v0, self.mul1);
            self.mul1 = V::xor(self.mul1, V::mul_lo_hi(self.v0, self.v1));
            self.v0 = V::add(self.v0, V::zipper(self.v1));
            self.v1 = V::add(self.v1, V::zipper(self.v0));
        }
    }

    /// One round with `packet`.
    ///
    /// # Safety
    ///
    /// See [`Vector`].
    #[inline(always)]
    pub(super) unsafe fn update(&mut self, packet: V) {
        // SAFETY: the caller has the kernel's features. (v1 + packet) + mul0: the same sum
        // as the reference's v1 + (mul0 + packet), with mul0, the value that arrives last,
        // added last.
        unsafe {
            self.v1 = V::add(self.v1, packet);
            self.round_packet_added();
        }
    }

    /// Rounds over whole packets, one after another.
    ///
    /// # Safety
    ///
    /// See [`Vector`].
    #[inline(always)]
    pub(super) unsafe fn update_each(&mut self, packets: &[u8]) {
        for packet in packets.chunks_exact(PACKET_LEN) {
            // SAFETY: `packet` is 32 readable bytes; the caller has the kernel's features.
            unsafe { self.update(V::load(packet.as_ptr())) };
        }
    }
}

// The entry-point bodies take the kernel's steps as closures, written inside its
// `#[target_feature]` functions (so they inherit its features), rather than through a
// trait: a trait impl would make the AVX2 kernel's constants exported symbols, read
// through the GOT.

/// Hashes whole 32-byte packets into `s` with `update_all`.
///
/// # Safety
///
/// Only from code compiled with `V`'s kernel's target features (see [`Vector`]).
#[inline(always)]
pub(super) unsafe fn update_packets<V: Vector>(
    s: &mut State,
    packets: &[u8],
    update_all: impl FnOnce(&mut Regs<V>, &[u8]),
) {
    // SAFETY: the caller has the kernel's features.
    unsafe {
        let mut r = Regs::<V>::load(s);
        update_all(&mut r, packets);
        r.store(s);
    }
}

/// The remainder and the finalization rounds (see `Platform::finish`) with `finish_regs`.
///
/// # Safety
///
/// As [`update_packets`].
#[inline(always)]
pub(super) unsafe fn finish<V: Vector>(
    s: &mut State,
    remainder: &[u8],
    rounds: usize,
    finish_regs: impl FnOnce(&mut Regs<V>, &[u8], usize),
) {
    // SAFETY: the caller has the kernel's features.
    unsafe {
        let mut r = Regs::<V>::load(s);
        finish_regs(&mut r, remainder, rounds);
        r.store(s);
    }
}

/// The registers after absorbing a whole message (`update_all` on its whole packets,
/// `finish_regs` on the rest with `rounds` finalization rounds), kept in registers from the
/// key on.
///
/// # Safety
///
/// As [`update_packets`].
#[inline(always)]
pub(super) unsafe fn absorb<V: Vector>(
    key: &[u8; KEY_LEN],
    data: &[u8],
    rounds: usize,
    update_all: impl FnOnce(&mut Regs<V>, &[u8]),
    finish_regs: impl FnOnce(&mut Regs<V>, &[u8], usize),
) -> Regs<V> {
    // SAFETY: the caller has the kernel's features.
    let mut r = unsafe { Regs::<V>::init(key) };
    let whole = data.len() - data.len() % PACKET_LEN;
    update_all(&mut r, &data[..whole]);
    finish_regs(&mut r, &data[whole..], rounds);
    r
}

/// The finishing operations of kernels that hold a state variable as two 128-bit halves.
///
/// # Safety
///
/// As [`Vector`].
pub(super) unsafe trait Halves: Vector {
    /// `n` in every 32-bit lane.
    ///
    /// # Safety
    ///
    /// See [`Vector`].
    unsafe fn splat32(n: u32) -> Self;
    /// Each 32-bit lane rotated left by `n` (0 < `n` < 32).
    ///
    /// # Safety
    ///
    /// See [`Vector`].
    unsafe fn rotl32_lanes(v: Self, n: u32) -> Self;
    /// The halves swapped.
    ///
    /// # Safety
    ///
    /// See [`Vector`].
    unsafe fn swap_halves(v: Self) -> Self;
}

/// [`Kernel::finish_regs`] for [`Halves`] kernels.
///
/// # Safety
///
/// As [`update_packets`].
#[inline(always)]
pub(super) unsafe fn finish_regs_halves<V: Halves>(r: &mut Regs<V>, remainder: &[u8], rounds: usize) {
    let n = remainder.len();
    // SAFETY: the packet is 32 readable bytes; the caller has the kernel's features.
    unsafe {
        if n != 0 {
            r.v0 = V::add(r.v0, V::splat32(n as u32));
            r.v1 = V::rotl32_lanes(r.v1, n as u32);
            r.update(V::load(remainder_packet(remainder).as_ptr()));
        }
        for _ in 0..rounds {
            // Words (2, 3, 0, 1), each rotated by 32.
            let p = V::rot32(V::swap_halves(r.v0));
            r.update(p);
        }
    }
}
