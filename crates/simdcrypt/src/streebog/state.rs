//! Streebog's and HMAC-Streebog's resumable state (`export` / `restore`) in the shared
//! container of [`crate::state`]: h, N, Σ, the length and the partial block (for HMAC,
//! those of the inner hash; the outer hash's state depends on the key alone and is
//! rebuilt from it, and the state's checksum is keyed, so it binds to the key).

use super::{Hmac, Platform, State, Streebog, BLOCK_LEN};
use crate::state::{self, Reader, Writer};
use crate::Error;

fn hash_name(n: usize) -> &'static str {
    if n == 32 {
        super::ALGORITHM_256.name
    } else {
        super::ALGORITHM_512.name
    }
}

fn hmac_name(n: usize) -> &'static str {
    if n == 32 {
        "hmac_streebog256"
    } else {
        "hmac_streebog512"
    }
}

impl<const N: usize> Streebog<N> {
    fn write_fields(&self) -> Vec<u8> {
        let mut fields = Writer::default();
        let s = &self.state;
        fields.u64s(&s.h).u64s(&s.n).u64s(&s.sigma).block_buffer(&self.buf);
        fields.bytes
    }

    fn read_fields(name: &str, mut f: Reader<'_>) -> Result<Self, Error> {
        let h = f.u64s::<8>()?;
        let n = f.u64s::<8>()?;
        let sigma = f.u64s::<8>()?;
        let buf = f.block_buffer(name)?;
        f.finish()?;
        Ok(Streebog { state: State { h, n, sigma }, buf, platform: Platform::detect() })
    }

    /// The unfinished hash as a state (simdcrypt's format, docs/state-format.md) that
    /// [`Streebog::restore`] resumes, in another process or on another machine.
    pub fn export(&self) -> Vec<u8> {
        state::seal(hash_name(N), &[], &self.write_fields(), None)
    }

    /// Resumes a hash from a state made by [`Streebog::export`] of the same digest size,
    /// on the detected backend. Streebog has no key: `key` must be `None`.
    ///
    /// Returns [`Error::InvalidArgument`] saying what is wrong for a blob that is not a
    /// state of this Streebog or is damaged.
    pub fn restore(blob: &[u8], key: Option<&[u8]>) -> Result<Self, Error> {
        let opened = state::open_unkeyed(blob, hash_name(N), key)?;
        opened.params.finish()?;
        Self::read_fields(hash_name(N), opened.fields)
    }
}

impl<const N: usize> Hmac<N>
where
    Hmac<N>: HmacNew,
{
    /// The checksum key of a state: the outer hash's chaining value after the padded key,
    /// which depends on the key alone (and is what HMAC itself keeps of it).
    fn state_key(&self) -> Vec<u8> {
        let mut w = Writer::default();
        w.u64s(&self.outer.state.h);
        w.bytes
    }

    /// The key as HMAC uses it: a 64-byte key equivalent to the one given (the same tags,
    /// and [`Hmac::restore`] accepts either).
    pub fn key_block(&self) -> [u8; BLOCK_LEN] {
        self.key_block
    }

    /// The unfinished tag computation as a state (simdcrypt's format,
    /// docs/state-format.md) that [`Hmac::restore`] resumes under the same key. It holds
    /// the inner hash's state, not the key, and its checksum is keyed from the key.
    pub fn export(&self) -> Vec<u8> {
        state::seal(hmac_name(N), &[], &self.inner.write_fields(), Some(&self.state_key()))
    }

    /// Resumes a tag computation from a state made by [`Hmac::export`] under `key`, on the
    /// detected backend.
    ///
    /// Returns [`Error::InvalidArgument`] saying what is wrong for a blob that is not a
    /// state of this HMAC, is damaged, or was made with another key.
    pub fn restore(blob: &[u8], key: &[u8]) -> Result<Self, Error> {
        let mut hmac = <Hmac<N> as HmacNew>::new_keyed(key);
        let opened = state::open(blob, hmac_name(N), Some(&hmac.state_key()))?;
        opened.params.finish()?;
        hmac.inner = Streebog::<N>::read_fields(hmac_name(N), opened.fields)?;
        Ok(hmac)
    }
}

/// The two HMAC sizes' constructors, for code generic over the size.
pub trait HmacNew {
    /// [`Hmac::new`] of this size.
    fn new_keyed(key: &[u8]) -> Self;
}

impl HmacNew for Hmac<32> {
    fn new_keyed(key: &[u8]) -> Self {
        Hmac::<32>::new(key)
    }
}

impl HmacNew for Hmac<64> {
    fn new_keyed(key: &[u8]) -> Self {
        Hmac::<64>::new(key)
    }
}
