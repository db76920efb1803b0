// Package simdcrypt is a cgo binding of simdcrypt's C ABI (libsimdcrypt_capi): SHA-256
// block batches with hashtree's semantics, SSZ Merkle roots, BLAKE3 batches, every hash
// by name (one-shot and streaming), HMAC-Streebog, Salsa20/XSalsa20 and secretbox.
//
// The header comes from this repository; the library location is the caller's choice:
//
//	CGO_LDFLAGS="/path/to/libsimdcrypt_capi.a -lm -ldl -lpthread" go test
//
// (or "-L/path/to/dir -lsimdcrypt_capi" for the shared library).
package simdcrypt

/*
#cgo CFLAGS: -I${SRCDIR}/../../crates/simdcrypt-capi/include
#include <stdlib.h>
#include "simdcrypt.h"
*/
import "C"

import (
	"fmt"
	"runtime"
	"unsafe"
)

// Status codes of the C ABI (simdcrypt_status).
const (
	StatusNullPointer          = int(C.SIMDCRYPT_STATUS_NULL_POINTER)
	StatusInvalidArgument      = int(C.SIMDCRYPT_STATUS_INVALID_ARGUMENT)
	StatusInvalidLength        = int(C.SIMDCRYPT_STATUS_INVALID_LENGTH)
	StatusUnsupportedBackend   = int(C.SIMDCRYPT_STATUS_UNSUPPORTED_BACKEND)
	StatusAuthenticationFailed = int(C.SIMDCRYPT_STATUS_AUTHENTICATION_FAILED)
	StatusInternal             = int(C.SIMDCRYPT_STATUS_INTERNAL)
)

// ThreadsAuto lets one call use every CPU for inputs large enough to gain from them.
const ThreadsAuto = -1

// Error is a failed call: the C status code and simdcrypt_last_error's message.
type Error struct {
	Code    int
	Message string
}

func (e *Error) Error() string { return fmt.Sprintf("simdcrypt: %s (status %d)", e.Message, e.Code) }

// call runs f on one OS thread, so that the thread-local error message read afterwards
// belongs to this call (a goroutine may otherwise move threads between two cgo calls).
func call(f func() C.int) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if rc := f(); rc != C.SIMDCRYPT_STATUS_OK {
		return &Error{Code: int(rc), Message: C.GoString(C.simdcrypt_last_error())}
	}
	return nil
}

func ptr(b []byte) *C.uint8_t {
	if len(b) == 0 {
		return nil
	}
	return (*C.uint8_t)(unsafe.Pointer(&b[0]))
}

func threads(n int) C.size_t {
	if n < 0 {
		return C.SIMDCRYPT_THREADS_AUTO
	}
	return C.size_t(n)
}

// Options for keyed hashing, key derivation, a forced backend and threads.
type Options struct {
	Key              []byte // BLAKE3 keyed hash or HighwayHash: 32 bytes
	DeriveKeyContext string // BLAKE3 key derivation context ("" for none)
	Backend          string // "" for the best this CPU supports
	Threads          int    // 0 or 1: caller's thread; n: at most n; ThreadsAuto
}

// withOptions builds the C struct (its strings in C memory, freed after f) and runs f.
func withOptions(o *Options, f func(*C.simdcrypt_options) C.int) error {
	if o == nil {
		return call(func() C.int { return f(nil) })
	}
	var c C.simdcrypt_options
	// The struct is Go memory holding a Go pointer (the key): cgo requires it pinned.
	var pinner runtime.Pinner
	defer pinner.Unpin()
	if len(o.Key) > 0 {
		pinner.Pin(&o.Key[0])
	}
	c.key = ptr(o.Key)
	c.key_len = C.size_t(len(o.Key))
	if o.DeriveKeyContext != "" {
		c.derive_key_context = C.CString(o.DeriveKeyContext)
		defer C.free(unsafe.Pointer(c.derive_key_context))
	}
	if o.Backend != "" {
		c.backend = C.CString(o.Backend)
		defer C.free(unsafe.Pointer(c.backend))
	}
	c.threads = threads(o.Threads)
	return call(func() C.int { return f(&c) })
}

// Version is the library's version.
func Version() string { return C.GoString(C.simdcrypt_version()) }

// Algorithms lists the names Hash and NewHasher accept.
func Algorithms() []string {
	n := int(C.simdcrypt_algorithm_count())
	names := make([]string, n)
	for i := range names {
		names[i] = C.GoString(C.simdcrypt_algorithm_name(C.size_t(i)))
	}
	return names
}

// HashBlocks writes SHA-256 of each 64-byte block of blocks to digests (32 bytes each):
// hashtree's Hash. len(blocks) must be a multiple of 64 and len(digests) half of it.
func HashBlocks(digests, blocks []byte, nThreads int) error {
	if len(blocks)%64 != 0 || len(digests) != len(blocks)/2 {
		return &Error{StatusInvalidLength, fmt.Sprintf("need 64-byte blocks and 32 bytes of output per block, got %d and %d bytes", len(blocks), len(digests))}
	}
	return call(func() C.int {
		return C.simdcrypt_sha256_many_threads(ptr(digests), ptr(blocks), C.uint64_t(len(blocks)/64), threads(nThreads))
	})
}

// MerkleRoot is the SSZ Merkle root of 32-byte leaves; depth < 0 picks the smallest tree.
func MerkleRoot(leaves []byte, depth int, nThreads int) ([32]byte, error) {
	var root [32]byte
	if len(leaves)%32 != 0 {
		return root, &Error{StatusInvalidLength, fmt.Sprintf("leaves must be a whole number of 32-byte nodes, got %d bytes", len(leaves))}
	}
	err := call(func() C.int {
		return C.simdcrypt_merkle_root(ptr(root[:]), ptr(leaves), C.uint64_t(len(leaves)/32), C.int32_t(depth), threads(nThreads))
	})
	return root, err
}

// Hash is the outLen-byte digest of data with the named algorithm (HighwayHash needs
// HashWith and a key).
func Hash(algorithm string, data []byte, outLen int) ([]byte, error) {
	return HashWith(algorithm, nil, data, outLen)
}

// HashWith is Hash with options (nil: the defaults).
func HashWith(algorithm string, o *Options, data []byte, outLen int) ([]byte, error) {
	name := C.CString(algorithm)
	defer C.free(unsafe.Pointer(name))
	out := make([]byte, outLen)
	err := withOptions(o, func(c *C.simdcrypt_options) C.int {
		return C.simdcrypt_hash_with(name, c, ptr(data), C.size_t(len(data)), ptr(out), C.size_t(outLen))
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Blake3Many hashes many messages at once, outLen bytes each, concatenated.
func Blake3Many(messages [][]byte, o *Options, outLen int) ([]byte, error) {
	out := make([]byte, len(messages)*outLen)
	if len(messages) == 0 {
		return out, nil
	}
	// The pointer array lives in C memory, holding pinned Go pointers (cgo's rules forbid
	// passing Go memory that contains Go pointers).
	var pinner runtime.Pinner
	defer pinner.Unpin()
	n := C.size_t(len(messages))
	ptrs := (*[1 << 30]*C.uint8_t)(C.malloc(n * C.size_t(unsafe.Sizeof(uintptr(0)))))[:len(messages):len(messages)]
	defer C.free(unsafe.Pointer(&ptrs[0]))
	lens := make([]C.size_t, len(messages))
	for i, m := range messages {
		if len(m) > 0 {
			pinner.Pin(&m[0])
		}
		ptrs[i] = ptr(m)
		lens[i] = C.size_t(len(m))
	}
	err := withOptions(o, func(c *C.simdcrypt_options) C.int {
		return C.simdcrypt_blake3_many(&ptrs[0], &lens[0], n, c, ptr(out), C.size_t(outLen))
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Hasher is a streaming hasher of any algorithm. Not safe for concurrent use.
type Hasher struct {
	h *C.simdcrypt_hasher
}

// NewHasher creates a streaming hasher (o may be nil). Call Close when done (a finalizer
// frees it otherwise).
func NewHasher(algorithm string, o *Options) (*Hasher, error) {
	name := C.CString(algorithm)
	defer C.free(unsafe.Pointer(name))
	var h *C.simdcrypt_hasher
	if err := withOptions(o, func(c *C.simdcrypt_options) C.int { return C.simdcrypt_hasher_new(name, c, &h) }); err != nil {
		return nil, err
	}
	hasher := &Hasher{h}
	runtime.SetFinalizer(hasher, (*Hasher).Close)
	return hasher, nil
}

// Write adds data (io.Writer; never fails on a live hasher).
func (h *Hasher) Write(data []byte) (int, error) {
	if err := call(func() C.int { return C.simdcrypt_hasher_update(h.h, ptr(data), C.size_t(len(data))) }); err != nil {
		return 0, err
	}
	return len(data), nil
}

// Size is the default digest length.
func (h *Hasher) Size() int { return int(C.simdcrypt_hasher_output_len(h.h)) }

// Digest returns outLen bytes of the digest so far (Size(), or any length for BLAKE3);
// more data may follow.
func (h *Hasher) Digest(outLen int) ([]byte, error) {
	out := make([]byte, outLen)
	if err := call(func() C.int { return C.simdcrypt_hasher_finalize(h.h, ptr(out), C.size_t(outLen)) }); err != nil {
		return nil, err
	}
	return out, nil
}

// Sum appends the default-length digest to b (as hash.Hash does).
func (h *Hasher) Sum(b []byte) []byte {
	d, err := h.Digest(h.Size())
	if err != nil {
		panic(err) // only on a closed hasher
	}
	return append(b, d...)
}

// Reset returns the hasher to its state when created.
func (h *Hasher) Reset() {
	_ = call(func() C.int { return C.simdcrypt_hasher_reset(h.h) })
}

// Clone is an independent copy, state included.
func (h *Hasher) Clone() (*Hasher, error) {
	var c *C.simdcrypt_hasher
	if err := call(func() C.int { return C.simdcrypt_hasher_clone(h.h, &c) }); err != nil {
		return nil, err
	}
	copy := &Hasher{c}
	runtime.SetFinalizer(copy, (*Hasher).Close)
	return copy, nil
}

// Close frees the hasher; later calls fail with StatusNullPointer.
func (h *Hasher) Close() {
	C.simdcrypt_hasher_free(h.h)
	h.h = nil
	runtime.SetFinalizer(h, nil)
}

// HmacStreebog is HMAC-Streebog-256 or -512 (bits) of data under key.
func HmacStreebog(bits int, key, data []byte) ([]byte, error) {
	out := make([]byte, bits/8)
	err := call(func() C.int {
		return C.simdcrypt_hmac_streebog(C.uint32_t(bits), ptr(key), C.size_t(len(key)), ptr(data), C.size_t(len(data)), ptr(out), C.size_t(len(out)))
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Salsa20XOR sets dst = src XOR the Salsa20 keystream (rounds 20, 12 or 8; a 32- or
// 16-byte key, an 8-byte nonce) from block counter. dst and src may be the same slice.
func Salsa20XOR(dst, src, key, nonce []byte, rounds int, counter uint64) error {
	if len(dst) != len(src) || len(nonce) != 8 {
		return &Error{StatusInvalidLength, fmt.Sprintf("dst and src must be equally long (%d, %d) and the nonce 8 bytes (%d)", len(dst), len(src), len(nonce))}
	}
	return call(func() C.int {
		return C.simdcrypt_salsa20_xor(ptr(key), C.size_t(len(key)), ptr(nonce), C.uint32_t(rounds), C.uint64_t(counter), ptr(src), ptr(dst), C.size_t(len(src)))
	})
}

// XSalsa20XOR is Salsa20XOR for XSalsa20 (a 32-byte key, a 24-byte nonce).
func XSalsa20XOR(dst, src, key, nonce []byte, rounds int, counter uint64) error {
	if len(dst) != len(src) || len(key) != 32 || len(nonce) != 24 {
		return &Error{StatusInvalidLength, fmt.Sprintf("dst and src must be equally long (%d, %d), the key 32 bytes (%d), the nonce 24 (%d)", len(dst), len(src), len(key), len(nonce))}
	}
	return call(func() C.int {
		return C.simdcrypt_xsalsa20_xor(ptr(key), ptr(nonce), C.uint32_t(rounds), C.uint64_t(counter), ptr(src), ptr(dst), C.size_t(len(src)))
	})
}

func checkKeyNonce(key, nonce []byte) error {
	if len(key) != 32 || len(nonce) != 24 {
		return &Error{StatusInvalidLength, fmt.Sprintf("secretbox needs a 32-byte key (%d) and a 24-byte nonce (%d)", len(key), len(nonce))}
	}
	return nil
}

// SecretboxSeal is NaCl's crypto_secretbox_easy: the 16-byte tag, then the ciphertext.
func SecretboxSeal(plaintext, key, nonce []byte) ([]byte, error) {
	if err := checkKeyNonce(key, nonce); err != nil {
		return nil, err
	}
	out := make([]byte, len(plaintext)+16)
	err := call(func() C.int {
		return C.simdcrypt_secretbox_seal(ptr(out), C.size_t(len(out)), ptr(plaintext), C.size_t(len(plaintext)), ptr(key), ptr(nonce))
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// SecretboxOpen is crypto_secretbox_open_easy: the plaintext, or an error with Code
// StatusAuthenticationFailed for a forged box or the wrong key or nonce.
func SecretboxOpen(boxed, key, nonce []byte) ([]byte, error) {
	if err := checkKeyNonce(key, nonce); err != nil {
		return nil, err
	}
	if len(boxed) < 16 {
		return nil, &Error{StatusAuthenticationFailed, "a secretbox is at least 16 bytes"}
	}
	out := make([]byte, len(boxed)-16)
	err := call(func() C.int {
		return C.simdcrypt_secretbox_open(ptr(out), C.size_t(len(out)), ptr(boxed), C.size_t(len(boxed)), ptr(key), ptr(nonce))
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
