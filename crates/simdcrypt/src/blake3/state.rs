//! BLAKE3's resumable state (`export` / `restore`) in the shared container of
//! [`crate::state`]: the mode, the chunk being filled and the stack of subtree chaining
//! values. docs/state-format.md lists the fields byte by byte.

use super::{
    cv_bytes, key_words, ChunkState, CvWords, Hasher, Platform, BLOCK_LEN, CHUNK_LEN, DERIVE_KEY_MATERIAL, IV,
    KEYED_HASH, KEY_LEN, OUT_LEN,
};
use crate::state::{self, Writer};
use crate::threads::Threads;
use crate::Error;

/// The state's name (the registry's).
const NAME: &str = "blake3";
const MODE_HASH: u8 = 0;
const MODE_KEYED: u8 = 1;
const MODE_DERIVE_KEY: u8 = 2;
/// The most entries the lazily merged stack can hold (one per bit of a 2^54-chunk count,
/// plus the two a subtree pushes before the next merge).
const MAX_STACK: usize = super::MAX_DEPTH + 2;
/// A restored chunk counter is at most 2^53 (8 EiB of input), so that no amount of further
/// input a process can feed makes the counter arithmetic overflow.
const MAX_CHUNKS: u64 = 1 << 53;

fn bad<T>(msg: &str) -> Result<T, Error> {
    Err(Error::InvalidArgument(format!("damaged blake3 state: {msg}")))
}

impl Hasher {
    /// The unfinished hash as a state (simdcrypt's format, docs/state-format.md) that
    /// [`Hasher::restore`] resumes, in another process or on another machine. A keyed
    /// hasher's state is bound to its key (its checksum is keyed) and does not contain it.
    pub fn export(&self) -> Vec<u8> {
        let flags = self.chunk_state.flags;
        let key_bytes = cv_bytes(&self.key);
        let (mode, key): (u8, Option<&[u8]>) = match flags {
            KEYED_HASH => (MODE_KEYED, Some(&key_bytes)),
            DERIVE_KEY_MATERIAL => (MODE_DERIVE_KEY, None),
            _ => (MODE_HASH, None),
        };
        let mut params = Writer::default();
        params.u8(mode);
        if mode == MODE_DERIVE_KEY {
            // The context's key (a digest of the public context string), not a secret.
            params.bytes(&key_bytes);
        }
        let cs = &self.chunk_state;
        let mut fields = Writer::default();
        fields.u64s(&[self.initial_chunk_counter, cs.chunk_counter]).u8(cs.blocks_compressed);
        // Before a chunk's first compression its chaining value is the key itself: left out
        // (restore puts the key back), so a keyed state never holds the key.
        if cs.blocks_compressed > 0 {
            fields.u32s(&cs.cv);
        }
        fields.buffer(&cs.buf, usize::from(cs.buf_len)).u8(self.cv_stack.len() as u8);
        for cv in &self.cv_stack {
            fields.bytes(cv);
        }
        state::seal(NAME, &params.bytes, &fields.bytes, key)
    }

    /// The key of a keyed hasher (what [`Hasher::restore`] needs with its state), `None`
    /// in the other modes.
    pub fn key(&self) -> Option<[u8; KEY_LEN]> {
        (self.chunk_state.flags == KEYED_HASH).then(|| cv_bytes(&self.key))
    }

    /// Resumes a hash from a state made by [`Hasher::export`], on the detected backend
    /// with one thread (set either afterwards). `key` is the 32-byte key of a keyed
    /// hasher's state and `None` for the other modes.
    ///
    /// Returns [`Error::InvalidArgument`] saying what is wrong for a blob that is not a
    /// BLAKE3 state, is damaged, or was made with another key, and for a missing or
    /// unexpected key.
    pub fn restore(blob: &[u8], key: Option<&[u8]>) -> Result<Hasher, Error> {
        if let Some(k) = key {
            if k.len() != KEY_LEN {
                return Err(Error::InvalidLength { what: "blake3 key", expected: KEY_LEN, got: k.len() });
            }
        }
        let opened = state::open(blob, NAME, key)?;
        let (mut params, mut fields) = (opened.params, opened.fields);
        let (key_words_, flags): (CvWords, u8) = match (params.u8()?, key) {
            (MODE_HASH, None) => (IV, 0),
            (MODE_KEYED, Some(k)) => (key_words(k.try_into().expect("length checked")), KEYED_HASH),
            (MODE_DERIVE_KEY, None) => (key_words(&params.array::<OUT_LEN>()?), DERIVE_KEY_MATERIAL),
            (MODE_KEYED, None) | (MODE_HASH | MODE_DERIVE_KEY, Some(_)) => {
                return bad("its mode does not match its keyed flag")
            }
            (mode, _) => return bad(&format!("unknown mode {mode}")),
        };
        params.finish()?;
        let [initial, chunk_counter] = fields.u64s::<2>()?;
        let blocks_compressed = fields.u8()?;
        let cv = if blocks_compressed > 0 { fields.u32s::<8>()? } else { key_words_ };
        let (buf, buf_len) = fields.buffer::<BLOCK_LEN>(BLOCK_LEN)?;
        let stack_len = usize::from(fields.u8()?);
        if stack_len > MAX_STACK {
            return bad(&format!("{stack_len} chaining values on the stack (at most {MAX_STACK})"));
        }
        let mut cv_stack = Vec::with_capacity(super::MAX_DEPTH + 1);
        for _ in 0..stack_len {
            cv_stack.push(fields.array::<OUT_LEN>()?);
        }
        fields.finish()?;

        // The invariants the hasher's code relies on, so that no state, however made, can
        // make it panic: counters in range, a chunk of at most CHUNK_LEN bytes whose last
        // block stays buffered, and a stack that holds the chunks before the current one.
        if chunk_counter < initial || chunk_counter > MAX_CHUNKS {
            return bad("chunk counter out of range");
        }
        let chunk_len = BLOCK_LEN * usize::from(blocks_compressed) + buf_len;
        if chunk_len > CHUNK_LEN || (buf_len == 0 && blocks_compressed > 0) {
            return bad("chunk state of impossible length");
        }
        let before = chunk_counter - initial;
        if (before == 0) != cv_stack.is_empty() {
            return bad("the stack does not match the chunk counter");
        }
        if chunk_len == 0 && cv_stack.len() == 1 {
            // One subtree of one chunk and an empty chunk state is never written: a
            // first chunk stays in the chunk state.
            return bad("one chaining value on the stack and nothing after it");
        }
        let chunk_state = ChunkState {
            cv,
            chunk_counter,
            buf,
            buf_len: buf_len as u8,
            blocks_compressed,
            flags,
            platform: Platform::detect(),
        };
        Ok(Hasher { key: key_words_, chunk_state, cv_stack, threads: Threads::One, initial_chunk_counter: initial })
    }
}
