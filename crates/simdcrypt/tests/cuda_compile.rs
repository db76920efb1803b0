//! The compile check of the CUDA kernels (no GPU needed, NVRTC only): every kernel file of
//! `Module::ALL` is compiled for sm_80 and sm_90 with exactly the runtime's compile function
//! and options (`simdcrypt::cuda::nvrtc::compile`), and any error or warning (a non-empty
//! NVRTC log) fails. The PTX of each file is fed to `ptxas -v` and its register and spill
//! counts printed (`--show-output`).
//!
//! NVRTC comes from PyPI in scripts/test.sh (`nvidia-cuda-nvrtc`, with `nvidia-cuda-nvcc`
//! for ptxas), which sets SIMDCRYPT_REQUIRE_NVRTC=1: then a missing NVRTC or ptxas fails
//! instead of skipping. `SIMDCRYPT_PTXAS` names ptxas (default: `ptxas` on PATH).
#![cfg(feature = "cuda")]

use std::path::PathBuf;
use std::process::Command;

use simdcrypt::cuda::nvrtc::{self, Target};
use simdcrypt::cuda::{Module, COMMON_SOURCE, NVRTC_OPTIONS};
use simdcrypt::Error;

/// The architectures checked: Ampere (A100) and Hopper (H100/H200).
const ARCHS: [(u32, u32); 2] = [(8, 0), (9, 0)];

fn required() -> bool {
    std::env::var_os("SIMDCRYPT_REQUIRE_NVRTC").is_some_and(|v| v == "1")
}

/// Whether NVRTC is here; without it the tests skip, unless it is required.
fn nvrtc_present() -> bool {
    match nvrtc::supported_archs() {
        Ok(archs) => {
            println!("NVRTC supports sm_{}", archs.iter().map(u32::to_string).collect::<Vec<_>>().join(", sm_"));
            true
        }
        Err(e) => {
            assert!(!required(), "SIMDCRYPT_REQUIRE_NVRTC=1 but NVRTC is unusable: {e}");
            println!("NVRTC compile check SKIPPED: {e}");
            false
        }
    }
}

fn ptxas() -> Option<PathBuf> {
    let path = std::env::var_os("SIMDCRYPT_PTXAS").map(PathBuf::from).unwrap_or_else(|| "ptxas".into());
    match Command::new(&path).arg("--version").output() {
        Ok(out) if out.status.success() => Some(path),
        _ => {
            assert!(!required(), "SIMDCRYPT_REQUIRE_NVRTC=1 but ptxas ({}) does not run", path.display());
            println!("ptxas not found ({}): no register and spill counts", path.display());
            None
        }
    }
}

/// `ptxas -v` of `ptx` for `arch`: its report (registers, spills, shared memory per kernel).
fn ptxas_report(ptxas: &PathBuf, name: &str, (major, minor): (u32, u32), ptx: &[u8]) -> String {
    // One folder per call: the arches of a file are checked on threads at the same time.
    let dir =
        std::env::temp_dir().join(format!("simdcrypt-cuda-compile-{}-{name}-sm_{major}{minor}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let ptx_path = dir.join(format!("{name}.sm_{major}{minor}.ptx"));
    std::fs::write(&ptx_path, ptx).unwrap();
    let out = Command::new(ptxas)
        .args(["-v", &format!("--gpu-name=sm_{major}{minor}"), "-o"])
        .arg(dir.join("out.cubin"))
        .arg(&ptx_path)
        .output()
        .expect("ptxas runs");
    let report = String::from_utf8_lossy(&out.stderr).into_owned() + &String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "ptxas failed on the PTX of {name} for sm_{major}{minor}:\n{report}");
    let _ = std::fs::remove_dir_all(&dir);
    report
}

/// Compiles one source for `arch` as the runtime does (CUBIN, with `compile`) and as PTX,
/// asserting clean logs; returns what to print: sizes, time, and ptxas's counts.
fn check_arch(
    name: &str,
    compile: &(impl Fn((u32, u32), Target) -> Result<nvrtc::Compiled, Error> + Sync),
    arch: (u32, u32),
    ptxas: Option<&PathBuf>,
) -> String {
    let (major, minor) = arch;
    let start = std::time::Instant::now();
    let cubin = compile(arch, Target::Cubin).unwrap_or_else(|e| panic!("{name} for sm_{major}{minor}: {e}"));
    let cubin_time = start.elapsed();
    assert!(cubin.log.is_empty(), "{name} for sm_{major}{minor}: NVRTC warned:\n{}", cubin.log);
    assert_eq!(&cubin.image[..4], b"\x7fELF", "{name}: the CUBIN is an ELF image");
    let ptx = compile(arch, Target::Ptx).unwrap_or_else(|e| panic!("{name} PTX for compute_{major}{minor}: {e}"));
    assert!(ptx.log.is_empty(), "{name} PTX for compute_{major}{minor}: NVRTC warned:\n{}", ptx.log);
    let mut report = format!(
        "{name} sm_{major}{minor}: CUBIN {} bytes in {:.1} s, PTX {} bytes\n",
        cubin.image.len(),
        cubin_time.as_secs_f64(),
        ptx.image.len()
    );
    if let Some(ptxas) = ptxas {
        for line in ptxas_report(ptxas, name, arch, &ptx.image).lines() {
            report += &format!("  {line}\n");
        }
    }
    report
}

/// `check_arch` for every arch, each on its own thread (NVRTC compiles separate programs
/// concurrently; the largest file takes most of this test's time on one core), printed in
/// order.
fn check_source(
    name: &str,
    compile: impl Fn((u32, u32), Target) -> Result<nvrtc::Compiled, Error> + Sync,
    ptxas: Option<&PathBuf>,
) {
    let reports: Vec<String> = std::thread::scope(|s| {
        let compile = &compile;
        let handles: Vec<_> = ARCHS.map(|arch| s.spawn(move || check_arch(name, compile, arch, ptxas))).into();
        handles.into_iter().map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e))).collect()
    });
    for report in reports {
        print!("{report}");
    }
}

#[test]
fn every_kernel_file_compiles_without_warnings() {
    if !nvrtc_present() {
        return;
    }
    let ptxas = ptxas();
    println!("options: --gpu-architecture=sm_XY {}", NVRTC_OPTIONS.join(" "));
    println!("{} kernel files: {:?}", Module::ALL.len(), Module::ALL.iter().map(|m| m.file_name()).collect::<Vec<_>>());
    for &module in Module::ALL {
        // Exactly the runtime's call (nvrtc::compile with the module).
        check_source(module.file_name(), |arch, target| nvrtc::compile(module, arch, target), ptxas.as_ref());
    }
}

/// The machinery itself, on a small kernel written like the real ones (common.cuh
/// prepended, 8-byte parameters): it compiles cleanly, and ptxas reads its PTX.
#[test]
fn a_small_kernel_compiles_and_ptxas_reads_it() {
    if !nvrtc_present() {
        return;
    }
    let source = format!(
        "{COMMON_SOURCE}\n#line 1 \"probe.cu\"\n\
         extern \"C\" __global__ void probe(sc_u8* out, sc_u64 n) {{\n\
             sc_u64 i = sc_thread_index();\n\
             if (i < n) sc_store_le32(out + 4 * i, sc_rotl32((sc_u32)i, 7));\n\
         }}\n"
    );
    check_source("probe.cu", |arch, target| nvrtc::compile_source("probe.cu", &source, arch, target), ptxas().as_ref());
}

/// A warning is reported in the log (so the checks above would catch one), and an error
/// fails with NVRTC's log in the message.
#[test]
fn warnings_and_errors_come_back_with_the_log() {
    if !nvrtc_present() {
        return;
    }
    let warns = "extern \"C\" __global__ void w(unsigned long long* p) { int unused_but_set = 1; unused_but_set = 2; \
                 unsigned int a = 1; if (a < 0) p[0] = 1; }\n";
    let compiled = nvrtc::compile_source("warns.cu", warns, (9, 0), Target::Cubin).expect("compiles");
    println!("log of warns.cu: {:?}", compiled.log);
    assert!(!compiled.log.is_empty(), "NVRTC reported no warning for a pointless comparison");

    let broken = "extern \"C\" __global__ void b(unsigned long long* p) { p[0] = undefined_name; }\n";
    match nvrtc::compile_source("broken.cu", broken, (9, 0), Target::Cubin) {
        Err(Error::Device(message)) => {
            assert!(message.contains("broken.cu") && message.contains("undefined_name"), "{message}");
        }
        other => panic!("a broken kernel compiled: {other:?}"),
    }
}

/// Without a GPU (every machine that runs the test suite), the backend reports why, as
/// Unavailable, and never panics; with one, it names the device.
#[test]
fn status_reports_a_reason_or_a_device() {
    match simdcrypt::cuda::status() {
        Ok(info) => println!("CUDA device: {info}"),
        Err(Error::Unavailable { backend, reason }) => {
            assert_eq!(backend, "cuda");
            assert!(!reason.is_empty());
            println!("cuda unavailable: {reason}");
            let again = simdcrypt::cuda::Cuda::get().expect_err("no device, no context");
            assert_eq!(again, Error::Unavailable { backend, reason }, "Cuda::get gives the status reason");
        }
        Err(other) => panic!("status is Unavailable or a device, not {other:?}"),
    }
}
