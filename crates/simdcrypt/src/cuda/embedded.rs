//! The kernels compiled ahead of time (feature `cuda`): build.rs compiles every kernel file
//! with NVRTC, when it finds one, to CUBIN for sm_80 and sm_90 and to PTX for compute_90,
//! and embeds them here. A device is served by a CUBIN of its major version and the same or
//! a lower minor (a CUBIN runs on those), else by the PTX of the newest compute capability
//! not above its own (the driver compiles it); only a device served by neither, or a build
//! without NVRTC (then [`IMAGES`] is empty), compiles the kernels with NVRTC at run time.
//! `SIMDCRYPT_CUDA_KERNELS=ptx` or `=nvrtc` forces the other two paths ([`Preference`]).

use super::Module;

/// One compiled kernel file.
#[derive(Debug)]
pub(crate) struct Image {
    /// The kernel file (`Module::file_name`).
    pub(crate) file: &'static str,
    /// PTX (compiled by the driver at load time) rather than a CUBIN.
    pub(crate) ptx: bool,
    /// The compute capability it was compiled for.
    pub(crate) arch: (u32, u32),
    /// The FNV-1a hash of the source and options it was compiled from (build.rs), checked
    /// against the library's own by a test.
    #[cfg_attr(not(test), allow(dead_code))]
    pub(crate) source_hash: u64,
    /// The CUBIN, or the NUL-terminated PTX text.
    pub(crate) image: &'static [u8],
}

include!(concat!(env!("OUT_DIR"), "/cuda_kernels.rs"));

/// Which embedded images may serve a device: `SIMDCRYPT_CUDA_KERNELS` = `auto` (the
/// default: a CUBIN, else PTX), `ptx` (PTX even where a CUBIN would serve: the path of a
/// GPU newer than the CUBINs, so that a lent GPU can check it), or `nvrtc` (none: run-time
/// NVRTC). Read once per process.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Preference {
    Auto,
    Ptx,
    Nvrtc,
}

fn preference() -> Preference {
    static PREFERENCE: std::sync::OnceLock<Preference> = std::sync::OnceLock::new();
    *PREFERENCE.get_or_init(|| match std::env::var("SIMDCRYPT_CUDA_KERNELS").as_deref() {
        Ok("ptx") => Preference::Ptx,
        Ok("nvrtc") => Preference::Nvrtc,
        _ => Preference::Auto,
    })
}

/// The image that serves `module` on a device of compute capability `cc`, if any.
pub(crate) fn for_device(module: Module, cc: (u32, u32)) -> Option<&'static Image> {
    for_device_with(module, cc, preference())
}

fn for_device_with(module: Module, cc: (u32, u32), preference: Preference) -> Option<&'static Image> {
    if preference == Preference::Nvrtc {
        return None;
    }
    let mine = IMAGES.iter().filter(|i| i.file == module.file_name());
    let cubin = mine.clone().filter(|i| !i.ptx && i.arch.0 == cc.0 && i.arch.1 <= cc.1).max_by_key(|i| i.arch.1);
    let cubin = cubin.filter(|_| preference == Preference::Auto);
    cubin.or_else(|| mine.filter(|i| i.ptx && i.arch <= cc).max_by_key(|i| i.arch))
}

/// How the kernels would be loaded on a device of compute capability `cc` when every kernel
/// file has an embedded image for it: e.g. "embedded CUBIN for sm_90"; None otherwise.
pub(crate) fn describe(cc: (u32, u32)) -> Option<String> {
    let images: Option<Vec<&Image>> = Module::ALL.iter().map(|&m| for_device(m, cc)).collect();
    let first = *images?.first()?;
    let (major, minor) = first.arch;
    Some(if first.ptx {
        format!("embedded PTX for compute_{major}{minor}, compiled by the driver")
    } else {
        format!("embedded CUBIN for sm_{major}{minor}")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fnv(parts: &[&str]) -> u64 {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for part in parts {
            for &b in part.as_bytes().iter().chain(b"\0") {
                h ^= u64::from(b);
                h = h.wrapping_mul(0x0000_0100_0000_01b3);
            }
        }
        h
    }

    #[test]
    fn embedded_images_are_of_the_current_sources() {
        if IMAGES.is_empty() {
            println!("no NVRTC at build time: no kernels embedded (run-time NVRTC only)");
            assert!(NVRTC.is_none());
            return;
        }
        for &module in Module::ALL {
            let source = module.full_source();
            let parts: Vec<&str> =
                std::iter::once(source.as_str()).chain(super::super::NVRTC_OPTIONS.iter().copied()).collect();
            let mine: Vec<&Image> = IMAGES.iter().filter(|i| i.file == module.file_name()).collect();
            assert_eq!(mine.len(), 3, "{}: sm_80 and sm_90 CUBINs and compute_90 PTX", module.file_name());
            for image in mine {
                assert_eq!(image.source_hash, fnv(&parts), "{} {:?}: built from other sources", image.file, image.arch);
                if image.ptx {
                    assert!(image.image.starts_with(b"//") && image.image.ends_with(b"\0"), "PTX text, NUL-terminated");
                } else {
                    assert!(image.image.starts_with(b"\x7fELF"), "a CUBIN is an ELF image");
                }
            }
        }
        assert_eq!(describe((9, 0)).as_deref(), Some("embedded CUBIN for sm_90"));
        assert_eq!(describe((8, 6)).as_deref(), Some("embedded CUBIN for sm_80"));
        assert_eq!(describe((12, 0)).as_deref(), Some("embedded PTX for compute_90, compiled by the driver"));
        assert_eq!(describe((7, 5)), None, "Turing: run-time NVRTC");
        for &module in Module::ALL {
            let ptx = for_device_with(module, (9, 0), Preference::Ptx).unwrap();
            assert!(ptx.ptx && ptx.arch == (9, 0), "SIMDCRYPT_CUDA_KERNELS=ptx on sm_90: the compute_90 PTX");
            assert!(for_device_with(module, (8, 6), Preference::Ptx).is_none(), "no PTX at or below 8.6");
            assert!(for_device_with(module, (9, 0), Preference::Nvrtc).is_none(), "=nvrtc: no embedded image");
        }
        println!("embedded kernels: {} images, compiled by NVRTC {:?}", IMAGES.len(), NVRTC);
    }
}
