//! Two jobs, both about the CUDA kernels of src/cuda:
//!
//! - with the `cuda` feature, **the kernels compiled ahead of time**: every kernel file to
//!   CUBIN for sm_80 and sm_90 and to PTX for compute_90 (which the driver compiles for
//!   newer GPUs), by NVRTC loaded at build time, and embedded in the library
//!   (`cuda/embedded.rs`), so that a machine with only the NVIDIA driver runs them. NVRTC is
//!   `SIMDCRYPT_NVRTC` (the path of libnvrtc.so.13, or its folder), else `libnvrtc.so.13`
//!   by name, else the one of a pip-installed `nvidia-cuda-nvrtc` found by
//!   `$SIMDCRYPT_PYTHON` or `python3`. Without one the build still succeeds, with a cargo
//!   warning, and the kernels are compiled by NVRTC at run time instead; with
//!   `SIMDCRYPT_REQUIRE_EMBEDDED_KERNELS=1` (scripts/build-wheels.sh, the GPU carry, CI)
//!   that is an error;
//! - with the `cuda-emulation` feature, the kernels compiled as C++ for the host
//!   (src/cuda/emulation.cpp includes every `.cu` file), so that tests can run them without
//!   a GPU.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    #[cfg(feature = "cuda")]
    embed::main();
    #[cfg(feature = "cuda-emulation")]
    emulation();
}

#[cfg(feature = "cuda-emulation")]
fn emulation() {
    let dir = std::path::Path::new("src/cuda");
    for entry in std::fs::read_dir(dir).expect("src/cuda is readable") {
        let path = entry.expect("src/cuda is readable").path();
        let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
        if matches!(ext, "cu" | "cuh" | "h" | "cpp") {
            println!("cargo:rerun-if-changed={}", path.display());
        }
    }
    // (The emulation's fibers use ucontext: Linux and other POSIX systems with glibc-like
    // libcs.)
    cc::Build::new()
        .cpp(true)
        .std("c++17")
        .file(dir.join("emulation.cpp"))
        .include(dir)
        .warnings(true)
        .extra_warnings(true)
        .warnings_into_errors(true)
        .opt_level(2)
        // common.cuh reads aligned message words through a `const sc_u32*`, as a GPU does;
        // C++'s aliasing rules would let the host compiler reorder those loads.
        .flag("-fno-strict-aliasing")
        .compile("simdcrypt_cuda_emulation");
}

#[cfg(feature = "cuda")]
mod embed {
    use std::ffi::{c_char, c_int, c_void, CString};
    use std::fmt::Write as _;
    use std::path::{Path, PathBuf};

    /// The kernel files, as `Module::ALL` lists them (a unit test of cuda/embedded.rs
    /// checks that every module has its images, of its current source).
    const FILES: [&str; 4] = ["sha256.cu", "blake3.cu", "streebog.cu", "gost94.cu"];
    /// CUBINs for these compute capabilities, and PTX for the last.
    const CUBIN_ARCHS: [(u32, u32); 2] = [(8, 0), (9, 0)];
    /// The options besides the architecture: `cuda::NVRTC_OPTIONS` (the same file).
    const OPTIONS: &[&str] = &include!("src/cuda/nvrtc_options.in");

    type Prog = *mut c_void;

    struct Nvrtc {
        _lib: libloading::Library,
        version: (u32, u32),
        create:
            unsafe extern "C" fn(*mut Prog, *const c_char, *const c_char, c_int, *const c_void, *const c_void) -> c_int,
        compile: unsafe extern "C" fn(Prog, c_int, *const *const c_char) -> c_int,
        log_size: unsafe extern "C" fn(Prog, *mut usize) -> c_int,
        log: unsafe extern "C" fn(Prog, *mut c_char) -> c_int,
        cubin_size: unsafe extern "C" fn(Prog, *mut usize) -> c_int,
        cubin: unsafe extern "C" fn(Prog, *mut c_char) -> c_int,
        ptx_size: unsafe extern "C" fn(Prog, *mut usize) -> c_int,
        ptx: unsafe extern "C" fn(Prog, *mut c_char) -> c_int,
        destroy: unsafe extern "C" fn(*mut Prog) -> c_int,
    }

    /// Opens `path` with its symbols global (NVRTC finds its builtins library by name).
    fn open(path: &Path) -> Result<libloading::Library, String> {
        #[cfg(unix)]
        {
            // SAFETY: loading NVRTC runs its initialisers, which do nothing but set up the
            // library; RTLD_GLOBAL lets it find libnvrtc-builtins loaded just before.
            let lib = unsafe {
                libloading::os::unix::Library::open(
                    Some(path),
                    libloading::os::unix::RTLD_NOW | libloading::os::unix::RTLD_GLOBAL,
                )
            };
            lib.map(libloading::Library::from).map_err(|e| e.to_string())
        }
        #[cfg(not(unix))]
        {
            // SAFETY: as above.
            unsafe { libloading::Library::new(path) }.map_err(|e| e.to_string())
        }
    }

    /// The folder of a pip-installed NVRTC (site-packages/nvidia/cu13/lib), from Python.
    fn python_nvrtc_folder() -> Option<PathBuf> {
        let python = std::env::var("SIMDCRYPT_PYTHON").unwrap_or_else(|_| "python3".into());
        let script = "import nvidia, os; print(os.path.join(list(nvidia.__path__)[0], 'cu13', 'lib'))";
        let out = std::process::Command::new(python).args(["-c", script]).output().ok()?;
        let folder = PathBuf::from(String::from_utf8(out.stdout).ok()?.trim());
        (out.status.success() && folder.join("libnvrtc.so.13").exists()).then_some(folder)
    }

    /// NVRTC, or what was tried.
    fn find() -> Result<Nvrtc, String> {
        let mut tried = Vec::new();
        let mut candidates: Vec<PathBuf> = Vec::new();
        if let Some(v) = std::env::var_os("SIMDCRYPT_NVRTC").filter(|v| !v.is_empty()) {
            let p = PathBuf::from(v);
            candidates.push(if p.is_dir() { p.join("libnvrtc.so.13") } else { p });
        } else {
            candidates.push(PathBuf::from("libnvrtc.so.13"));
            if let Some(folder) = python_nvrtc_folder() {
                candidates.push(folder.join("libnvrtc.so.13"));
            }
        }
        for path in candidates {
            if let Some(folder) = path.parent().filter(|f| !f.as_os_str().is_empty()) {
                // NVRTC opens libnvrtc-builtins by name when it compiles: load it first.
                if let Ok(entries) = std::fs::read_dir(folder) {
                    for e in entries.flatten() {
                        let name = e.file_name().to_string_lossy().into_owned();
                        if name.starts_with("libnvrtc-builtins.so.13") && !name.contains(".alt.") {
                            let _ = open(&e.path()).map(std::mem::forget);
                        }
                    }
                }
            }
            match open(&path).and_then(load) {
                Ok(nvrtc) => return Ok(nvrtc),
                Err(e) => tried.push(format!("{}: {e}", path.display())),
            }
        }
        Err(tried.join("; "))
    }

    fn load(lib: libloading::Library) -> Result<Nvrtc, String> {
        // SAFETY: the symbols are NVRTC's C functions with these signatures (nvrtc.h).
        unsafe {
            macro_rules! sym {
                ($name:literal) => {
                    *lib.get(concat!($name, "\0").as_bytes()).map_err(|e| format!("{}: {e}", $name))?
                };
            }
            let version_fn: unsafe extern "C" fn(*mut c_int, *mut c_int) -> c_int = sym!("nvrtcVersion");
            let (mut major, mut minor) = (0, 0);
            if version_fn(&mut major, &mut minor) != 0 {
                return Err("nvrtcVersion failed".into());
            }
            Ok(Nvrtc {
                version: (major.max(0) as u32, minor.max(0) as u32),
                create: sym!("nvrtcCreateProgram"),
                compile: sym!("nvrtcCompileProgram"),
                log_size: sym!("nvrtcGetProgramLogSize"),
                log: sym!("nvrtcGetProgramLog"),
                cubin_size: sym!("nvrtcGetCUBINSize"),
                cubin: sym!("nvrtcGetCUBIN"),
                ptx_size: sym!("nvrtcGetPTXSize"),
                ptx: sym!("nvrtcGetPTX"),
                destroy: sym!("nvrtcDestroyProgram"),
                _lib: lib,
            })
        }
    }

    /// `source` compiled with `arch` (`sm_XY` for a CUBIN, `compute_XY` for PTX).
    fn compile(nvrtc: &Nvrtc, name: &str, source: &str, arch: &str) -> Result<Vec<u8>, String> {
        let src = CString::new(source).map_err(|e| e.to_string())?;
        let cname = CString::new(name).map_err(|e| e.to_string())?;
        let opts: Vec<CString> = std::iter::once(format!("--gpu-architecture={arch}"))
            .chain(OPTIONS.iter().map(|s| (*s).to_owned()))
            .map(|o| CString::new(o).expect("options have no NUL"))
            .collect();
        let ptrs: Vec<*const c_char> = opts.iter().map(|o| o.as_ptr()).collect();
        let mut prog: Prog = std::ptr::null_mut();
        // SAFETY: NVRTC's API used as documented; every buffer is sized as NVRTC reports, and
        // the program is destroyed on every path.
        unsafe {
            if (nvrtc.create)(&mut prog, src.as_ptr(), cname.as_ptr(), 0, std::ptr::null(), std::ptr::null()) != 0 {
                return Err(format!("nvrtcCreateProgram failed for {name}"));
            }
            let rc = (nvrtc.compile)(prog, ptrs.len() as c_int, ptrs.as_ptr());
            let mut size = 0usize;
            let mut log = String::new();
            if (nvrtc.log_size)(prog, &mut size) == 0 && size > 1 {
                let mut buf = vec![0u8; size];
                if (nvrtc.log)(prog, buf.as_mut_ptr().cast()) == 0 {
                    log = String::from_utf8_lossy(&buf[..size - 1]).trim().to_owned();
                }
            }
            let result = if rc != 0 {
                Err(format!("NVRTC failed to compile {name} for {arch}:\n{log}"))
            } else if !log.is_empty() {
                // The compile check refuses warnings too; a build should not embed them.
                Err(format!("NVRTC warned compiling {name} for {arch}:\n{log}"))
            } else {
                let ptx = arch.starts_with("compute_");
                let (size_fn, get_fn) = if ptx { (nvrtc.ptx_size, nvrtc.ptx) } else { (nvrtc.cubin_size, nvrtc.cubin) };
                let mut size = 0usize;
                if size_fn(prog, &mut size) != 0 {
                    Err(format!("NVRTC gave no image size for {name}"))
                } else {
                    let mut image = vec![0u8; size];
                    if get_fn(prog, image.as_mut_ptr().cast()) != 0 {
                        Err(format!("NVRTC gave no image for {name}"))
                    } else {
                        if ptx {
                            // PTX is text: the driver wants it NUL-terminated, which it is.
                        }
                        Ok(image)
                    }
                }
            };
            (nvrtc.destroy)(&mut prog);
            result
        }
    }

    /// 64-bit FNV-1a: the embedded images record the hash of the source and options they
    /// were compiled from, and a test compares it with the library's own.
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

    pub(super) fn main() {
        let dir = Path::new("src/cuda");
        for f in FILES.iter().copied().chain(["common.cuh", "gpu_prelude.cuh", "nvrtc_options.in"]) {
            println!("cargo:rerun-if-changed={}", dir.join(f).display());
        }
        // Not PATH or LD_LIBRARY_PATH, which change between a project's cargo calls: a build
        // that found no NVRTC is kept until one of these (or a kernel file) changes.
        for v in ["SIMDCRYPT_NVRTC", "SIMDCRYPT_PYTHON", "SIMDCRYPT_REQUIRE_EMBEDDED_KERNELS"] {
            println!("cargo:rerun-if-env-changed={v}");
        }
        let out_dir = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
        let required = std::env::var_os("SIMDCRYPT_REQUIRE_EMBEDDED_KERNELS").is_some_and(|v| v == "1");
        let mut table = String::new();
        let nvrtc = match find() {
            Ok(n) => Some(n),
            Err(tried) => {
                let msg = format!(
                    "no NVRTC (libnvrtc.so.13) found at build time ({tried}): the CUDA kernels are not embedded and \
                     will be compiled by NVRTC at run time. Set SIMDCRYPT_NVRTC, or `pip install nvidia-cuda-nvrtc==13.0.*` \
                     for the python3 on PATH, to embed them."
                );
                if required {
                    panic!("SIMDCRYPT_REQUIRE_EMBEDDED_KERNELS=1: {msg}");
                }
                println!("cargo:warning={msg}");
                None
            }
        };
        let read =
            |f: &str| std::fs::read_to_string(dir.join(f)).unwrap_or_else(|e| panic!("reading src/cuda/{f}: {e}"));
        let (prelude, common) = (read("gpu_prelude.cuh"), read("common.cuh"));
        writeln!(table, "/// The NVRTC that compiled the embedded images, if any.").unwrap();
        match &nvrtc {
            Some(n) => writeln!(
                table,
                "pub(crate) const NVRTC: Option<(u32, u32)> = Some(({}, {}));",
                n.version.0, n.version.1
            ),
            None => writeln!(table, "pub(crate) const NVRTC: Option<(u32, u32)> = None;"),
        }
        .unwrap();
        writeln!(table, "/// The embedded images.\npub(crate) const IMAGES: &[Image] = &[").unwrap();
        if let Some(nvrtc) = &nvrtc {
            // Each file and target on its own thread: gost94.cu alone takes many seconds.
            let jobs: Vec<(&str, String)> = FILES
                .iter()
                .flat_map(|&f| {
                    CUBIN_ARCHS
                        .iter()
                        .map(move |&(ma, mi)| (f, format!("sm_{ma}{mi}")))
                        .chain(std::iter::once((f, format!("compute_{}{}", CUBIN_ARCHS[1].0, CUBIN_ARCHS[1].1))))
                })
                .collect();
            let results: Vec<Result<Vec<u8>, String>> = std::thread::scope(|s| {
                let handles: Vec<_> = jobs
                    .iter()
                    .map(|(file, arch)| {
                        let source = format!("{prelude}\n{common}\n#line 1 \"{file}\"\n{}", read(file));
                        s.spawn(move || compile(nvrtc, file, &source, arch))
                    })
                    .collect();
                handles
                    .into_iter()
                    .map(|h| h.join().unwrap_or_else(|_| Err("a compile thread panicked".into())))
                    .collect()
            });
            for ((file, arch), result) in jobs.iter().zip(results) {
                let image = result.unwrap_or_else(|e| panic!("{e}"));
                let stem = file.trim_end_matches(".cu");
                let path =
                    out_dir.join(format!("{stem}-{arch}.{}", if arch.starts_with("sm_") { "cubin" } else { "ptx" }));
                std::fs::write(&path, &image).unwrap_or_else(|e| panic!("writing {}: {e}", path.display()));
                let source = format!("{prelude}\n{common}\n#line 1 \"{file}\"\n{}", read(file));
                let digits: String = arch.chars().filter(char::is_ascii_digit).collect();
                let cc: u32 = digits.parse().expect("an architecture number");
                writeln!(
                    table,
                    "    Image {{ file: {file:?}, ptx: {}, arch: ({}, {}), source_hash: {:#x}, image: include_bytes!({:?}) }},",
                    !arch.starts_with("sm_"),
                    cc / 10,
                    cc % 10,
                    fnv(&std::iter::once(source.as_str()).chain(OPTIONS.iter().copied()).collect::<Vec<_>>()),
                    path.display().to_string()
                )
                .unwrap();
            }
        }
        writeln!(table, "];").unwrap();
        std::fs::write(out_dir.join("cuda_kernels.rs"), table).expect("writing cuda_kernels.rs");
    }
}
