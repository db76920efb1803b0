//! Random access to files in the [`sealed_stream`](super::sealed_stream) format, and a
//! streaming writer of them.
//!
//! [`SealedReader`] opens a file of either version, checks its header (and, for version 2,
//! the header MAC) and authenticates the final chunk at once, so the plaintext length it
//! reports is authentic and a truncated or extended file is refused when it is opened.
//! After that it reads and authenticates only the chunks that a read touches: a byte is
//! returned only after its whole chunk has authenticated, with the chunk's index and final
//! flag in its nonce, so chunks cannot be moved, dropped or swapped unnoticed.
//!
//! [`SealedWriter`] writes the same bytes as [`encrypt_v2`](super::sealed_stream::encrypt_v2)
//! from a sequence of `write` calls; nothing marks the file complete until
//! [`SealedWriter::finish`] seals the final chunk.
//!
//! ## What this file holds
//!
//! `SealedReader` (`Read` + `Seek` over a sealed file: header and final chunk checked at open,
//! then only the chunks a read touches, each authenticated before any byte of it is returned)
//! and `SealedWriter` (the same bytes as `encrypt_v2` from a series of writes)

use super::sealed_stream::{
    open_chunk, seal_chunk, DecryptError, FileKey, Header, Secret, CHUNK_LEN, SEALED_CHUNK_LEN,
};
use super::secretbox::TAG_LEN;
use std::io::{self, Read, Seek, SeekFrom, Write};

/// A [`DecryptError`] as an `io::Error` (kind `InvalidData`, the error inside: recover it
/// with `get_ref()` and `downcast_ref::<DecryptError>()`), for the `Read` impl.
fn to_io(e: DecryptError) -> io::Error {
    match e {
        DecryptError::Io(e) => e,
        other => io::Error::new(io::ErrorKind::InvalidData, other),
    }
}

/// Reads a sealed file at any offset (`Read` + `Seek`), authenticating each chunk it
/// reads. Memory: one chunk.
#[derive(Debug)]
pub struct SealedReader<R> {
    inner: R,
    key: FileKey,
    header: Header,
    /// Number of chunks (at least one).
    chunks: u64,
    /// Plaintext length (authentic: the final chunk was opened as final).
    len: u64,
    pos: u64,
    /// The chunk in `plain`, if any.
    cached: Option<u64>,
    plain: Vec<u8>,
    sealed: Vec<u8>,
}

impl<R: Read + Seek> SealedReader<R> {
    /// Opens the file in `inner` (read from its start): parses and unlocks the header
    /// with `secret` and authenticates the final chunk.
    pub fn open(mut inner: R, secret: &Secret<'_>) -> Result<SealedReader<R>, DecryptError> {
        inner.seek(SeekFrom::Start(0))?;
        let header = Header::read(&mut inner)?;
        let key = header.unlock(secret)?;
        let header_len = header.as_bytes().len() as u64;
        let file_len = inner.seek(SeekFrom::End(0))?;
        let body = file_len.saturating_sub(header_len);
        if body == 0 {
            return Err(DecryptError::Truncated { chunks: 0 });
        }
        let chunks = body.div_ceil(SEALED_CHUNK_LEN as u64);
        let last_len = body - (chunks - 1) * SEALED_CHUNK_LEN as u64;
        if last_len < TAG_LEN as u64 {
            return Err(DecryptError::Authentication { chunk: chunks - 1 });
        }
        let len = (chunks - 1) * CHUNK_LEN as u64 + last_len - TAG_LEN as u64;
        let mut reader = SealedReader {
            inner,
            key,
            header,
            chunks,
            len,
            pos: 0,
            cached: None,
            plain: vec![0; CHUNK_LEN],
            sealed: vec![0; SEALED_CHUNK_LEN],
        };
        reader.load(chunks - 1)?;
        Ok(reader)
    }

    /// The plaintext length in bytes.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether the plaintext is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The file's header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The underlying reader.
    pub fn into_inner(self) -> R {
        self.inner
    }

    /// The plaintext length of chunk `index`.
    fn chunk_plain_len(&self, index: u64) -> usize {
        if index + 1 == self.chunks {
            (self.len - index * CHUNK_LEN as u64) as usize
        } else {
            CHUNK_LEN
        }
    }

    /// Reads and authenticates chunk `index` into the cache.
    fn load(&mut self, index: u64) -> Result<(), DecryptError> {
        if self.cached == Some(index) {
            return Ok(());
        }
        self.cached = None;
        let n = self.chunk_plain_len(index);
        let at = self.header.as_bytes().len() as u64 + index * SEALED_CHUNK_LEN as u64;
        self.inner.seek(SeekFrom::Start(at))?;
        let sealed = &mut self.sealed[..n + TAG_LEN];
        self.inner.read_exact(sealed).map_err(|e| {
            if e.kind() == io::ErrorKind::UnexpectedEof {
                // The file shrank since it was opened.
                DecryptError::Authentication { chunk: index }
            } else {
                DecryptError::Io(e)
            }
        })?;
        open_chunk(&self.key, index, index + 1 == self.chunks, sealed, &mut self.plain[..n])?;
        self.cached = Some(index);
        Ok(())
    }

    /// Reads at the current position, returning a [`DecryptError`] for a chunk that does
    /// not authenticate (the `Read` impl wraps it in an `io::Error`).
    pub fn read_checked(&mut self, buf: &mut [u8]) -> Result<usize, DecryptError> {
        if buf.is_empty() || self.pos >= self.len {
            return Ok(0);
        }
        let index = self.pos / CHUNK_LEN as u64;
        self.load(index)?;
        let start = (self.pos - index * CHUNK_LEN as u64) as usize;
        let avail = &self.plain[start..self.chunk_plain_len(index)];
        let n = avail.len().min(buf.len());
        buf[..n].copy_from_slice(&avail[..n]);
        self.pos += n as u64;
        Ok(n)
    }
}

impl<R: Read + Seek> Read for SealedReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.read_checked(buf).map_err(to_io)
    }
}

impl<R: Read + Seek> Seek for SealedReader<R> {
    /// Positions in the plaintext; past the end is allowed (reads there return 0 bytes),
    /// before the start is an error.
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        let target = match to {
            SeekFrom::Start(p) => Some(p),
            SeekFrom::End(d) => self.len.checked_add_signed(d),
            SeekFrom::Current(d) => self.pos.checked_add_signed(d),
        };
        match target {
            Some(p) => {
                self.pos = p;
                Ok(p)
            }
            None => Err(io::Error::new(io::ErrorKind::InvalidInput, "seek to a negative or overflowing position")),
        }
    }
}

/// Writes a sealed file from `write` calls: the header at once, each chunk as soon as the
/// next byte shows that it is not the last, the final chunk in [`SealedWriter::finish`].
/// Dropped without `finish`, the file is incomplete and decrypts as truncated.
#[derive(Debug)]
pub struct SealedWriter<W: Write> {
    inner: W,
    key: FileKey,
    next: u64,
    pending: Vec<u8>,
    sealed: Vec<u8>,
}

impl<W: Write> SealedWriter<W> {
    /// Writes `header` to `inner` and returns a writer for its chunks (`key` from
    /// [`Header::new_v2`] with the same header).
    pub fn new(header: &Header, key: FileKey, mut inner: W) -> io::Result<SealedWriter<W>> {
        inner.write_all(header.as_bytes())?;
        Ok(SealedWriter {
            inner,
            key,
            next: 0,
            pending: Vec::with_capacity(CHUNK_LEN),
            sealed: vec![0; SEALED_CHUNK_LEN],
        })
    }

    fn seal_pending(&mut self, last: bool) -> io::Result<()> {
        let n = self.pending.len();
        seal_chunk(&self.key, self.next, last, &self.pending, &mut self.sealed[..n + TAG_LEN]);
        self.inner.write_all(&self.sealed[..n + TAG_LEN])?;
        self.next += 1;
        self.pending.clear();
        Ok(())
    }

    /// Seals the final chunk, flushes, and returns the underlying writer.
    pub fn finish(mut self) -> io::Result<W> {
        self.seal_pending(true)?;
        self.inner.flush()?;
        Ok(self.inner)
    }
}

impl<W: Write> Write for SealedWriter<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        if self.pending.len() == CHUNK_LEN {
            // More data follows: the chunk in hand is not the last.
            self.seal_pending(false)?;
        }
        let n = buf.len().min(CHUNK_LEN - self.pending.len());
        self.pending.extend_from_slice(&buf[..n]);
        Ok(n)
    }

    /// Flushes the chunks sealed so far (the chunk in hand waits for more data or
    /// `finish`).
    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}
