//! Regression tests for what the fuzz targets (fuzz/, docs/testing.md "Fuzzing") found:
//! each test is the smallest input of one finding, rebuilt here with the public API, and
//! fails on the code before its fix.

use simdcrypt::highwayhash::{self, HighwayHasher, Size, CHECKPOINT_LEN};

/// A version-1 HighwayHash checkpoint (the 200-byte format of earlier builds): "SCCP",
/// version 1, the algorithm name (16 bytes, NUL-padded), the buffered byte count at 22,
/// the input length at 24, the state words at 32, the buffered bytes at 160, and at 192
/// the checksum: HighwayHash-64 of bytes 0..192 under the key.
fn v1_checkpoint(key: &[u8; 32], size: Size, buffered: &[u8], total: u64) -> Vec<u8> {
    let mut b = vec![0u8; CHECKPOINT_LEN];
    b[..4].copy_from_slice(b"SCCP");
    b[4..6].copy_from_slice(&1u16.to_le_bytes());
    b[6..6 + size.name().len()].copy_from_slice(size.name().as_bytes());
    b[22] = buffered.len() as u8;
    b[24..32].copy_from_slice(&total.to_le_bytes());
    for (i, w) in b[32..160].chunks_exact_mut(8).enumerate() {
        w.copy_from_slice(&(0x0123_4567_89ab_cdef_u64.wrapping_mul(i as u64 + 1)).to_le_bytes());
    }
    b[160..160 + buffered.len()].copy_from_slice(buffered);
    let sum = highwayhash::hash64(key, &b[..192]);
    b[192..].copy_from_slice(&sum.to_le_bytes());
    b
}

/// fuzz target highway_checkpoint: a version-1 checkpoint whose buffered byte count is not
/// its input length modulo 32 was restored, and the hasher's own export of it was then
/// refused by `restore` ("2 buffered bytes after ... bytes of input"). Such a checkpoint
/// is damaged, as the version-2 reader already said of the same fields.
#[test]
fn v1_checkpoint_with_inconsistent_buffer_is_refused() {
    let key = [7u8; 32];
    for size in Size::ALL {
        let good = v1_checkpoint(&key, size, b"ab", 66);
        let h = HighwayHasher::restore(&good, &key, size).unwrap();
        assert_eq!(h.count(), 66);
        let again = HighwayHasher::restore(&h.export(size), &key, size).expect("its own export restores");
        assert_eq!(again.count(), 66);

        for (buffered, total) in [(&b"ab"[..], 0u64), (b"ab", 65), (b"", 3), (b"abc", 7_023_196_937_266_921_742)] {
            let bad = v1_checkpoint(&key, size, buffered, total);
            let err = HighwayHasher::restore(&bad, &key, size).unwrap_err().to_string();
            assert!(err.contains("buffered bytes"), "{} buffered after {total}: {err}", buffered.len());
        }
    }
}

extern crate bao as bao_crate;

/// fuzz target bao_decode (not a bug; docs/bao.md was wrong): a slice whose range ends
/// before the last chunk does not prove the content length, so a length header changed
/// to another length with the same tree shape (97020 to 97021 bytes: 95 chunks either
/// way) decodes, to the same authentic bytes, as in the `bao` crate (the spec's final
/// chunk requirement: the length is validated when, and only when, the final chunk is).
/// A slice that reaches the last chunk refuses the changed header.
#[test]
fn slice_before_the_last_chunk_does_not_prove_the_length() {
    use simdcrypt::blake3::bao;
    use std::io::Read;
    let data: Vec<u8> = (0..97_020u32).map(|i| (i % 251) as u8).collect();
    let (root, encoded) = bao::encode(&data);
    let with_len = |slice: &[u8], len: u64| [&len.to_le_bytes()[..], &slice[8..]].concat();

    let (start, count) = (28_729u64, 46_737u64);
    let slice = with_len(&bao::slice(&encoded, start, count).unwrap(), 97_021);
    let want = &data[start as usize..(start + count) as usize];
    assert_eq!(bao::decode_slice(&root, &slice, start, count).unwrap(), want);
    let mut theirs = Vec::new();
    bao_crate::decode::SliceDecoder::new(&slice[..], &blake3::Hash::from_bytes(root), start, count)
        .read_to_end(&mut theirs)
        .unwrap();
    assert_eq!(theirs, want);

    let (start, count) = (90_000u64, 10_000u64);
    let slice = with_len(&bao::slice(&encoded, start, count).unwrap(), 97_021);
    assert!(bao::decode_slice(&root, &slice, start, count).is_err());
    assert!(bao::decode(&root, &with_len(&encoded, 97_021)).is_err());
}

/// The fields of a state (docs/state-format.md: "SCCP", version u16, name length u8,
/// flags u8, name, params length u16, params, fields length u32, fields, checksum).
fn state_fields(blob: &[u8]) -> Vec<u8> {
    let name_len = usize::from(blob[6]);
    let at = 8 + name_len;
    let params_len = usize::from(u16::from_le_bytes([blob[at], blob[at + 1]]));
    let at = at + 2 + params_len;
    let fields_len = u32::from_le_bytes(blob[at..at + 4].try_into().unwrap()) as usize;
    blob[at + 4..at + 4 + fields_len].to_vec()
}

/// fuzz target state_restore: a state of an algorithm without a key (SHA-256, Streebog,
/// GOST R 34.11-94) sealed with the keyed flag and a key was restored when given that key
/// (the key ignored); the restored hasher then exported an unkeyed state, which the same
/// call refused ("not keyed: restore it without a key"). These algorithms take no key:
/// a key is refused, whatever the state says. The same was found again in the Xet hash's
/// state when it joined the registry, so the test now takes every algorithm of the
/// registry without a key, not a list.
#[test]
fn unkeyed_algorithms_refuse_a_keyed_state() {
    use simdcrypt::any::{AnyHasher, HashOptions};
    use simdcrypt::registry::{KeyUse, REGISTRY};
    use simdcrypt::state;
    let key = b"some key";
    let unkeyed: Vec<&str> = REGISTRY.iter().filter(|a| a.key == KeyUse::None).map(|a| a.name).collect();
    assert!(unkeyed.contains(&"sha256") && unkeyed.contains(&"xet"), "{unkeyed:?}");
    for name in unkeyed {
        let mut h = AnyHasher::new(name, &HashOptions::default()).unwrap();
        h.update(b"0123456789");
        let plain = h.export();
        assert!(state::restore_any(&plain, None).is_ok(), "{name}");
        let keyed = state::seal(name, &[], &state_fields(&plain), Some(key));
        let err = state::restore_any(&keyed, Some(key)).err().unwrap_or_else(|| panic!("{name} restored with a key"));
        assert!(err.to_string().contains("no key"), "{name}: {err}");
        assert!(AnyHasher::restore(&keyed, Some(key)).is_err(), "{name}");
        assert!(state::restore_any(&plain, Some(key)).is_err(), "{name}");
    }
}

/// fuzz target state_restore (campaign): a Xet state whose offset (the file offset of its
/// pending bytes) was near 2^64 was restored, and finishing the hash overflowed the chunk
/// arithmetic (`s + XET_MIN` in the cutter: a panic with overflow checks, a wrong chunk
/// without). An offset and pending bytes ending past 2^63 - 1, the largest file offset,
/// are refused; a state just below the limit restores and hashes on. Its tree must cover
/// the bytes before the offset exactly (a second campaign run: a level whose entry count
/// was 2^64 - 1 overflowed at the next chunk, xet.rs), and no level may count more entries
/// than there are bytes.
#[test]
fn xet_state_with_an_offset_near_2_pow_64_is_refused() {
    use simdcrypt::any::AnyHasher;
    use simdcrypt::state::{self, Writer};
    // A state of `start` bytes chunked (three chunks, merged into one node of `start`
    // bytes at level 1, of which level 0 keeps the count `count0`) and `pending` bytes.
    let state = |start: u64, pending: &[u8], count0: u64, node_len: u64| {
        let mut f = Writer::default();
        f.u64s(&[start, pending.len() as u64]).bytes(pending);
        if start == 0 {
            f.u8(0);
        } else {
            f.u8(2).u64s(&[count0]).u8(0).u64s(&[1]).u8(1).bytes(&[7; 32]).u64s(&[node_len]);
        }
        state::seal("xet", &[], &f.bytes, None)
    };
    let fields = |start: u64, pending: &[u8]| state(start, pending, 3, start);
    let limit = i64::MAX as u64;
    for (start, pending) in [(u64::MAX, &b""[..]), (u64::MAX - 3, b"abc"), (limit - 2, b"abc"), (limit + 1, b"")] {
        let err = state::restore_any(&fields(start, pending), None).err();
        let err = err.unwrap_or_else(|| panic!("offset {start} with {} pending bytes restored", pending.len()));
        assert!(err.to_string().contains("largest file offset"), "{start}: {err}");
        assert!(AnyHasher::restore(&fields(start, pending), None).is_err(), "{start}");
    }
    // At the limit a state restores and hashes on (its offsets then pass the limit, so
    // that hasher's own export is refused: no file is that long); below it, the export of
    // a hasher that took more input restores to the same hash.
    for (start, pending) in [(limit - 3, &b"abc"[..]), (limit, b""), (1 << 40, b"abc")] {
        let restored = AnyHasher::restore(&fields(start, pending), None).expect("restores");
        let mut whole = restored.clone();
        whole.update(b"more input");
        let mut pieces = restored.clone();
        pieces.update(b"more ").update(b"input");
        let digest = whole.finalize(None).unwrap();
        assert_eq!(pieces.finalize(None).unwrap(), digest, "offset {start}");
        if start < limit - 3 {
            let again = AnyHasher::restore(&whole.export(), None).expect("its export restores");
            assert_eq!(again.finalize(None).unwrap(), digest, "offset {start}");
        }
    }
    // A tree that covers other bytes than those before the offset, and a level count past
    // the bytes (the second finding: u64::MAX), are refused.
    for (blob, what) in [
        (state(1000, b"", 3, 999), "the tree covers 999 bytes, but the pending bytes start at 1000"),
        (state(1000, b"", u64::MAX, 1000), "level 0 counts 18446744073709551615 entries"),
        (state(1000, b"", 1001, 1000), "level 0 counts 1001 entries"),
    ] {
        let err = state::restore_any(&blob, None).err().unwrap_or_else(|| panic!("{what}: restored"));
        assert!(err.to_string().contains(what), "{err}");
    }
    let mut h = AnyHasher::restore(&state(1000, b"", 3, 1000), None).expect("a consistent tree restores");
    h.update(&[1; 300_000]);
    h.finalize(None).unwrap();
}
