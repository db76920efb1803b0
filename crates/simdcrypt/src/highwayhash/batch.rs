//! Many messages, one key: the batch kernels advance several messages in lockstep
//! ([`Platform::batch_lanes`]), so the chains of dependent rounds of different messages
//! overlap. Messages of equal length run in lockstep from the key to the result; ragged
//! groups run in lockstep over the packets they all have, then one at a time.
//!
//! ## What this file holds
//!
//! `hash_many` / `hash_many_with` (backend, threads: contiguous ranges of messages,
//! `threads::with_pool`/`join`); lane groups, leftovers one at a time

use super::{words_to_bytes, Platform, Size, State, KEY_LEN};
use crate::threads::{join, with_pool, Threads};
use crate::Error;

/// The `size` result of each message, written in order to `out` (`size.len()` bytes each,
/// each word little-endian), with the detected backend on the caller's thread.
///
/// `out.len()` must be `messages.len() * size.len()`.
pub fn hash_many(key: &[u8; KEY_LEN], messages: &[&[u8]], size: Size, out: &mut [u8]) -> Result<(), Error> {
    hash_many_with(Platform::detect(), Threads::One, key, messages, size, out)
}

/// [`hash_many`] with a chosen backend and thread policy. Threads take contiguous ranges of
/// messages; the thresholds are BLAKE3's (total input bytes, see [`Threads`]).
///
/// Returns [`Error::InvalidLength`] unless `out` holds exactly one result per message.
pub fn hash_many_with(
    platform: Platform,
    threads: Threads,
    key: &[u8; KEY_LEN],
    messages: &[&[u8]],
    size: Size,
    out: &mut [u8],
) -> Result<(), Error> {
    let expected = messages.len() * size.len();
    if out.len() != expected {
        return Err(Error::InvalidLength { what: "output buffer (one result per message)", expected, got: out.len() });
    }
    // The total length decides the thread count; one thread needs no pass over the lengths.
    let pool_size = match threads {
        Threads::One => 1,
        _ => threads.pool_size(messages.iter().map(|m| m.len()).sum()),
    };
    with_pool(pool_size, || split(platform, key, messages, size, out, pool_size));
    Ok(())
}

fn split(platform: Platform, key: &[u8; KEY_LEN], msgs: &[&[u8]], size: Size, out: &mut [u8], threads: usize) {
    let lanes = platform.batch_lanes();
    if threads <= 1 || msgs.len() < 2 * lanes {
        return hash_range(platform, key, msgs, size, out);
    }
    let left_threads = threads / 2;
    let mid = (msgs.len() * left_threads / threads / lanes * lanes).max(lanes);
    let (left_in, right_in) = msgs.split_at(mid);
    let (left_out, right_out) = out.split_at_mut(mid * size.len());
    join(
        true,
        || split(platform, key, left_in, size, left_out, left_threads),
        || split(platform, key, right_in, size, right_out, threads - left_threads),
    );
}

fn hash_range(platform: Platform, key: &[u8; KEY_LEN], msgs: &[&[u8]], size: Size, out: &mut [u8]) {
    let lanes = platform.batch_lanes();
    let words = size.len() / 8;
    let mut results = [0u64; 4];
    // Room for a lane group's finished states, built on first use: 2 KiB that a batch of
    // equal-length messages with 64-bit results never needs (and short batches would
    // feel: docs/tuning-history.md, "Short inputs and batches, second pass").
    let mut states: Option<[State; MAX_LANES]> = None;
    assert!(lanes <= MAX_LANES);
    let grouped = if lanes > 1 { msgs.len() / lanes * lanes } else { 0 };
    let (in_groups, in_rest) = msgs.split_at(grouped);
    let (out_groups, out_rest) = out.split_at_mut(grouped * size.len());
    // Equal-length groups with 64-bit results run many per kernel call; a ragged group (or
    // a group of a wider result) runs alone, and the kernel call resumes after it.
    let mut at = 0;
    while at < grouped {
        if size == Size::Bits64 {
            at += platform.hash_equal64_groups(key, &in_groups[at..], &mut out_groups[at * 8..]);
            if at == grouped {
                break;
            }
        }
        let outs = &mut out_groups[at * size.len()..(at + lanes) * size.len()];
        let states = states.get_or_insert_with(|| [State::new(&[0; 4]); MAX_LANES]);
        platform.hash_group(key, &in_groups[at..at + lanes], size, &mut states[..lanes], outs);
        at += lanes;
    }
    // Leftovers (and everything, on one-lane platforms): one message per kernel call.
    for (msg, o) in in_rest.iter().zip(out_rest.chunks_exact_mut(size.len())) {
        platform.hash(key, msg, size.rounds()).output(size, &mut results[..words]);
        words_to_bytes(&results[..words], o);
    }
}

/// The widest lane group of any batch kernel.
const MAX_LANES: usize = 16;
