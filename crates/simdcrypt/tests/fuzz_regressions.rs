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
