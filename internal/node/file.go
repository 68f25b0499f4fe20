package node

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"gopkg.in/yaml.v3"
)

// LoadConfig reads a configuration file (YAML, the keys of Config) and
// validates it.
func LoadConfig(path string) (Config, error) {
	c, err := ReadConfig(path)
	if err != nil {
		return c, err
	}
	if err := c.Validate(); err != nil {
		return c, fmt.Errorf("config %s: %w", path, err)
	}
	return c, nil
}

// ReadConfig reads a configuration file without validating it, for a
// caller that lays flags and the environment over it first (`serve`,
// `config validate`) and validates the result.
func ReadConfig(path string) (Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Config{}, fmt.Errorf("config: %w", err)
	}
	c, err := decodeUnsealed(data)
	if err != nil {
		return c, fmt.Errorf("config %s: %w", path, err)
	}
	return c, nil
}

// ParseConfig decodes and validates a configuration document. Sealed
// secrets (an exported file) are refused: `ostium config import` opens
// them.
func ParseConfig(data []byte) (Config, error) {
	c, err := decodeUnsealed(data)
	if err != nil {
		return c, err
	}
	return c, c.Validate()
}

func decodeUnsealed(data []byte) (Config, error) {
	c, err := DecodeConfig(data)
	if err != nil {
		return c, err
	}
	if keys := SealedKeys(c); len(keys) > 0 {
		return c, fmt.Errorf("%s: sealed (an exported file); open it with `ostium config import`", strings.Join(keys, ", "))
	}
	return c, nil
}

// DecodeConfig reads a configuration document, refusing unknown keys, so
// that a misspelt key is an error rather than a silent default; it does
// not validate.
func DecodeConfig(data []byte) (Config, error) {
	var c Config
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&c); err != nil && !errors.Is(err, io.EOF) {
		return c, err
	}
	return c, nil
}

// MarshalConfig encodes a configuration as a file LoadConfig reads.
func MarshalConfig(c Config) ([]byte, error) {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(c); err != nil {
		return nil, fmt.Errorf("config: encode: %w", err)
	}
	return buf.Bytes(), enc.Close()
}
