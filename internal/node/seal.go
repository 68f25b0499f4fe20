package node

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"os"
	"slices"
	"strings"

	"golang.org/x/crypto/scrypt"

	"github.com/ostiumio/ostium/internal/iam"
)

// A sealed secret in an exported configuration: sealedPrefix, then base64
// of salt, nonce and AES-256-GCM ciphertext, the key derived from the
// passphrase with scrypt. A cluster is built by copying one exported file;
// the passphrase travels apart from it.
const sealedPrefix = "enc:v1:"

const (
	saltLen = 16
	// scrypt's parameters: its recommended interactive cost (about 100 ms
	// a value), as an exported file may be attacked offline.
	scryptN, scryptR, scryptP = 1 << 15, 8, 1
)

// secret is one secret value of a configuration, read and written in
// place by its YAML key.
type secret struct {
	key string
	get func() string
	set func(string)
}

// secrets lists c's secret values. c's platforms map is copied first, so
// that setting them leaves the caller's Config alone.
func secrets(c *Config) []secret {
	out := []secret{
		{"root_secret_key", func() string { return c.RootSecretKey }, func(v string) { c.RootSecretKey = v }},
		{"node_key", func() string { return c.NodeKey }, func(v string) { c.NodeKey = v }},
		{"catalog", func() string { return catalogPassword(c.Catalog) }, func(v string) { c.Catalog = withCatalogPassword(c.Catalog, v) }},
		{"metrics.token", func() string { return c.Metrics.Token }, func(v string) { c.Metrics.Token = v }},
	}
	c.Platforms = maps.Clone(c.Platforms)
	for _, name := range slices.Sorted(maps.Keys(c.Platforms)) {
		out = append(out, secret{"platforms." + name + ".secret_key",
			func() string { return c.Platforms[name].S3.SecretKey },
			func(v string) { p := c.Platforms[name]; p.S3.SecretKey = v; c.Platforms[name] = p }})
	}
	return out
}

func catalogPassword(catalog string) string {
	u, err := url.Parse(catalog)
	if err != nil || u.User == nil {
		return ""
	}
	p, _ := u.User.Password()
	return p
}

func withCatalogPassword(catalog, password string) string {
	u, err := url.Parse(catalog)
	if err != nil || u.User == nil {
		return catalog
	}
	u.User = url.UserPassword(u.User.Username(), password)
	return u.String()
}

// SealSecrets returns c with its secrets sealed under passphrase. A node
// key none was given for (the user's key file, or the data directory's
// node.key of earlier versions) is read into the file first: every node
// sharing the catalog needs it. One kept apart (node_key_file) stays
// apart: the file names it, and the operator copies it as they chose to.
func SealSecrets(c Config, passphrase string) (Config, error) {
	if passphrase == "" {
		return c, errors.New("config: an empty passphrase seals nothing")
	}
	if c.NodeKey == "" && c.NodeKeyFile == "" {
		var paths []string
		if p, err := UserNodeKeyPath(c); err == nil {
			paths = append(paths, p)
		}
		paths = append(paths, legacyKeyPath(c.DataDir))
		var key []byte
		var err error
		for _, p := range paths {
			if key, err = iam.ReadNodeKeyFile(p); !errors.Is(err, os.ErrNotExist) {
				break
			}
		}
		if errors.Is(err, os.ErrNotExist) {
			return c, fmt.Errorf("node_key: not set, and none of %s can be read (start the node once, or set node_key or node_key_file)", strings.Join(paths, ", "))
		}
		if err != nil {
			return c, fmt.Errorf("node_key: %w", err)
		}
		c.NodeKey = base64.StdEncoding.EncodeToString(key)
	}
	for _, s := range secrets(&c) {
		v := s.get()
		if v == "" || strings.HasPrefix(v, sealedPrefix) {
			continue
		}
		sealed, err := seal(v, passphrase)
		if err != nil {
			return c, fmt.Errorf("%s: %w", s.key, err)
		}
		s.set(sealed)
	}
	return c, nil
}

// OpenSecrets returns c with its sealed secrets opened.
func OpenSecrets(c Config, passphrase string) (Config, error) {
	for _, s := range secrets(&c) {
		v := s.get()
		if !strings.HasPrefix(v, sealedPrefix) {
			continue
		}
		plain, err := open(v, passphrase)
		if err != nil {
			return c, fmt.Errorf("%s: %w", s.key, err)
		}
		s.set(plain)
	}
	return c, nil
}

// SealedKeys names the keys of c that still hold sealed values.
func SealedKeys(c Config) []string {
	var out []string
	for _, s := range secrets(&c) {
		if strings.HasPrefix(s.get(), sealedPrefix) {
			out = append(out, s.key)
		}
	}
	return out
}

func gcm(passphrase string, salt []byte) (cipher.AEAD, error) {
	key, err := scrypt.Key([]byte(passphrase), salt, scryptN, scryptR, scryptP, 32)
	if err != nil {
		return nil, err
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block)
}

func seal(plain, passphrase string) (string, error) {
	salt := make([]byte, saltLen)
	rand.Read(salt)
	aead, err := gcm(passphrase, salt)
	if err != nil {
		return "", err
	}
	nonce := make([]byte, aead.NonceSize())
	rand.Read(nonce)
	out := append(salt, nonce...)
	out = aead.Seal(out, nonce, []byte(plain), nil)
	return sealedPrefix + base64.RawURLEncoding.EncodeToString(out), nil
}

func open(sealed, passphrase string) (string, error) {
	raw, err := base64.RawURLEncoding.DecodeString(strings.TrimPrefix(sealed, sealedPrefix))
	if err != nil || len(raw) < saltLen {
		return "", errors.New("damaged sealed value")
	}
	aead, err := gcm(passphrase, raw[:saltLen])
	if err != nil {
		return "", err
	}
	rest := raw[saltLen:]
	if len(rest) < aead.NonceSize() {
		return "", errors.New("damaged sealed value")
	}
	plain, err := aead.Open(nil, rest[:aead.NonceSize()], rest[aead.NonceSize():], nil)
	if err != nil {
		return "", errors.New("wrong passphrase or damaged value")
	}
	return string(plain), nil
}
