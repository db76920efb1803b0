//! One description per algorithm: the names users type, the labels manifests carry, what it
//! takes, its backends and how to make a hasher. Everything that lists or builds hashes by
//! name — [`crate::ALGORITHMS`], [`crate::any::AnyHasher`], [`crate::backend_report`], the
//! CLI's `-a` and `check`, Python's `new()`, `algorithms_available` and `backends()` — reads
//! [`REGISTRY`]. Each algorithm's entry lives in its own folder (`<algorithm>/algorithm.rs`).
//!
//! ## What this file holds
//!
//! `Algorithm` (one description per user-visible hash), `KeyUse`, `ReferenceTool`, `REGISTRY`,
//! `find` (names and aliases), `by_bsd_label`, `check_options` (the one place that rejects a
//! key or context an algorithm does not take), `named_backend` (options checked, backend
//! parsed: what every `from_options` starts with), `rhash_gost` (the entry Streebog and GOST R
//! 34.11-94 share), `backend_report`
//!
//! ## Who reads the registry
//!
//! Front ends never touch kernels: they go through an algorithm's public API or through
//! `simdcrypt::any::AnyHasher`, which hashes by algorithm name. Each algorithm is described
//! once, by an `Algorithm` in its own folder's `algorithm.rs` (names and aliases, the
//! BSD/RHash label, the reference tool whose output it matches, digest and block size, key and
//! derive-key use, threads, backend family, constructor), listed in `registry::REGISTRY`.
//! `ALGORITHMS`, `backend_report()`, `AnyHasher`, the CLI's `-a`, `--tag` labels, `check`'s
//! label parsing, file-name escaping style and `--gost-reverse`, Python's `hash_file`,
//! `algorithms_available` and `backends()`, and the C ABI's `simdcrypt_hash` all read it.
//! Every streaming hasher implements `streaming::StreamingHash` (update, finalize into a
//! buffer, reset, backend name, digest length).

use crate::any::HashOptions;
use crate::backend::{BackendReport, Checked, Kernels};
use crate::streaming::StreamingHash;
use crate::Error;

/// What an algorithm does with a key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyUse {
    /// It takes none.
    None,
    /// A keyed mode exists; the key has this many bytes.
    Optional(usize),
    /// It cannot run without a key of this many bytes.
    Required(usize),
}

/// Whose output format and file-name escaping a manifest line follows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReferenceTool {
    /// `b3sum`.
    B3sum,
    /// coreutils' `sha256sum` and its siblings.
    Coreutils,
    /// RHash (`rhash`), coreutils-style lines.
    Rhash,
}

/// A hash algorithm as users see it.
#[derive(Debug)]
pub struct Algorithm {
    /// The name (`"blake3"`, `"gost94-test"`), as in `simdcrypt.algorithms_available`.
    pub name: &'static str,
    /// Other accepted spellings (case-insensitive), e.g. `"sha-256"`.
    pub aliases: &'static [&'static str],
    /// The label of BSD-style lines (`--tag`): `BLAKE3`, `SHA256`, RHash's `GOST12-256`.
    pub bsd_label: &'static str,
    /// The tool whose output it matches.
    pub reference_tool: ReferenceTool,
    /// The digest length in bytes when none is asked for.
    pub digest_len: usize,
    /// The block size in bytes (hashlib's `block_size`).
    pub block_len: usize,
    /// Whether any output length may be asked for.
    pub xof: bool,
    /// Its key, if any.
    pub key: KeyUse,
    /// What error messages call its key (`"blake3 key"`); `"key"` where it has none.
    pub key_name: &'static str,
    /// For a hash with no keyed mode: where to go for one, appended to the error a key
    /// gets (`"; use the HMAC functions for a keyed hash"`), or empty.
    pub keyed_alternative: &'static str,
    /// Whether it has a key derivation mode (a context string).
    pub derive_key: bool,
    /// Whether one large input is split across threads.
    pub threads: bool,
    /// Whether the standard prints digests with the bytes reversed (RHash's
    /// `--gost-reverse`).
    pub printed_reversed: bool,
    /// Its backend family, as in [`crate::backend_report`] (several algorithms may share
    /// one: `streebog256` and `streebog512` are `"streebog"`).
    pub backend_family: &'static str,
    /// The backends of its family on this CPU.
    pub backends: fn() -> BackendReport,
    /// A hasher with these options. Options it does not take are an error, never ignored.
    pub new: NewFn,
    /// Hashes many independent messages with these options (its batch kernels where it
    /// has them, else one message after another), writing `messages.len()` digests of
    /// `out.len() / messages.len()` bytes each: the one shape of "hash many messages",
    /// behind [`crate::any::hash_many`].
    pub hash_many: BatchFn,
    /// A hasher resumed from a state its `export` wrote (`key`: the hasher's key, for a
    /// keyed state); see [`crate::state`].
    pub restore: RestoreFn,
}

/// [`Algorithm::new`]: a hasher with these options.
pub type NewFn = fn(&HashOptions) -> Result<Box<dyn StreamingHash>, Error>;

/// [`Algorithm::hash_many`]: options, messages, and the output (one digest per message).
pub type BatchFn = fn(&HashOptions, &[&[u8]], &mut [u8]) -> Result<(), Error>;

/// The digest length `out` asks for (its length over the message count), checked against
/// what the algorithm produces: any length for an extendable-output function.
pub(crate) fn batch_digest_len(algorithm: &Algorithm, count: usize, out_len: usize) -> Result<usize, Error> {
    let per = out_len.checked_div(count).unwrap_or(algorithm.digest_len);
    if count.checked_mul(per) != Some(out_len) || (!algorithm.xof && per != algorithm.digest_len) {
        let each = if algorithm.xof { "N".to_string() } else { algorithm.digest_len.to_string() };
        return Err(Error::InvalidArgument(format!(
            "{} output buffer must be {count} messages x {each} bytes, got {out_len} bytes",
            algorithm.name
        )));
    }
    Ok(per)
}

/// What every batch entry checks before its kernels run: the options, the output length,
/// and the backend the options name (else the detected one).
pub(crate) fn batch_backend<K: Kernels>(
    algorithm: &Algorithm,
    opts: &HashOptions,
    count: usize,
    out_len: usize,
) -> Result<Checked<K>, Error> {
    algorithm.check_options(opts)?;
    batch_digest_len(algorithm, count, out_len)?;
    opts.backend.as_deref().map_or_else(|| Ok(Checked::detect()), Checked::from_name)
}

/// The entry of a GOST hash as RHash prints it (Streebog, GOST R 34.11-94): no key, no key
/// derivation, a fixed digest length, one thread per input, the digest printed with its
/// bytes reversed; its backend family is `K`'s.
pub(crate) const fn rhash_gost<K: Kernels>(
    name: &'static str,
    bsd_label: &'static str,
    digest_len: usize,
    block_len: usize,
    new: NewFn,
    hash_many: BatchFn,
    restore: RestoreFn,
) -> Algorithm {
    Algorithm {
        name,
        aliases: &[],
        bsd_label,
        reference_tool: ReferenceTool::Rhash,
        digest_len,
        block_len,
        xof: false,
        key: KeyUse::None,
        key_name: "key",
        keyed_alternative: "",
        derive_key: false,
        threads: false,
        printed_reversed: true,
        backend_family: K::ALGORITHM,
        backends: BackendReport::of::<K>,
        new,
        hash_many,
        restore,
    }
}

/// [`Algorithm::hash_many`] for a hash with no batch kernels: a hasher per message, the
/// messages split between threads by size.
pub(crate) fn hash_many_sequential(
    algorithm: &Algorithm,
    opts: &HashOptions,
    messages: &[&[u8]],
    out: &mut [u8],
) -> Result<(), Error> {
    let per = batch_digest_len(algorithm, messages.len(), out.len())?;
    let template = (algorithm.new)(opts)?;
    crate::threads::split_messages(messages, out, per, opts.threads, algorithm.block_len, &|msgs, o| {
        let mut h = template.clone();
        for (m, d) in msgs.iter().zip(o.chunks_exact_mut(per)) {
            h.reset();
            h.update(m);
            h.finalize_into(d);
        }
    });
    Ok(())
}

/// How an [`Algorithm`] resumes a hasher from a state.
pub type RestoreFn = fn(&[u8], Option<&[u8]>) -> Result<Box<dyn StreamingHash>, Error>;

impl Algorithm {
    /// Whether `name` (case-insensitive) is this algorithm's name or an alias.
    pub fn is_named(&self, name: &str) -> bool {
        let name = name.trim();
        self.name.eq_ignore_ascii_case(name) || self.aliases.iter().any(|a| a.eq_ignore_ascii_case(name))
    }

    /// Rejects a key or context this algorithm does not take, and a missing required key,
    /// with a message that says what it takes. Called by each entry's `new`.
    pub fn check_options(&self, opts: &HashOptions) -> Result<(), Error> {
        let name = self.name;
        let given = opts.key.is_some() || opts.derive_key_context.is_some();
        if self.key == KeyUse::None && !self.derive_key && given {
            let instead = self.keyed_alternative;
            return Err(Error::InvalidArgument(format!(
                "{name} takes no key or derive_key_context (it has no keyed or key derivation mode{instead})"
            )));
        }
        if opts.derive_key_context.is_some() && !self.derive_key {
            return Err(Error::InvalidArgument(format!(
                "{name} takes no derive_key_context (it has no key derivation mode)"
            )));
        }
        if opts.key.is_some() && opts.derive_key_context.is_some() {
            return Err(Error::InvalidArgument(format!("{name} takes a key or a derive_key_context, not both")));
        }
        match (self.key, &opts.key) {
            (KeyUse::None, Some(_)) => {
                Err(Error::InvalidArgument(format!("{name} takes no key (it has no keyed mode)")))
            }
            (KeyUse::Required(len), None) => {
                Err(Error::InvalidArgument(format!("{name} needs a {len}-byte key (none was given)")))
            }
            (KeyUse::Required(len) | KeyUse::Optional(len), Some(key)) if key.len() != len => {
                Err(Error::InvalidLength { what: self.key_name, expected: len, got: key.len() })
            }
            _ => Ok(()),
        }
    }

    /// Checks the options ([`Algorithm::check_options`]) and parses the backend they name,
    /// if any: what every `from_options` does before it builds its hasher.
    pub(crate) fn named_backend<K: Kernels>(&self, opts: &HashOptions) -> Result<Option<Checked<K>>, Error> {
        self.check_options(opts)?;
        opts.backend.as_deref().map(Checked::from_name).transpose()
    }
}

/// Every hash algorithm, in the order of [`crate::ALGORITHMS`].
pub static REGISTRY: &[&Algorithm] = &[
    &crate::blake3::ALGORITHM,
    &crate::sha256::ALGORITHM,
    &crate::highwayhash::ALGORITHM_64,
    &crate::highwayhash::ALGORITHM_128,
    &crate::highwayhash::ALGORITHM_256,
    &crate::streebog::ALGORITHM_256,
    &crate::streebog::ALGORITHM_512,
    &crate::gost94::ALGORITHM_CRYPTOPRO,
    &crate::gost94::ALGORITHM_TEST,
    &crate::chunking::ALGORITHM,
];

/// The algorithm called `name` (or an alias of it), case-insensitive.
pub fn find(name: &str) -> Result<&'static Algorithm, Error> {
    REGISTRY.iter().copied().find(|a| a.is_named(name)).ok_or_else(|| {
        let names: Vec<&str> = REGISTRY.iter().map(|a| a.name).collect();
        Error::InvalidArgument(format!("unknown algorithm {name:?}; available: {}", names.join(", ")))
    })
}

/// The algorithm whose BSD-style label is `label` (case-insensitive).
pub fn by_bsd_label(label: &str) -> Option<&'static Algorithm> {
    REGISTRY.iter().copied().find(|a| a.bsd_label.eq_ignore_ascii_case(label))
}

/// The backend families, each once, in registry order, then the ones no hash uses
/// (`sha256-batch`, `salsa20`).
pub fn backend_report() -> Vec<BackendReport> {
    let mut seen: Vec<&str> = Vec::new();
    let mut report = Vec::new();
    for a in REGISTRY {
        if !seen.contains(&a.backend_family) {
            seen.push(a.backend_family);
            report.push((a.backends)());
        }
    }
    report.push(BackendReport::of::<crate::sha256::BatchKind>());
    report.push(BackendReport::of::<crate::salsa20::Kind>());
    report
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_labels_and_families_are_unique_and_consistent() {
        for (i, a) in REGISTRY.iter().enumerate() {
            for b in &REGISTRY[i + 1..] {
                assert!(!a.is_named(b.name) && !b.is_named(a.name), "{} and {} share a name", a.name, b.name);
                assert!(!a.bsd_label.eq_ignore_ascii_case(b.bsd_label), "{} and {} share a label", a.name, b.name);
            }
            assert_eq!(find(a.name).unwrap().name, a.name);
            assert_eq!(by_bsd_label(a.bsd_label).unwrap().name, a.name);
            assert_eq!((a.backends)().algorithm, a.backend_family);
        }
    }

    #[test]
    fn each_entry_builds_what_it_describes() {
        for a in REGISTRY {
            let opts = match a.key {
                KeyUse::Required(len) => HashOptions { key: Some(vec![7; len]), ..Default::default() },
                _ => HashOptions::default(),
            };
            let h = (a.new)(&opts).unwrap();
            assert_eq!(h.digest_len(), a.digest_len, "{}", a.name);
            assert_eq!(h.is_xof(), a.xof, "{}", a.name);
            if let KeyUse::Required(_) = a.key {
                assert!((a.new)(&HashOptions::default()).is_err(), "{} without its key", a.name);
            }
            if a.key == KeyUse::None {
                let keyed = HashOptions { key: Some(vec![0; 32]), ..Default::default() };
                let err = (a.new)(&keyed).map(|_| ()).expect_err("a key for a keyless hash is an error").to_string();
                assert!(err.ends_with(&format!("mode{})", a.keyed_alternative)), "{}: {err}", a.name);
            }
            if let KeyUse::Required(len) | KeyUse::Optional(len) = a.key {
                let short = HashOptions { key: Some(vec![0; len - 1]), ..Default::default() };
                let err = (a.new)(&short).map(|_| ()).expect_err("a short key is an error").to_string();
                assert!(err.starts_with(&format!("{} must be {len} bytes", a.key_name)), "{}: {err}", a.name);
            }
        }
    }

    /// `hash_many`, the one batch shape, equals hashing each message alone, for every
    /// algorithm, on counts around every lane width and ragged lengths.
    #[test]
    fn hash_many_equals_one_at_a_time() {
        let data: Vec<u8> = (0..5000u32).map(|i| (i * 31 + 7) as u8).collect();
        for a in REGISTRY {
            let opts = match a.key {
                KeyUse::Required(len) => HashOptions { key: Some(vec![9; len]), ..Default::default() },
                _ => HashOptions::default(),
            };
            for count in [0usize, 1, 3, 15, 16, 17, 33] {
                let messages: Vec<&[u8]> = (0..count).map(|i| &data[..(i * 97) % 1500 + (i % 3) * 64]).collect();
                let mut out = vec![0u8; count * a.digest_len];
                (a.hash_many)(&opts, &messages, &mut out).unwrap();
                for (m, d) in messages.iter().zip(out.chunks_exact(a.digest_len)) {
                    let mut h = (a.new)(&opts).unwrap();
                    h.update(m);
                    let mut expected = vec![0u8; a.digest_len];
                    h.finalize_into(&mut expected);
                    assert_eq!(d, expected, "{} count {count} len {}", a.name, m.len());
                }
            }
            let err = (a.hash_many)(&opts, &[b"x", b"y"], &mut [0u8; 3]).unwrap_err().to_string();
            assert!(err.contains("output buffer"), "{}: {err}", a.name);
        }
    }
}
