//! GOST R 34.11-94's resumable state (`export` / `restore`) in the shared container of
//! [`crate::state`]: H, Σ, the length and the partial block. The S-box parameter set is
//! the state's algorithm name (`gost94` for CryptoPro, `gost94-test`).

use super::{Gost94, Platform, SBox, State};
use crate::state::{self, Writer};
use crate::Error;

fn name(sbox: SBox) -> &'static str {
    match sbox {
        SBox::CryptoPro => super::ALGORITHM_CRYPTOPRO.name,
        SBox::Test => super::ALGORITHM_TEST.name,
    }
}

impl Gost94 {
    /// The unfinished hash as a state (simdcrypt's format, docs/state-format.md) that
    /// [`Gost94::restore`] resumes, in another process or on another machine.
    pub fn export(&self) -> Vec<u8> {
        let mut fields = Writer::default();
        fields.u64s(&self.state.h).u64s(&self.state.sigma).block_buffer(&self.buf);
        state::seal(name(self.sbox), &[], &fields.bytes, None)
    }

    /// Resumes a hash from a state made by [`Gost94::export`] (either parameter set: the
    /// state names it), on the detected backend. GOST R 34.11-94 has no key: `key` must be
    /// `None`.
    ///
    /// Returns [`Error::InvalidArgument`] saying what is wrong for a blob that is not a
    /// GOST R 34.11-94 state or is damaged.
    pub fn restore(blob: &[u8], key: Option<&[u8]>) -> Result<Gost94, Error> {
        let found = state::algorithm_of(blob)?;
        let sbox = if found == name(SBox::Test) { SBox::Test } else { SBox::CryptoPro };
        Self::restore_with(sbox, blob, key)
    }

    /// [`Gost94::restore`] for a state of the parameter set `sbox` only.
    pub fn restore_with(sbox: SBox, blob: &[u8], key: Option<&[u8]>) -> Result<Gost94, Error> {
        let opened = state::open_unkeyed(blob, name(sbox), key)?;
        opened.params.finish()?;
        let mut f = opened.fields;
        let h = f.u64s::<4>()?;
        let sigma = f.u64s::<4>()?;
        let buf = f.block_buffer(name(sbox))?;
        f.finish()?;
        Ok(Gost94 { state: State { h, sigma }, buf, sbox, platform: Platform::detect() })
    }
}
