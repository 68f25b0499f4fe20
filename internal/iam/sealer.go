package iam

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Sealer encrypts secrets at rest (access-key secrets in the catalog) with
// the node key, so a copy of the catalog alone reveals no credential.
type Sealer struct{ aead cipher.AEAD }

// NewSealer builds a Sealer from a 32-byte key (AES-256-GCM).
func NewSealer(key []byte) (*Sealer, error) {
	if len(key) != 32 {
		return nil, fmt.Errorf("iam: node key must be 32 bytes, got %d", len(key))
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("iam: node key: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("iam: node key: %w", err)
	}
	return &Sealer{aead: aead}, nil
}

// Seal encrypts plain; context (the access key id) is bound as additional
// data so a sealed secret cannot be moved to another key's row.
func (s *Sealer) Seal(plain, context string) []byte {
	nonce := make([]byte, s.aead.NonceSize(), s.aead.NonceSize()+len(plain)+s.aead.Overhead())
	if _, err := rand.Read(nonce); err != nil {
		panic("iam: crypto/rand failed: " + err.Error())
	}
	return s.aead.Seal(nonce, nonce, []byte(plain), []byte(context))
}

// Open decrypts what Seal produced for the same context.
func (s *Sealer) Open(sealed []byte, context string) (string, error) {
	n := s.aead.NonceSize()
	if len(sealed) < n {
		return "", errors.New("iam: sealed secret too short")
	}
	plain, err := s.aead.Open(nil, sealed[:n], sealed[n:], []byte(context))
	if err != nil {
		return "", fmt.Errorf("iam: unseal secret of %s (wrong node key?): %w", context, err)
	}
	return string(plain), nil
}

// LoadNodeKey returns the node key: from env (base64, for nodes that share
// a catalog and so must share the key) if set, else from dir/node.key,
// created on first start with mode 0600.
func LoadNodeKey(dir, env string) ([]byte, error) {
	if env != "" {
		key, err := base64.StdEncoding.DecodeString(strings.TrimSpace(env))
		if err != nil || len(key) != 32 {
			return nil, errors.New("iam: OSTIUM_NODE_KEY must be 32 bytes in base64")
		}
		return key, nil
	}
	path := filepath.Join(dir, "node.key")
	if b, err := os.ReadFile(path); err == nil {
		key, err := base64.StdEncoding.DecodeString(strings.TrimSpace(string(b)))
		if err != nil || len(key) != 32 {
			return nil, fmt.Errorf("iam: %s is not a 32-byte base64 key", path)
		}
		return key, nil
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("iam: read node key: %w", err)
	}
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return nil, fmt.Errorf("iam: generate node key: %w", err)
	}
	if err := writeFileSync(path, []byte(base64.StdEncoding.EncodeToString(key)+"\n")); err != nil {
		return nil, fmt.Errorf("iam: write node key: %w", err)
	}
	return key, nil
}

// writeFileSync creates path exclusively and syncs it: losing the node key
// after secrets were sealed with it would lock every user out.
func writeFileSync(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	d, err := os.Open(filepath.Dir(path))
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
