"""simdcrypt.dask: files hashed on a Dask cluster give the digests of simdcrypt, hashlib and
b3sum (``$B3SUM``, if set), resume from checkpoints, refuse foreign ones, and report
missing files while the others finish.

One module-scoped LocalCluster (2 single-threaded worker processes) serves the tests, so
that they take seconds. Skipped if dask.distributed or fsspec is not installed.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("distributed", reason="simdcrypt.dask needs dask[distributed] (requirements-dev.txt)")
pytest.importorskip("fsspec", reason="simdcrypt.dask needs fsspec (requirements-dev.txt)")

import distributed  # noqa: E402
import fsspec  # noqa: E402

import simdcrypt  # noqa: E402
import simdcrypt.dask as sd  # noqa: E402

PART = 4096  # 4 chunks a part: small inputs already make trees of several parts
KEY = bytes(range(32))


@pytest.fixture(scope="module")
def client() -> Iterator[Any]:
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
    ) as cluster, distributed.Client(cluster) as c:
        yield c


def data_of(n: int) -> bytes:
    return bytes((i * 31 + (i >> 10)) % 251 for i in range(n))


SIZES = sorted(
    {0, 1, 1023, 1024, 1025, PART - 1, PART, PART + 1, 2 * PART + 1}
    | {k * 1024 + d for k in (8, 16, 32) for d in (-1, 0, 1)}
    | {5 * PART + 700}
)


def test_blake3_every_mode_and_size(client: Any, tmp_path: Path) -> None:
    for n in SIZES:
        data = data_of(n)
        path = tmp_path / f"f{n}"
        path.write_bytes(data)
        for kwargs in ({}, {"key": KEY}, {"derive_key_context": "simdcrypt dask tests v1"}):
            for length in (None, 1, 100):
                got = sd.hash_file(str(path), client=client, part_size=PART, length=length, progress=False, **kwargs)
                expected = simdcrypt.blake3(data, **kwargs).digest(length=32 if length is None else length)
                assert got == expected, (n, kwargs, length)
    b3sum = os.environ.get("B3SUM")
    if b3sum:
        files = [str(tmp_path / f"f{n}") for n in SIZES]
        out = subprocess.run([b3sum, *files], check=True, capture_output=True, text=True).stdout
        results = sd.hash_files(files, client=client, part_size=PART, progress=False)
        assert sd.format_manifest(results) == out


def test_other_algorithms_match_their_references(client: Any, tmp_path: Path) -> None:
    files = []
    for n in (0, 1, 100, 3 * PART + 5):
        p = tmp_path / f"g{n}"
        p.write_bytes(data_of(n))
        files.append(str(p))
    got = sd.hash_files(files, "sha256", client=client, part_size=PART, progress=False)
    assert got == {f: hashlib.sha256(Path(f).read_bytes()).digest() for f in files}
    assert list(got) == files
    for algorithm, kwargs in (("streebog512", {}), ("gost94-test", {}), ("highwayhash128", {"key": KEY})):
        got = sd.hash_files(files, algorithm, client=client, part_size=PART, progress=False, **kwargs)
        assert got == {f: simdcrypt.hash_file(f, algorithm, **kwargs) for f in files}, algorithm


def test_sparse_large_file(client: Any, tmp_path: Path) -> None:
    path = tmp_path / "sparse"
    with open(path, "wb") as f:
        f.truncate((1 << 30) + 12345)  # 1 GiB + a bit: the default makes 9 parts of 128 MiB, the last short
    assert sd.default_part_size((1 << 30) + 12345) == 128 << 20
    assert sd.hash_file(str(path), client=client, progress=False) == simdcrypt.hash_file(path, max_threads=2)


def test_resume_hashes_only_what_is_missing(client: Any, tmp_path: Path) -> None:
    path = tmp_path / "big"
    data = data_of(13 * PART + 77)
    path.write_bytes(data)
    ckpt = tmp_path / "ckpt.json"
    expected = simdcrypt.blake3(data).digest()
    assert sd.hash_file(str(path), client=client, part_size=PART, checkpoint=ckpt, progress=False) == expected
    doc = json.loads(ckpt.read_text())
    assert doc["hashed_this_run"] == 14 and len(doc["parts"]) == 14
    # An interrupted run: three parts never finished.
    for offset in ("0", str(5 * PART), str(13 * PART)):
        del doc["parts"][offset]
    ckpt.write_text(json.dumps(doc))
    assert sd.hash_file(str(path), client=client, part_size=PART, checkpoint=ckpt, progress=False) == expected
    assert json.loads(ckpt.read_text())["hashed_this_run"] == 3
    # A finished checkpoint: nothing is hashed again.
    assert sd.hash_file(str(path), client=client, part_size=PART, checkpoint=ckpt, progress=False) == expected
    assert json.loads(ckpt.read_text())["hashed_this_run"] == 0
    # A damaged chaining value is refused, not merged.
    doc = json.loads(ckpt.read_text())
    doc["parts"]["0"] = "zz"
    ckpt.write_text(json.dumps(doc))
    with pytest.raises(ValueError, match="damaged part"):
        sd.hash_file(str(path), client=client, part_size=PART, checkpoint=ckpt, progress=False)
    # A hash that runs as one task records its result.
    ckpt2 = tmp_path / "sha.json"
    for hashed in (1, 0):
        got = sd.hash_file(str(path), "sha256", client=client, checkpoint=ckpt2, progress=False)
        assert got == hashlib.sha256(data).digest()
        assert json.loads(ckpt2.read_text())["hashed_this_run"] == hashed


def test_foreign_checkpoints_are_refused(client: Any, tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    a.write_bytes(data_of(3 * PART))
    b.write_bytes(data_of(3 * PART))
    ckpt = tmp_path / "a.json"
    sd.hash_file(str(a), client=client, part_size=PART, checkpoint=ckpt, progress=False)
    run = dict(client=client, part_size=PART, checkpoint=ckpt, progress=False)
    with pytest.raises(ValueError, match="another file"):
        sd.hash_file(str(b), **run)
    with pytest.raises(ValueError, match="another mode or key"):
        sd.hash_file(str(a), key=KEY, **run)
    with pytest.raises(ValueError, match="another algorithm"):
        sd.hash_file(str(a), "sha256", **run)
    with pytest.raises(ValueError, match="another part size"):
        sd.hash_file(str(a), **{**run, "part_size": 2 * PART})
    st = a.stat()
    os.utime(a, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))
    with pytest.raises(ValueError, match="modified since"):
        sd.hash_file(str(a), **run)
    a.write_bytes(data_of(3 * PART + 1))
    with pytest.raises(ValueError, match="size changed"):
        sd.hash_file(str(a), **run)
    (tmp_path / "junk.json").write_text("{")
    with pytest.raises(ValueError, match="not readable as JSON"):
        sd.hash_file(str(a), **{**run, "checkpoint": tmp_path / "junk.json"})


def test_missing_file_is_named_and_the_others_finish(client: Any, tmp_path: Path) -> None:
    good = [tmp_path / "x", tmp_path / "y"]
    good[0].write_bytes(data_of(10))
    good[1].write_bytes(data_of(3 * PART))
    missing = str(tmp_path / "nope")
    with pytest.raises(sd.HashFilesError, match="nope: no such file") as info:
        sd.hash_files([str(good[0]), missing, str(good[1])], client=client, part_size=PART, progress=False)
    assert set(info.value.errors) == {missing}
    assert info.value.results == {str(p): simdcrypt.hash_file(p) for p in good}
    with pytest.raises(FileNotFoundError, match="nope: no such file"):
        sd.hash_file(missing, client=client, progress=False)


def test_globs_and_manifests(client: Any, tmp_path: Path) -> None:
    for name in ("m1.bin", "m2.bin", "other.txt"):
        (tmp_path / name).write_bytes(name.encode() * 700)
    results = sd.hash_files(str(tmp_path / "m*.bin"), client=client, part_size=PART, progress=False)
    assert list(results) == [str(tmp_path / "m1.bin"), str(tmp_path / "m2.bin")]
    manifest = tmp_path / "SUMS"
    sd.write_manifest(results, manifest)
    lines = manifest.read_text().splitlines()
    assert lines == [f"{results[n].hex()}  {n}" for n in results]
    sd.write_manifest(results, manifest, tag=True)
    assert manifest.read_text().splitlines()[0] == f"BLAKE3 ({tmp_path / 'm1.bin'}) = {results[str(tmp_path / 'm1.bin')].hex()}"
    # Names escaped as b3sum and sha256sum escape them.
    odd = {"a\\b\nc": b"\x01", "plain": b"\x02"}
    assert sd.format_manifest(odd, algorithm="sha256", tag=True) == "\\SHA256 (a\\\\b\\nc) = 01\nSHA256 (plain) = 02\n"


def test_merkle_root_across_workers(client: Any, tmp_path: Path) -> None:
    for leaves in (0, 1, 2, 31, 32, 33, 1000):
        path = tmp_path / f"leaves{leaves}"
        data = data_of(32 * leaves)
        path.write_bytes(data)
        for depth in (None, 11, 12):
            got = sd.merkle_root(str(path), depth=depth, client=client, part_size=1024, progress=False)
            assert got == simdcrypt.merkle_root(data, depth=depth), (leaves, depth)
    with pytest.raises(ValueError, match="32-byte leaves"):
        (tmp_path / "odd").write_bytes(b"x" * 33)
        sd.merkle_root(str(tmp_path / "odd"), client=client, progress=False)


def test_default_part_size_depends_on_the_file_size_only() -> None:
    mib = 1 << 20
    assert sd.default_part_size(0) == sd.default_part_size(1) == sd.DEFAULT_PART_SIZE == 64 * mib
    assert sd.default_part_size(1 << 30) == 64 * mib  # 16 parts
    assert sd.default_part_size((1 << 30) + 1) == 128 * mib
    assert sd.default_part_size(4 << 30) == 256 * mib
    assert sd.default_part_size((4 << 30) + 1) == sd.default_part_size(1 << 40) == sd.MAX_DEFAULT_PART_SIZE == 256 * mib
    for size in (0, 1, 1000, 64 * mib + 1, 3 << 30, 17 << 30, 5 << 40):
        part = sd.default_part_size(size)
        assert part & (part - 1) == 0 and sd.DEFAULT_PART_SIZE <= part <= sd.MAX_DEFAULT_PART_SIZE
        assert part == sd.MAX_DEFAULT_PART_SIZE or -(-size // part) <= 16


def test_a_checkpoint_keeps_its_part_size_when_none_is_given(client: Any, tmp_path: Path) -> None:
    path = tmp_path / "p"
    data = data_of(9 * PART + 5)
    path.write_bytes(data)
    ckpt = tmp_path / "p.json"
    assert sd.hash_file(str(path), client=client, part_size=PART, checkpoint=ckpt, progress=False) == simdcrypt.blake3(data).digest()
    doc = json.loads(ckpt.read_text())
    del doc["parts"][str(4 * PART)]
    ckpt.write_text(json.dumps(doc))
    # No part size given: the checkpoint's, not the default, so that the run resumes.
    assert sd.hash_file(str(path), client=client, checkpoint=ckpt, progress=False) == simdcrypt.blake3(data).digest()
    doc = json.loads(ckpt.read_text())
    assert doc["part_size"] == PART and doc["hashed_this_run"] == 1 and len(doc["parts"]) == 10


def test_parts_read_in_windows(monkeypatch: pytest.MonkeyPatch) -> None:
    # A file system that is read, not memory-mapped, is read a window at a time; with
    # threads as workers the window can be made small here, so that parts take several.
    monkeypatch.setattr(sd, "_WINDOW_LEN", 2048)
    fs = fsspec.filesystem("memory")
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=2, processes=False, dashboard_address=":0"
    ) as cluster, distributed.Client(cluster) as c:
        for n in (4 * PART, 4 * PART + 1, 5 * PART + 2048, 6 * PART + 3000, 7 * PART - 1):
            data = data_of(n)
            fs.pipe("/simdcrypt-test/w.bin", data)
            for kwargs in ({}, {"key": KEY}):
                got = sd.hash_file("memory://simdcrypt-test/w.bin", client=c, part_size=4 * PART, progress=False, **kwargs)
                assert got == simdcrypt.blake3(data, **kwargs).digest(), (n, kwargs)
    fs.rm("/simdcrypt-test/w.bin")


def test_memory_filesystem_with_threads() -> None:
    # memory:// lives in one process: the workers must be threads of this one.
    fs = fsspec.filesystem("memory")
    data = data_of(6 * PART + 3)
    fs.pipe("/simdcrypt-test/m.bin", data)
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=2, processes=False, dashboard_address=":0"
    ) as cluster, distributed.Client(cluster) as c:
        assert sd.hash_file("memory://simdcrypt-test/m.bin", client=c, part_size=PART, progress=True) == simdcrypt.blake3(data).digest()
        # No client given: the current one is used.
        assert sd.hash_file("memory://simdcrypt-test/m.bin", part_size=PART, progress=False) == simdcrypt.blake3(data).digest()
    fs.rm("/simdcrypt-test/m.bin")


def test_command_line_prints_what_simdcrypt_sum_prints(client: Any, tmp_path: Path) -> None:
    files = []
    for n in (0, 2 * PART + 1):
        p = tmp_path / f"c{n}"
        p.write_bytes(data_of(n))
        files.append(str(p))
    address = client.scheduler.address
    cmd = [sys.executable, "-m", "simdcrypt.dask", "sum", "--scheduler", address, "--part-size", str(PART)]
    out = subprocess.run([*cmd, *files], check=True, capture_output=True, text=True).stdout
    assert out == "".join(f"{simdcrypt.hash_file(f).hex()}  {f}\n" for f in files)
    out = subprocess.run([*cmd, "-a", "sha256", "--tag", *files], check=True, capture_output=True, text=True).stdout
    assert out == "".join(f"SHA256 ({f}) = {hashlib.sha256(Path(f).read_bytes()).hexdigest()}\n" for f in files)
    ckpt = tmp_path / "cli.json"
    for _ in range(2):  # the second run reads every part from the checkpoint
        out = subprocess.run([*cmd, "--checkpoint", str(ckpt), files[1]], check=True, capture_output=True, text=True).stdout
        assert out == f"{simdcrypt.hash_file(files[1]).hex()}  {files[1]}\n"
    assert json.loads(ckpt.read_text())["hashed_this_run"] == 0
    usage = subprocess.run([*cmd, "--checkpoint", str(ckpt), *files], capture_output=True, text=True)
    assert usage.returncode == 2 and "one URL" in usage.stderr
    missing = subprocess.run([*cmd, files[0], str(tmp_path / "nope")], capture_output=True, text=True)
    assert missing.returncode == 1
    assert "nope: no such file" in missing.stderr
    assert missing.stdout == f"{simdcrypt.hash_file(files[0]).hex()}  {files[0]}\n"


def test_a_worker_killed_during_a_run_changes_nothing_but_time(client: Any, tmp_path: Path) -> None:
    import threading
    import time

    path = tmp_path / "k"
    data = data_of(1200 * 1024)  # 1200 tasks: long enough to be cut
    path.write_bytes(data)
    result: dict[str, Any] = {}

    def run() -> None:
        try:
            result["digest"] = sd.hash_file(str(path), client=client, part_size=1024, progress=False)
        except BaseException as e:  # reported below
            result["error"] = e

    thread = threading.Thread(target=run)
    thread.start()
    time.sleep(0.3)
    if not thread.is_alive():
        thread.join()
        pytest.skip("the run finished before a worker could be killed")
    victim = sorted(client.scheduler_info()["workers"])[0]
    # The worker process exits at once (its nanny starts another); its tasks run again.
    with pytest.raises(Exception):  # noqa: B017 - the worker never answers
        client.run(os._exit, 1, workers=[victim])
    thread.join(timeout=120)
    assert "error" not in result, result.get("error")
    assert result["digest"] == simdcrypt.blake3(data).digest()
    client.wait_for_workers(2, timeout=60)


def _simdcrypt_cli() -> str | None:
    """The `simdcrypt` binary: $SIMDCRYPT_CLI, else on PATH, else built in this repository."""
    import shutil

    if os.environ.get("SIMDCRYPT_CLI"):
        return os.environ["SIMDCRYPT_CLI"]
    root = Path(__file__).resolve().parents[3]
    for candidate in (shutil.which("simdcrypt"), root / "target/release/simdcrypt", root / "target/debug/simdcrypt"):
        if candidate and Path(candidate).is_file():
            return str(candidate)
    return None


@pytest.mark.parametrize(("algorithm", "tag"), [("blake3", False), ("sha256", True), ("streebog256", False)])
def test_manifests_match_simdcrypt_sum_and_pass_check(client: Any, tmp_path: Path, algorithm: str, tag: bool) -> None:
    cli = _simdcrypt_cli()
    if cli is None:
        pytest.skip("no simdcrypt binary (set SIMDCRYPT_CLI or cargo build -p simdcrypt-cli)")
    names = ["plain", "with space", "back\\slash", "new\nline"]
    for i, name in enumerate(names):
        (tmp_path / name).write_bytes(data_of(1000 * i + 3 * PART * (i % 2)))
    tag_arg = ["--tag"] if tag else []
    # simdcrypt sum prints names as given: run it in the folder, with relative names.
    expected = subprocess.run([cli, "sum", "-a", algorithm, *tag_arg, *names], cwd=tmp_path, check=True, capture_output=True, text=True).stdout
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        results = sd.hash_files(names, algorithm, client=client, part_size=PART, progress=False)
        sd.write_manifest(results, "SUMS", tag, algorithm=algorithm)
    finally:
        os.chdir(cwd)
    assert (tmp_path / "SUMS").read_text() == expected
    check_args = [] if tag else ["-a", algorithm]
    check = subprocess.run([cli, "check", *check_args, "SUMS"], cwd=tmp_path, capture_output=True, text=True)
    assert check.returncode == 0, check.stdout + check.stderr


# --- chunk_file / xet_hash_file: one file's chunks across workers -----------------------


def chunk_lists(c: simdcrypt.Chunks) -> tuple[list[int], list[int], list[bytes] | None]:
    digests = None if c.digests is None else [bytes(d) for d in c.digests]
    return [int(o) for o in c.offsets], [int(n) for n in c.lengths], digests


def test_chunk_file_equals_one_process_for_any_parts(client: Any, tmp_path: Path) -> None:
    import random

    rng = random.Random(46)
    data = rng.randbytes(700_001)
    path = tmp_path / "c.bin"
    path.write_bytes(data)
    want = chunk_lists(simdcrypt.chunks(data))
    cuts = [int(o) for o in simdcrypt.chunks(data).offsets[1:4]]
    lookback = simdcrypt._native._CHUNK_PART_LOOKBACK
    # Part edges on cut points, next to them, at the Gear window's reach before them, and
    # parts smaller and larger than a chunk.
    sizes = {cuts[0] + d for d in (-lookback - 1, -lookback, -1, 0, 1)}
    sizes |= {cuts[1], 131_073, len(data) - 1, len(data), 10 * len(data)}
    for part_size in sorted(sizes):
        got = sd.chunk_file(str(path), client=client, part_size=part_size, progress=False)
        assert chunk_lists(got) == want, part_size
    assert chunk_lists(sd.chunk_file(str(path), client=client, progress=False)) == want


def test_chunk_file_small_files_digests_and_fastcdc(client: Any, tmp_path: Path) -> None:
    import random

    rng = random.Random(47)
    for n in (0, 1, 100, 8193, 131_073, 300_000):
        data = rng.randbytes(n)
        path = tmp_path / f"s{n}"
        path.write_bytes(data)
        for part_size in (65_536,) if n > 1000 else (7, 1000):
            for digest in ("xet", "blake3", "sha256", None) if n == 300_000 else ("xet",):
                got = sd.chunk_file(str(path), client=client, part_size=part_size, digest=digest, progress=False)
                assert chunk_lists(got) == chunk_lists(simdcrypt.chunks(data, digest=digest)), (n, part_size, digest)
        fast = {"chunker": "fastcdc2020", "min_size": 2048, "avg_size": 8192, "max_size": 32768}
        got = sd.chunk_file(str(path), client=client, part_size=65_536, progress=False, **fast)
        assert chunk_lists(got) == chunk_lists(simdcrypt.chunks(data, **fast)), n


def test_xet_hash_file_across_workers(client: Any, tmp_path: Path) -> None:
    import random

    rng = random.Random(48)
    files = []
    for n in (0, 1, 131_073, 1_000_000):
        p = tmp_path / f"x{n}"
        p.write_bytes(rng.randbytes(n))
        files.append(p)
    for p in files:
        want = simdcrypt.xet_hash(p)
        for part_size in (100_000, None):
            assert sd.xet_hash_file(str(p), client=client, part_size=part_size, progress=False) == want, p
    try:
        import hf_xet
    except ImportError:
        return
    for p, info in zip(files, hf_xet.hash_files([str(p) for p in files])):
        assert sd.xet_hash_file(str(p), client=client, part_size=65_536, progress=False) == info.hash


def test_chunk_file_errors(client: Any, tmp_path: Path) -> None:
    path = tmp_path / "e.bin"
    path.write_bytes(b"x" * 1000)
    with pytest.raises(FileNotFoundError, match="missing"):
        sd.chunk_file(str(tmp_path / "missing"), client=client, progress=False)
    for kwargs, message in (
        ({"chunker": "rabin"}, "chunker"),
        ({"min_size": 4096}, "min_size"),
        ({"digest": "md5"}, "digest"),
        ({"part_size": 0}, "part_size"),
    ):
        with pytest.raises(ValueError, match=message):
            sd.chunk_file(str(path), client=client, progress=False, **kwargs)


def test_chunk_file_memory_filesystem_in_windows(monkeypatch: pytest.MonkeyPatch) -> None:
    # Windows smaller than a part and than a chunk: phase 1 scans and phase 2 hashes a
    # window at a time, with the same result.
    import random

    monkeypatch.setattr(sd, "_WINDOW_LEN", 5000)
    fs = fsspec.filesystem("memory")
    data = random.Random(49).randbytes(400_003)
    fs.pipe("/simdcrypt-test/cw.bin", data)
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=2, processes=False, dashboard_address=":0"
    ) as cluster, distributed.Client(cluster) as c:
        got = sd.chunk_file("memory://simdcrypt-test/cw.bin", client=c, part_size=150_000, progress=False)
    fs.rm("/simdcrypt-test/cw.bin")
    assert chunk_lists(got) == chunk_lists(simdcrypt.chunks(data))
