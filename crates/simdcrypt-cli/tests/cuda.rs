//! `simdcrypt backends` and `sum --backend cuda`: the GPU backend's report, its usage
//! errors, and, without a GPU (every CI machine), exit status 2 with the reason. On a
//! machine with a usable GPU the same files are hashed on the GPU and on the CPU and the
//! outputs compared byte for byte (scripts/gpu-check.sh runs the binary that way too).
//! Built with the test-only `cuda-emulation` feature and run with
//! SIMDCRYPT_CUDA_EMULATION=1 (scripts/test.sh), the GPU path runs on the kernels' host
//! emulation instead, batch boundaries included.

mod common;
use common::*;

/// What the library says about the GPU in this environment (the binary sees the same).
fn status() -> Result<simdcrypt::cuda::DeviceInfo, String> {
    simdcrypt::cuda::status().map_err(|e| match e {
        simdcrypt::Error::Unavailable { reason, .. } => reason,
        other => panic!("status is Unavailable or a device, not {other:?}"),
    })
}

/// Whether `--backend cuda` runs on the host emulation here.
fn emulated() -> bool {
    cfg!(feature = "cuda-emulation") && std::env::var_os("SIMDCRYPT_CUDA_EMULATION").is_some_and(|v| v == "1")
}

#[test]
fn backends_reports_cuda() {
    let dir = TempDir::new("cuda-backends");
    let text = ok(run(simdcrypt(dir.path()).arg("backends")));
    let line = text.lines().find(|l| l.starts_with("cuda: ")).unwrap_or_else(|| panic!("no cuda line in\n{text}"));
    match status() {
        Ok(info) => assert!(line.starts_with(&format!("cuda: available on {info}")), "{line}"),
        Err(reason) => assert_eq!(line, format!("cuda: unavailable: {reason} (verified on an NVIDIA H200, sm_90)")),
    }
    assert!(line.ends_with(&format!("({})", simdcrypt::cuda::VERIFICATION_NOTE)), "{line}");
    let json = ok(run(simdcrypt(dir.path()).args(["backends", "--json"])));
    let value: serde_json::Value = serde_json::from_str(&json).expect("backends --json is JSON");
    let cuda = &value["cuda"];
    assert_eq!(cuda["verified"], serde_json::Value::Bool(simdcrypt::cuda::VERIFIED_ON_GPU), "{json}");
    match status() {
        Ok(_) => assert_eq!(cuda["available"], true, "{json}"),
        Err(reason) => {
            assert_eq!(cuda["available"], false, "{json}");
            assert_eq!(cuda["reason"], serde_json::Value::String(reason), "{json}");
            assert!(cuda["device"].is_null(), "{json}");
        }
    }
}

#[test]
fn sum_backend_cuda_without_a_gpu_exits_2_with_the_reason() {
    let Err(reason) = status() else {
        println!("a GPU is usable here: the unavailable path is not exercised");
        return;
    };
    if emulated() {
        println!("--backend cuda runs on the host emulation: the unavailable path is not exercised");
        return;
    }
    let dir = TempDir::new("cuda-unavailable");
    dir.file("a", b"abc");
    for algo in ["streebog512", "streebog256", "gost94", "gost94-test", "blake3"] {
        for backend in ["cuda", "CUDA"] {
            let out = run(simdcrypt(dir.path()).args(["sum", "--backend", backend, "-a", algo, "a"]));
            assert_eq!(code(&out), 2, "{algo}: {}", stderr(&out));
            assert!(stdout(&out).is_empty(), "{algo}: nothing is printed: {}", stdout(&out));
            let err = stderr(&out);
            assert!(err.contains("backend \"cuda\" is unavailable") && err.contains(&reason), "{algo}: {err}");
        }
    }
}

#[test]
fn sum_backend_cuda_usage_errors() {
    let dir = TempDir::new("cuda-usage");
    dir.file("a", b"abc");
    let cases: [(&[&str], &str); 6] = [
        (
            &["-a", "sha256", "a"],
            "--backend cuda supports blake3, streebog256, streebog512, gost94 and gost94-test, not sha256",
        ),
        (&["-a", "streebog512,gost94", "a"], "--backend cuda hashes with one algorithm"),
        (&["-a", "gost94", "-"], "--backend cuda hashes files, not standard input"),
        (&["-a", "blake3", "--seek", "3", "a"], "does not combine with --tree, --raw or --seek"),
        (&["-a", "blake3", "--raw", "a"], "does not combine with --tree, --raw or --seek"),
        (&["a"], ""), // the default algorithm, blake3, is supported: only availability decides
    ];
    for (args, message) in cases {
        let out = run(simdcrypt(dir.path()).args(["sum", "--backend", "cuda"]).args(args));
        if message.is_empty() {
            if status().is_err() && !emulated() {
                assert_eq!(code(&out), 2, "{args:?}: {}", stderr(&out));
            }
            continue;
        }
        assert_eq!(code(&out), 2, "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains(message), "{args:?}: {}", stderr(&out));
    }
}

/// With a GPU: the same lines as the CPU path, for every supported algorithm and style,
/// over files of many sizes (and an unreadable entry in the middle), one past the longest
/// file a sequential hash sends to the GPU.
#[test]
fn sum_backend_cuda_matches_the_cpu() {
    if status().is_err() && !emulated() {
        println!("no usable GPU: the GPU path is checked by scripts/gpu-check.sh on a GPU machine");
        return;
    }
    let dir = TempDir::new("cuda-match");
    let mut names = Vec::new();
    for (i, len) in
        [0usize, 1, 31, 32, 63, 64, 65, 1000, 1024, 1025, 4096, 100_003, 1 << 20, (1 << 20) + 1].into_iter().enumerate()
    {
        let name = format!("f{i:02}");
        dir.file(&name, &data(len, 7 + i as u64));
        names.push(name);
    }
    names.insert(3, "missing".to_string());
    for algo in ["blake3", "streebog256", "streebog512", "gost94", "gost94-test"] {
        for style in [&[][..], &["--tag"], &["--json"], &["--no-names"], &["--gost-reverse"][..]] {
            if style == ["--gost-reverse"] && algo == "blake3" {
                continue;
            }
            let cpu = run(simdcrypt(dir.path()).args(["sum", "-a", algo]).args(style).args(&names));
            let gpu =
                run(simdcrypt(dir.path()).args(["sum", "--backend", "cuda", "-a", algo]).args(style).args(&names));
            assert_eq!(stdout(&gpu), stdout(&cpu), "{algo} {style:?}");
            assert_eq!(stderr(&gpu), stderr(&cpu), "{algo} {style:?}");
            assert_eq!(code(&gpu), code(&cpu), "{algo} {style:?}");
        }
    }
    let cpu = ok(run(simdcrypt(dir.path()).args(["sum", "-l", "100", "--derive-key", "ctx"]).args(&names[4..])));
    let gpu = ok(run(simdcrypt(dir.path())
        .args(["sum", "--backend", "cuda", "-l", "100", "--derive-key", "ctx"])
        .args(&names[4..])));
    assert_eq!(gpu, cpu);
}

/// Batches of a few KiB (the budget is lowered under the emulation): files split across
/// batches, a file larger than the budget alone, unreadable entries at batch edges, -r.
#[test]
fn sum_backend_cuda_batches_keep_the_order() {
    if !emulated() {
        println!("needs the host emulation (SIMDCRYPT_CUDA_EMULATION=1, feature cuda-emulation)");
        return;
    }
    let dir = TempDir::new("cuda-batches");
    let mut names = Vec::new();
    for i in 0..40usize {
        let name = format!("d/f{i:02}");
        std::fs::create_dir_all(dir.path().join("d")).unwrap();
        dir.file(&name, &data((i * 997) % 5000 + if i == 17 { 20_000 } else { 0 }, i as u64));
        names.push(name);
    }
    for budget in ["1", "3000", "4096", "100000"] {
        for algo in ["blake3", "streebog512", "gost94"] {
            let mut args: Vec<String> = vec!["sum".into(), "-a".into(), algo.into()];
            args.extend(["missing".to_string(), "d".to_string(), "-r".to_string()]);
            args.extend(names.iter().take(5).cloned());
            let cpu = run(simdcrypt(dir.path()).args(&args));
            let gpu = run(simdcrypt(dir.path())
                .args(["sum", "--backend", "cuda"])
                .args(&args[1..])
                .env("SIMDCRYPT_CUDA_BATCH_BYTES", budget));
            assert_eq!(stdout(&gpu), stdout(&cpu), "{algo}, budget {budget}");
            assert_eq!(stderr(&gpu), stderr(&cpu), "{algo}, budget {budget}");
            assert_eq!(code(&gpu), code(&cpu), "{algo}, budget {budget}");
        }
    }
}
