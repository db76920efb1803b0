# Known vectors through the Nim wrapper: FIPS 180-2 "abc", the official BLAKE3 vectors,
# a GOST R 34.11-2012 example, hashtree's zero block; errors and secretbox forgery.
import std/[json, os]
import ../simdcrypt

proc bytesOf(s: string): seq[byte] =
  for c in s: result.add byte(c)

proc test() =
  doAssert toHex(hash("sha256", bytesOf("abc"))) ==
    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
  let m1 = bytesOf("012345678901234567890123456789012345678901234567890123456789012")
  doAssert toHex(hash("streebog256", m1)) ==
    "9d151eefd8590b89daa6ba6cb74af9275dd051026bb149a452fd84e5e57b5500"

  # hashtree's own test: a zero block hashes to a digest starting with 245 (0xf5).
  var data: array[64, byte]
  var digest: array[32, byte]
  sha256Many(digest, data)
  doAssert digest[0] == 245
  doAssert merkleRoot(data) == digest

  let v = parseFile(currentSourcePath.parentDir / "../../../test-vectors/blake3.json")
  let key = bytesOf(v["key"].getStr)
  var cases = 0
  for c in v["cases"]:
    let n = c["input_len"].getInt
    var input = newSeq[byte](n)
    for i in 0 ..< n: input[i] = byte(i mod 251)
    let want = c["hash"].getStr
    doAssert toHex(hash("blake3", input, want.len div 2)) == want
    let keyed = c["keyed_hash"].getStr
    doAssert toHex(hash("blake3", input, keyed.len div 2, key)) == keyed
    let h = newHasher("blake3", deriveKeyContext = v["context_string"].getStr)
    h.update(input.toOpenArray(0, n div 2 - 1))
    h.update(input.toOpenArray(n div 2, n - 1))
    let derived = c["derive_key"].getStr
    doAssert toHex(h.finalize(derived.len div 2)) == derived
    h.close()
    inc cases
  doAssert cases > 20
  echo "Nim: ", cases, " BLAKE3 vectors"

  var raised = false
  try:
    discard hash("md5", data)
  except SimdcryptError as e:
    raised = true
    doAssert e.code == statusInvalidArgument
    doAssert e.msg.len > 0
  doAssert raised

  let k = newSeq[byte](32)
  let nonce = newSeq[byte](24)
  var boxed = secretboxSeal(bytesOf("attack at dawn"), k, nonce)
  doAssert secretboxOpen(boxed, k, nonce) == bytesOf("attack at dawn")
  boxed[20] = boxed[20] xor 1
  raised = false
  try:
    discard secretboxOpen(boxed, k, nonce)
  except SimdcryptError as e:
    raised = true
    doAssert e.code == statusAuthenticationFailed
  doAssert raised

  var buf = bytesOf("in place")
  salsa20Xor(buf, k, nonce[0 ..< 8], counter = 3)
  doAssert buf != bytesOf("in place")
  salsa20Xor(buf, k, nonce[0 ..< 8], counter = 3)
  doAssert buf == bytesOf("in place")
  echo "Nim: all checks passed (simdcrypt ", version(), ")"

when isMainModule:
  test()
