"""The benchmark harness (simdcrypt.bench) on tiny sizes: it runs, verifies outputs
before timing (a wrong adapter is caught), writes valid JSON and PNG files, and reports
missing peers, unbuilt algorithms and skipped sizes. No timing is asserted."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from simdcrypt.bench import adapters, cli, main, plots

FAST = ["--reps", "2", "--min-time", "0.0005", "--no-progress"]


def run(tmp_path: Path, *args: str) -> tuple[int, dict[str, Any]]:
    out = tmp_path / "result.json"
    status = main([*args, *FAST, "--json", str(out)])
    return status, json.loads(out.read_text(encoding="utf-8"))


def test_runs_and_writes_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, doc = run(
        tmp_path,
        "-a",
        "blake3,sha256,sha256_many",
        "--sizes",
        "64,4K",
        "--threads",
        "1,2",
        "--scaling-size",
        "64K",
    )
    assert status == 0
    assert doc["schema"] == "simdcrypt-bench/1"
    assert doc["machine"]["cores"] >= 1
    assert [e for e in doc["events"] if e["kind"] != "skipped"] == []
    results = doc["results"]
    for algorithm, peer in (
        ("blake3", "blake3"),
        ("sha256", "hashlib"),
        ("sha256_many", "hashlib loop"),
    ):
        for size in (64, 4096):
            rows = [
                r
                for r in results
                if r["algorithm"] == algorithm and r["size"] == size and r["threads"] == 1
            ]
            names = {r["name"] for r in rows}
            assert names == {"simdcrypt", peer}, (algorithm, size, names)
            for r in rows:
                assert len(r["samples_s"]) == 2 and r["median_s"] > 0 and r["mb_per_s"] > 0
            ours = next(r for r in rows if r["simdcrypt"])
            theirs = next(r for r in rows if not r["simdcrypt"])
            assert ours["ratio_to_best_peer"] == pytest.approx(
                ours["mb_per_s"] / theirs["mb_per_s"]
            )
    # The scaling run: simdcrypt's BLAKE3 with 2 threads on 64 KiB.
    assert any(r["algorithm"] == "blake3" and r["threads"] == 2 and r["simdcrypt"] for r in results)
    text = capsys.readouterr().out
    assert "BLAKE3 [blake3], one thread" in text and "vs best peer" in text


def _wrong_peer(spec: adapters.AlgorithmSpec) -> adapters.AlgorithmSpec:
    """The spec with its first peer's output changed in its last byte."""
    peer = spec.peers[0]

    def build(module: ModuleType, threads: int) -> adapters.Kernel:
        right = peer.build(module, threads)

        def wrong(data: Any) -> bytes:
            out = bytearray(right(data))
            out[-1] ^= 1
            return bytes(out)

        return wrong

    return dataclasses.replace(spec, peers=(dataclasses.replace(peer, build=build),))


@pytest.mark.parametrize("algorithm", ["sha256", "sha256_many"])
def test_wrong_adapter_is_caught(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    algorithm: str,
) -> None:
    # sha256 has a known answer (caught before any size); sha256_many has none, so the
    # comparison with simdcrypt's output at each size catches it.
    monkeypatch.setitem(adapters.BY_NAME, algorithm, _wrong_peer(adapters.BY_NAME[algorithm]))
    status, doc = run(tmp_path, "-a", algorithm, "--sizes", "64,128", "--no-scaling")
    assert status == 1
    mismatches = [e for e in doc["events"] if e["kind"] == "mismatch"]
    assert mismatches and all(e["algorithm"] == algorithm for e in mismatches)
    assert {e["implementation"] for e in mismatches} == {adapters.BY_NAME[algorithm].peers[0].name}
    # The wrong implementation was never timed; simdcrypt was.
    assert {r["name"] for r in doc["results"]} == {"simdcrypt"}
    assert "FAILED" in capsys.readouterr().out


def test_missing_peer_is_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    real = adapters.import_module

    def fake(name: str) -> ModuleType:
        if name == "blake3":
            raise ImportError("No module named 'blake3' (simulated)")
        return real(name)

    monkeypatch.setattr(adapters, "import_module", fake)
    status, doc = run(tmp_path, "-a", "blake3", "--sizes", "64", "--no-scaling")
    assert status == 0
    unavailable = doc["algorithms"]["blake3"]["unavailable"]
    assert [u["name"] for u in unavailable] == ["blake3"]
    assert "missing: pip install blake3" in unavailable[0]["reason"]
    assert "blake3: missing: pip install blake3" in capsys.readouterr().out
    assert {r["name"] for r in doc["results"]} == {"simdcrypt"}


def test_not_built_algorithm_is_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    spec = dataclasses.replace(adapters.BY_NAME["sha256"], simdcrypt_attrs=("no_such_function",))
    monkeypatch.setitem(adapters.BY_NAME, "sha256", spec)
    status, doc = run(tmp_path, "-a", "sha256", "--sizes", "64")
    assert status == 0
    assert doc["results"] == []
    assert "not built" in doc["algorithms"]["sha256"]["unavailable"][0]["reason"]
    assert any(e["kind"] == "skipped" and e["algorithm"] == "sha256" for e in doc["events"])


def test_skips_are_explained(tmp_path: Path) -> None:
    # Over the memory budget: 4 MiB with a 1 MiB budget.
    status, doc = run(tmp_path, "-a", "sha256", "--sizes", "64,4M", "--memory-budget", "2M")
    assert status == 0
    reasons = [e["reason"] for e in doc["events"] if e["size"] == 4 << 20]
    assert reasons and all("memory budget" in r for r in reasons)
    # Too slow: one call predicted over --max-call from the previous size.
    status, doc = run(tmp_path, "-a", "sha256", "--sizes", "64,1M", "--max-call", "1e-9")
    assert status == 0
    reasons = [e["reason"] for e in doc["events"] if e["size"] == 1 << 20]
    assert reasons and all(r.startswith("too slow") for r in reasons)
    assert {r["size"] for r in doc["results"]} == {64}


def test_writes_png_plots(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    plot_dir = tmp_path / "plots"
    status = main(
        [
            "-a",
            "blake3",
            "--sizes",
            "64,1K",
            "--threads",
            "1,2",
            "--scaling-size",
            "64K",
            "--plot",
            str(plot_dir),
            *FAST,
        ]
    )
    assert status == 0
    files = sorted(p.name for p in plot_dir.iterdir())
    assert files == ["threads-blake3.png", "throughput-blake3.png"]
    for name in files:
        data = (plot_dir / name).read_bytes()
        assert data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) > 1000


def test_plot_without_matplotlib_is_a_clear_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    def missing() -> None:
        raise ImportError("No module named 'matplotlib' (simulated)")

    monkeypatch.setattr(plots, "require_matplotlib", missing)
    assert main(["--plot", str(tmp_path), "--no-progress"]) == 2
    assert "--plot needs matplotlib" in capsys.readouterr().err


def test_package_imports_without_matplotlib() -> None:
    code = "import sys, simdcrypt.bench.cli; assert 'matplotlib' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_paper_tables(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, doc = run(
        tmp_path,
        "--paper",
        "--paper-scale",
        "2000",
        "--threads",
        "1",
        "-a",
        "blake3,sha256,sha3_256,salsa20,streebog256,streebog512,gost94",
    )
    assert status == 0
    titles = [t["title"] for t in doc["paper"]]
    assert len(titles) == 4 and titles[0].startswith("BLAKE3 from Python")
    threads_table = doc["paper"][0]
    assert threads_table["header"] == ["implementation", "threads", "50 KB", "100 KB", "500 KB"]
    assert all(cell.endswith(" s") for row in threads_table["rows"] for cell in row[2:])
    assert doc["clock"]["source"]
    assert "cycles/byte" in capsys.readouterr().out


def test_parsers() -> None:
    assert cli.parse_size("4K") == 4096
    assert cli.parse_size("100MB") == 100_000_000
    assert cli.parse_size("1G") == 1 << 30
    assert cli.parse_threads("1-3,8") == [1, 2, 3, 8]
    assert cli.LADDER[0] == 8 and cli.LADDER[-1] == 1 << 30


@pytest.mark.parametrize(
    "args", [["--sizes", "12Q"], ["--threads", "0"], ["-a", "md5"], ["--reps", "0"]]
)
def test_usage_errors(args: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(args)
    assert exit_info.value.code == 2
    assert "error" in capsys.readouterr().err


def test_hashlib_merkle_reference_matches_simdcrypt() -> None:
    # The Merkle peer is an independent reference (issue 8): check it on an odd leaf count.
    import simdcrypt

    leaves = hashlib.sha256(b"seed").digest() * 5
    reference = adapters._peer_merkle_loop(hashlib, 1)
    assert reference(leaves) == simdcrypt.merkle_root(leaves)


def test_a_jump_from_tiny_to_large_sizes_is_not_mistaken_for_slowness(tmp_path: Path) -> None:
    # 8 B takes about a microsecond, mostly call overhead: scaled to 4 MiB that would be
    # half a second. The runner probes 64 KiB before calling it too slow.
    status, doc = run(tmp_path, "-a", "sha256", "--sizes", "8,4M", "--max-call", "0.2")
    assert status == 0
    assert {r["size"] for r in doc["results"]} == {8, 4 << 20}


def test_scaling_ratio_uses_single_thread_peers(tmp_path: Path) -> None:
    status, doc = run(
        tmp_path, "-a", "sha256_many", "--sizes", "64", "--threads", "1,2", "--scaling-size", "64K"
    )
    assert status == 0
    scaling = [r for r in doc["results"] if r["series"] == "threads"]
    peer = next(r for r in scaling if not r["simdcrypt"])
    assert peer["threads"] == 1
    two = next(r for r in scaling if r["simdcrypt"] and r["threads"] == 2)
    assert two["ratio_to_best_peer"] == pytest.approx(two["mb_per_s"] / peer["mb_per_s"])


def test_unverified_and_unknown_peer(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # sha256_many has no known answer: without its peer nothing checks simdcrypt's output.
    status, doc = run(
        tmp_path, "-a", "sha256_many", "--sizes", "64", "--no-scaling", "--peers", "blake3"
    )
    assert status == 0
    assert [e["kind"] for e in doc["events"]] == ["unverified"]
    with pytest.raises(SystemExit):
        main(["--peers", "nosuchpeer"])
    assert "unknown peer nosuchpeer" in capsys.readouterr().err


def test_progress_display_on_a_terminal() -> None:
    import io

    from simdcrypt.bench.progress import Progress

    stream = io.StringIO()
    progress = Progress(True, stream)
    progress.begin(2)
    progress.step("blake3 1 MiB: ")
    progress.note("SKIPPED: something")
    progress.step("sha256 1 MiB: ")
    progress.finish()
    text = stream.getvalue()
    assert "[1/2 " in text and "blake3 1 MiB" in text and "[2/2 " in text
    assert "SKIPPED: something\n" in text and text.endswith("\r\x1b[K")
    silent = io.StringIO()
    quiet = Progress(None, silent)  # not a terminal: nothing
    quiet.begin(1)
    quiet.step("x")
    quiet.finish()
    assert silent.getvalue() == ""
