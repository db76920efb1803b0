//! SHA-256's resumable state (`export` / `restore`) in the shared container of
//! [`crate::state`]: the eight state words, the length and the partial block.

use super::{Platform, Sha256};
use crate::state::{self, Writer};
use crate::Error;

const NAME: &str = "sha256";

impl Sha256 {
    /// The unfinished hash as a state (simdcrypt's format, docs/state-format.md) that
    /// [`Sha256::restore`] resumes, in another process or on another machine.
    pub fn export(&self) -> Vec<u8> {
        let mut fields = Writer::default();
        fields.u32s(&self.state).block_buffer(&self.buf);
        state::seal(NAME, &[], &fields.bytes, None)
    }

    /// Resumes a hash from a state made by [`Sha256::export`], on the detected backend.
    /// SHA-256 has no key: `key` must be `None`.
    ///
    /// Returns [`Error::InvalidArgument`] saying what is wrong for a blob that is not a
    /// SHA-256 state or is damaged.
    pub fn restore(blob: &[u8], key: Option<&[u8]>) -> Result<Sha256, Error> {
        let opened = state::open_unkeyed(blob, NAME, key)?;
        opened.params.finish()?;
        let mut f = opened.fields;
        let words = f.u32s::<8>()?;
        let buf = f.block_buffer(NAME)?;
        f.finish()?;
        Ok(Sha256 { state: words, buf, platform: Platform::detect() })
    }
}
