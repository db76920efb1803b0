//! Helpers the fuzz targets share: turning the fuzzer's bytes into inputs, lengths, thread
//! settings and split points, and the list of backends this CPU has.
//!
//! Every target reads its input as a fixed-size head of [`HEAD_LEN`] bytes, from which its
//! parameters are drawn ([`split`]; missing bytes read as zeros, so a parameter's zero is
//! its plainest value), and the payload after it (the message, the file, the encoding),
//! so that a seed is simply `HEAD_LEN` zero bytes followed by a real input (fuzz/seeds.md).
//!
//! Inputs are kept small by default (libFuzzer's `-max_len`); [`stretched`] repeats the
//! fuzzer's bytes to a fuzzer-chosen length so that the paths that only start at larger
//! sizes (threads from 256 KiB, BLAKE3's tree and Bao groups, 64 KiB sealed chunks) are
//! reached too.

pub use libfuzzer_sys::arbitrary::{Error, Result, Unstructured};
use simdcrypt::backend::Backend;
use simdcrypt::threads::Threads;

/// The largest input [`stretched`] makes: past the 256 KiB where a second thread starts
/// and several 64 KiB sealed chunks; larger ones would slow the slow algorithms (Streebog,
/// GOST on every backend under AddressSanitizer) to a few runs a second.
pub const MAX_STRETCH: usize = 320 << 10;

/// The length of the parameter head of every target's input.
pub const HEAD_LEN: usize = 128;

/// Splits a fuzz input into its parameter head (as an [`Unstructured`]) and its payload.
pub fn split(bytes: &[u8]) -> (Unstructured<'_>, &[u8]) {
    let (head, payload) = bytes.split_at(bytes.len().min(HEAD_LEN));
    (Unstructured::new(head), payload)
}

/// A message: the payload, or (when the head says so, one value in 32) the payload
/// repeated to a head-chosen length up to [`MAX_STRETCH`].
pub fn stretched(u: &mut Unstructured<'_>, seed: &[u8]) -> Result<Vec<u8>> {
    let stretch = u.int_in_range(0u8..=31)? == 31;
    let len = if stretch { u.int_in_range(0..=MAX_STRETCH)? } else { 0 };
    if !stretch {
        return Ok(seed.to_vec());
    }
    // A repeating pattern that still differs between blocks: each copy of the seed is
    // xored with its index, so no two 1 KiB chunks are equal by accident.
    let seed: &[u8] = if seed.is_empty() { &[0x5a] } else { seed };
    Ok((0..len).map(|i| seed[i % seed.len()] ^ (i / seed.len()) as u8).collect())
}

/// `n` bytes from the head (zeros once it runs out).
pub fn bytes(u: &mut Unstructured<'_>, n: usize) -> Result<Vec<u8>> {
    let mut v = vec![0u8; n];
    u.fill_buffer(&mut v)?;
    Ok(v)
}

/// A thread setting: mostly one thread, else a small maximum or every CPU.
pub fn threads(u: &mut Unstructured<'_>) -> Result<Threads> {
    Ok(match u.int_in_range(0u8..=7)? {
        0..=3 => Threads::One,
        4 => Threads::Max(2),
        5 => Threads::Max(3),
        6 => Threads::Max(8),
        _ => Threads::Auto,
    })
}

/// Up to 8 sorted cut points in `0..=len`: the pieces a streamed input is fed in.
pub fn cuts(u: &mut Unstructured<'_>, len: usize) -> Result<Vec<usize>> {
    let n = u.int_in_range(0u8..=8)?;
    let mut at = Vec::with_capacity(n as usize + 2);
    for _ in 0..n {
        at.push(u.int_in_range(0..=len)?);
    }
    at.push(0);
    at.push(len);
    at.sort_unstable();
    Ok(at)
}

/// `data` cut at `cuts` (from [`cuts`]).
pub fn pieces<'a>(data: &'a [u8], cuts: &[usize]) -> impl Iterator<Item = &'a [u8]> + 'a {
    let cuts = cuts.to_vec();
    (0..cuts.len() - 1).map(move |i| &data[cuts[i]..cuts[i + 1]])
}

/// Ragged messages for a batch: `data` cut at fuzzer-chosen points into up to `max` pieces
/// (empty ones allowed).
pub fn messages<'a>(u: &mut Unstructured<'_>, data: &'a [u8], max: usize) -> Result<Vec<&'a [u8]>> {
    let n = u.int_in_range(0..=max)?;
    let mut rest = data;
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        let take = if i + 1 == n { rest.len() } else { u.int_in_range(0..=rest.len())? };
        let (m, r) = rest.split_at(take);
        out.push(m);
        rest = r;
    }
    Ok(out)
}

/// Every backend of family `B` this CPU (and `SIMDCRYPT_DISABLE`) allows, portable first.
pub fn backends<B: Backend>() -> Vec<B> {
    let mut all = B::all_supported();
    all.sort_by_key(|b| b.name() != "portable");
    all
}

/// A fixed-size array from the fuzzer (zeros once its bytes run out).
pub fn array<const N: usize>(u: &mut Unstructured<'_>) -> Result<[u8; N]> {
    let mut a = [0u8; N];
    u.fill_buffer(&mut a)?;
    Ok(a)
}
