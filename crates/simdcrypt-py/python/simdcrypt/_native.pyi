# Type stubs of the native module (crates/simdcrypt-py/src). Hand-written: keep them in
# step with the Rust signatures; `python -m mypy.stubtest simdcrypt._native` compares them.

from collections.abc import Callable, Sequence
from os import PathLike
from typing import Any, ClassVar, Final, Literal, Protocol, TypedDict, TypeVar, final, overload, type_check_only

from typing_extensions import Buffer, NotRequired, Self

__all__ = [
    "ALGORITHMS",
    "AuthenticationError",
    "EncryptedReader",
    "EncryptedWriter",
    "Salsa20",
    "BaoReader",
    "BaoScrubReport",
    "TreeHash",
    "XSalsa20",
    "__version__",
    "_HASH_CLASSES",
    "_restore_state",
    "backends",
    "bao_decode",
    "bao_decode_slice",
    "bao_encode",
    "bao_scrub",
    "bao_slice",
    "blake3",
    "blake3_digest",
    "blake3_many",
    "blake3_merge",
    "blake3_subtree",
    "decrypt_file",
    "encrypt_file",
    "gost94",
    "gost94_many",
    "hash_file",
    "hash_tree",
    "highwayhash128",
    "highwayhash256",
    "highwayhash64",
    "highwayhash_many",
    "hmac_streebog256",
    "hmac_streebog512",
    "merkle_layers",
    "merkle_root",
    "open_encrypted",
    "secretbox_open",
    "secretbox_seal",
    "sha256",
    "sha256_many",
    "streebog256",
    "streebog512",
    "streebog_many",
]

__version__: Final[str]
ALGORITHMS: Final[tuple[str, ...]]

class _BackendInfo(TypedDict):
    selected: str
    supported: list[str]
    # The "cuda" entry only (the GPU backend of the batch functions): whether a GPU is
    # usable, why not, which one, and whether the backend has passed a run on a GPU.
    available: NotRequired[bool]
    reason: NotRequired[str | None]
    device: NotRequired[str | None]
    verified: NotRequired[bool]
    note: NotRequired[str]
    functions: NotRequired[list[str]]

@type_check_only
class _CudaArray(Protocol):
    """An array in GPU memory through the CUDA Array Interface (CuPy, Numba, PyTorch):
    C-contiguous, 1-byte items, on device 0."""

    @property
    def __cuda_array_interface__(self) -> dict[str, Any]: ...

@type_check_only
class _DLPackArray(Protocol):
    """An array that DLPack exports (PyTorch, CuPy, JAX): on a CUDA device it is read in
    place (C-contiguous, 1-byte items, device 0)."""

    def __dlpack__(self, *, stream: int | None = ...) -> Any: ...
    def __dlpack_device__(self) -> tuple[int, int]: ...

_DeviceArray = _CudaArray | _DLPackArray
_Out = TypeVar("_Out", bound=_CudaArray | _DLPackArray)

@type_check_only
class _MessageArray(Protocol):
    """An array-like buffer: a numpy array or a memoryview. blake3_many reads one as
    messages when it is 2-D and C-contiguous with 1-byte items, one message per row
    (checked at run time). Not a ``Buffer`` subclass: numpy declares ``__buffer__`` in its
    stubs for Python 3.12 and newer only."""

    @property
    def ndim(self) -> int: ...
    @property
    def itemsize(self) -> int: ...

@type_check_only
class _HashObject:
    """What every hash class has (stubs only): hashlib's interface, a constant-time
    verify(), and saved states (export(), restore(), pickling)."""

    digest_size: ClassVar[int]
    block_size: ClassVar[int]

    @property
    def backend(self) -> str: ...
    def copy(self) -> Self: ...
    def verify(self, expected: Buffer, /) -> bool: ...
    def export(self) -> bytes: ...
    @classmethod
    def restore(cls, blob: Buffer, /, *, key: Buffer | None = None) -> Self: ...
    def __reduce__(self) -> tuple[Callable[[bytes, bytes | None], Self], tuple[bytes, bytes | None]]: ...

@type_check_only
class _FixedHash(_HashObject):
    """A hash class with hashlib's fixed-length digest() and update() returning None."""

    name: ClassVar[str]

    def update(self, data: Buffer, /) -> None: ...
    def digest(self) -> bytes: ...
    def hexdigest(self) -> str: ...

@final
class blake3(_HashObject):
    """An incremental BLAKE3 hasher with extendable output, like hashlib's objects."""

    name: ClassVar[str]
    key_size: ClassVar[int]
    AUTO: ClassVar[int]

    def __new__(
        cls,
        data: Buffer = b"",
        /,
        *,
        key: Buffer | None = None,
        derive_key_context: str | None = None,
        max_threads: int = 1,
        usedforsecurity: bool = True,
        backend: str | None = None,
    ) -> Self: ...
    def update(self, data: Buffer, /) -> Self: ...
    def digest(self, length: int = 32, *, seek: int = 0) -> bytes:
        """`length` bytes of the extendable output from byte `seek`. A length past this
        machine's memory raises MemoryError naming the length and the limit (read a long
        output in pieces with seek=)."""

    def hexdigest(self, length: int = 32, *, seek: int = 0) -> str:
        """digest() as hexadecimal digits; the same limit on `length`."""

    def reset(self) -> None: ...

@final
class sha256(_FixedHash):
    """An incremental SHA-256 hasher with hashlib's interface."""

    def __new__(
        cls,
        data: Buffer = b"",
        /,
        *,
        usedforsecurity: bool = True,
        backend: str | None = None,
    ) -> Self: ...

@final
class streebog256(_FixedHash):
    """An incremental Streebog-256 (GOST R 34.11-2012) hasher with hashlib's interface."""

    def __new__(cls, data: Buffer = b"", /, *, backend: str | None = None) -> Self: ...

@final
class streebog512(_FixedHash):
    """An incremental Streebog-512 (GOST R 34.11-2012) hasher with hashlib's interface."""

    def __new__(cls, data: Buffer = b"", /, *, backend: str | None = None) -> Self: ...

@final
class hmac_streebog256(_FixedHash):
    """HMAC-Streebog-256 (RFC 7836) with hmac.HMAC's interface."""

    def __new__(cls, key: Buffer, data: Buffer = b"", /, *, backend: str | None = None) -> Self: ...

@final
class hmac_streebog512(_FixedHash):
    """HMAC-Streebog-512 (RFC 7836) with hmac.HMAC's interface."""

    def __new__(cls, key: Buffer, data: Buffer = b"", /, *, backend: str | None = None) -> Self: ...

@final
class gost94(_HashObject):
    """An incremental GOST R 34.11-94 hasher with hashlib's interface."""

    def __new__(
        cls,
        data: Buffer = b"",
        /,
        *,
        sbox: Literal["cryptopro", "test"] | str = "cryptopro",
        backend: str | None = None,
    ) -> Self: ...
    @property
    def name(self) -> str: ...
    @property
    def sbox(self) -> str: ...
    def update(self, data: Buffer, /) -> None: ...
    def digest(self) -> bytes: ...
    def hexdigest(self) -> str: ...

class AuthenticationError(ValueError):
    """A secretbox failed authentication (forged, corrupted, or wrong key/nonce)."""

@type_check_only
class _StreamCipher:
    """What Salsa20 and XSalsa20 share (stubs only): all but the nonce's length."""

    def __new__(
        cls,
        key: Buffer,
        nonce: Buffer,
        /,
        *,
        rounds: int = 20,
        counter: int = 0,
        max_threads: int = 1,
        backend: str | None = None,
    ) -> Self: ...
    def encrypt(self, data: Buffer, /) -> bytes: ...
    def decrypt(self, data: Buffer, /) -> bytes: ...
    def encrypt_into(self, data: Buffer, out: Buffer, /) -> None: ...
    def keystream(self, n: int, /) -> bytes: ...
    def seek(self, position: int, /) -> None: ...
    @property
    def position(self) -> int: ...
    @property
    def rounds(self) -> int: ...
    @property
    def backend(self) -> str: ...

@final
class Salsa20(_StreamCipher):
    """Salsa20/20 (/12, /8) with an 8-byte nonce."""

@final
class XSalsa20(_StreamCipher):
    """XSalsa20/20 (/12, /8) with a 24-byte nonce."""

def secretbox_seal(key: Buffer, nonce: Buffer, plaintext: Buffer, /) -> bytes: ...
def secretbox_open(key: Buffer, nonce: Buffer, boxed: Buffer, /) -> bytes: ...
@type_check_only
class _HighwayHashBase(_FixedHash):
    """The interface the three HighwayHash classes share (stubs only)."""

    def __new__(cls, data: Buffer = b"", /, *, key: Buffer, backend: str | None = None) -> Self: ...

@final
class highwayhash64(_HighwayHashBase):
    """HighwayHash with a 64-bit result, with hashlib's interface."""

    def intdigest(self) -> int: ...

@final
class highwayhash128(_HighwayHashBase):
    """HighwayHash with a 128-bit result, with hashlib's interface."""

@final
class highwayhash256(_HighwayHashBase):
    """HighwayHash with a 256-bit result, with hashlib's interface."""

# The classes of the algorithms new() takes (a new hash class joins this union).
_AnyHash = blake3 | sha256 | highwayhash64 | highwayhash128 | highwayhash256 | streebog256 | streebog512 | gost94

# Every hash class by its Python name (lib.rs's add_hash_class): new() and unpickling find
# classes here.
_HASH_CLASSES: Final[dict[str, type[_AnyHash | hmac_streebog256 | hmac_streebog512]]]

def backends() -> dict[str, _BackendInfo]: ...
def _restore_state(blob: Buffer, key: Buffer | None = None) -> _AnyHash | hmac_streebog256 | hmac_streebog512: ...
def hash_file(
    path: str | bytes | PathLike[str] | PathLike[bytes],
    algorithm: str = "blake3",
    *,
    length: int | None = None,
    max_threads: int = 1,
    key: Buffer | None = None,
    derive_key_context: str | None = None,
    backend: str | None = None,
    usedforsecurity: bool = True,
) -> bytes: ...
def hash_tree(
    dir: str | bytes | PathLike[str] | PathLike[bytes],
    *,
    manifest: str | bytes | PathLike[str] | PathLike[bytes] | None = None,
    algorithms: Sequence[str] | None = None,
    length: int | None = None,
    key: Buffer | None = None,
    derive_key_context: str | None = None,
    max_threads: int = -1,
    follow_symlinks: bool = False,
    trust_mtime: bool = False,
) -> TreeHash: ...
@final
class TreeHash:
    @property
    def entries(self) -> list[tuple[str, int, dict[str, bytes]]]: ...
    @property
    def errors(self) -> list[tuple[str, str]]: ...
    @property
    def tree_digest(self) -> bytes | None: ...
    @property
    def hashed(self) -> int: ...
    @property
    def reused(self) -> int: ...
    @property
    def algorithms(self) -> list[str]: ...
@overload
def blake3_many(
    messages: Sequence[Buffer] | _MessageArray | _DeviceArray,
    /,
    *,
    length: int = 32,
    key: Buffer | None = None,
    derive_key_context: str | None = None,
    max_threads: int = 1,
    backend: str | None = None,
    out: None = None,
) -> bytes: ...
@overload
def blake3_many(
    messages: Sequence[Buffer] | _MessageArray | _DeviceArray,
    /,
    *,
    length: int = 32,
    key: Buffer | None = None,
    derive_key_context: str | None = None,
    max_threads: int = 1,
    backend: str | None = None,
    out: _Out,
) -> _Out: ...
def blake3_digest(
    data: Buffer | _DeviceArray,
    /,
    *,
    length: int = 32,
    key: Buffer | None = None,
    derive_key_context: str | None = None,
    max_threads: int = 1,
    backend: str | None = None,
) -> bytes: ...
@overload
def sha256_many(
    blocks: Buffer | _DeviceArray,
    /,
    *,
    max_threads: int = 1,
    backend: str | None = None,
    out: None = None,
) -> bytes: ...
@overload
def sha256_many(
    blocks: Buffer | _DeviceArray,
    /,
    *,
    max_threads: int = 1,
    backend: str | None = None,
    out: _Out,
) -> _Out: ...
def merkle_root(
    leaves: Buffer | _DeviceArray,
    /,
    *,
    depth: int | None = None,
    max_threads: int = 1,
    backend: str | None = None,
) -> bytes: ...
def merkle_layers(
    leaves: Buffer,
    /,
    *,
    depth: int | None = None,
    max_threads: int = 1,
    backend: str | None = None,
) -> list[bytes]: ...
def blake3_subtree(
    data: Buffer,
    /,
    *,
    offset: int,
    key: Buffer | None = None,
    derive_key_context: str | None = None,
) -> bytes: ...
def blake3_merge(
    left: Buffer,
    right: Buffer,
    /,
    *,
    root: bool = False,
    length: int = 32,
    key: Buffer | None = None,
    derive_key_context: str | None = None,
) -> bytes: ...
@overload
def streebog_many(
    messages: Sequence[Buffer] | _MessageArray | _DeviceArray,
    /,
    *,
    bits: Literal[256, 512] | int = 256,
    max_threads: int = 1,
    backend: str | None = None,
    out: None = None,
) -> bytes: ...
@overload
def streebog_many(
    messages: Sequence[Buffer] | _MessageArray | _DeviceArray,
    /,
    *,
    bits: Literal[256, 512] | int = 256,
    max_threads: int = 1,
    backend: str | None = None,
    out: _Out,
) -> _Out: ...
@overload
def gost94_many(
    messages: Sequence[Buffer] | _MessageArray | _DeviceArray,
    /,
    *,
    sbox: Literal["cryptopro", "test"] | str = "cryptopro",
    max_threads: int = 1,
    backend: str | None = None,
    out: None = None,
) -> bytes: ...
@overload
def gost94_many(
    messages: Sequence[Buffer] | _MessageArray | _DeviceArray,
    /,
    *,
    sbox: Literal["cryptopro", "test"] | str = "cryptopro",
    max_threads: int = 1,
    backend: str | None = None,
    out: _Out,
) -> _Out: ...
def highwayhash_many(
    messages: Sequence[Buffer] | _MessageArray,
    /,
    *,
    key: Buffer,
    bits: int = 64,
    max_threads: int = 1,
    backend: str | None = None,
) -> bytes: ...

# Bao verified streaming (src/bao.rs): data and encodings are buffers or file paths.
_BaoInput = Buffer | str | PathLike[str]

@type_check_only
class _BinaryReadable(Protocol):
    def read(self, n: int, /) -> bytes: ...

@overload
def bao_encode(
    data: _BaoInput,
    /,
    *,
    outboard: bool = False,
    chunk_group_log: int = 0,
    max_threads: int = 1,
    output: None = None,
) -> tuple[bytes, bytes]:
    """(root, encoding); a path is read a window at a time, the encoding is returned."""

@overload
def bao_encode(
    data: _BaoInput,
    /,
    *,
    outboard: bool = False,
    chunk_group_log: int = 0,
    max_threads: int = 1,
    output: str | PathLike[str],
) -> tuple[bytes, None]:
    """(root, None): the encoding is written to `output` (whole or not at all), and memory
    does not grow with the data."""
def bao_decode(
    root: Buffer,
    encoded: _BaoInput,
    /,
    *,
    outboard: _BaoInput | None = None,
    chunk_group_log: int = 0,
    max_threads: int = 1,
) -> bytes: ...
def bao_slice(
    encoded: _BaoInput,
    start: int,
    count: int,
    /,
    *,
    outboard: _BaoInput | None = None,
    chunk_group_log: int = 0,
) -> bytes: ...
def bao_decode_slice(
    root: Buffer, slice: _BaoInput, start: int, count: int, /, *, chunk_group_log: int = 0
) -> bytes: ...
def bao_scrub(
    root: Buffer,
    data: _BaoInput,
    outboard: _BaoInput,
    /,
    *,
    chunk_group_log: int = 0,
    max_threads: int = 1,
) -> BaoScrubReport: ...
@final
class BaoScrubReport:
    @property
    def length(self) -> int: ...
    @property
    def data_length(self) -> int: ...
    @property
    def damaged(self) -> list[tuple[int, int]]: ...
    @property
    def outboard_damaged(self) -> list[tuple[int, int]]: ...
    @property
    def ok(self) -> bool: ...

@final
class BaoReader:
    def __new__(
        cls,
        root: Buffer,
        source: _BaoInput | _BinaryReadable,
        /,
        *,
        outboard: _BaoInput | _BinaryReadable | None = None,
        chunk_group_log: int = 0,
    ) -> Self: ...
    def read(self, size: int = -1, /) -> bytes: ...
    def readable(self) -> bool: ...
    def close(self) -> None: ...
    @property
    def closed(self) -> bool: ...
    def __enter__(self) -> Self: ...
    def __exit__(self, *_args: object) -> bool: ...

_Path = str | bytes | PathLike[str] | PathLike[bytes]

def encrypt_file(
    src: _Path,
    dst: _Path,
    *,
    key: Buffer | None = None,
    passphrase: str | Buffer | None = None,
    max_threads: int = 1,
    argon2: tuple[int, int, int] | None = None,
) -> int: ...
def decrypt_file(
    src: _Path,
    dst: _Path,
    *,
    key: Buffer | None = None,
    passphrase: str | Buffer | None = None,
    max_threads: int = 1,
) -> int: ...
@type_check_only
class _EncryptedFile:
    """What EncryptedReader and EncryptedWriter share (stubs only): a binary file object."""

    def tell(self) -> int: ...
    def close(self) -> None: ...
    def flush(self) -> None: ...
    def readable(self) -> bool: ...
    def writable(self) -> bool: ...
    def seekable(self) -> bool: ...
    @property
    def closed(self) -> bool: ...
    @property
    def name(self) -> _Path: ...
    @property
    def mode(self) -> str: ...
    def __enter__(self) -> Self: ...

@final
class EncryptedReader(_EncryptedFile):
    def read(self, size: int | None = -1, /) -> bytes: ...
    def read1(self, size: int | None = -1, /) -> bytes: ...
    def readall(self) -> bytes: ...
    def readinto(self, buffer: Buffer, /) -> int: ...
    def seek(self, offset: int, whence: int = 0, /) -> int: ...
    def __len__(self) -> int: ...
    def __exit__(self, *_exc: object) -> bool: ...

@final
class EncryptedWriter(_EncryptedFile):
    def write(self, data: Buffer, /) -> int: ...
    def discard(self) -> None: ...
    def __exit__(self, exc_type: object, _exc_value: object, _traceback: object) -> bool: ...

@overload
def open_encrypted(
    path: _Path,
    mode: Literal["rb", "r"] = "rb",
    *,
    key: Buffer | None = None,
    passphrase: str | Buffer | None = None,
    argon2: tuple[int, int, int] | None = None,
) -> EncryptedReader: ...
@overload
def open_encrypted(
    path: _Path,
    mode: Literal["wb", "w"],
    *,
    key: Buffer | None = None,
    passphrase: str | Buffer | None = None,
    argon2: tuple[int, int, int] | None = None,
) -> EncryptedWriter: ...
