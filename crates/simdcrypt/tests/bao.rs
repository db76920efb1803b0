//! Bao verified streaming against the `bao` crate (0.13): encodings byte for byte both
//! ways, slices, every kind of corruption, scrub, chunk groups against an independent
//! encoder built on the official crate's hazmat API, and property tests of the decoders.
//!
//! `BAO_PROPTEST_CASES` raises the property tests' case count (default 64).

mod common;

use std::io::{Cursor, Read};

use blake3::hazmat::{self as hz, HasherExt};
use proptest::prelude::*;
use simdcrypt::blake3::bao::{self, Decoder, Error, Format, NodeKind, Options};
use simdcrypt::blake3::{Platform, Threads};

const CHUNK: usize = 1024;

/// 0, 1, 1023, 1024, 1025, 2^k chunks ±1 (k up to 8), a few past the decoders' batch size,
/// and random sizes.
fn sizes() -> Vec<usize> {
    let mut sizes = vec![0, 1, 63, 64, 65, 1023, 1024, 1025];
    for k in 1..=8 {
        let n = (1usize << k) * CHUNK;
        sizes.extend([n - 1, n, n + 1]);
    }
    sizes.extend([(1 << 20) + 1, (2 << 20) + 3 * CHUNK + 17]);
    let mut rng = common::rng(0xBA0);
    for _ in 0..6 {
        sizes.push(rand::Rng::random_range(&mut rng, 0..300_000));
    }
    sizes
}

fn crate_encode(data: &[u8]) -> (Vec<u8>, [u8; 32]) {
    let (encoded, hash) = bao_crate::encode::encode(data);
    (encoded, *hash.as_bytes())
}

fn crate_outboard(data: &[u8]) -> Vec<u8> {
    bao_crate::encode::outboard(data).0
}

fn crate_hash(root: &[u8; 32]) -> blake3::Hash {
    blake3::Hash::from_bytes(*root)
}

fn crate_slice(encoded: &[u8], start: u64, count: u64) -> Vec<u8> {
    let mut out = Vec::new();
    bao_crate::encode::SliceExtractor::new(Cursor::new(encoded), start, count).read_to_end(&mut out).unwrap();
    out
}

extern crate bao as bao_crate;

#[test]
fn encodings_match_the_bao_crate_on_every_backend() {
    let mut exercised = Vec::new();
    for platform in Platform::all_supported() {
        exercised.push(platform.name());
        let options = Options::new().platform(platform);
        for (i, &len) in sizes().iter().enumerate() {
            let data = common::random_bytes(i as u64, len);
            let (crate_encoded, crate_root) = crate_encode(&data);
            let crate_ob = crate_outboard(&data);
            let (root, encoded) = options.encode(&data);
            assert_eq!(root, crate_root, "{platform:?} len {len}: root");
            assert_eq!(root, *blake3::hash(&data).as_bytes());
            assert!(encoded == crate_encoded, "{platform:?} len {len}: combined encoding differs");
            let (ob_root, ob) = options.encode_outboard(&data);
            assert_eq!(ob_root, root);
            assert!(ob == crate_ob, "{platform:?} len {len}: outboard differs");
            assert_eq!(Some(encoded.len() as u64), bao::encoded_len(len as u64));
            assert_eq!(ob.len() as u64, bao::outboard_len(len as u64));

            // Both ways: the crate decodes ours, we decode the crate's.
            assert!(bao_crate::decode::decode(&encoded, &crate_hash(&root)).unwrap() == data);
            assert!(options.decode(&crate_root, &crate_encoded).unwrap() == data, "{platform:?} len {len}");
            options.decode_outboard(&crate_root, &data, &crate_ob).unwrap();
            let mut streamed = Vec::new();
            Decoder::new(&crate_encoded[..], crate_root).with_options(options).read_to_end(&mut streamed).unwrap();
            assert!(streamed == data, "{platform:?} len {len}: streaming decode");
            let mut streamed = Vec::new();
            Decoder::new_outboard(&data[..], &crate_ob[..], crate_root)
                .with_options(options)
                .read_to_end(&mut streamed)
                .unwrap();
            assert!(streamed == data, "{platform:?} len {len}: streaming outboard decode");
        }
    }
    // Threads give the same bytes.
    let data = common::random_bytes(99, (3 << 20) + 5 * CHUNK + 3);
    let threaded = Options::new().threads(Threads::Max(2));
    assert!(threaded.encode(&data) == bao::encode(&data));
    assert!(threaded.encode_outboard(&data) == bao::encode_outboard(&data));
    let (root, encoded) = bao::encode(&data);
    assert!(threaded.decode(&root, &encoded).unwrap() == data);
    println!("encodings_match_the_bao_crate_on_every_backend: blake3 backends exercised: {}", exercised.join(", "));
}

#[test]
fn slices_match_the_bao_crate() {
    let mut rng = common::rng(7);
    for (i, &len) in sizes().iter().enumerate() {
        let data = common::random_bytes(100 + i as u64, len);
        let (encoded, root) = crate_encode(&data);
        let ob = crate_outboard(&data);
        let len = len as u64;
        let mut ranges = vec![(0, len), (0, 0), (len, 0), (len, 10), (len + 5000, 1), (len / 2, u64::MAX), (1023, 2)];
        for _ in 0..8 {
            let start = rand::Rng::random_range(&mut rng, 0..=len + 10);
            let count = rand::Rng::random_range(&mut rng, 0..=len.max(1) * 2);
            ranges.push((start, count));
        }
        for (start, count) in ranges {
            let expected_slice = crate_slice(&encoded, start, count);
            let slice = bao::slice(&encoded, start, count).unwrap();
            assert!(slice == expected_slice, "len {len} slice {start}+{count}");
            assert_eq!(bao::slice_len(len, start, count), slice.len() as u64);
            assert!(bao::slice_outboard(&data, &ob, start, count).unwrap() == expected_slice);
            let want = &data[(start.min(len) as usize)..(start.saturating_add(count).min(len) as usize)];
            assert!(bao::decode_slice(&root, &expected_slice, start, count).unwrap() == want, "{len} {start} {count}");
            let mut theirs = Vec::new();
            bao_crate::decode::SliceDecoder::new(&slice[..], &crate_hash(&root), start, count)
                .read_to_end(&mut theirs)
                .unwrap();
            assert!(theirs == want);
        }
    }
}

/// The nodes of a combined encoding of `len` bytes in pre-order: (offset in the encoding,
/// size, content range). Written apart from the library, from the spec's description.
fn nodes(len: u64, leaf: u64) -> Vec<(usize, usize, u64, u64)> {
    fn go(start: u64, len: u64, leaf: u64, at: &mut usize, out: &mut Vec<(usize, usize, u64, u64)>) {
        if len <= leaf {
            out.push((*at, len as usize, start, start + len));
            *at += len as usize;
            return;
        }
        out.push((*at, 64, start, start + len));
        *at += 64;
        let left = hz::left_subtree_len(len);
        go(start, left, leaf, at, out);
        go(start + left, len - left, leaf, at, out);
    }
    let mut out = Vec::new();
    go(0, len, leaf, &mut 8, &mut out);
    out
}

#[test]
fn every_corruption_is_detected_at_its_node() {
    for len in [0usize, 1, 1024, 1025, 5 * CHUNK + 7, 16 * CHUNK, 40 * CHUNK + 5, 300 * CHUNK + 1] {
        let data = common::random_bytes(len as u64, len);
        let (root, encoded) = bao::encode(&data);
        let (_, ob) = bao::encode_outboard(&data);
        for (at, size, start, end) in nodes(len as u64, CHUNK as u64) {
            if size == 0 {
                continue;
            }
            for offset in [at, at + size / 2, at + size - 1] {
                let mut bad = encoded.clone();
                bad[offset] ^= 0x10;
                let kind = if size == 64 && end - start > CHUNK as u64 { NodeKind::Parent } else { NodeKind::Leaf };
                let want = format!("{:?}", Error::Mismatch { node: kind, start, end });
                let got = bao::decode(&root, &bad).unwrap_err();
                assert_eq!(format!("{got:?}"), want, "len {len} byte {offset}");
                assert!(bao_crate::decode::decode(&bad, &crate_hash(&root)).is_err());
                // The stream fails at the same node, and released only good bytes before it.
                let mut decoder = Decoder::new(&bad[..], root);
                let mut out = Vec::new();
                let err = decoder.copy_to(&mut out).unwrap_err();
                assert_eq!(format!("{err:?}"), want);
                assert!(out.len() as u64 <= start && out[..] == data[..out.len()]);
                assert!(err.to_string().contains(&format!("content offset {start}")), "{err}");
                // The same damage in the outboard (parents) or the data (chunks).
                if kind == NodeKind::Parent {
                    let parent_index = nodes(len as u64, CHUNK as u64)
                        .iter()
                        .filter(|n| n.1 == 64 && n.3 - n.2 > CHUNK as u64 && n.0 < at)
                        .count();
                    let mut bad_ob = ob.clone();
                    bad_ob[8 + parent_index * 64 + (offset - at)] ^= 0x10;
                    let got = bao::decode_outboard(&root, &data, &bad_ob).unwrap_err();
                    assert_eq!(format!("{got:?}"), want);
                } else {
                    let mut bad_data = data.clone();
                    bad_data[(start + (offset - at) as u64) as usize] ^= 0x10;
                    let got = bao::decode_outboard(&root, &bad_data, &ob).unwrap_err();
                    assert_eq!(format!("{got:?}"), want);
                    let report = bao::scrub(&root, &bad_data, &ob).unwrap();
                    assert_eq!(report.damaged, vec![start..end]);
                    assert!(report.outboard_damaged.is_empty());
                }
            }
        }
        // The length header: any change fails.
        for delta in [1i64, -1, 1024, -1024, 1 << 40, i64::MIN] {
            let mut bad = encoded.clone();
            let header = (len as u64).wrapping_add(delta as u64);
            bad[..8].copy_from_slice(&header.to_le_bytes());
            assert!(bao::decode(&root, &bad).is_err(), "len {len} header {header}");
            let mut out = Vec::new();
            assert!(Decoder::new(&bad[..], root).read_to_end(&mut out).is_err(), "len {len} header {header}");
            assert!(data.starts_with(&out));
        }
        // Truncation and extension, in memory and streaming.
        for cut in [0, 7, 8, encoded.len().saturating_sub(1), encoded.len() / 2] {
            if cut >= encoded.len() {
                continue;
            }
            assert!(matches!(bao::decode(&root, &encoded[..cut]), Err(Error::Truncated { .. })), "len {len} cut {cut}");
            let err = Decoder::new(&encoded[..cut], root).copy_to(&mut Vec::new()).unwrap_err();
            assert!(matches!(err, Error::Truncated { .. }), "{err:?}");
        }
        let mut longer = encoded.clone();
        longer.push(0);
        assert!(matches!(bao::decode(&root, &longer), Err(Error::TrailingBytes { .. })));
        let err = Decoder::new(&longer[..], root).copy_to(&mut Vec::new()).unwrap_err();
        assert!(matches!(err, Error::TrailingBytes { .. }), "{err:?}");
        // A different root fails.
        let mut other = root;
        other[0] ^= 1;
        assert!(bao::decode(&other, &encoded).is_err());
    }
}

#[test]
fn scrub_reports_exactly_the_damaged_ranges() {
    let len = 3 * (1 << 20) + 7 * CHUNK + 100;
    let data = common::random_bytes(5, len);
    let (root, ob) = bao::encode_outboard(&data);
    let clean = bao::scrub(&root, &data, &ob).unwrap();
    assert!(clean.is_clean(), "{clean:?}");

    let mut bad = data.clone();
    // Two adjacent chunks, a lone byte, and the last (partial) chunk.
    for offset in [5000, 6100, 1_000_000, len - 1] {
        bad[offset] ^= 0xFF;
    }
    let last = (len / CHUNK * CHUNK) as u64;
    let want = vec![4096..6144, 999_424..1_000_448, last..len as u64];
    let report = Options::new().threads(Threads::Max(2)).scrub(&root, &bad, &ob).unwrap();
    assert_eq!(report.damaged, want);
    assert!(report.outboard_damaged.is_empty());

    // Damage in the outboard alone is reported there, not in the data.
    let mut bad_ob = ob.clone();
    bad_ob[8 + 64 * 10 + 3] ^= 1;
    let report = bao::scrub(&root, &data, &bad_ob).unwrap();
    assert!(report.damaged.is_empty());
    assert_eq!(report.outboard_damaged, vec![8 + 640..8 + 704]);

    // Damage under a damaged parent cannot be narrowed: the parent's whole subtree.
    let nodes = nodes(len as u64, CHUNK as u64);
    let parents: Vec<_> = nodes.iter().filter(|n| n.1 == 64 && n.3 - n.2 > CHUNK as u64).collect();
    let (index, parent) =
        parents.iter().enumerate().find(|(_, p)| p.2 <= 5000 && 5000 < p.3 && p.3 - p.2 == 8192).unwrap();
    let mut bad_ob = ob.clone();
    bad_ob[8 + index * 64] ^= 1;
    let mut bad = data.clone();
    bad[5000] ^= 1;
    let report = bao::scrub(&root, &bad, &bad_ob).unwrap();
    assert_eq!(report.damaged, vec![parent.2..parent.3]);

    // Missing data at the end.
    let report = bao::scrub(&root, &data[..len - 3000], &ob).unwrap();
    assert_eq!(report.damaged, vec![(len as u64 - 3000) / 1024 * 1024..len as u64]);
}

/// The chunk-group format from the official crate's hazmat API: leaves are subtrees of
/// 2^k chunks, parents above them as in Bao.
fn reference_group_outboard(data: &[u8], log: u8) -> ([u8; 32], Vec<u8>) {
    let leaf = (CHUNK as u64) << log;
    fn cv(data: &[u8], start: u64, leaf: u64, out: &mut Vec<u8>) -> hz::ChainingValue {
        let len = data.len() as u64;
        if len <= leaf {
            let mut hasher = blake3::Hasher::new();
            hasher.set_input_offset(start);
            hasher.update(data);
            return hasher.finalize_non_root();
        }
        let at = out.len();
        out.extend_from_slice(&[0; 64]);
        let left = hz::left_subtree_len(len);
        let l = cv(&data[..left as usize], start, leaf, out);
        let r = cv(&data[left as usize..], start + left, leaf, out);
        out[at..at + 32].copy_from_slice(&l);
        out[at + 32..at + 64].copy_from_slice(&r);
        hz::merge_subtrees_non_root(&l, &r, hz::Mode::Hash)
    }
    let mut out = (data.len() as u64).to_le_bytes().to_vec();
    if data.len() as u64 <= leaf {
        return (*blake3::hash(data).as_bytes(), out);
    }
    let left = hz::left_subtree_len(data.len() as u64);
    out.extend_from_slice(&[0; 64]);
    let l = cv(&data[..left as usize], 0, leaf, &mut out);
    let r = cv(&data[left as usize..], left, leaf, &mut out);
    out[8..40].copy_from_slice(&l);
    out[40..72].copy_from_slice(&r);
    (*hz::merge_subtrees_root(&l, &r, hz::Mode::Hash).as_bytes(), out)
}

#[test]
fn chunk_groups_match_an_independent_encoder() {
    let mut exercised = Vec::new();
    for platform in Platform::all_supported() {
        exercised.push(platform.name());
        for log in [1u8, 4, 8] {
            let options = Options::new().platform(platform).format(Format::chunk_groups(log).unwrap());
            for len in [0usize, 1, 1025, 16 * CHUNK - 1, 16 * CHUNK, 16 * CHUNK + 1, 100 * CHUNK + 3, 700 * CHUNK] {
                let data = common::random_bytes(len as u64 + log as u64, len);
                let (root, ob) = options.encode_outboard(&data);
                let (want_root, want_ob) = reference_group_outboard(&data, log);
                assert_eq!(root, want_root, "log {log} len {len}");
                assert!(ob == want_ob, "log {log} len {len}: outboard");
                let (root2, encoded) = options.encode(&data);
                assert_eq!(root2, root);
                assert!(options.decode(&root, &encoded).unwrap() == data);
                options.decode_outboard(&root, &data, &ob).unwrap();
                let slice = options.slice(&encoded, len as u64 / 3, 5000).unwrap();
                let end = (len / 3 + 5000).min(len);
                assert!(options.decode_slice(&root, &slice, len as u64 / 3, 5000).unwrap() == data[len / 3..end]);
                if len > 0 {
                    let mut bad = data.clone();
                    bad[len / 2] ^= 1;
                    let leaf = (CHUNK << log) as u64;
                    let start = (len / 2) as u64 / leaf * leaf;
                    let report = options.scrub(&root, &bad, &ob).unwrap();
                    assert_eq!(report.damaged, vec![start..(start + leaf).min(len as u64)]);
                }
            }
        }
    }
    // iroh's 16 KiB groups: the outboard is 1/256 of the data.
    let format = Format::chunk_groups(4).unwrap();
    assert_eq!(format.outboard_len(1 << 30), 8 + ((1 << 30) / 16384 - 1) * 64);
    assert!(Format::chunk_groups(bao::MAX_GROUP_LOG + 1).is_err());
    println!("chunk_groups_match_an_independent_encoder: blake3 backends exercised: {}", exercised.join(", "));
}

fn cases() -> u32 {
    std::env::var("BAO_PROPTEST_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(64)
}

/// A decoder's answer: the correct bytes, or an error with only a prefix of them released.
fn check_decode(root: &[u8; 32], encoded: &[u8], data: &[u8]) -> Result<(), TestCaseError> {
    if let Ok(out) = bao::decode(root, encoded) {
        prop_assert!(out == data);
    }
    let mut decoder = Decoder::new(encoded, *root);
    let mut out = Vec::new();
    let result = decoder.copy_to(&mut out);
    prop_assert!(data.starts_with(&out));
    if result.is_ok() {
        prop_assert!(out == data);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    #[test]
    fn mutated_encodings_never_decode_wrong(
        len in 0usize..20_000,
        edits in proptest::collection::vec((any::<usize>(), any::<u8>()), 1..4),
        cut in proptest::option::of(any::<usize>()),
    ) {
        let data = common::random_bytes(len as u64, len);
        let (root, mut encoded) = bao::encode(&data);
        for (at, byte) in &edits {
            let at = at % encoded.len();
            encoded[at] ^= byte | 1;
        }
        if let Some(cut) = cut {
            encoded.truncate(cut % (encoded.len() + 1));
        }
        check_decode(&root, &encoded, &data)?;
        let _ = bao::slice(&encoded, 100, 3000);
        let _ = bao::scrub(&root, &data, &encoded);
    }

    #[test]
    fn random_bytes_never_decode(bytes in proptest::collection::vec(any::<u8>(), 0..3000), small in 0u64..5000) {
        let root = [7u8; 32];
        let mut with_len = bytes.clone();
        if with_len.len() >= 8 {
            with_len[..8].copy_from_slice(&small.to_le_bytes());
        }
        for input in [&bytes, &with_len] {
            prop_assert!(bao::decode(&root, input).is_err());
            prop_assert!(Decoder::new(&input[..], root).copy_to(&mut Vec::new()).is_err());
            prop_assert!(bao::decode_slice(&root, input, 10, 100).is_err());
            let _ = bao::slice(input, 10, 100);
            let _ = bao::scrub(&root, &[], input);
        }
    }

    #[test]
    fn mutated_slices_never_decode_wrong(
        len in 1usize..40_000,
        start in 0u64..45_000,
        count in 0u64..10_000,
        edit in proptest::option::of((any::<usize>(), 1u8..)),
    ) {
        let data = common::random_bytes(len as u64 + 1, len);
        let (root, encoded) = bao::encode(&data);
        let mut slice = bao::slice(&encoded, start, count).unwrap();
        let want = &data[(start.min(len as u64) as usize)..(start.saturating_add(count).min(len as u64) as usize)];
        match edit {
            None => prop_assert!(bao::decode_slice(&root, &slice, start, count).unwrap() == want),
            Some((at, byte)) => {
                let at = at % slice.len();
                slice[at] ^= byte;
                if let Ok(out) = bao::decode_slice(&root, &slice, start, count) {
                    prop_assert!(out == want);
                }
            }
        }
    }
}

/// The streaming functions with small windows (so that a few KiB make many windows and a
/// tree above them), against the in-memory ones: the same bytes, the same reports.
fn stream_options() -> Vec<Options> {
    let mut all = Vec::new();
    for window in [2048u64, 8192, 65536] {
        for threads in [Threads::One, Threads::Max(2)] {
            all.push(Options::new().stream_window(window).threads(threads));
        }
    }
    all.push(Options::new().format(Format::chunk_groups(2).unwrap()).stream_window(2048));
    all.push(Options::new().format(Format::chunk_groups(1).unwrap()).stream_window(16384));
    all
}

fn stream_encode(options: &Options, data: &[u8], known: bool, combined: bool) -> ([u8; 32], Vec<u8>) {
    let len = known.then_some(data.len() as u64);
    let mut out = Cursor::new(Vec::new());
    let (root, n) = options.encode_stream(Cursor::new(data.to_vec()), len, &mut out, combined).unwrap();
    assert_eq!(n, data.len() as u64);
    (root, out.into_inner())
}

#[test]
fn streamed_encodings_are_the_in_memory_ones() {
    let mut lens: Vec<usize> = vec![0, 1, 1024, 2047, 2048, 2049, 4096, 8191, 8192, 8193, 65536, 65537];
    lens.extend([3 * 8192 + 5, 7 * 2048, 9 * 2048 + 1000, 200_000, 300_001]);
    for options in stream_options() {
        for &len in &lens {
            let data = common::random_bytes(len as u64, len);
            let (root, encoded) = options.encode(&data);
            let (_, outboard) = options.encode_outboard(&data);
            for known in [true, false] {
                let got = stream_encode(&options, &data, known, true);
                assert!(got == (root, encoded.clone()), "combined, len {len}, known {known}, {options:?}");
                let got = stream_encode(&options, &data, known, false);
                assert!(got == (root, outboard.clone()), "outboard, len {len}, known {known}, {options:?}");
            }
        }
    }
    // The bao crate's bytes, with the default window too.
    let data = common::random_bytes(77, 5 * 8192 + 333);
    let (crate_encoded, hash) = crate_encode(&data);
    assert!(stream_encode(&Options::new().stream_window(8192), &data, false, true) == (hash, crate_encoded));
    assert!(stream_encode(&Options::new(), &data, true, false).1 == crate_outboard(&data));
}

#[test]
fn a_streamed_input_of_another_length_than_announced_fails() {
    let options = Options::new().stream_window(2048);
    let data = common::random_bytes(3, 10_000);
    for announced in [9_999u64, 10_001, 20_000, 0] {
        let mut out = Cursor::new(Vec::new());
        let err = options.encode_stream(Cursor::new(data.clone()), Some(announced), &mut out, true).unwrap_err();
        assert!(matches!(err, Error::LengthChanged { expected, .. } if expected == announced), "{err}");
        assert!(err.to_string().contains("changed while it was read"), "{err}");
    }
}

#[test]
fn streamed_slices_are_the_in_memory_ones() {
    for options in [Options::new(), Options::new().format(Format::chunk_groups(2).unwrap())] {
        for len in [0usize, 1, 1025, 8192, 70_000, 300_001] {
            let data = common::random_bytes(len as u64 + 9, len);
            let (_, encoded) = options.encode(&data);
            let (_, ob) = options.encode_outboard(&data);
            for (start, count) in [(0u64, 0u64), (0, 1), (len as u64 / 3, 5000), (len as u64, 10), (len as u64 + 5, 1)]
            {
                let want = options.slice(&encoded, start, count).unwrap();
                let mut got = Vec::new();
                let n = options.slice_stream(Cursor::new(&encoded), start, count, &mut got).unwrap();
                assert!(got == want && n == want.len() as u64, "len {len} {start}+{count}");
                let mut got = Vec::new();
                options.slice_outboard_stream(Cursor::new(&data), Cursor::new(&ob), start, count, &mut got).unwrap();
                assert!(got == want, "outboard, len {len} {start}+{count}");
            }
            // Truncated, extended: named as the in-memory slicer names them.
            for bad in [&encoded[..encoded.len().saturating_sub(1)], &[encoded.clone(), vec![0]].concat()[..]] {
                let want = options.slice(bad, 0, 10).unwrap_err().to_string();
                let got = options.slice_stream(Cursor::new(bad), 0, 10, &mut Vec::new()).unwrap_err().to_string();
                assert_eq!(got, want);
            }
        }
    }
}

#[test]
fn streamed_scrubs_report_what_the_in_memory_scrub_reports() {
    let len = 200_000usize;
    let data = common::random_bytes(11, len);
    for options in stream_options() {
        let (root, ob) = options.encode_outboard(&data);
        let leaf = options.get_format().leaf_len() as usize;
        let mut cases: Vec<(Vec<u8>, Vec<u8>)> = vec![(data.clone(), ob.clone())];
        let mut bad = data.clone();
        for offset in [0, 5000, 6100, 70_000, 131_072, len - 1] {
            bad[offset] ^= 0x40;
        }
        cases.push((bad.clone(), ob.clone()));
        // Every parent damaged in turn, with and without data damage under it.
        for p in (0..(ob.len() - 8) / 64).step_by(7) {
            let mut bad_ob = ob.clone();
            bad_ob[8 + p * 64 + 5] ^= 1;
            cases.push((data.clone(), bad_ob.clone()));
            cases.push((bad.clone(), bad_ob));
        }
        cases.push((data[..len - 3000].to_vec(), ob.clone()));
        cases.push((data[..len - 70_000].to_vec(), ob.clone()));
        cases.push(([data.clone(), vec![1; 100]].concat(), ob.clone()));
        cases.push((data.clone(), ob[..ob.len() - 100].to_vec()));
        cases.push((data.clone(), ob[..ob.len() / 2].to_vec()));
        cases.push((data.clone(), [ob.clone(), vec![0; 10]].concat()));
        cases.push((data[..leaf + 1].to_vec(), ob.clone()));
        for (d, o) in cases {
            let want = options.scrub(&root, &d, &o);
            let got = options.scrub_stream(&root, Cursor::new(d.clone()), Cursor::new(&o));
            match (want, got) {
                (Ok(want), Ok(got)) => assert_eq!(got, want, "{options:?} data {} ob {}", d.len(), o.len()),
                (Err(want), Err(got)) => assert_eq!(got.to_string(), want.to_string()),
                (want, got) => panic!("{want:?} vs {got:?}"),
            }
        }
    }
    let err = Options::new().scrub_stream(&[0; 32], Cursor::new(vec![]), Cursor::new(vec![1u8; 5])).unwrap_err();
    assert!(matches!(err, Error::Truncated { what: "outboard", offset: 5 }), "{err}");
}

#[test]
fn encoding_a_file_maps_or_reads_it_to_the_same_bytes() {
    let dir = std::env::temp_dir().join(format!("simdcrypt-bao-file-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for len in [0usize, 1, 8192, 8193, 3 * 8192 + 77, 300_001] {
        let data = common::random_bytes(len as u64 + 3, len);
        let path = dir.join("in");
        std::fs::write(&path, &data).unwrap();
        for threads in [Threads::One, Threads::Max(2)] {
            let options = Options::new().stream_window(8192).threads(threads);
            for combined in [true, false] {
                let want = if combined { options.encode(&data) } else { options.encode_outboard(&data) };
                let mut out = Cursor::new(Vec::new());
                let file = std::fs::File::open(&path).unwrap();
                let (root, n) = options.encode_file(file, &mut out, combined).unwrap();
                assert!((root, out.into_inner()) == want && n == len as u64, "len {len} {threads:?} {combined}");
            }
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn encoding_a_file_front_to_back_gives_the_same_bytes() {
    let dir = std::env::temp_dir().join(format!("simdcrypt-bao-seq-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for len in [0usize, 1, 8192, 8193, 16384, 3 * 8192 + 77, 300_001] {
        let data = common::random_bytes(len as u64 + 5, len);
        let path = dir.join("in");
        std::fs::write(&path, &data).unwrap();
        for options in stream_options() {
            for combined in [true, false] {
                let want = if combined { options.encode(&data) } else { options.encode_outboard(&data) };
                let mut out = Vec::new();
                let file = std::fs::File::open(&path).unwrap();
                let (root, n) = options.encode_file_to_writer(&file, &mut out, combined).unwrap();
                assert!((root, out) == want && n == len as u64, "len {len} {options:?} {combined}");
            }
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
