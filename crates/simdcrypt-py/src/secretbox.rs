//! `simdcrypt.secretbox_seal` / `secretbox_open`: NaCl's crypto_secretbox
//! (XSalsa20-Poly1305, the tag before the ciphertext, as PyNaCl's `SecretBox` and
//! libsodium's `crypto_secretbox_easy`), and the `AuthenticationError` it raises.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use simdcrypt::salsa20::{secretbox, KEY_LEN, XNONCE_LEN};

use crate::args;
use crate::buffer;

pyo3::create_exception!(
    simdcrypt,
    AuthenticationError,
    PyValueError,
    "A sealed box (or encrypted file) failed authentication: forged, corrupted, or the key or nonce is wrong. A subclass of ValueError."
);

fn fixed<const N: usize>(what: &str, obj: &Bound<'_, PyAny>) -> PyResult<[u8; N]> {
    buffer::array::<N>(obj)?.map_err(|got| PyValueError::new_err(format!("{what} must be {N} bytes, got {got}")))
}

/// The key (32 bytes) and nonce (24 bytes) arguments of both functions, checked.
fn key_and_nonce(key: &Bound<'_, PyAny>, nonce: &Bound<'_, PyAny>) -> PyResult<([u8; KEY_LEN], [u8; XNONCE_LEN])> {
    Ok((fixed("key", key)?, fixed("nonce", nonce)?))
}

/// secretbox_seal(key, nonce, plaintext) -> bytes: the 16-byte Poly1305 tag followed by
/// the XSalsa20 ciphertext (key: 32 bytes, nonce: 24 bytes, never reused with a key).
#[pyfunction]
#[pyo3(signature = (key, nonce, plaintext, /), text_signature = "(key, nonce, plaintext, /)")]
pub(crate) fn secretbox_seal<'py>(
    key: &Bound<'py, PyAny>,
    nonce: &Bound<'py, PyAny>,
    plaintext: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyBytes>> {
    let py = key.py();
    let (key, nonce) = key_and_nonce(key, nonce)?;
    buffer::with_bytes(plaintext, |p| {
        buffer::new_bytes_uninit(py, p.len() + secretbox::TAG_LEN, |out| {
            let (tag, body) = out.split_at_mut(secretbox::TAG_LEN);
            let t = args::detach_if_long(py, p.len(), || {
                secretbox::seal_in_place(&key, &nonce, buffer::init_from(body, p))
            });
            buffer::init_from(tag, &t);
            Ok(())
        })
    })?
}

/// secretbox_open(key, nonce, boxed) -> bytes: the plaintext of a box made by
/// secretbox_seal (or PyNaCl / libsodium). Raises AuthenticationError if it does not
/// authenticate, with nothing decrypted.
#[pyfunction]
#[pyo3(signature = (key, nonce, boxed, /), text_signature = "(key, nonce, boxed, /)")]
pub(crate) fn secretbox_open<'py>(
    key: &Bound<'py, PyAny>,
    nonce: &Bound<'py, PyAny>,
    boxed: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyBytes>> {
    let py = key.py();
    let (key, nonce) = key_and_nonce(key, nonce)?;
    buffer::with_bytes(boxed, |b| {
        if b.len() < secretbox::TAG_LEN {
            return Err(AuthenticationError::new_err(format!(
                "authentication failed: a box is at least {} bytes (the tag), got {}",
                secretbox::TAG_LEN,
                b.len()
            )));
        }
        let (tag, body) = b.split_at(secretbox::TAG_LEN);
        let tag: [u8; secretbox::TAG_LEN] = tag.try_into().expect("16 bytes");
        buffer::new_bytes_uninit(py, body.len(), |out| {
            args::detach_if_long(py, body.len(), || {
                secretbox::open_in_place(&key, &nonce, buffer::init_from(out, body), &tag)
            })
            .map_err(|e| AuthenticationError::new_err(e.to_string()))
        })
    })?
}
