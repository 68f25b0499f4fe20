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

// ParseNodeKey decodes a node key as it is written: 32 bytes in base64,
// surrounding white space ignored.
func ParseNodeKey(text string) ([]byte, error) {
	key, err := base64.StdEncoding.DecodeString(strings.TrimSpace(text))
	if err != nil || len(key) != 32 {
		return nil, errors.New("not a 32-byte base64 key")
	}
	return key, nil
}

// LoadNodeKey returns the node key: from env (base64, for nodes that share
// a catalog and so must share the key) if set, else from dir/node.key,
// created on first start with mode 0600 (see LoadOrMakeNodeKey).
func LoadNodeKey(dir, env string) ([]byte, error) {
	if env != "" {
		key, err := ParseNodeKey(env)
		if err != nil {
			return nil, errors.New("iam: OSTIUM_NODE_KEY must be 32 bytes in base64")
		}
		return key, nil
	}
	key, _, err := LoadOrMakeNodeKey(filepath.Join(dir, "node.key"))
	return key, err
}

// ReadNodeKeyFile reads the key at path; a missing file is an error that
// errors.Is(os.ErrNotExist).
func ReadNodeKeyFile(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("iam: read node key: %w", err)
	}
	key, err := ParseNodeKey(string(b))
	if err != nil {
		return nil, fmt.Errorf("iam: %s is %w", path, err)
	}
	return key, nil
}

// LoadOrMakeNodeKey reads the key at path, or makes a new one there when
// there is none (made reports it). Two processes making it at once agree
// on one key: see InstallNodeKey.
func LoadOrMakeNodeKey(path string) (key []byte, made bool, err error) {
	key, err = ReadNodeKeyFile(path)
	if !errors.Is(err, os.ErrNotExist) {
		return key, false, err
	}
	fresh := make([]byte, 32)
	if _, err := rand.Read(fresh); err != nil {
		return nil, false, fmt.Errorf("iam: generate node key: %w", err)
	}
	return InstallNodeKey(path, fresh)
}

// InstallNodeKey writes key to path (mode 0600, its directory made 0700)
// unless a key is there already, and returns the key path holds: key
// (installed true) or the one found. The file appears whole or not at
// all: it is written and synced under a private name, then linked to
// path, which fails with EEXIST when another process was first; that
// process's key is then read back, so that both go on with one key.
func InstallNodeKey(path string, key []byte) (have []byte, installed bool, err error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, false, fmt.Errorf("iam: node key directory: %w", err)
	}
	var tag [8]byte
	rand.Read(tag[:])
	tmp := filepath.Join(dir, fmt.Sprintf(".%s.%x.tmp", filepath.Base(path), tag))
	if err := writeFileSync(tmp, []byte(base64.StdEncoding.EncodeToString(key)+"\n")); err != nil {
		return nil, false, fmt.Errorf("iam: write node key: %w", err)
	}
	defer os.Remove(tmp)
	err = os.Link(tmp, path)
	if errors.Is(err, os.ErrExist) {
		have, err := ReadNodeKeyFile(path)
		return have, false, err
	}
	if err != nil {
		return nil, false, fmt.Errorf("iam: write node key: %w", err)
	}
	if err := syncDir(dir); err != nil {
		return nil, false, fmt.Errorf("iam: write node key: %w", err)
	}
	return key, true, nil
}

// writeFileSync creates path exclusively and syncs it: losing the node key
// after secrets were sealed with it would lock every user out.
func writeFileSync(path string, data []byte) error {
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
	return f.Close()
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
