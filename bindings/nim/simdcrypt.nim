## Nim binding of simdcrypt's C ABI (libsimdcrypt_capi, header
## crates/simdcrypt-capi/include/simdcrypt.h): the raw `{.importc.}` procs, and
## idiomatic wrappers over `openArray[byte]` that raise `SimdcryptError`.
##
## Linking: by default `-lsimdcrypt_capi` (add `--passL:-L<dir>`); or pass the static
## library's path with `-d:simdcryptLib=/path/to/libsimdcrypt_capi.a`.

import std/os

const
  headerDir = currentSourcePath.parentDir & "/../../crates/simdcrypt-capi/include"
  simdcryptLib {.strdefine.} = ""

{.passC: "-I" & headerDir.}
when simdcryptLib.len > 0:
  {.passL: simdcryptLib & " -lm -ldl -lpthread".}
else:
  {.passL: "-lsimdcrypt_capi".}

{.pragma: simdcryptdecl, importc, cdecl, gcsafe, raises: [], header: "simdcrypt.h".}

type
  SimdcryptOptions* {.importc: "simdcrypt_options", header: "simdcrypt.h", bycopy.} = object
    key*: ptr byte
    key_len*: csize_t
    derive_key_context*: cstring
    backend*: cstring
    threads*: csize_t
  CHasher {.importc: "simdcrypt_hasher", header: "simdcrypt.h", incompleteStruct.} = object

const
  statusOk* = 0
  statusNullPointer* = -1
  statusInvalidArgument* = -2
  statusInvalidLength* = -3
  statusUnsupportedBackend* = -4
  statusAuthenticationFailed* = -5
  statusInternal* = -6
  threadsAuto* = high(csize_t)  ## SIMDCRYPT_THREADS_AUTO

# The raw C ABI, as in the header.
proc simdcrypt_last_error*(): cstring {.simdcryptdecl.}
proc simdcrypt_version*(): cstring {.simdcryptdecl.}
proc simdcrypt_algorithm_count*(): csize_t {.simdcryptdecl.}
proc simdcrypt_algorithm_name*(index: csize_t): cstring {.simdcryptdecl.}
proc simdcrypt_sha256_many*(output: ptr byte, input: ptr byte, count: uint64) {.simdcryptdecl.}
proc simdcrypt_sha256_many_threads*(output: ptr byte, input: ptr byte, count: uint64,
    threads: csize_t): cint {.simdcryptdecl.}
proc simdcrypt_merkle_root*(output: ptr byte, leaves: ptr byte, leafCount: uint64,
    depth: int32, threads: csize_t): cint {.simdcryptdecl.}
proc simdcrypt_blake3_many*(inputs: ptr ptr byte, lengths: ptr csize_t, count: csize_t,
    opts: ptr SimdcryptOptions, output: ptr byte, outLen: csize_t): cint {.simdcryptdecl.}
proc simdcrypt_hash*(algorithm: cstring, data: ptr byte, len: csize_t, output: ptr byte,
    outLen: csize_t): cint {.simdcryptdecl.}
proc simdcrypt_hash_with*(algorithm: cstring, opts: ptr SimdcryptOptions, data: ptr byte,
    len: csize_t, output: ptr byte, outLen: csize_t): cint {.simdcryptdecl.}
proc simdcrypt_hasher_new*(algorithm: cstring, opts: ptr SimdcryptOptions,
    output: ptr ptr CHasher): cint {.simdcryptdecl.}
proc simdcrypt_hasher_update*(h: ptr CHasher, data: ptr byte, len: csize_t): cint {.simdcryptdecl.}
proc simdcrypt_hasher_finalize*(h: ptr CHasher, output: ptr byte, outLen: csize_t): cint {.simdcryptdecl.}
proc simdcrypt_hasher_reset*(h: ptr CHasher): cint {.simdcryptdecl.}
proc simdcrypt_hasher_output_len*(h: ptr CHasher): csize_t {.simdcryptdecl.}
proc simdcrypt_hasher_free*(h: ptr CHasher) {.simdcryptdecl.}
proc simdcrypt_salsa20_xor*(key: ptr byte, keyLen: csize_t, nonce: ptr byte, rounds: uint32,
    counter: uint64, input: ptr byte, output: ptr byte, len: csize_t): cint {.simdcryptdecl.}
proc simdcrypt_secretbox_seal*(output: ptr byte, outLen: csize_t, plaintext: ptr byte,
    len: csize_t, key: ptr byte, nonce: ptr byte): cint {.simdcryptdecl.}
proc simdcrypt_secretbox_open*(output: ptr byte, outLen: csize_t, boxed: ptr byte,
    boxedLen: csize_t, key: ptr byte, nonce: ptr byte): cint {.simdcryptdecl.}

# Idiomatic wrappers.
type
  SimdcryptError* = object of CatchableError
    code*: int  ## a negative status code (statusInvalidArgument, ...)
  Hasher* = ref object
    h: ptr CHasher

proc check(rc: cint) {.raises: [SimdcryptError].} =
  ## Reads the message on the calling thread, right after the failed call.
  if rc != statusOk:
    let e = newException(SimdcryptError, $simdcrypt_last_error())
    e.code = rc.int
    raise e

template p(a: openArray[byte]): ptr byte =
  (if a.len == 0: nil else: unsafeAddr a[0])

proc version*(): string = $simdcrypt_version()

proc algorithms*(): seq[string] =
  for i in 0 ..< simdcrypt_algorithm_count().int:
    result.add $simdcrypt_algorithm_name(i.csize_t)

proc sha256Many*(output: var openArray[byte], input: openArray[byte],
    threads = 1) {.raises: [SimdcryptError].} =
  ## hashtree's hash: SHA-256 of each 64-byte block of `input` into 32 bytes of `output`.
  if input.len mod 64 != 0 or output.len != input.len div 2:
    raise (ref SimdcryptError)(code: statusInvalidLength,
      msg: "input must be 64-byte blocks and output 32 bytes per block")
  check simdcrypt_sha256_many_threads(p(output), p(input), uint64(input.len div 64),
    threads.csize_t)

proc merkleRoot*(leaves: openArray[byte], depth = -1,
    threads = 1): array[32, byte] {.raises: [SimdcryptError].} =
  ## SSZ Merkle root of 32-byte leaves; `depth < 0`: the smallest tree that holds them.
  if leaves.len mod 32 != 0:
    raise (ref SimdcryptError)(code: statusInvalidLength, msg: "leaves must be 32-byte nodes")
  check simdcrypt_merkle_root(addr result[0], p(leaves), uint64(leaves.len div 32),
    depth.int32, threads.csize_t)

proc newHasher*(algorithm: string, key: openArray[byte] = [],
    deriveKeyContext = ""): Hasher {.raises: [SimdcryptError].} =
  ## A streaming hasher; `key` for keyed BLAKE3 and HighwayHash, `deriveKeyContext` for
  ## BLAKE3 key derivation. Freed by `close` (or when collected).
  var opts = SimdcryptOptions(key: p(key), key_len: key.len.csize_t,
    derive_key_context: (if deriveKeyContext.len == 0: nil else: deriveKeyContext.cstring))
  var h: ptr CHasher
  check simdcrypt_hasher_new(algorithm.cstring, addr opts, addr h)
  proc free(x: Hasher) = simdcrypt_hasher_free(x.h)
  new(result, free)
  result.h = h

proc close*(h: Hasher) =
  simdcrypt_hasher_free(h.h)
  h.h = nil

proc update*(h: Hasher, data: openArray[byte]) {.raises: [SimdcryptError].} =
  check simdcrypt_hasher_update(h.h, p(data), data.len.csize_t)

proc update*(h: Hasher, data: string) {.raises: [SimdcryptError].} =
  h.update(data.toOpenArrayByte(0, data.high))

proc outputLen*(h: Hasher): int = simdcrypt_hasher_output_len(h.h).int

proc finalize*(h: Hasher, outLen = 0): seq[byte] {.raises: [SimdcryptError].} =
  ## The digest so far (its default length, or `outLen` bytes for BLAKE3).
  result = newSeq[byte](if outLen == 0: h.outputLen else: outLen)
  check simdcrypt_hasher_finalize(h.h, p(result), result.len.csize_t)

proc reset*(h: Hasher) {.raises: [SimdcryptError].} =
  check simdcrypt_hasher_reset(h.h)

proc hash*(algorithm: string, data: openArray[byte], outLen = 0,
    key: openArray[byte] = []): seq[byte] {.raises: [SimdcryptError].} =
  ## One-shot digest of `data` (default length unless `outLen` is given).
  let h = newHasher(algorithm, key)
  defer: h.close()
  h.update(data)
  h.finalize(outLen)

proc salsa20Xor*(data: var openArray[byte], key, nonce: openArray[byte], rounds = 20,
    counter = 0'u64) {.raises: [SimdcryptError].} =
  ## XORs the Salsa20 keystream into `data` in place (8-byte nonce, 32- or 16-byte key).
  if nonce.len != 8:
    raise (ref SimdcryptError)(code: statusInvalidLength, msg: "the nonce must be 8 bytes")
  check simdcrypt_salsa20_xor(p(key), key.len.csize_t, p(nonce), rounds.uint32, counter,
    p(data), p(data), data.len.csize_t)

proc checkKeyNonce(key, nonce: openArray[byte]) {.raises: [SimdcryptError].} =
  if key.len != 32 or nonce.len != 24:
    raise (ref SimdcryptError)(code: statusInvalidLength,
      msg: "secretbox needs a 32-byte key and a 24-byte nonce")

proc secretboxSeal*(plaintext, key, nonce: openArray[byte]): seq[byte] {.raises: [SimdcryptError].} =
  ## NaCl crypto_secretbox_easy: the 16-byte tag, then the ciphertext.
  checkKeyNonce(key, nonce)
  result = newSeq[byte](plaintext.len + 16)
  check simdcrypt_secretbox_seal(p(result), result.len.csize_t, p(plaintext),
    plaintext.len.csize_t, p(key), p(nonce))

proc secretboxOpen*(boxed, key, nonce: openArray[byte]): seq[byte] {.raises: [SimdcryptError].} =
  ## crypto_secretbox_open_easy; raises with code statusAuthenticationFailed on forgery.
  checkKeyNonce(key, nonce)
  if boxed.len < 16:
    raise (ref SimdcryptError)(code: statusAuthenticationFailed, msg: "a secretbox is at least 16 bytes")
  result = newSeq[byte](boxed.len - 16)
  check simdcrypt_secretbox_open(p(result), result.len.csize_t, p(boxed), boxed.len.csize_t,
    p(key), p(nonce))

proc toHex*(bytes: openArray[byte]): string =
  const digits = "0123456789abcdef"
  for b in bytes:
    result.add digits[b.int shr 4]
    result.add digits[b.int and 15]
