//! NVRTC: the kernel files compiled at run time, exactly as the runtime and the compile
//! check of the test suite (tests/cuda_compile.rs) both do it.

use std::ffi::{c_char, c_int, CString};

use cudarc::nvrtc::sys::{self, nvrtcResult};

use super::{Module, NVRTC_OPTIONS};
use crate::Error;

/// What to compile a module to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// Machine code for exactly the given compute capability (`--gpu-architecture=sm_XY`):
    /// what the runtime loads, so that an older driver never has to JIT newer PTX.
    Cubin,
    /// PTX for the given compute capability (`--gpu-architecture=compute_XY`): for
    /// inspection (`ptxas -v` register and spill counts in the compile check).
    Ptx,
}

/// One compiled module: the CUBIN or PTX image, and NVRTC's log (warnings; empty when
/// clean).
#[derive(Clone, Debug)]
pub struct Compiled {
    /// The CUBIN (an ELF image) or the PTX text.
    pub image: Vec<u8>,
    /// NVRTC's log for the compilation, empty when it had nothing to say.
    pub log: String,
}

/// The option list of one compilation: the architecture, then [`NVRTC_OPTIONS`].
pub fn options(compute_capability: (u32, u32), target: Target) -> Vec<String> {
    let (major, minor) = compute_capability;
    let arch = match target {
        Target::Cubin => format!("--gpu-architecture=sm_{major}{minor}"),
        Target::Ptx => format!("--gpu-architecture=compute_{major}{minor}"),
    };
    std::iter::once(arch).chain(NVRTC_OPTIONS.iter().map(|s| (*s).to_owned())).collect()
}

fn nvrtc_error(what: &str, rc: nvrtcResult) -> Error {
    Error::Device(format!("NVRTC {what}: {rc:?}"))
}

/// Compiles `module` ([`Module::full_source`]) for `compute_capability` with
/// [`options`]: what the runtime does on a module's first use (with [`Target::Cubin`] and
/// the device's compute capability). A failed compilation is an [`Error::Device`] holding
/// NVRTC's log; a missing NVRTC library is [`Error::Unavailable`].
pub fn compile(module: Module, compute_capability: (u32, u32), target: Target) -> Result<Compiled, Error> {
    compile_source(module.file_name(), &module.full_source(), compute_capability, target)
}

/// [`compile`] for any source text, named `file_name` in NVRTC's messages (tests compile
/// their own small kernels with it).
pub fn compile_source(
    file_name: &str,
    source: &str,
    compute_capability: (u32, u32),
    target: Target,
) -> Result<Compiled, Error> {
    super::driver::nvrtc_version()?;
    let source =
        CString::new(source).map_err(|_| Error::InvalidArgument(format!("{file_name} contains a NUL byte")))?;
    let name = CString::new(file_name).map_err(|_| Error::InvalidArgument("a file name with a NUL byte".into()))?;
    let opts: Vec<CString> = options(compute_capability, target)
        .into_iter()
        .map(|o| CString::new(o).expect("options have no NUL"))
        .collect();
    let opt_ptrs: Vec<*const c_char> = opts.iter().map(|o| o.as_ptr()).collect();
    let mut prog: sys::nvrtcProgram = std::ptr::null_mut();
    // SAFETY: NVRTC is present (nvrtc_version); the source and name are NUL-terminated and
    // outlive the program, which is destroyed below on every path.
    let rc = unsafe {
        sys::nvrtcCreateProgram(&mut prog, source.as_ptr(), name.as_ptr(), 0, std::ptr::null(), std::ptr::null())
    };
    if rc != nvrtcResult::NVRTC_SUCCESS {
        return Err(nvrtc_error(&format!("could not create the program of {file_name}"), rc));
    }
    // SAFETY: `prog` is a live program; the option pointers outlive the call.
    let result = unsafe { compile_program(prog, file_name, &opt_ptrs, compute_capability, target) };
    // SAFETY: `prog` is live and destroyed once.
    unsafe { sys::nvrtcDestroyProgram(&mut prog) };
    result
}

/// # Safety
///
/// `prog` must be a live NVRTC program; `opts` valid NUL-terminated strings.
unsafe fn compile_program(
    prog: sys::nvrtcProgram,
    file_name: &str,
    opts: &[*const c_char],
    (major, minor): (u32, u32),
    target: Target,
) -> Result<Compiled, Error> {
    // SAFETY: `prog` is live (the caller's contract); every out-pointer and buffer passed
    // below is valid for the size NVRTC reported.
    unsafe {
        let rc = sys::nvrtcCompileProgram(prog, opts.len() as c_int, opts.as_ptr());
        let mut log_size = 0usize;
        let log = if sys::nvrtcGetProgramLogSize(prog, &mut log_size) == nvrtcResult::NVRTC_SUCCESS && log_size > 1 {
            let mut buf = vec![0u8; log_size];
            if sys::nvrtcGetProgramLog(prog, buf.as_mut_ptr().cast()) == nvrtcResult::NVRTC_SUCCESS {
                let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
                String::from_utf8_lossy(&buf[..end]).trim_end().to_owned()
            } else {
                String::new()
            }
        } else {
            String::new()
        };
        if rc != nvrtcResult::NVRTC_SUCCESS {
            return Err(Error::Device(format!(
                "NVRTC failed to compile {file_name} for sm_{major}{minor} ({rc:?}):\n{log}",
            )));
        }
        let mut size = 0usize;
        let image = match target {
            Target::Cubin => {
                let rc = sys::nvrtcGetCUBINSize(prog, &mut size);
                if rc != nvrtcResult::NVRTC_SUCCESS {
                    return Err(nvrtc_error("could not give the CUBIN's size", rc));
                }
                let mut image = vec![0u8; size];
                let rc = sys::nvrtcGetCUBIN(prog, image.as_mut_ptr().cast());
                if rc != nvrtcResult::NVRTC_SUCCESS {
                    return Err(nvrtc_error("could not give the CUBIN", rc));
                }
                image
            }
            Target::Ptx => {
                let rc = sys::nvrtcGetPTXSize(prog, &mut size);
                if rc != nvrtcResult::NVRTC_SUCCESS {
                    return Err(nvrtc_error("could not give the PTX's size", rc));
                }
                let mut image = vec![0u8; size];
                let rc = sys::nvrtcGetPTX(prog, image.as_mut_ptr().cast());
                if rc != nvrtcResult::NVRTC_SUCCESS {
                    return Err(nvrtc_error("could not give the PTX", rc));
                }
                // The PTX text without its terminating NUL.
                while image.last() == Some(&0) {
                    image.pop();
                }
                image
            }
        };
        if image.is_empty() {
            return Err(Error::Device(format!("NVRTC produced an empty image for {file_name}")));
        }
        Ok(Compiled { image, log })
    }
}

/// The compute capabilities this NVRTC can compile for, as `10 * major + minor`.
pub fn supported_archs() -> Result<Vec<u32>, Error> {
    super::driver::nvrtc_version()?;
    let mut count: c_int = 0;
    // SAFETY: NVRTC is present; valid out-pointers of the size it reports.
    unsafe {
        let rc = sys::nvrtcGetNumSupportedArchs(&mut count);
        if rc != nvrtcResult::NVRTC_SUCCESS {
            return Err(nvrtc_error("could not count its architectures", rc));
        }
        let mut archs = vec![0 as c_int; count.max(0) as usize];
        let rc = sys::nvrtcGetSupportedArchs(archs.as_mut_ptr());
        if rc != nvrtcResult::NVRTC_SUCCESS {
            return Err(nvrtc_error("could not list its architectures", rc));
        }
        Ok(archs.into_iter().map(|a| a.max(0) as u32).collect())
    }
}
