package node

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/iam"
)

// NodeKeyCredential is the name of the systemd credential a node reads
// its key from (LoadCredential=node-key:/etc/ostium/node.key): systemd
// hands the service a private copy of a file its user cannot read.
const NodeKeyCredential = "node-key"

// nodeKey is the key a node seals secrets with, and where it came from.
type nodeKey struct {
	key    []byte
	source string // how it was given, for messages: "node_key", a path, ...
	// made is the file this start made the key in ("" if none): serve
	// says where, once, as it does the root credentials.
	made string
}

// loadNodeKey finds cfg's node key, first found wins:
//
//  1. node_key (OSTIUM_NODE_KEY), the key itself;
//  2. the systemd credential $CREDENTIALS_DIRECTORY/node-key, which is
//     what the service manager hands this very process (usually a copy
//     of node_key_file, which the service's user then need not read);
//  3. node_key_file (--node-key-file, OSTIUM_NODE_KEY_FILE);
//  4. the user's own key file, ostium/node.key in the user's
//     configuration directory (~/.config/ostium/node.key), made on
//     first start.
//
// The key is never kept in the data directory: a copy or backup of the
// data, started anywhere, would open every secret and SSE-S3 object in
// it. A key found there (where earlier versions made it) is moved to
// the user's key file. A key file named by node_key_file is never made:
// a mistyped path would otherwise start a node with a new key that
// opens none of the secrets the catalog holds.
func loadNodeKey(cfg Config) (nodeKey, error) {
	key, err := givenNodeKey(cfg)
	if err != nil {
		return nodeKey{}, err
	}
	if key == nil {
		return userNodeKey(cfg)
	}
	k := nodeKey{key: key, source: givenNodeKeySource(cfg)}
	return k, dropDataDirKey(cfg.DataDir, k)
}

// givenNodeKey is the key of the first of sources 1 to 3 that is set (nil
// when none is): read and checked, never made, so that `ostium config
// validate` can run it too.
func givenNodeKey(cfg Config) ([]byte, error) {
	switch cred := credentialPath(); {
	case cfg.NodeKey != "":
		// Its one failure is the format; the value, a secret, is not
		// repeated.
		key, err := iam.ParseNodeKey(cfg.NodeKey)
		if err != nil {
			return nil, errors.New("node_key: not 32 bytes in base64 (OSTIUM_NODE_KEY or the file's node_key; make one with: head -c 32 /dev/urandom | base64)")
		}
		return key, nil
	case cred != "":
		return readNodeKeyFile(cred)
	case cfg.NodeKeyFile != "":
		return readNodeKeyFile(cfg.NodeKeyFile)
	}
	return nil, nil
}

// givenNodeKeySource says which of sources 1 to 3 givenNodeKey took the
// key from, for messages.
func givenNodeKeySource(cfg Config) string {
	switch cred := credentialPath(); {
	case cfg.NodeKey != "":
		return "node_key (OSTIUM_NODE_KEY)"
	case cred != "":
		return "the systemd credential " + cred
	default:
		return "node_key_file " + cfg.NodeKeyFile
	}
}

// credentialPath is the systemd credential node-key handed to this
// process, "" if none.
func credentialPath() string {
	dir := os.Getenv("CREDENTIALS_DIRECTORY")
	if dir == "" {
		return ""
	}
	path := filepath.Join(dir, NodeKeyCredential)
	if _, err := os.Stat(path); err != nil {
		return ""
	}
	return path
}

// legacyKeyPath is where earlier versions kept the node key: beside the
// data it protects.
func legacyKeyPath(dataDir string) string { return filepath.Join(dataDir, "node.key") }

// UserNodeKeyPath is the key file a node none was given for uses:
// ostium/node.key in cfg.ConfigDir, else in the user's configuration
// directory ($XDG_CONFIG_HOME, ~/.config). It is refused inside the
// data directory (a service user whose home is the data directory).
func UserNodeKeyPath(cfg Config) (string, error) {
	dir := cfg.ConfigDir
	if dir == "" {
		d, err := os.UserConfigDir()
		if err != nil {
			return "", fmt.Errorf("node key: none is given (node_key, the systemd credential %s, node_key_file) and there is no user configuration directory to keep one in (%v): set node_key_file to a key file outside the data directory", NodeKeyCredential, err)
		}
		dir = d
	}
	path := filepath.Join(dir, "ostium", "node.key")
	if within(path, cfg.DataDir) {
		return "", fmt.Errorf("node key: none is given, and the user's key file %s would lie inside the data directory %s, where a copy of the data would carry it: set node_key_file to a key file outside the data directory", path, cfg.DataDir)
	}
	return path, nil
}

// within says whether path lies in dir, both as they are spelt (made
// absolute) and where they land once symbolic links are followed: a home
// that links into the data directory, or a data directory named by a
// link, puts a file there all the same.
func within(path, dir string) bool {
	p, err1 := filepath.Abs(path)
	d, err2 := filepath.Abs(dir)
	if err1 != nil || err2 != nil {
		return false
	}
	return under(p, d) || under(resolved(p), resolved(d))
}

// under says whether absolute path p lies in absolute dir d.
func under(p, d string) bool {
	rel, err := filepath.Rel(d, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// resolved is absolute path p with the symbolic links of its longest
// existing ancestor followed (what does not exist yet cannot be a link).
func resolved(p string) string {
	var rest []string
	for {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(append([]string{r}, rest...)...)
		}
		parent := filepath.Dir(p)
		if parent == p {
			return filepath.Join(append([]string{p}, rest...)...)
		}
		rest = append([]string{filepath.Base(p)}, rest...)
		p = parent
	}
}

// userNodeKey is the user's key file, made on first start, or moved
// there from the data directory.
func userNodeKey(cfg Config) (nodeKey, error) {
	path, err := UserNodeKeyPath(cfg)
	if err != nil {
		return nodeKey{}, err
	}
	k := nodeKey{source: path}
	if err := tighten(path, 0o600); err != nil {
		return k, err
	}
	legacy := legacyKeyPath(cfg.DataDir)
	old, err := iam.ReadNodeKeyFile(legacy)
	switch {
	case errors.Is(err, os.ErrNotExist):
		var made bool
		if k.key, made, err = iam.LoadOrMakeNodeKey(path); err != nil {
			return k, fmt.Errorf("node key: %w", err)
		}
		if made {
			k.made = path
		}
		return k, nil
	case err != nil:
		return k, fmt.Errorf("node key: %w", err)
	}
	// A key in the data directory: it goes to the user's key file,
	// unless that holds another one, which only the operator can settle.
	have, installed, err := iam.InstallNodeKey(path, old)
	if err != nil {
		return k, fmt.Errorf("node key: move %s out of the data directory: %w", legacy, err)
	}
	if !bytes.Equal(have, old) {
		return k, fmt.Errorf("node key: %s (in the data directory) and %s hold different keys: keep the one that opens this catalog's secrets in %s (or give it as node_key_file) and remove %s",
			legacy, path, path, legacy)
	}
	if err := removeSynced(legacy); err != nil {
		return k, fmt.Errorf("node key: remove %s after moving it to %s: %w", legacy, path, err)
	}
	if installed {
		slog.Warn("node key: moved out of the data directory, where a copy of the data would carry it; back it up apart from the data", "from", legacy, "to", path)
	} else {
		slog.Warn("node key: removed the copy in the data directory", "removed", legacy, "key", path)
	}
	k.key = have
	return k, nil
}

// dropDataDirKey removes a copy of k left in the data directory (where
// earlier versions made the key) now that k is given apart; a different
// key there is left alone, with a warning, as it may be the only copy
// of a key that opens something.
func dropDataDirKey(dataDir string, k nodeKey) error {
	legacy := legacyKeyPath(dataDir)
	old, err := iam.ReadNodeKeyFile(legacy)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil
	case err != nil || !bytes.Equal(old, k.key):
		slog.Warn("node key: the data directory holds a node key other than the one given; a copy of the data carries it: move it elsewhere once it is no longer needed",
			"file", legacy, "given", k.source)
		return nil
	}
	if err := removeSynced(legacy); err != nil {
		return fmt.Errorf("node key: remove the copy %s in the data directory: %w", legacy, err)
	}
	slog.Warn("node key: removed its copy in the data directory; the key is given apart", "removed", legacy, "given", k.source)
	return nil
}

// removeSynced removes path and syncs its directory.
func removeSynced(path string) error {
	if err := os.Remove(path); err != nil {
		return err
	}
	d, err := os.Open(filepath.Dir(path))
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
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
	key, err := iam.ParseNodeKey(string(b))
	if err != nil {
		return nil, fmt.Errorf("node_key_file: %s is %w", path, err)
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

// nodeKeyCheckLabel is what the catalog's check of the node key is an
// HMAC of; v1 names the form, should another come.
const nodeKeyCheckLabel = "ostium node key check v1"

// keyCheck is what the catalog records of key: an HMAC-SHA256 of a
// fixed label under it, which tells one key from another and, the key
// being 256 random bits, nothing of the key itself.
func keyCheck(key []byte) string {
	m := hmac.New(sha256.New, key)
	io.WriteString(m, nodeKeyCheckLabel)
	return "v1:" + base64.StdEncoding.EncodeToString(m.Sum(nil))
}

// checkNodeKey refuses a key that is not the one cat's secrets are
// sealed under, before anything is unsealed (or sealed under the wrong
// key beside the right ones). The catalog's first start records the
// check; a catalog from before checks were kept is first tried on a root
// key's sealed secret, so that a wrong key is not recorded as right.
func checkNodeKey(ctx context.Context, cat catalog.Store, k nodeKey, cfg Config) error {
	want := keyCheck(k.key)
	have, err := cat.ProviderSetting(ctx, catalog.ProviderNodeKeyCheck)
	if err != nil {
		return fmt.Errorf("node key: read the catalog's check: %w", err)
	}
	if have == "" {
		sealer, err := iam.NewSealer(k.key)
		if err != nil {
			return err
		}
		roots, err := cat.ListAccessKeys(ctx, "", "root")
		if err != nil {
			return fmt.Errorf("node key: list root keys: %w", err)
		}
		if len(roots) > 0 {
			if _, err := sealer.Open(roots[0].SecretSealed, roots[0].AccessKey); err != nil {
				return wrongNodeKey(k, cfg)
			}
		}
		if have, err = cat.InitProviderSetting(ctx, catalog.ProviderNodeKeyCheck, want); err != nil {
			return fmt.Errorf("node key: record the catalog's check: %w", err)
		}
	}
	if !hmac.Equal([]byte(have), []byte(want)) {
		return wrongNodeKey(k, cfg)
	}
	return nil
}

func wrongNodeKey(k nodeKey, cfg Config) error {
	user := "~/.config/ostium/node.key"
	if p, err := UserNodeKeyPath(cfg); err == nil {
		user = p
	}
	return fmt.Errorf("node key: the key from %s does not open this catalog's secrets, which are sealed under another node key. "+
		"A node takes its key from node_key (OSTIUM_NODE_KEY), else the systemd credential %s, else node_key_file, else the user's key file %s (made on a first start): "+
		"give this node the key the catalog was first started with (every node sharing a catalog shares it)",
		k.source, NodeKeyCredential, user)
}
