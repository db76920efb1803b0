//! Resumable hash state: the one container format every streaming hasher's `export` writes
//! and its `restore` reads (docs/state-format.md describes it byte by byte).
//!
//! A state is the unfinished hash of some input, saved so that another process (on another
//! machine, with another backend) can go on hashing where it stopped. The container is
//! version 2 of the format HighwayHash's checkpoints introduced (same magic; version 1 is
//! HighwayHash-only and still read by [`crate::highwayhash::HighwayHasher::restore`]):
//!
//! ```text
//! "SCCP" | version u16 = 2 | name length u8 | flags u8 | name (ASCII)
//!        | params length u16 | params | fields length u32 | fields | checksum (32 bytes)
//! ```
//!
//! Integers are little-endian. The name is the registry name of the algorithm
//! (`"blake3"`, `"sha256"`, ..., or `"hmac_streebog256"`); params are what the algorithm
//! needs to rebuild its constant setup (BLAKE3's mode), fields its running state and
//! buffered bytes. Each algorithm writes and reads its own params and fields (in its own
//! folder) through [`seal`] and [`open`]; this module checks everything else.
//!
//! The checksum is BLAKE3 over every byte before it. For a keyed hash (flag bit 0) it is
//! BLAKE3's keyed hash under a key derived from the hasher's key, so the state binds to
//! its key: restoring it needs the same key, and another key reads as a checksum mismatch.
//!
//! ## What this file holds
//!
//! the state container every hasher's `export`/`restore` shares (docs/state-format.md):
//! `seal`, `open` (checks magic, version, name, keyed flag, every length, the checksum:
//! BLAKE3, keyed from the hasher's key for keyed hashes), `Reader`/`Writer` for the fields
//! (with `block_buffer`/`pending`: a `BlockBuffer`'s length and pending bytes, checked against
//! each other on reading), `restore_any` (by the name in the blob, through the registry); each
//! algorithm's fields in its folder's `state.rs`

use crate::block_buffer::BlockBuffer;
use crate::Error;

/// The four bytes every state starts with (shared with HighwayHash's version-1 checkpoints).
pub const MAGIC: &[u8; 4] = b"SCCP";
/// The container version this module writes and reads.
pub const VERSION: u16 = 2;
/// Flag bit 0: the checksum is keyed (the state binds to the hasher's key).
const FLAG_KEYED: u8 = 1;
/// The longest algorithm name a state may carry.
pub const MAX_NAME_LEN: usize = 32;
/// The checksum's length (a BLAKE3 digest).
pub const CHECKSUM_LEN: usize = 32;
/// The BLAKE3 key derivation context of the keyed checksum's key.
const CHECKSUM_CONTEXT: &str = "simdcrypt state format 2 checksum key";

fn bad<T>(msg: impl Into<String>) -> Result<T, Error> {
    Err(Error::InvalidArgument(msg.into()))
}

fn checksum(body: &[u8], key: Option<&[u8]>) -> [u8; CHECKSUM_LEN] {
    match key {
        Some(key) => {
            let mac_key = crate::blake3::derive_key(CHECKSUM_CONTEXT, key);
            crate::blake3::keyed_hash(&mac_key, body)
        }
        None => crate::blake3::hash(body),
    }
}

/// Writes a state: `name` (the algorithm's registry name), its `params` and `fields`, and
/// the checksum, keyed with `key` for a keyed hash.
///
/// Panics if the name is empty, longer than [`MAX_NAME_LEN`] or not ASCII, or params or
/// fields exceed their length fields (callers pass fixed, small values).
pub fn seal(name: &str, params: &[u8], fields: &[u8], key: Option<&[u8]>) -> Vec<u8> {
    assert!(!name.is_empty() && name.len() <= MAX_NAME_LEN && name.is_ascii(), "state name {name:?}");
    let mut b = Vec::with_capacity(16 + name.len() + params.len() + fields.len() + CHECKSUM_LEN);
    b.extend_from_slice(MAGIC);
    b.extend_from_slice(&VERSION.to_le_bytes());
    b.push(name.len() as u8);
    b.push(if key.is_some() { FLAG_KEYED } else { 0 });
    b.extend_from_slice(name.as_bytes());
    b.extend_from_slice(&u16::try_from(params.len()).expect("params fit u16").to_le_bytes());
    b.extend_from_slice(params);
    b.extend_from_slice(&u32::try_from(fields.len()).expect("fields fit u32").to_le_bytes());
    b.extend_from_slice(fields);
    let sum = checksum(&b, key);
    b.extend_from_slice(&sum);
    b
}

/// The parts of a state after [`open`] checked its framing and checksum.
#[derive(Debug)]
pub struct Opened<'a> {
    /// The algorithm's parameters.
    pub params: Reader<'a>,
    /// The algorithm's running state and buffered bytes.
    pub fields: Reader<'a>,
}

/// The header of a state: enough to tell what it is before checking it.
#[derive(Debug)]
struct Header<'a> {
    name: &'a str,
    keyed: bool,
    /// Where the name ends.
    rest_at: usize,
}

fn header(blob: &[u8]) -> Result<Header<'_>, Error> {
    if blob.len() < 4 || &blob[..4] != MAGIC {
        return bad("not a simdcrypt state (it does not start with \"SCCP\")");
    }
    if blob.len() < 8 {
        return bad(format!("truncated simdcrypt state: {} bytes, the header alone has 8", blob.len()));
    }
    let version = u16::from_le_bytes([blob[4], blob[5]]);
    if version != VERSION {
        return bad(format!(
            "simdcrypt state format version {version} is not supported (this build reads version {VERSION}, \
             and version 1 HighwayHash checkpoints)"
        ));
    }
    let name_len = usize::from(blob[6]);
    let flags = blob[7];
    if flags & !FLAG_KEYED != 0 {
        return bad(format!("damaged simdcrypt state: unknown flags {flags:#04x}"));
    }
    if name_len == 0 || name_len > MAX_NAME_LEN {
        return bad(format!("damaged simdcrypt state: algorithm name of {name_len} bytes (1 to {MAX_NAME_LEN})"));
    }
    let rest_at = 8 + name_len;
    if blob.len() < rest_at {
        return bad("truncated simdcrypt state: it ends inside the algorithm name");
    }
    let name_bytes = &blob[8..rest_at];
    if !name_bytes.iter().all(|c| c.is_ascii_graphic()) {
        return bad("damaged simdcrypt state: the algorithm name is not printable ASCII");
    }
    let name = std::str::from_utf8(name_bytes).expect("ASCII");
    Ok(Header { name, keyed: flags & FLAG_KEYED != 0, rest_at })
}

/// The algorithm name a state carries (its registry name), after checking the magic,
/// the version and the name field; nothing else is checked.
pub fn algorithm_of(blob: &[u8]) -> Result<&str, Error> {
    header(blob).map(|h| h.name)
}

/// Whether a state says it is bound to a key, after the checks of [`algorithm_of`].
pub fn is_keyed(blob: &[u8]) -> Result<bool, Error> {
    header(blob).map(|h| h.keyed)
}

/// Checks a state of the algorithm `expected` and returns its params and fields.
///
/// `key` is the hasher's key for a keyed hash, `None` otherwise; a keyed state without a
/// key, or a key for an unkeyed state, is an error, and so is every length that does not
/// add up, bytes after the checksum, and a checksum that does not match (a damaged state,
/// or one made with another key).
pub fn open<'a>(blob: &'a [u8], expected: &str, key: Option<&[u8]>) -> Result<Opened<'a>, Error> {
    let h = header(blob)?;
    if h.name != expected {
        return bad(format!("this is a state of {}, expected {expected}", h.name));
    }
    match (h.keyed, key) {
        (true, None) => return bad(format!("this {expected} state is keyed: restoring it needs the same key")),
        (false, Some(_)) => {
            return bad(format!("this {expected} state is not keyed: restore it without a key"));
        }
        _ => {}
    }
    let mut r = Reader { data: &blob[h.rest_at..], what: "state" };
    let params_len = usize::from(u16::from_le_bytes(r.array::<2>()?));
    let params = r.take(params_len)?;
    let fields_len = r.u32()? as usize;
    let fields = r.take(fields_len)?;
    let stored = r.take(CHECKSUM_LEN)?;
    if !r.data.is_empty() {
        return bad(format!("damaged simdcrypt state: {} bytes after the checksum", r.data.len()));
    }
    let body = &blob[..blob.len() - CHECKSUM_LEN];
    let ok: bool = subtle::ConstantTimeEq::ct_eq(&checksum(body, key)[..], stored).into();
    if !ok {
        let why = if h.keyed { "the state is damaged, or another key was given" } else { "the state is damaged" };
        return bad(format!("{expected} state checksum mismatch ({why})"));
    }
    Ok(Opened { params: Reader { data: params, what: "params" }, fields: Reader { data: fields, what: "fields" } })
}

/// [`open`] for an algorithm that has no key: a state sealed with the keyed flag is
/// refused with a key as well as without one (the key would be ignored, and the hasher
/// would then export a state that the same call refuses).
pub(crate) fn open_unkeyed<'a>(blob: &'a [u8], expected: &str, key: Option<&[u8]>) -> Result<Opened<'a>, Error> {
    let opened = open(blob, expected, key)?;
    if key.is_some() {
        return bad(format!("{expected} has no key: this keyed state is not one of its states"));
    }
    Ok(opened)
}

/// Reads a state's params or fields in order, checking each length.
#[derive(Debug)]
pub struct Reader<'a> {
    data: &'a [u8],
    what: &'static str,
}

impl<'a> Reader<'a> {
    /// The next `n` bytes.
    pub fn take(&mut self, n: usize) -> Result<&'a [u8], Error> {
        if self.data.len() < n {
            return bad(format!(
                "truncated simdcrypt state: its {} end {} bytes early",
                self.what,
                n - self.data.len()
            ));
        }
        let (head, rest) = self.data.split_at(n);
        self.data = rest;
        Ok(head)
    }

    /// The next `N` bytes as an array.
    pub fn array<const N: usize>(&mut self) -> Result<[u8; N], Error> {
        Ok(self.take(N)?.try_into().expect("N bytes"))
    }

    /// The next byte.
    pub fn u8(&mut self) -> Result<u8, Error> {
        Ok(self.take(1)?[0])
    }

    /// The next little-endian u32.
    pub fn u32(&mut self) -> Result<u32, Error> {
        Ok(u32::from_le_bytes(self.array()?))
    }

    /// The next little-endian u64.
    pub fn u64(&mut self) -> Result<u64, Error> {
        Ok(u64::from_le_bytes(self.array()?))
    }

    /// The next `N` little-endian u64 words.
    pub fn u64s<const N: usize>(&mut self) -> Result<[u64; N], Error> {
        let mut out = [0u64; N];
        for w in &mut out {
            *w = self.u64()?;
        }
        Ok(out)
    }

    /// The next `N` little-endian u32 words.
    pub fn u32s<const N: usize>(&mut self) -> Result<[u32; N], Error> {
        let mut out = [0u32; N];
        for w in &mut out {
            *w = self.u32()?;
        }
        Ok(out)
    }

    /// A buffer of partial-block bytes: a length byte (at most `max`), then `cap` bytes, of
    /// which the unused tail must be zero (so one state has one encoding).
    pub fn buffer<const CAP: usize>(&mut self, max: usize) -> Result<([u8; CAP], usize), Error> {
        let len = usize::from(self.u8()?);
        if len > max {
            return bad(format!("damaged simdcrypt state: {len} buffered bytes (at most {max})"));
        }
        let buf: [u8; CAP] = self.array()?;
        if buf[len..].iter().any(|&b| b != 0) {
            return bad("damaged simdcrypt state: bytes after the buffered input are not zero");
        }
        Ok((buf, len))
    }

    /// A hash's pending input after `total` bytes ([`Reader::buffer`]: fewer than `N`
    /// bytes), checked against the length: `total` mod `N` bytes must be pending. `name`
    /// names the algorithm in the error.
    pub(crate) fn pending<const N: usize>(&mut self, name: &str, total: u64) -> Result<BlockBuffer<N>, Error> {
        let (buf, len) = self.buffer::<N>(N - 1)?;
        if total % N as u64 != len as u64 {
            return bad(format!("damaged {name} state: {len} buffered bytes after {total} bytes of input"));
        }
        Ok(BlockBuffer::from_parts(&buf[..len], total).expect("checked: under a block"))
    }

    /// The input length, then the pending input, as [`Writer::block_buffer`] writes them.
    pub(crate) fn block_buffer<const N: usize>(&mut self, name: &str) -> Result<BlockBuffer<N>, Error> {
        let total = self.u64()?;
        self.pending(name, total)
    }

    /// Checks that everything was read.
    pub fn finish(self) -> Result<(), Error> {
        if self.data.is_empty() {
            Ok(())
        } else {
            bad(format!(
                "damaged simdcrypt state: {} unexpected bytes at the end of its {}",
                self.data.len(),
                self.what
            ))
        }
    }
}

/// Builds the fields of a state: little-endian words and buffered bytes, in the order the
/// algorithm's [`Reader`] reads them back.
#[derive(Debug, Default)]
pub struct Writer {
    /// The bytes written so far.
    pub bytes: Vec<u8>,
}

impl Writer {
    /// Appends raw bytes.
    pub fn bytes(&mut self, b: &[u8]) -> &mut Self {
        self.bytes.extend_from_slice(b);
        self
    }
    /// Appends one byte.
    pub fn u8(&mut self, v: u8) -> &mut Self {
        self.bytes.push(v);
        self
    }
    /// Appends little-endian u32 words.
    pub fn u32s(&mut self, words: &[u32]) -> &mut Self {
        for w in words {
            self.bytes.extend_from_slice(&w.to_le_bytes());
        }
        self
    }
    /// Appends little-endian u64 words.
    pub fn u64s(&mut self, words: &[u64]) -> &mut Self {
        for w in words {
            self.bytes.extend_from_slice(&w.to_le_bytes());
        }
        self
    }
    /// Appends a partial-block buffer as [`Reader::buffer`] reads it: the length, then the
    /// whole buffer with the bytes past `len` zeroed.
    pub fn buffer(&mut self, buf: &[u8], len: usize) -> &mut Self {
        self.bytes.push(u8::try_from(len).expect("buffer length fits a byte"));
        self.bytes.extend_from_slice(&buf[..len]);
        self.bytes.resize(self.bytes.len() + buf.len() - len, 0);
        self
    }
    /// Appends a hash's pending input as [`Reader::pending`] reads it.
    pub(crate) fn pending<const N: usize>(&mut self, buf: &BlockBuffer<N>) -> &mut Self {
        let (bytes, len) = buf.raw();
        self.buffer(bytes, len)
    }
    /// Appends the input length so far and the pending input, as [`Reader::block_buffer`]
    /// reads them.
    pub(crate) fn block_buffer<const N: usize>(&mut self, buf: &BlockBuffer<N>) -> &mut Self {
        self.u64s(&[buf.total()]).pending(buf)
    }
}

/// Restores a hasher of any registry algorithm from a state, reading the algorithm from the
/// blob (`key`: the hasher's key, for a keyed state).
pub fn restore_any(
    blob: &[u8],
    key: Option<&[u8]>,
) -> Result<(&'static crate::registry::Algorithm, Box<dyn crate::streaming::StreamingHash>), Error> {
    let name = algorithm_of(blob)?;
    let algorithm = crate::registry::REGISTRY.iter().copied().find(|a| a.name == name).ok_or_else(|| {
        let names: Vec<&str> = crate::registry::REGISTRY.iter().map(|a| a.name).collect();
        Error::InvalidArgument(format!(
            "this is a state of {name}, which cannot be restored by name (algorithms: {})",
            names.join(", ")
        ))
    })?;
    Ok((algorithm, (algorithm.restore)(blob, key)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_every_error() {
        let blob = seal("sha256", b"p", b"fields", None);
        let o = open(&blob, "sha256", None).unwrap();
        assert_eq!(o.params.data, b"p");
        assert_eq!(o.fields.data, b"fields");
        let err = |b: &[u8], name: &str, key: Option<&[u8]>| open(b, name, key).unwrap_err().to_string();
        assert!(err(&blob, "blake3", None).contains("state of sha256, expected blake3"));
        assert!(err(&blob, "sha256", Some(b"k")).contains("not keyed"));
        assert!(err(b"nope", "sha256", None).contains("not a simdcrypt state"));
        assert!(err(&blob[..6], "sha256", None).contains("truncated"));
        assert!(err(&blob[..blob.len() - 1], "sha256", None).contains("truncated"));
        let mut v7 = blob.clone();
        v7[4] = 7;
        assert!(err(&v7, "sha256", None).contains("version 7 is not supported"));
        let mut damaged = blob.clone();
        let last_field = damaged.len() - CHECKSUM_LEN - 1;
        damaged[last_field] ^= 1;
        assert!(err(&damaged, "sha256", None).contains("checksum mismatch"));
        let mut longer = blob.clone();
        longer.push(0);
        assert!(err(&longer, "sha256", None).contains("after the checksum"));

        let keyed = seal("blake3", b"", b"x", Some(b"key"));
        assert!(open(&keyed, "blake3", Some(b"key")).is_ok());
        assert!(err(&keyed, "blake3", Some(b"other")).contains("another key"));
        assert!(err(&keyed, "blake3", None).contains("needs the same key"));
    }
}
