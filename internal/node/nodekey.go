package node

import (
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/ostiumio/ostium/internal/iam"
)

// NodeKeyCredential is the name of the systemd credential a node reads
// its key from (LoadCredential=node-key:/etc/ostium/node.key): systemd
// hands the service a private copy of a file its user cannot read.
const NodeKeyCredential = "node-key"

// loadNodeKey finds cfg's node key, first found wins:
//
//  1. node_key (OSTIUM_NODE_KEY), the key itself;
//  2. the systemd credential $CREDENTIALS_DIRECTORY/node-key, which is
//     what the service manager hands this very process (usually a copy
//     of node_key_file, which the service's user then need not read);
//  3. node_key_file (--node-key-file, OSTIUM_NODE_KEY_FILE);
//  4. DataDir/node.key, made on first start.
//
// A key apart from the data is never made: a mistyped path would
// otherwise start a node with a new key that opens none of the secrets
// the catalog holds.
func loadNodeKey(cfg Config) ([]byte, error) {
	if key, err := givenNodeKey(cfg); key != nil || err != nil {
		return key, err
	}
	path := filepath.Join(cfg.DataDir, "node.key")
	if err := tighten(path, 0o600); err != nil {
		return nil, err
	}
	return iam.LoadNodeKey(cfg.DataDir, "")
}

// givenNodeKey is the key of the first of sources 1 to 3 that is set (nil
// when none is): read and checked, never made, so that `ostium config
// validate` runs it too.
func givenNodeKey(cfg Config) ([]byte, error) {
	if cfg.NodeKey != "" {
		// Its one failure is the format; the value, a secret, is not
		// repeated.
		key, err := iam.LoadNodeKey(cfg.DataDir, cfg.NodeKey)
		if err != nil {
			return nil, errors.New("node_key: not 32 bytes in base64 (OSTIUM_NODE_KEY or the file's node_key; make one with: head -c 32 /dev/urandom | base64)")
		}
		return key, nil
	}
	if dir := os.Getenv("CREDENTIALS_DIRECTORY"); dir != "" {
		path := filepath.Join(dir, NodeKeyCredential)
		if _, err := os.Stat(path); err == nil {
			return readNodeKeyFile(path)
		}
	}
	if cfg.NodeKeyFile != "" {
		return readNodeKeyFile(cfg.NodeKeyFile)
	}
	return nil, nil
}

// readNodeKeyFile reads a base64 32-byte key from path, refusing a file
// every user of the machine can read: such a key seals nothing. A group
// may read it (root:ostium 0640 is a usual way to hand it over).
func readNodeKeyFile(path string) ([]byte, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("node_key_file: %w (make one with: head -c 32 /dev/urandom | base64 > %s; chmod 0600 %[2]s)", err, path)
	}
	if fi.Mode().Perm()&0o004 != 0 {
		return nil, fmt.Errorf("node_key_file: %s is readable by every user (mode %v): chmod 0600 it", path, fi.Mode().Perm())
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("node_key_file: %w", err)
	}
	key, err := base64.StdEncoding.DecodeString(strings.TrimSpace(string(b)))
	if err != nil || len(key) != 32 {
		return nil, fmt.Errorf("node_key_file: %s is not a 32-byte base64 key", path)
	}
	slog.Debug("node key read", "file", path)
	return key, nil
}

// tighten takes group and other permissions off path (a file or a
// directory Ostium owns), logging when it had to. A missing path is fine;
// one that cannot be changed (owned by another user) is an error: serve
// refuses to run on data others can read.
func tighten(path string, mode os.FileMode) error {
	fi, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("data: %w", err)
	}
	if fi.Mode().Perm()&0o077 == 0 {
		return nil
	}
	if err := os.Chmod(path, mode); err != nil {
		return fmt.Errorf("data: %s has mode %v, readable by others, and cannot be made %v (change its owner to the user running ostium, or chmod it): %w",
			path, fi.Mode().Perm(), mode, err)
	}
	slog.Warn("data: others could read this; made it private", "path", path, "was", fi.Mode().Perm().String(), "now", mode.String())
	return nil
}

// secureDataDir makes the data directory (created if missing) its
// owner's alone. Mode 0700 on the directory closes everything beneath it
// to other users, whatever the modes of the files there (a blob store
// may hold millions; they are made 0600 anyway), so only the directory
// and the secrets at its top are checked at each start.
func secureDataDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("node: data directory: %w", err)
	}
	return tighten(dir, 0o700)
}
