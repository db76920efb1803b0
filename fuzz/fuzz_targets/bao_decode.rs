//! Bao (docs/bao.md): any bytes through every decoder (combined, outboard, slice, the
//! streaming `Decoder` in all three forms, scrub, slice extraction) with a fuzzer-chosen
//! format (chunk groups), threads and range; and encodings made from a fuzzer-chosen
//! content, checked against the `bao` crate (standard format) and decoded back, then
//! altered at fuzzer-chosen bytes: an altered encoding, outboard or content must never
//! decode, and an altered slice must fail or give the authentic bytes.
#![no_main]

use std::io::Cursor;

use libfuzzer_sys::fuzz_target;
use simdcrypt::blake3::bao::{self, Decoder, Format, Options};
use simdcrypt::blake3::Platform;
use simdcrypt_fuzz::{backends, bytes, split, stretched, threads, Result, Unstructured};

fuzz_target!(|bytes: &[u8]| {
    let (mut u, payload) = split(bytes);
    let _ = run(&mut u, payload);
});

/// Every decoder on arbitrary inputs: errors are fine, panics and bad memory are not.
fn decode_anything(opts: Options, root: &bao::Hash, encoded: &[u8], split: usize, start: u64, count: u64) {
    let (data, outboard) = encoded.split_at(split.min(encoded.len()));
    let _ = opts.decode(root, encoded);
    let _ = opts.decode_outboard(root, data, outboard);
    let _ = opts.decode_slice(root, encoded, start, count);
    let _ = opts.decode_reader(root, encoded);
    let _ = opts.slice(encoded, start, count);
    let _ = opts.slice_outboard(data, outboard, start, count);
    let _ = opts.scrub(root, data, outboard);
    let _ = Decoder::new(Cursor::new(encoded), *root).with_options(opts).copy_to(&mut std::io::sink());
    let _ =
        Decoder::new_slice(Cursor::new(encoded), *root, start, count).with_options(opts).copy_to(&mut std::io::sink());
    let _ = Decoder::new_outboard(Cursor::new(data), Cursor::new(outboard), *root)
        .with_options(opts)
        .copy_to(&mut std::io::sink());
}

fn flip(u: &mut Unstructured<'_>, bytes: &mut [u8]) -> Result<()> {
    if !bytes.is_empty() {
        let at = u.choose_index(bytes.len())?;
        bytes[at] ^= u.int_in_range(1..=255)?;
    }
    Ok(())
}

fn run(u: &mut Unstructured<'_>, payload: &[u8]) -> Result<()> {
    let log = if u.ratio(1, 2)? { 0 } else { u.int_in_range(0..=bao::MAX_GROUP_LOG + 1)? };
    let Ok(format) = Format::chunk_groups(log) else {
        assert!(log > bao::MAX_GROUP_LOG);
        return Ok(());
    };
    let platforms = backends::<Platform>();
    let platform = platforms[u.choose_index(platforms.len())?];
    let opts = Options::new().format(format).threads(threads(u)?).platform(platform);
    let start: u64 = if u.arbitrary()? { u.arbitrary()? } else { u.int_in_range(0..=70_000)? };
    let count: u64 = if u.arbitrary()? { u.arbitrary()? } else { u.int_in_range(0..=70_000)? };

    if u.ratio(1, 3)? {
        // Any bytes: the root hash, then an encoding (cut in two for the outboard forms).
        let (root, encoded) = payload.split_at(payload.len().min(32));
        let mut root_bytes = [0u8; 32];
        root_bytes[..root.len()].copy_from_slice(root);
        let split = u.arbitrary::<u16>()? as usize;
        decode_anything(opts, &root_bytes, encoded, split, start, count);
        return Ok(());
    }

    let which: u8 = u.arbitrary()?;
    let flip_seed = bytes(u, 8)?.to_vec();
    let data = stretched(u, payload)?;
    let (root, encoded) = opts.encode(&data);
    let (root2, outboard) = opts.encode_outboard(&data);
    assert_eq!(root, *::blake3::hash(&data).as_bytes(), "the root is the BLAKE3 hash");
    assert_eq!(root2, root);
    if log == 0 {
        assert_eq!(encoded, ::bao::encode::encode(&data).0, "combined encoding against the bao crate");
        assert_eq!(outboard, ::bao::encode::outboard(&data).0, "outboard against the bao crate");
    }
    assert_eq!(opts.decode(&root, &encoded).unwrap(), data);
    opts.decode_outboard(&root, &data, &outboard).unwrap();
    let mut streamed = Vec::new();
    Decoder::new(Cursor::new(&encoded), root).with_options(opts).copy_to(&mut streamed).unwrap();
    assert_eq!(streamed, data);

    let len = data.len() as u64;
    let slice = opts.slice(&encoded, start, count).unwrap();
    assert_eq!(opts.slice_outboard(&data, &outboard, start, count).unwrap(), slice, "slices of {start}+{count}");
    let want = &data[start.min(len) as usize..start.saturating_add(count).min(len) as usize];
    assert_eq!(opts.decode_slice(&root, &slice, start, count).unwrap(), want, "slice {start}+{count} of {len}");
    let mut streamed = Vec::new();
    Decoder::new_slice(Cursor::new(&slice), root, start, count).with_options(opts).copy_to(&mut streamed).unwrap();
    assert_eq!(streamed, want);
    if log == 0 {
        assert_eq!(slice.len() as u64, bao::slice_len(len, start, count));
    }

    // One alteration, in the encoding, the outboard, the content or the slice.
    let mut fu = Unstructured::new(&flip_seed);
    match which % 4 {
        0 => {
            let mut bad = encoded.clone();
            flip(&mut fu, &mut bad)?;
            if bad != encoded {
                assert!(opts.decode(&root, &bad).is_err(), "an altered encoding decoded");
                let mut sink = Vec::new();
                let r = Decoder::new(Cursor::new(&bad), root).with_options(opts).copy_to(&mut sink);
                assert!(r.is_err(), "an altered encoding stream-decoded");
                assert!(data.starts_with(&sink), "unverified bytes released");
            }
        }
        1 => {
            let mut bad = outboard.clone();
            flip(&mut fu, &mut bad)?;
            if bad != outboard {
                assert!(opts.decode_outboard(&root, &data, &bad).is_err(), "an altered outboard verified");
            }
        }
        2 => {
            let mut bad = data.clone();
            flip(&mut fu, &mut bad)?;
            if bad != data {
                assert!(opts.decode_outboard(&root, &bad, &outboard).is_err(), "altered content verified");
                assert!(
                    opts.scrub(&root, &bad, &outboard).map_or(true, |r| !r.is_clean()),
                    "scrub found altered content clean"
                );
            }
        }
        _ => {
            let mut bad = slice.clone();
            flip(&mut fu, &mut bad)?;
            if bad != slice {
                // A slice that does not reach the last chunk does not prove the length
                // header (the spec's final chunk requirement), so a changed header with the
                // same tree shape may decode: to the authentic bytes, never to others.
                if let Ok(got) = opts.decode_slice(&root, &bad, start, count) {
                    assert_eq!(got, want, "an altered slice decoded to other bytes");
                }
            }
        }
    }
    Ok(())
}
