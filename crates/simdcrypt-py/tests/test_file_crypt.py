"""encrypt_file / decrypt_file / open_encrypted: round trips with keys and passphrases
(small Argon2id parameters: the header carries them), the same file from every writer,
random access that authenticates what it returns, files that appear whole or not at
all, the CLI's format, and hypothesis over random and mutated files (always an error,
never a crash, never a partial output)."""

from __future__ import annotations

import io
import os
import random
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import simdcrypt

KEY = bytes(range(32))
CHEAP = (8, 1, 1)
CHUNK = 65536
SEALED = CHUNK + 16
HEADER = 96


def data(n: int, seed: int = 0) -> bytes:
    return random.Random(seed).randbytes(n)


def test_round_trips_with_key_and_passphrase(tmp_path: Path) -> None:
    for n in [0, 1, CHUNK - 1, CHUNK, CHUNK + 1, 3 * CHUNK + 7]:
        plain = data(n, n)
        (tmp_path / "p").write_bytes(plain)
        for kw in [{"key": KEY}, {"passphrase": "pässword", "argon2": CHEAP}, {"passphrase": b"pw", "argon2": CHEAP}]:
            assert simdcrypt.encrypt_file(tmp_path / "p", tmp_path / "e", max_threads=2, **kw) == n  # type: ignore[arg-type]
            enc = (tmp_path / "e").read_bytes()
            assert enc[:9] == b"SIMDCRPT\x02"
            assert len(enc) == HEADER + n + 16 * max(1, -(-n // CHUNK))
            dkw = {k: v for k, v in kw.items() if k != "argon2"}
            for threads in [1, 2, -1]:
                assert simdcrypt.decrypt_file(tmp_path / "e", tmp_path / "d", max_threads=threads, **dkw) == n  # type: ignore[arg-type]
                assert (tmp_path / "d").read_bytes() == plain
            with simdcrypt.open_encrypted(tmp_path / "e", **dkw) as f:  # type: ignore[arg-type]
                assert len(f) == n
                assert f.read() == plain
    assert sorted(os.listdir(tmp_path)) == ["d", "e", "p"], "no temporary files left"


def test_reader_is_a_seekable_binary_file(tmp_path: Path) -> None:
    plain = data(5 * CHUNK + 999, 1)
    with simdcrypt.open_encrypted(tmp_path / "e", "wb", key=KEY) as w:
        assert isinstance(w, io.BufferedIOBase)
        rng = random.Random(2)
        at = 0
        while at < len(plain):
            step = rng.randrange(1, 100_000)
            assert w.write(memoryview(plain)[at : at + step]) == len(plain[at : at + step])
            at += step
        assert w.tell() == len(plain)
    assert w.closed
    f = simdcrypt.open_encrypted(tmp_path / "e", "rb", key=KEY)
    assert isinstance(f, io.BufferedIOBase) and f.readable() and f.seekable() and not f.writable()
    rng = random.Random(3)
    for _ in range(300):
        pos = rng.randrange(0, len(plain) + 10)
        size = rng.randrange(-1, 3 * CHUNK)
        assert f.seek(pos) == pos
        got = f.read(size)
        want = plain[pos:] if size < 0 else plain[pos : pos + size]
        assert got == want, (pos, size)
        assert f.tell() == min(len(plain), pos + len(got)) if pos <= len(plain) else pos
    assert f.seek(-10, 2) == len(plain) - 10
    buf = bytearray(20)
    assert f.readinto(buf) == 10 and bytes(buf[:10]) == plain[-10:]
    f.seek(5)
    assert f.seek(7, 1) == 12
    with pytest.raises(ValueError):
        f.seek(-1)
    f.close()
    with pytest.raises(ValueError, match="closed"):
        f.read()
    # The same plaintext through io.BufferedReader-style consumers.
    with simdcrypt.open_encrypted(tmp_path / "e", key=KEY) as f2:
        assert shutil.copyfileobj(f2, out := io.BytesIO()) is None
        assert out.getvalue() == plain


def test_damage_fails_only_the_chunks_it_touches(tmp_path: Path) -> None:
    plain = data(4 * CHUNK, 4)
    (tmp_path / "p").write_bytes(plain)
    simdcrypt.encrypt_file(tmp_path / "p", tmp_path / "e", key=KEY)
    enc = bytearray((tmp_path / "e").read_bytes())
    enc[HEADER + 2 * SEALED + 50] ^= 1
    (tmp_path / "bad").write_bytes(enc)
    with simdcrypt.open_encrypted(tmp_path / "bad", key=KEY) as f:
        assert f.read(2 * CHUNK) == plain[: 2 * CHUNK]
        with pytest.raises(simdcrypt.AuthenticationError, match="chunk 2"):
            f.read(10)
        buf = bytearray(b"\xaa" * 10)
        with pytest.raises(simdcrypt.AuthenticationError):
            f.readinto(buf)
        assert buf == b"\xaa" * 10, "nothing of a failed chunk reaches the caller"
        f.seek(3 * CHUNK)
        assert f.read() == plain[3 * CHUNK :]
    with pytest.raises(simdcrypt.AuthenticationError):
        simdcrypt.decrypt_file(tmp_path / "bad", tmp_path / "out", key=KEY)
    assert not (tmp_path / "out").exists()
    with pytest.raises(simdcrypt.AuthenticationError, match="header authentication"):
        simdcrypt.open_encrypted(tmp_path / "e", key=bytes(32))
    with pytest.raises(ValueError, match="passphrase"):
        simdcrypt.open_encrypted(tmp_path / "e", passphrase="x")
    assert sorted(os.listdir(tmp_path)) == ["bad", "e", "p"]


def test_arguments_are_checked(tmp_path: Path) -> None:
    (tmp_path / "p").write_bytes(b"x")
    with pytest.raises(ValueError, match="or a passphrase is required"):
        simdcrypt.encrypt_file(tmp_path / "p", tmp_path / "e")
    with pytest.raises(ValueError, match="not both"):
        simdcrypt.encrypt_file(tmp_path / "p", tmp_path / "e", key=KEY, passphrase="x")
    with pytest.raises(ValueError, match="32 bytes, got 3"):
        simdcrypt.encrypt_file(tmp_path / "p", tmp_path / "e", key=b"abc")
    with pytest.raises(ValueError, match="outside"):
        simdcrypt.encrypt_file(tmp_path / "p", tmp_path / "e", passphrase="x", argon2=(1 << 21, 1, 1))
    with pytest.raises(ValueError, match="same file"):
        simdcrypt.encrypt_file(tmp_path / "p", tmp_path / "p", key=KEY)
    with pytest.raises(FileNotFoundError):
        simdcrypt.decrypt_file(tmp_path / "missing", tmp_path / "d", key=KEY)
    with pytest.raises(ValueError, match="mode"):
        simdcrypt.open_encrypted(tmp_path / "p", "ab", key=KEY)  # type: ignore[call-overload]
    with pytest.raises(ValueError, match="not a simdcrypt encrypted file"):
        simdcrypt.open_encrypted(tmp_path / "p", key=KEY)
    assert (tmp_path / "p").read_bytes() == b"x"
    assert sorted(os.listdir(tmp_path)) == ["p"]


def test_a_writer_left_by_an_exception_leaves_nothing(tmp_path: Path) -> None:
    (tmp_path / "old").write_bytes(b"old")
    with pytest.raises(RuntimeError):
        with simdcrypt.open_encrypted(tmp_path / "old", "wb", key=KEY) as w:
            w.write(b"new" * 100_000)
            raise RuntimeError
    assert (tmp_path / "old").read_bytes() == b"old"
    w2 = simdcrypt.open_encrypted(tmp_path / "new", "wb", key=KEY)
    w2.write(b"abc")
    del w2
    assert sorted(os.listdir(tmp_path)) == ["old"]


def cli() -> str | None:
    exe = shutil.which("simdcrypt")
    root = Path(__file__).resolve().parents[3]
    for build in ["release", "debug"]:
        p = root / "target" / build / "simdcrypt"
        if p.exists():
            return str(p)
    return exe


def test_the_cli_reads_what_python_writes_and_back(tmp_path: Path) -> None:
    exe = cli()
    if exe is None:
        pytest.skip("the simdcrypt CLI is not built (cargo build -p simdcrypt-cli)")
    plain = data(2 * CHUNK + 3, 5)
    (tmp_path / "p").write_bytes(plain)
    (tmp_path / "k").write_bytes(KEY)
    (tmp_path / "pw").write_text("horse\n")
    simdcrypt.encrypt_file(tmp_path / "p", tmp_path / "e", passphrase="horse", argon2=CHEAP)
    subprocess.run([exe, "decrypt", "--passphrase-file", "pw", "e", "-o", "d"], cwd=tmp_path, check=True)
    assert (tmp_path / "d").read_bytes() == plain
    subprocess.run([exe, "encrypt", "-k", "k", "p", "-o", "e2"], cwd=tmp_path, check=True)
    assert simdcrypt.decrypt_file(tmp_path / "e2", tmp_path / "d2", key=KEY) == len(plain)
    assert (tmp_path / "d2").read_bytes() == plain


SMALL = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@SMALL
@given(st.binary(max_size=300), st.booleans())
def test_random_bytes_never_open(tmp_path: Path, blob: bytes, magic: bool) -> None:
    if magic and len(blob) >= 10:
        blob = b"SIMDCRPT\x02\x10" + blob[10:]
    (tmp_path / "r").write_bytes(blob)
    with pytest.raises(ValueError):  # AuthenticationError is a ValueError
        simdcrypt.open_encrypted(tmp_path / "r", key=KEY).read()
    with pytest.raises(ValueError):
        simdcrypt.decrypt_file(tmp_path / "r", tmp_path / "out", key=KEY)
    assert not (tmp_path / "out").exists()


_SEALED_CACHE: dict[int, bytes] = {}


def sealed_of(tmp_path: Path, n: int) -> bytes:
    if n not in _SEALED_CACHE:
        (tmp_path / "src").write_bytes(data(n, 9))
        simdcrypt.encrypt_file(tmp_path / "src", tmp_path / "src.enc", key=KEY)
        _SEALED_CACHE[n] = (tmp_path / "src.enc").read_bytes()
    return _SEALED_CACHE[n]


@SMALL
@given(
    st.sampled_from([0, 10, CHUNK, 2 * CHUNK + 1]),
    st.sampled_from(["flip", "truncate", "append", "swap", "header"]),
    st.integers(min_value=0, max_value=1 << 30),
    st.integers(min_value=1, max_value=255),
)
def test_mutated_files_always_fail_without_output(tmp_path: Path, n: int, kind: str, at: int, byte: int) -> None:
    sealed = bytearray(sealed_of(tmp_path, n))
    bad = bytearray(sealed)
    if kind == "flip":
        bad[at % len(bad)] ^= byte
    elif kind == "truncate":
        del bad[at % len(bad) :]
    elif kind == "append":
        bad.append(byte)
    elif kind == "header":
        bad[8 + at % 88] ^= byte
    else:
        chunks = [bytes(sealed[i : i + SEALED]) for i in range(HEADER, len(sealed), SEALED)]
        i, j = at % len(chunks), (at // 7) % len(chunks)
        if i == j:
            chunks.insert(i, chunks[i])
        else:
            chunks[i], chunks[j] = chunks[j], chunks[i]
        bad = bytearray(sealed[:HEADER] + b"".join(chunks))
    if bad == sealed:
        return
    (tmp_path / "bad").write_bytes(bad)
    with pytest.raises(ValueError):
        with simdcrypt.open_encrypted(tmp_path / "bad", key=KEY) as f:
            f.read()
    with pytest.raises(ValueError):
        simdcrypt.decrypt_file(tmp_path / "bad", tmp_path / "out", key=KEY, max_threads=2)
    assert not (tmp_path / "out").exists()
    assert not [p for p in os.listdir(tmp_path) if p.endswith(".tmp")]
