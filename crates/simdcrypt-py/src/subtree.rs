//! `simdcrypt.blake3_subtree` and `simdcrypt.blake3_merge`: chaining values of pieces of
//! one input, hashed separately (on other threads, processes or machines) and merged into
//! the whole input's digest. The rules are the library's (`blake3::subtree`), which match
//! the official crate's `hazmat` module.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use simdcrypt::blake3::{subtree, OUT_LEN};

use crate::args::{self, BigIndex, ModeArgs};
use crate::blake3_class::xof_bytes;
use crate::buffer;

/// The chaining value of the subtree `data` that starts `offset` bytes into the whole
/// input, 32 bytes; combine chaining values with blake3_merge().
///
/// - data: the subtree's bytes (any C-contiguous buffer).
/// - offset: where data starts in the whole input: a multiple of 1024 (the chunk
///   length). At a nonzero offset, data must not be empty and is at most the largest
///   power of two dividing offset (so that it is a whole subtree of BLAKE3's tree).
/// - key, derive_key_context: the mode, as for blake3(); every piece of one input must
///   use the same.
///
/// An input of more than 1024 bytes splits at left = the largest power-of-two multiple of
/// 1024 that is less than its length: the digest is
/// blake3_merge(blake3_subtree(input[:left], offset=0),
///              blake3_subtree(input[left:], offset=left), root=True),
/// and each side may be split the same way. ValueError says which rule a piece breaks.
/// Large data is hashed without holding the GIL.
#[pyfunction]
#[pyo3(
    signature = (data, /, *, offset, key=None, derive_key_context=None),
    text_signature = "(data, /, *, offset, key=None, derive_key_context=None)"
)]
pub(crate) fn blake3_subtree<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyAny>,
    offset: BigIndex,
    key: Option<&Bound<'py, PyAny>>,
    derive_key_context: Option<String>,
) -> PyResult<Bound<'py, PyBytes>> {
    let mode = ModeArgs::new(key, derive_key_context)?;
    let offset = match u64::try_from(offset.0) {
        Ok(offset) => offset,
        Err(_) if offset.0 < 0 => return Err(PyValueError::new_err("offset must be non-negative")),
        Err(_) => return Err(PyValueError::new_err("offset must be less than 2**64")),
    };
    let cv = buffer::with_bytes(data, |bytes| {
        let mode = mode.mode();
        // The library checks offset and length before hashing anything.
        // The export stays held until with_bytes returns, so the memory stays put.
        args::detach_if_long(py, bytes.len(), || subtree::chaining_value(mode, bytes, offset))
    })?
    .map_err(args::value_error)?;
    Ok(PyBytes::new(py, &cv))
}

/// A 32-byte chaining value argument of blake3_merge.
fn chaining_value(obj: &Bound<'_, PyAny>, name: &str) -> PyResult<[u8; OUT_LEN]> {
    buffer::array::<OUT_LEN>(obj)?.map_err(|got| {
        PyValueError::new_err(format!(
            "{name} must be a {OUT_LEN}-byte chaining value (from blake3_subtree or blake3_merge), got {got} bytes"
        ))
    })
}

/// Merges the chaining values of two adjacent subtrees into their parent's.
///
/// - left, right: 32-byte chaining values (bytes-like) from blake3_subtree() or
///   blake3_merge(); left covers a power-of-two number of chunks (the larger part).
/// - root: False gives the parent's 32-byte chaining value, to merge further; True
///   makes the parent the root: the result is then the whole input's digest.
/// - length: the digest length for root=True (any, 0 included); must be 32 otherwise.
/// - key, derive_key_context: the mode, the same as the pieces'.
#[pyfunction]
#[pyo3(
    signature = (left, right, /, *, root=false, length=BigIndex(32), key=None, derive_key_context=None),
    text_signature = "(left, right, /, *, root=False, length=32, key=None, derive_key_context=None)"
)]
pub(crate) fn blake3_merge<'py>(
    py: Python<'py>,
    left: &Bound<'py, PyAny>,
    right: &Bound<'py, PyAny>,
    root: bool,
    length: BigIndex,
    key: Option<&Bound<'py, PyAny>>,
    derive_key_context: Option<String>,
) -> PyResult<Bound<'py, PyBytes>> {
    let mode = ModeArgs::new(key, derive_key_context)?;
    let left = chaining_value(left, "left")?;
    let right = chaining_value(right, "right")?;
    if root {
        let (len, _) = args::output_range(length, BigIndex(0))?;
        return xof_bytes(py, subtree::merge_root(&left, &right, mode.mode()), len);
    }
    if length.0 != OUT_LEN as i128 {
        return Err(PyValueError::new_err(format!(
            "length must be {OUT_LEN} with root=False: a non-root merge gives a {OUT_LEN}-byte chaining value; \
             pass root=True for the whole input's digest of any length"
        )));
    }
    Ok(PyBytes::new(py, &subtree::merge_non_root(&left, &right, mode.mode())))
}
