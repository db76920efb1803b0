package simdcrypt

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"testing"
)

func mustHex(t *testing.T, s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestFipsAbc(t *testing.T) {
	got, err := Hash("sha256", []byte("abc"), 32)
	if err != nil {
		t.Fatal(err)
	}
	want := "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
	if hex.EncodeToString(got) != want {
		t.Fatalf("got %x", got)
	}
}

// The independent implementation: Go's crypto/sha256 on every block, many counts.
func TestHashBlocksAgainstCryptoSha256(t *testing.T) {
	for _, count := range []int{0, 1, 7, 16, 17, 100, 1000} {
		blocks := make([]byte, 64*count)
		for i := range blocks {
			blocks[i] = byte(i*31 + count)
		}
		digests := make([]byte, 32*count)
		if err := HashBlocks(digests, blocks, ThreadsAuto); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < count; i++ {
			want := sha256.Sum256(blocks[64*i : 64*i+64])
			if !bytes.Equal(digests[32*i:32*i+32], want[:]) {
				t.Fatalf("count %d block %d", count, i)
			}
		}
		h, _ := NewHasher("sha256", nil)
		h.Write(blocks)
		if want := sha256.Sum256(blocks); !bytes.Equal(h.Sum(nil), want[:]) {
			t.Fatalf("streaming sha256 of %d bytes", len(blocks))
		}
		h.Close()
	}
	root, err := MerkleRoot(make([]byte, 64), -1, 0)
	if want := sha256.Sum256(make([]byte, 64)); err != nil || root != want {
		t.Fatalf("merkle root of two zero leaves: %x %v", root, err)
	}
}

func TestBlake3Vectors(t *testing.T) {
	raw, err := os.ReadFile("../../test-vectors/blake3.json")
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Key     string `json:"key"`
		Context string `json:"context_string"`
		Cases   []struct {
			InputLen  int    `json:"input_len"`
			Hash      string `json:"hash"`
			KeyedHash string `json:"keyed_hash"`
			DeriveKey string `json:"derive_key"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	var messages [][]byte
	for _, c := range v.Cases {
		input := make([]byte, c.InputLen)
		for i := range input {
			input[i] = byte(i % 251)
		}
		messages = append(messages, input)
		want := mustHex(t, c.Hash)
		got, err := Hash("blake3", input, len(want))
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("hash len %d: %v", c.InputLen, err)
		}
		want = mustHex(t, c.KeyedHash)
		got, err = HashWith("blake3", &Options{Key: []byte(v.Key)}, input, len(want))
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("keyed len %d: %v", c.InputLen, err)
		}
		want = mustHex(t, c.DeriveKey)
		h, err := NewHasher("blake3", &Options{DeriveKeyContext: v.Context})
		if err != nil {
			t.Fatal(err)
		}
		h.Write(input[:len(input)/2])
		h.Write(input[len(input)/2:])
		if got, err := h.Digest(len(want)); err != nil || !bytes.Equal(got, want) {
			t.Fatalf("derive_key len %d: %v", c.InputLen, err)
		}
		h.Close()
	}
	batch, err := Blake3Many(messages, &Options{Threads: 2}, 32)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range v.Cases {
		if !bytes.Equal(batch[32*i:32*i+32], mustHex(t, c.Hash)[:32]) {
			t.Fatalf("batch message %d", i)
		}
	}
	t.Logf("%d BLAKE3 vectors", len(v.Cases))
}

func TestStreebogVector(t *testing.T) {
	m1 := []byte("012345678901234567890123456789012345678901234567890123456789012")
	got, err := Hash("streebog256", m1, 32)
	if err != nil || hex.EncodeToString(got) != "9d151eefd8590b89daa6ba6cb74af9275dd051026bb149a452fd84e5e57b5500" {
		t.Fatalf("streebog256 M1: %x %v", got, err)
	}
}

func TestErrors(t *testing.T) {
	_, err := Hash("md5", nil, 16)
	var e *Error
	if !errors.As(err, &e) || e.Code != StatusInvalidArgument || e.Message == "" {
		t.Fatalf("unknown algorithm: %v", err)
	}
	if _, err := HashWith("blake3", &Options{Key: []byte("short")}, nil, 32); !errors.As(err, &e) || e.Code != StatusInvalidLength {
		t.Fatalf("short key: %v", err)
	}
	if _, err := Hash("sha256", nil, 31); err == nil {
		t.Fatal("a 31-byte SHA-256 digest was accepted")
	}
}

func TestSecretboxAndSalsa(t *testing.T) {
	key := bytes.Repeat([]byte{7}, 32)
	nonce := bytes.Repeat([]byte{9}, 24)
	msg := []byte("attack at dawn")
	boxed, err := SecretboxSeal(msg, key, nonce)
	if err != nil {
		t.Fatal(err)
	}
	opened, err := SecretboxOpen(boxed, key, nonce)
	if err != nil || !bytes.Equal(opened, msg) {
		t.Fatalf("round trip: %v", err)
	}
	boxed[20] ^= 1
	var e *Error
	if _, err := SecretboxOpen(boxed, key, nonce); !errors.As(err, &e) || e.Code != StatusAuthenticationFailed {
		t.Fatalf("forged box: %v", err)
	}
	// XSalsa20 is the cipher inside secretbox: the ciphertext after the tag is the message
	// XORed with the keystream from byte 32 (block 0 is the Poly1305 key and 32 bytes).
	ct := make([]byte, len(msg))
	boxed[20] ^= 1
	if err := XSalsa20XOR(ct, boxed[16:], key, nonce, 20, 0); err != nil {
		t.Fatal(err)
	}
	stream := make([]byte, 32+len(msg))
	if err := XSalsa20XOR(stream, make([]byte, len(stream)), key, nonce, 20, 0); err != nil {
		t.Fatal(err)
	}
	for i := range msg {
		if boxed[16+i]^stream[32+i] != msg[i] {
			t.Fatalf("keystream byte %d", i)
		}
	}
	buf := []byte("in place")
	if err := Salsa20XOR(buf, buf, key, nonce[:8], 20, 5); err != nil {
		t.Fatal(err)
	}
	if err := Salsa20XOR(buf, buf, key, nonce[:8], 20, 5); err != nil || string(buf) != "in place" {
		t.Fatalf("salsa20 twice is the identity: %q %v", buf, err)
	}
}
