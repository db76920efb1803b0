//! The chunk pipeline of sealed_stream on several threads: tampering in any batch (the
//! caller's or a helper's) is reported at the right chunk with exactly the chunks before
//! it written; readers that return a few bytes at a time or `Interrupted` give the same
//! bytes; a failing reader or writer ends the run with its error on any thread count
//! (no hang, no panic); a writer that panics ends the call with its panic, not a hang.

mod common;

use simdcrypt::salsa20::sealed_stream::{
    self, Argon2Params, DecryptError, Secret, CHUNK_LEN, HEADER_V2_LEN, SEALED_CHUNK_LEN,
};
use simdcrypt::threads::Threads;
use std::io::{self, Read, Write};

const KEY: [u8; 32] = [0x44; 32];
const NONCE: [u8; 16] = [0x55; 16];
const SALT: [u8; 16] = [0x66; 16];
const THREADS: [Threads; 4] = [Threads::One, Threads::Max(2), Threads::Max(3), Threads::Max(4)];

fn seal_with(plain: impl Read, threads: Threads) -> io::Result<Vec<u8>> {
    let mut out = Vec::new();
    sealed_stream::encrypt_v2(&Secret::Key(&KEY), &NONCE, &SALT, Argon2Params::DEFAULT, plain, &mut out, threads)
        .map_err(|e| match e {
            DecryptError::Io(e) => e,
            other => panic!("unexpected {other}"),
        })?;
    Ok(out)
}

/// Returns at most a few bytes per call (varying), and `Interrupted` now and then.
struct Trickle<'a> {
    data: &'a [u8],
    calls: usize,
}

impl Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.calls += 1;
        if self.calls.is_multiple_of(7) {
            return Err(io::ErrorKind::Interrupted.into());
        }
        let n = buf.len().min(self.data.len()).min(1 + self.calls % 5000);
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

/// Gives `left` bytes, then fails.
struct FailingReader<'a> {
    data: &'a [u8],
    left: usize,
}

impl Read for FailingReader<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.left == 0 {
            return Err(io::Error::other("the disk went away"));
        }
        let n = buf.len().min(self.left).min(self.data.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        self.left -= n;
        Ok(n)
    }
}

/// Takes `left` bytes, then fails (an I/O error), or panics when `panics`.
struct FailingWriter {
    left: usize,
    panics: bool,
}

impl Write for FailingWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.left == 0 {
            assert!(!self.panics, "the writer gave up");
            return Err(io::Error::other("the disk is full"));
        }
        let n = buf.len().min(self.left);
        self.left -= n;
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[test]
fn tampering_in_any_batch_is_found_at_its_chunk() {
    // 51 chunks: batches of 16 chunks, so chunks 0, 16, 32 and 48 start batches.
    let plain = common::random_bytes(21, 50 * CHUNK_LEN + 7);
    let sealed = seal_with(&plain[..], Threads::One).unwrap();
    for bad_chunk in [0usize, 1, 15, 16, 17, 31, 32, 47, 48, 50] {
        let mut bad = sealed.clone();
        bad[HEADER_V2_LEN + bad_chunk * SEALED_CHUNK_LEN + 20] ^= 1;
        for threads in THREADS {
            let mut out = Vec::new();
            let r = sealed_stream::decrypt_any(&Secret::Key(&KEY), &bad[..], &mut out, threads);
            assert!(
                matches!(r, Err(DecryptError::Authentication { chunk }) if chunk == bad_chunk as u64),
                "chunk {bad_chunk}, {threads:?}: {r:?}"
            );
            assert!(out == plain[..bad_chunk * CHUNK_LEN], "chunk {bad_chunk}, {threads:?}: only the chunks before");
        }
    }
    // Cut inside the tag of a chunk in a later batch, and right after a batch.
    for cut in [HEADER_V2_LEN + 40 * SEALED_CHUNK_LEN + 5, HEADER_V2_LEN + 32 * SEALED_CHUNK_LEN] {
        for threads in THREADS {
            let mut out = Vec::new();
            let r = sealed_stream::decrypt_any(&Secret::Key(&KEY), &sealed[..cut], &mut out, threads);
            assert!(r.is_err(), "cut {cut}, {threads:?}");
            assert!(out.len() % CHUNK_LEN == 0 && plain.starts_with(&out), "cut {cut}, {threads:?}");
        }
    }
}

#[test]
fn short_and_interrupted_reads_give_the_same_bytes() {
    for len in [0, 1, CHUNK_LEN, 16 * CHUNK_LEN, 16 * CHUNK_LEN + 1, 40 * CHUNK_LEN + 3] {
        let plain = common::random_bytes(len as u64 + 5, len);
        let expected = seal_with(&plain[..], Threads::One).unwrap();
        for threads in THREADS {
            let got = seal_with(Trickle { data: &plain, calls: 0 }, threads).unwrap();
            assert!(got == expected, "len {len}, {threads:?}");
            let mut out = Vec::new();
            let n = sealed_stream::decrypt_any(
                &Secret::Key(&KEY),
                Trickle { data: &expected, calls: 0 },
                &mut out,
                threads,
            )
            .unwrap();
            assert!(n == len as u64 && out == plain, "len {len}, {threads:?}");
        }
    }
}

#[test]
fn failing_input_or_output_ends_the_run_with_its_error() {
    let plain = common::random_bytes(9, 60 * CHUNK_LEN);
    let sealed = seal_with(&plain[..], Threads::One).unwrap();
    for at in [0, 1000, 16 * CHUNK_LEN, 45 * CHUNK_LEN + 3] {
        for threads in THREADS {
            let e = seal_with(FailingReader { data: &plain, left: at }, threads).unwrap_err();
            assert_eq!(e.to_string(), "the disk went away", "at {at}, {threads:?}");
            let r = sealed_stream::decrypt_any(
                &Secret::Key(&KEY),
                FailingReader { data: &sealed, left: HEADER_V2_LEN + at },
                io::sink(),
                threads,
            );
            assert!(matches!(r, Err(DecryptError::Io(_))), "at {at}, {threads:?}: {r:?}");
            let r = sealed_stream::encrypt_v2(
                &Secret::Key(&KEY),
                &NONCE,
                &SALT,
                Argon2Params::DEFAULT,
                &plain[..],
                FailingWriter { left: at, panics: false },
                threads,
            );
            assert!(matches!(r, Err(DecryptError::Io(_))), "at {at}, {threads:?}");
            let r = sealed_stream::decrypt_any(
                &Secret::Key(&KEY),
                &sealed[..],
                FailingWriter { left: at, panics: false },
                threads,
            );
            assert!(matches!(r, Err(DecryptError::Io(_))), "at {at}, {threads:?}");
        }
    }
}

#[test]
fn a_panicking_writer_does_not_hang_the_helpers() {
    let plain = common::random_bytes(10, 60 * CHUNK_LEN);
    for threads in THREADS {
        let r = std::panic::catch_unwind(|| {
            let out = FailingWriter { left: 20 * CHUNK_LEN, panics: true };
            sealed_stream::encrypt_v2(
                &Secret::Key(&KEY),
                &NONCE,
                &SALT,
                Argon2Params::DEFAULT,
                &plain[..],
                out,
                threads,
            )
        });
        assert!(r.is_err(), "{threads:?}: the panic reaches the caller");
    }
}
