//! The dispatch point's own test: every backend against portable.

use super::*;

/// Every backend against portable, straight at the dispatch point, for every length of
/// 0 ..= 40 blocks (+ partial bytes) and counters around the 32-bit word boundary.
#[test]
fn kernels_match_portable() {
    crate::backend::for_each_supported("kernels_match_portable", |platform: Platform| {
        for &counter in &[0u64, 5, (1 << 32) - 3, (1 << 32) - 1, 1 << 32, u64::MAX - 40] {
            for len in (0..=40 * 64 + 1).step_by(21).chain([64, 256, 512, 1024, 2048]) {
                for dr in [4, 6, 10] {
                    let mut state: [u32; 16] = core::array::from_fn(|i| (i as u32).wrapping_mul(0x9E37_79B9) ^ 0x5555);
                    state[8] = counter as u32;
                    state[9] = (counter >> 32) as u32;
                    let input: Vec<u8> = (0..len).map(|i| (i * 7 + 3) as u8).collect();
                    let mut expected = input.clone();
                    portable::xor_keystream(&state, dr, (&mut expected[..]).into());
                    // The platform takes the counter apart and ignores words 8 and 9.
                    state[8] = !state[8];
                    state[9] ^= 0x8000_0001;
                    let mut got = input.clone();
                    platform.xor_keystream(&state, counter, dr, (&mut got[..]).into());
                    assert_eq!(got, expected, "{platform:?} counter {counter} len {len} dr {dr}");
                    let mut got = vec![0u8; len];
                    platform.xor_keystream(&state, counter, dr, InOutBuf::new(&input, &mut got).unwrap());
                    assert_eq!(got, expected, "{platform:?} (b2b) counter {counter} len {len} dr {dr}");
                }
            }
        }
    });
}

/// `Drop` leaves zeroes where the key words and the buffered keystream were, after a
/// call that ended mid-block (so the keystream buffer held secret bytes).
#[test]
fn drop_wipes_key_and_keystream() {
    let mut cipher = std::mem::ManuallyDrop::new(Salsa20::new(&[0xA5; KEY_LEN], &[0x3C; NONCE_LEN]));
    cipher.xor_keystream(&mut [0u8; 100]).unwrap();
    assert!(cipher.state.0.iter().any(|&w| w != 0) && cipher.partial.0.iter().any(|&b| b != 0));
    // SAFETY: dropped once, and the value is not used as a cipher afterwards: only its
    // plain-integer fields are read back through raw pointers (no drop glue of their own;
    // the memory stays the `ManuallyDrop`'s).
    let (state, partial) = unsafe {
        std::mem::ManuallyDrop::drop(&mut cipher);
        (std::ptr::addr_of!(cipher.state.0).read(), std::ptr::addr_of!(cipher.partial.0).read())
    };
    assert_eq!(state, [0; 16]);
    assert_eq!(partial, [0; BLOCK_LEN]);
}
