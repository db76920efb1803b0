//! The one interface every streaming hasher implements, so that code written once (hashing
//! by name, files, the front ends, the C ABI) serves every algorithm.
//!
//! ## What this file holds
//!
//! `StreamingHash`, the object-safe trait every streaming hasher implements, and boxed cloning
//! (`CloneHash`)

use crate::threads::Threads;

/// A streaming hash: feed it input, read the digest of what it has seen, start again.
///
/// Implemented by [`crate::blake3::Hasher`], [`crate::sha256::Sha256`],
/// [`crate::streebog::Streebog256`]/[`Streebog512`](crate::streebog::Streebog512),
/// [`crate::gost94::Gost94`] and [`crate::highwayhash::HighwayHasher`]. Object safe, so
/// [`crate::any::AnyHasher`] holds any of them.
pub trait StreamingHash: Send + Sync + CloneHash + std::fmt::Debug {
    /// Adds input.
    fn update(&mut self, data: &[u8]);

    /// Writes the digest of the input so far into `out`, which is [`Self::digest_len`]
    /// bytes long, or any length for an extendable-output function
    /// ([`Self::is_xof`]); the hasher is unchanged.
    ///
    /// Panics if `out` has a length the algorithm cannot produce (callers that take the
    /// length from a user check it first, as [`crate::any::AnyHasher::finalize`] does).
    fn finalize_into(&self, out: &mut [u8]);

    /// Forgets all input, keeping the key, mode and backend.
    fn reset(&mut self);

    /// The name of the backend in use (`"avx2"`, `"portable"`, ...).
    fn backend_name(&self) -> &'static str;

    /// The digest length when none is asked for.
    fn digest_len(&self) -> usize;

    /// Whether any output length may be asked for.
    fn is_xof(&self) -> bool {
        false
    }

    /// The unfinished hash as a state in simdcrypt's format (docs/state-format.md), which
    /// the algorithm's `restore` (or [`crate::any::AnyHasher::restore`]) resumes. A keyed
    /// hash's state is bound to its key and does not contain it.
    fn export(&self) -> Vec<u8>;

    /// How many threads one large update may use (sequential hashes: one).
    fn max_threads(&self) -> Threads {
        Threads::One
    }

    /// Adds everything `reader` yields until end of file, read straight into a buffer the
    /// hasher keeps anyway (the Xet chunker holds a batch of input), and returns the number
    /// of bytes read; `None` for hashers without such a buffer (the default), which the
    /// caller then feeds through [`Self::update`] from blocks of its own. A hasher that has
    /// one is never given the caller's memory-mapped windows (it would copy them into its
    /// buffer all the same); it may map its own ([`Self::update_from_mapped_file`]).
    fn update_from_reader(&mut self, reader: &mut dyn std::io::Read) -> Option<std::io::Result<u64>> {
        let _ = reader;
        None
    }

    /// Whether [`Self::update_from_reader`] reads (it returns `Some`).
    fn reads_into_own_buffer(&self) -> bool {
        false
    }

    /// Adds the whole regular file `file` (`len` bytes from its start) by mapping it a
    /// window at a time where the hasher works on the mapped pages in place (the Xet
    /// chunker, which otherwise copies every byte into its buffer), and returns the bytes
    /// added; `None` (the default) where it does not, and the caller reads the file instead.
    fn update_from_mapped_file(&mut self, file: &std::fs::File, len: u64) -> Option<std::io::Result<u64>> {
        let _ = (file, len);
        None
    }
}

/// Cloning behind a `Box<dyn StreamingHash>`; implemented for every `Clone` hasher.
pub trait CloneHash {
    /// A boxed copy of this hasher, with its state.
    fn clone_box(&self) -> Box<dyn StreamingHash>;
}

impl<T: StreamingHash + Clone + 'static> CloneHash for T {
    fn clone_box(&self) -> Box<dyn StreamingHash> {
        Box::new(self.clone())
    }
}

impl Clone for Box<dyn StreamingHash> {
    fn clone(&self) -> Self {
        self.clone_box()
    }
}

/// [`StreamingHash`] for a hasher with the usual inherent methods: `update`, `finalize`
/// (an array of the digest size), `reset`, `platform` and `export`. SHA-256, Streebog and
/// GOST R 34.11-94 use it; BLAKE3 (any output length, threads) and HighwayHash (a result
/// size per registry entry) write theirs out.
macro_rules! fixed_output_streaming_hash {
    ($(impl$([$($generics:tt)*])? for $t:ty, digest $len:expr;)*) => {$(
        impl$(<$($generics)*>)? $crate::streaming::StreamingHash for $t {
            fn update(&mut self, data: &[u8]) {
                <$t>::update(self, data);
            }
            fn finalize_into(&self, out: &mut [u8]) {
                out.copy_from_slice(&self.finalize());
            }
            fn reset(&mut self) {
                <$t>::reset(self);
            }
            fn backend_name(&self) -> &'static str {
                self.platform().name()
            }
            fn digest_len(&self) -> usize {
                $len
            }
            fn export(&self) -> Vec<u8> {
                <$t>::export(self)
            }
        }
    )*};
}
pub(crate) use fixed_output_streaming_hash;

/// Each of `data`'s first `lens` bytes, streamed through a fresh `new()` hasher in every
/// two-piece split, gives `one_shot`'s digest; and after `reset` a hasher forgets what it
/// was given before.
#[cfg(test)]
pub(crate) fn assert_streaming_matches<H: StreamingHash>(
    new: impl Fn() -> H,
    one_shot: impl Fn(&[u8]) -> Vec<u8>,
    data: &[u8],
    lens: &[usize],
) {
    let digest = |h: &H| {
        let mut out = vec![0; h.digest_len()];
        h.finalize_into(&mut out);
        out
    };
    for &len in lens {
        let whole = one_shot(&data[..len]);
        for cut in 0..=len {
            let mut h = new();
            h.update(&data[..cut]);
            h.update(&data[cut..len]);
            assert_eq!(digest(&h), whole, "len {len} cut {cut}");
        }
    }
    let mut h = new();
    h.update(b"something");
    h.reset();
    h.update(b"abc");
    assert_eq!(digest(&h), one_shot(b"abc"), "after reset");
}
