package kms

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
)

// newAEAD returns AES-256-GCM under key.
func newAEAD(key []byte) (cipher.AEAD, error) {
	if len(key) != 32 {
		return nil, fmt.Errorf("kms: key of %d bytes, want 32", len(key))
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block)
}

// randomKey returns 32 bytes from crypto/rand, which does not fail on
// the systems Go supports (it panics itself if it cannot read).
func randomKey() []byte {
	k := make([]byte, 32)
	if _, err := rand.Read(k); err != nil {
		panic("kms: crypto/rand failed: " + err.Error())
	}
	return k
}

// seal returns prefix || nonce || AES-GCM(plain, ad); a random 96-bit
// nonce is safe for the 2^32 seals NIST allows under one key, far more
// than one tenant key version wraps before it is rotated.
func seal(aead cipher.AEAD, prefix, plain, ad []byte) []byte {
	n := aead.NonceSize()
	out := make([]byte, len(prefix)+n, len(prefix)+n+len(plain)+aead.Overhead())
	copy(out, prefix)
	if _, err := rand.Read(out[len(prefix):]); err != nil {
		panic("kms: crypto/rand failed: " + err.Error())
	}
	return aead.Seal(out, out[len(prefix):], plain, ad)
}

var errOpen = errors.New("kms: sealed data does not open")

// open reverses seal (without the prefix).
func open(aead cipher.AEAD, sealed, ad []byte) ([]byte, error) {
	n := aead.NonceSize()
	if len(sealed) < n+aead.Overhead() {
		return nil, errOpen
	}
	plain, err := aead.Open(nil, sealed[:n], sealed[n:], ad)
	if err != nil {
		return nil, errOpen
	}
	return plain, nil
}

// ad builds associated data: a label, then each part length-prefixed, so
// that no two lists of parts give the same bytes.
func ad(label string, parts ...[]byte) []byte {
	size := len(label)
	for _, p := range parts {
		size += binary.MaxVarintLen64 + len(p)
	}
	out := make([]byte, 0, size)
	out = append(out, label...)
	for _, p := range parts {
		out = binary.AppendUvarint(out, uint64(len(p)))
		out = append(out, p...)
	}
	return out
}

func u32(v int) []byte { return binary.BigEndian.AppendUint32(nil, uint32(v)) }

// masterAD binds a sealed master version to its number; tenantAD binds a
// sealed tenant key version to its key and number; dataAD binds a wrapped
// data key to the tenant, the key, its version and what it encrypts.
func masterAD(version int) []byte { return ad("ostium kms master key 1", u32(version)) }

func tenantAD(tenant, id string, version int) []byte {
	return ad("ostium kms tenant key 1", []byte(tenant), []byte(id), u32(version))
}

func dataAD(tenant, id string, version int, context []byte) []byte {
	return ad("ostium kms data key 1", []byte(tenant), []byte(id), u32(version), context)
}

// A data key the keyring wraps: format byte, the tenant key version
// (big-endian uint32), then what seal makes.
const (
	wrapFormat     = 1
	wrapHeaderSize = 5
)

func wrapHeader(version int) []byte {
	return append([]byte{wrapFormat}, u32(version)...)
}

func parseWrapped(w []byte) (version int, body []byte, err error) {
	if len(w) < wrapHeaderSize || w[0] != wrapFormat {
		return 0, nil, fmt.Errorf("%w: not a wrapped key of the built-in keyring", ErrUnwrap)
	}
	v := binary.BigEndian.Uint32(w[1:5])
	if v == 0 || v > 1<<30 {
		return 0, nil, fmt.Errorf("%w: key version %d", ErrUnwrap, v)
	}
	return int(v), w[wrapHeaderSize:], nil
}
