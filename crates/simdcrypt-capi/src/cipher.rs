//! Salsa20, XSalsa20 and NaCl's secretbox (XSalsa20-Poly1305).

use std::ffi::c_int;

use simdcrypt::salsa20::{self, secretbox, Rounds, Salsa20, XSalsa20};
use simdcrypt::Error;

use crate::args::{array, input, output};
use crate::status::{guard, Failure, Result, SimdcryptStatus};

/// What the stream-cipher entry points need of a cipher: both are driven by [`xor_stream`].
trait StreamXor {
    fn set_counter(&mut self, counter: u64);
    fn xor_into(&mut self, input: &[u8], output: &mut [u8]) -> std::result::Result<(), Error>;
    fn xor_in_place(&mut self, buf: &mut [u8]) -> std::result::Result<(), Error>;
}

macro_rules! stream_xor {
    ($($cipher:ty),*) => {$(
        impl StreamXor for $cipher {
            fn set_counter(&mut self, counter: u64) {
                <$cipher>::set_counter(self, counter)
            }
            fn xor_into(&mut self, input: &[u8], output: &mut [u8]) -> std::result::Result<(), Error> {
                self.xor_keystream_into(input, output)
            }
            fn xor_in_place(&mut self, buf: &mut [u8]) -> std::result::Result<(), Error> {
                self.xor_keystream(buf)
            }
        }
    )*};
}

stream_xor!(Salsa20, XSalsa20);

/// The shared body of the two stream ciphers: `output = input XOR keystream` from block
/// `counter`, `input` and `output` equal, disjoint, or overlapping (then moved first).
///
/// # Safety
///
/// `input` readable and `output` writable for `len` bytes (NULL allowed when 0).
unsafe fn xor_stream(
    mut cipher: impl StreamXor,
    counter: u64,
    input: *const u8,
    output: *mut u8,
    len: usize,
) -> Result<()> {
    if len == 0 {
        return Ok(());
    }
    if input.is_null() {
        return Err(Failure::null("input"));
    }
    if output.is_null() {
        return Err(Failure::null("output"));
    }
    cipher.set_counter(counter);
    let (i, o) = (input as usize, output as usize);
    let disjoint = i.checked_add(len).is_some_and(|end| end <= o) || o.checked_add(len).is_some_and(|end| end <= i);
    if disjoint {
        // SAFETY: the buffers do not overlap (checked), so a shared and an exclusive slice
        // may coexist; validity for `len` bytes is the caller's contract.
        let (src, dst) = unsafe { (self::input(input, len, "input")?, self::output(output, len, "output")?) };
        cipher.xor_into(src, dst)?;
    } else {
        if i != o {
            // SAFETY: both valid for `len` bytes (the contract); `copy` allows overlap.
            unsafe { std::ptr::copy(input, output, len) };
        }
        // SAFETY: `output` is writable for `len` bytes; `input` is not used again.
        let buf = unsafe { self::output(output, len, "output")? };
        cipher.xor_in_place(buf)?;
    }
    Ok(())
}

/// The 32-byte key and 24-byte nonce of XSalsa20 and secretbox.
///
/// # Safety
///
/// `key` readable for 32 bytes, `nonce` for 24.
unsafe fn key_and_xnonce(
    key: *const u8,
    nonce: *const u8,
) -> Result<([u8; salsa20::KEY_LEN], [u8; salsa20::XNONCE_LEN])> {
    // SAFETY: forwarded contract.
    unsafe { Ok((array(key, "key")?, array(nonce, "nonce")?)) }
}

/// Salsa20 (`rounds` 20, 12 or 8) with a 32- or 16-byte key and an 8-byte nonce, from block
/// `counter` of the keystream: `output = input XOR keystream` over `len` bytes (encrypts
/// and decrypts). `input` and `output` may be the same buffer or overlap. Reaching past
/// the end of the keystream (2^70 bytes) is an error and writes nothing.
///
/// Thread safety: safe to call concurrently from any threads on distinct outputs.
///
/// # Safety
///
/// `key` readable for `key_len` bytes, `nonce` for 8; `input` readable and `output`
/// writable for `len` bytes (NULL allowed when 0).
#[no_mangle]
pub unsafe extern "C" fn simdcrypt_salsa20_xor(
    key: *const u8,
    key_len: usize,
    nonce: *const u8,
    rounds: u32,
    counter: u64,
    input: *const u8,
    output: *mut u8,
    len: usize,
) -> c_int {
    guard(|| {
        // SAFETY: the documented contract.
        let (key, nonce) =
            unsafe { (self::input(key, key_len, "key")?, array::<{ salsa20::NONCE_LEN }>(nonce, "nonce")?) };
        let cipher = Salsa20::with_options(key, &nonce, Rounds::from_count(rounds)?)?;
        // SAFETY: the documented contract.
        unsafe { xor_stream(cipher, counter, input, output, len) }
    })
}

/// XSalsa20 (`rounds` 20, 12 or 8) with a 32-byte key and a 24-byte nonce; otherwise as
/// `simdcrypt_salsa20_xor`.
///
/// Thread safety: safe to call concurrently from any threads on distinct outputs.
///
/// # Safety
///
/// `key` readable for 32 bytes, `nonce` for 24; `input` readable and `output` writable for
/// `len` bytes (NULL allowed when 0).
#[no_mangle]
pub unsafe extern "C" fn simdcrypt_xsalsa20_xor(
    key: *const u8,
    nonce: *const u8,
    rounds: u32,
    counter: u64,
    input: *const u8,
    output: *mut u8,
    len: usize,
) -> c_int {
    guard(|| {
        // SAFETY: the documented contract.
        let (key, nonce) = unsafe { key_and_xnonce(key, nonce)? };
        let cipher = XSalsa20::with_options(&key, &nonce, Rounds::from_count(rounds)?)?;
        // SAFETY: the documented contract.
        unsafe { xor_stream(cipher, counter, input, output, len) }
    })
}

/// NaCl `crypto_secretbox_easy` (XSalsa20-Poly1305): writes the 16-byte tag followed by the
/// ciphertext of `len` plaintext bytes to `out`, which must be exactly `len + 16` bytes
/// (`out_len`). `out` may overlap `plaintext`.
///
/// Thread safety: safe to call concurrently from any threads on distinct outputs.
///
/// # Safety
///
/// `key` readable for 32 bytes, `nonce` for 24, `plaintext` for `len` (NULL allowed when
/// 0); `out` writable for `out_len` bytes.
#[no_mangle]
pub unsafe extern "C" fn simdcrypt_secretbox_seal(
    out: *mut u8,
    out_len: usize,
    plaintext: *const u8,
    len: usize,
    key: *const u8,
    nonce: *const u8,
) -> c_int {
    guard(|| {
        const TAG: usize = secretbox::TAG_LEN;
        // SAFETY: the documented contract.
        let (key, nonce) = unsafe { key_and_xnonce(key, nonce)? };
        let expected = len.checked_add(TAG).ok_or_else(|| Failure::too_large("len"))?;
        if out_len != expected {
            return Err(Error::InvalidLength { what: "secretbox output (len + 16)", expected, got: out_len }.into());
        }
        if len > 0 && plaintext.is_null() {
            return Err(Failure::null("plaintext"));
        }
        if out.is_null() {
            return Err(Failure::null("out"));
        }
        if len > 0 {
            // SAFETY: `plaintext` is readable for `len` bytes and `out + 16` writable for as
            // many (the contract; `out_len == len + 16` was checked); `copy` is a memmove,
            // so overlap is fine, and no slice of either buffer is alive across it.
            unsafe { std::ptr::copy(plaintext, out.add(TAG), len) };
        }
        // SAFETY: `out` is writable for `out_len` bytes and no other reference to it lives.
        let buf = unsafe { output(out, out_len, "out")? };
        let (tag, body) = buf.split_at_mut(TAG);
        tag.copy_from_slice(&secretbox::seal_in_place(&key, &nonce, body));
        Ok(())
    })
}

/// NaCl `crypto_secretbox_open_easy`: checks the box (`boxed_len` bytes: tag, then
/// ciphertext) and only if it authenticates writes the `boxed_len - 16` plaintext bytes to
/// `out` (`out_len` must be exactly that). Returns `SIMDCRYPT_STATUS_AUTHENTICATION_FAILED`
/// for a forged or corrupted box or the wrong key or nonce, and then zeroes `out`. `out`
/// may overlap `boxed`.
///
/// Thread safety: safe to call concurrently from any threads on distinct outputs.
///
/// # Safety
///
/// `key` readable for 32 bytes, `nonce` for 24, `boxed` for `boxed_len`; `out` writable
/// for `out_len` bytes (NULL allowed when 0).
#[no_mangle]
pub unsafe extern "C" fn simdcrypt_secretbox_open(
    out: *mut u8,
    out_len: usize,
    boxed: *const u8,
    boxed_len: usize,
    key: *const u8,
    nonce: *const u8,
) -> c_int {
    guard(|| {
        const TAG: usize = secretbox::TAG_LEN;
        // SAFETY: the documented contract.
        let (key, nonce) = unsafe { key_and_xnonce(key, nonce)? };
        if boxed_len < TAG {
            return Err(Failure::new(
                SimdcryptStatus::AuthenticationFailed,
                format!("a secretbox is at least {TAG} bytes (the tag), got {boxed_len}"),
            ));
        }
        if out_len != boxed_len - TAG {
            return Err(Error::InvalidLength {
                what: "secretbox plaintext (boxed_len - 16)",
                expected: boxed_len - TAG,
                got: out_len,
            }
            .into());
        }
        if boxed.is_null() {
            return Err(Failure::null("boxed"));
        }
        // SAFETY: `boxed` is readable for at least the 16 tag bytes (the contract).
        let tag = unsafe { array::<TAG>(boxed, "boxed")? };
        if out_len > 0 {
            if out.is_null() {
                return Err(Failure::null("out"));
            }
            // SAFETY: `boxed + 16` readable and `out` writable for `out_len` bytes (the
            // contract; `out_len == boxed_len - 16` was checked); `copy` is a memmove, so
            // overlap is fine; no slice of either buffer is alive across it.
            unsafe { std::ptr::copy(boxed.add(TAG), out, out_len) };
        }
        // SAFETY: `out` writable for `out_len` bytes, no other reference to it alive.
        let buf = unsafe { output(out, out_len, "out")? };
        if secretbox::open_in_place(&key, &nonce, buf, &tag).is_err() {
            buf.fill(0);
            return Err(Failure::new(
                SimdcryptStatus::AuthenticationFailed,
                "authentication failed: the box was forged or corrupted, or the key or nonce is wrong",
            ));
        }
        Ok(())
    })
}
