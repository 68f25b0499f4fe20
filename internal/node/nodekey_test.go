package node_test

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/catalog/sqlite"
	"github.com/ostiumio/ostium/internal/node"
	"github.com/ostiumio/ostium/internal/node/nodetest"
)

func newKey(t *testing.T) string {
	t.Helper()
	k := make([]byte, 32)
	rand.Read(k)
	return base64.StdEncoding.EncodeToString(k)
}

func writeKey(t *testing.T, path, key string, mode os.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, []byte(key+"\n"), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}

// open opens and closes a node on dir (SQLite there: which key sealed the
// root's secret is what the test tells apart) and returns Open's error.
// Its user configuration directory is the test's own.
func open(t *testing.T, dir string, edit func(*node.Config)) error {
	t.Helper()
	_, err := openNode(t, dir, edit)
	return err
}

// openNode is open, also telling the key file the start made.
func openNode(t *testing.T, dir string, edit func(*node.Config)) (made string, err error) {
	t.Helper()
	cfg := node.Config{DataDir: dir, ConfigDir: filepath.Join(t.TempDir(), "config"), RootAccessKey: nodetest.AccessKey, RootSecretKey: nodetest.SecretKey}
	edit(&cfg)
	n, err := node.Open(context.Background(), cfg)
	if err != nil {
		return "", err
	}
	made = n.CreatedNodeKeyFile
	n.Close()
	return made, nil
}

func readKey(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

// With no key given, the node makes one in the user's configuration
// directory, never in the data directory: 0600 in a 0700 directory, said
// once (CreatedNodeKeyFile, which serve prints), kept after. Another
// user's directory (another key) does not open the catalog, and says
// where keys come from; neither does a key given inline.
func TestUserNodeKeyApartFromData(t *testing.T) {
	dir, home := t.TempDir(), t.TempDir()
	path := filepath.Join(home, "ostium", "node.key")
	mine := func(c *node.Config) { c.ConfigDir = home }
	made, err := openNode(t, dir, mine)
	if err != nil || made != path {
		t.Fatalf("first start: made %q, %v; want %s", made, err, path)
	}
	for p, want := range map[string]os.FileMode{path: 0o600, filepath.Dir(path): 0o700} {
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != want {
			t.Fatalf("%s: %v, mode %v, want %v", p, err, fi.Mode().Perm(), want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "node.key")); !os.IsNotExist(err) {
		t.Fatalf("a node.key in the data directory: %v", err)
	}
	key := readKey(t, path)
	if made, err := openNode(t, dir, mine); err != nil || made != "" {
		t.Fatalf("second start: made %q, %v", made, err)
	}
	if readKey(t, path) != key {
		t.Fatal("the second start changed the key")
	}
	err = open(t, dir, func(c *node.Config) { c.ConfigDir = t.TempDir() })
	if err == nil || !strings.Contains(err.Error(), "does not open this catalog's secrets") || !strings.Contains(err.Error(), "node_key_file") {
		t.Fatalf("another user's key: %v", err)
	}
	err = open(t, dir, func(c *node.Config) { c.NodeKey = newKey(t) })
	if err == nil || !strings.Contains(err.Error(), "node_key (OSTIUM_NODE_KEY) does not open") {
		t.Fatalf("another key inline: %v", err)
	}
	if err := open(t, dir, func(c *node.Config) { c.NodeKey = key }); err != nil {
		t.Fatalf("the same key inline: %v", err)
	}
}

// A node the root pair of which is generated (none given) is refused
// another key all the same: the check is the catalog's, not the root
// key's.
func TestWrongNodeKeyRefusedWithoutRootPair(t *testing.T) {
	dir := t.TempDir()
	k1 := newKey(t)
	none := func(k string) func(*node.Config) {
		return func(c *node.Config) { c.NodeKey, c.RootAccessKey, c.RootSecretKey = k, "", "" }
	}
	if err := open(t, dir, none(k1)); err != nil {
		t.Fatal(err)
	}
	if err := open(t, dir, none(newKey(t))); err == nil || !strings.Contains(err.Error(), "does not open this catalog's secrets") {
		t.Fatalf("another key, root pair generated: %v", err)
	}
	if err := open(t, dir, none(k1)); err != nil {
		t.Fatalf("the right key after a refusal: %v", err)
	}
}

// A catalog from before the check was kept gets one at its first start,
// but only for the key its root secret opens under: a wrong key is
// refused, and not recorded as right.
func TestNodeKeyCheckAddedToOlderCatalog(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	k1 := newKey(t)
	if err := open(t, dir, func(c *node.Config) { c.NodeKey = k1 }); err != nil {
		t.Fatal(err)
	}
	check := func() string {
		cat, err := sqlite.Open(ctx, filepath.Join(dir, "catalog.db"))
		if err != nil {
			t.Fatal(err)
		}
		defer cat.Close()
		v, err := cat.ProviderSetting(ctx, catalog.ProviderNodeKeyCheck)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	first := check()
	if first == "" || strings.Contains(first, k1) {
		t.Fatalf("the catalog's check: %q", first)
	}
	forget := func() {
		cat, err := sqlite.Open(ctx, filepath.Join(dir, "catalog.db"))
		if err != nil {
			t.Fatal(err)
		}
		defer cat.Close()
		if err := cat.SetProviderSetting(ctx, catalog.ProviderNodeKeyCheck, ""); err != nil {
			t.Fatal(err)
		}
	}
	forget() // as a catalog an earlier version made
	noRoot := func(k string) func(*node.Config) {
		return func(c *node.Config) { c.NodeKey, c.RootAccessKey, c.RootSecretKey = k, "", "" }
	}
	if err := open(t, dir, noRoot(newKey(t))); err == nil || !strings.Contains(err.Error(), "does not open this catalog's secrets") {
		t.Fatalf("a wrong key on an older catalog: %v", err)
	}
	if v := check(); v != "" {
		t.Fatalf("a wrong key's check was recorded: %q", v)
	}
	if err := open(t, dir, noRoot(k1)); err != nil {
		t.Fatalf("the right key on an older catalog: %v", err)
	}
	if v := check(); v != first {
		t.Fatalf("the check recorded for the right key: %q, want %q", v, first)
	}
}

// A key in the data directory, where earlier versions made it, moves to
// the user's key file at start and leaves the data directory. If the
// user's file holds another key, the node refuses and names both files,
// removing neither; a copy of the same key is just removed.
func TestNodeKeyMovedOutOfDataDir(t *testing.T) {
	dir, home := t.TempDir(), t.TempDir()
	legacy, path := filepath.Join(dir, "node.key"), filepath.Join(home, "ostium", "node.key")
	k1 := newKey(t)
	if err := open(t, dir, func(c *node.Config) { c.NodeKey = k1 }); err != nil {
		t.Fatal(err)
	}
	writeKey(t, legacy, k1, 0o644) // left readable, as an operator might have
	mine := func(c *node.Config) { c.ConfigDir = home }
	if made, err := openNode(t, dir, mine); err != nil || made != "" {
		t.Fatalf("start with a key in the data directory: made %q, %v", made, err)
	}
	if _, err := os.Stat(legacy); !os.IsNotExist(err) {
		t.Fatalf("the key is still in the data directory: %v", err)
	}
	if got := readKey(t, path); got != k1 {
		t.Fatalf("the user's key file holds %q, want the moved key", got)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Fatalf("the moved key's mode: %v", fi.Mode().Perm())
	}

	k2 := newKey(t)
	writeKey(t, legacy, k2, 0o600)
	err := open(t, dir, mine)
	if err == nil || !strings.Contains(err.Error(), legacy) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "different keys") {
		t.Fatalf("different keys in the data directory and the user's file: %v", err)
	}
	if readKey(t, legacy) != k2 || readKey(t, path) != k1 {
		t.Fatal("a refused start changed a key file")
	}

	writeKey(t, legacy, k1, 0o600)
	if err := open(t, dir, mine); err != nil {
		t.Fatalf("a copy of the same key in the data directory: %v", err)
	}
	if _, err := os.Stat(legacy); !os.IsNotExist(err) {
		t.Fatalf("the copy stays in the data directory: %v", err)
	}

	// Given apart, the same key's copy in the data directory goes too;
	// another key there is left (it may be the only copy of something).
	writeKey(t, legacy, k1, 0o600)
	if err := open(t, dir, func(c *node.Config) { c.NodeKey = k1 }); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(legacy); !os.IsNotExist(err) {
		t.Fatalf("the copy of the key given inline stays in the data directory: %v", err)
	}
	writeKey(t, legacy, k2, 0o600)
	if err := open(t, dir, func(c *node.Config) { c.NodeKey = k1 }); err != nil {
		t.Fatal(err)
	}
	if readKey(t, legacy) != k2 {
		t.Fatal("another key in the data directory was removed")
	}
}

// Nodes starting at once on one machine, with no key given, make one key
// file between them: each reads what the first wrote, whole.
func TestUserNodeKeyMadeOnceAtOnce(t *testing.T) {
	home := t.TempDir()
	const n = 4
	dirs := make([]string, n)
	errs := make(chan error, n)
	var wg sync.WaitGroup
	for i := range dirs {
		dirs[i] = t.TempDir()
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- open(t, dirs[i], func(c *node.Config) { c.ConfigDir = home })
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("a node starting at once: %v", err)
		}
	}
	key := readKey(t, filepath.Join(home, "ostium", "node.key"))
	for _, d := range dirs { // each catalog was sealed under the one key in the file
		if err := open(t, d, func(c *node.Config) { c.NodeKey = key }); err != nil {
			t.Fatalf("%s under the key file's key: %v", d, err)
		}
	}
	left, _ := os.ReadDir(filepath.Join(home, "ostium"))
	if len(left) != 1 {
		t.Fatalf("the key's directory holds %d files, want the key alone", len(left))
	}
}

// Without a user configuration directory, or with one inside the data
// directory (a service user whose home is the data), a node given no key
// refuses and names node_key_file.
func TestUserNodeKeyNeedsAPlaceApart(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("HOME", "")
	err := open(t, dir, func(c *node.Config) { c.ConfigDir = "" })
	if err == nil || !strings.Contains(err.Error(), "node_key_file") {
		t.Fatalf("no user configuration directory: %v", err)
	}
	t.Setenv("HOME", dir)
	err = open(t, dir, func(c *node.Config) { c.ConfigDir = "" })
	if err == nil || !strings.Contains(err.Error(), "inside the data directory") || !strings.Contains(err.Error(), "node_key_file") {
		t.Fatalf("home in the data directory: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, ".config")); !os.IsNotExist(err) {
		t.Fatalf("a key was made inside the data directory: %v", err)
	}
}

// The user's configuration directory is inside the data directory when
// either is reached through a symbolic link (a home that links to the
// data, a data directory named by a link to it): the place is judged by
// where the files land, not by how the paths are spelt.
func TestUserNodeKeyApartFromDataThroughLinks(t *testing.T) {
	base := t.TempDir()
	data := filepath.Join(base, "data")
	if err := os.MkdirAll(data, 0o700); err != nil {
		t.Fatal(err)
	}
	home, dataLink := filepath.Join(base, "home"), filepath.Join(base, "data-link")
	if err := os.Symlink(data, home); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(data, dataLink); err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct{ dataDir, configDir string }{
		"home links to the data":   {data, home},
		"data named by a link":     {dataLink, data},
		"both reached through one": {dataLink, filepath.Join(dataLink, "cfg")},
	} {
		err := open(t, tc.dataDir, func(c *node.Config) { c.ConfigDir = tc.configDir })
		if err == nil || !strings.Contains(err.Error(), "inside the data directory") {
			t.Errorf("%s: %v, want the key refused inside the data directory", name, err)
		}
		for _, p := range []string{filepath.Join(data, "ostium"), filepath.Join(data, "cfg")} {
			if _, err := os.Stat(p); !os.IsNotExist(err) {
				t.Fatalf("%s: a key was made inside the data directory (%s): %v", name, p, err)
			}
		}
	}
}

// The node key may live apart from the data: in a file, or in a systemd
// credential, which wins over the file it is usually a copy of. The data
// directory then holds no key; a key file others can read, or one that is
// missing, stops the node rather than starting it on a new key.
func TestNodeKeyApartFromData(t *testing.T) {
	dir, etc := t.TempDir(), t.TempDir()
	k1, k2 := newKey(t), newKey(t)
	keyFile := filepath.Join(etc, "node.key")
	writeKey(t, keyFile, k1, 0o600)
	if err := open(t, dir, func(c *node.Config) { c.NodeKeyFile = keyFile }); err != nil {
		t.Fatalf("open with node_key_file: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "node.key")); !os.IsNotExist(err) {
		t.Fatalf("a node.key was written to the data directory: %v", err)
	}
	// The root's secret is sealed with k1: the same key opens it, another does not.
	if err := open(t, dir, func(c *node.Config) { c.NodeKey = k1 }); err != nil {
		t.Fatalf("reopen with the same key inline: %v", err)
	}
	if err := open(t, dir, func(c *node.Config) { c.NodeKey = k2 }); err == nil {
		t.Fatal("another key opened the root's secret: the key file was not used")
	}

	creds := t.TempDir()
	writeKey(t, filepath.Join(creds, node.NodeKeyCredential), k1, 0o400)
	other := filepath.Join(etc, "other.key")
	writeKey(t, other, k2, 0o600)
	t.Setenv("CREDENTIALS_DIRECTORY", creds)
	if err := open(t, dir, func(c *node.Config) { c.NodeKeyFile = other }); err != nil {
		t.Fatalf("the systemd credential was not preferred: %v", err)
	}
	t.Setenv("CREDENTIALS_DIRECTORY", t.TempDir()) // no node-key in it
	if err := open(t, dir, func(c *node.Config) { c.NodeKeyFile = keyFile }); err != nil {
		t.Fatalf("a credentials directory without node-key: %v", err)
	}

	writeKey(t, keyFile, k1, 0o644)
	if err := open(t, dir, func(c *node.Config) { c.NodeKeyFile = keyFile }); err == nil || !strings.Contains(err.Error(), "readable by every user") {
		t.Fatalf("world-readable key file: %v", err)
	}
	missing := filepath.Join(etc, "typo.key")
	if err := open(t, dir, func(c *node.Config) { c.NodeKeyFile = missing }); err == nil {
		t.Fatal("a missing key file started the node")
	}
	if _, err := os.Stat(missing); !os.IsNotExist(err) {
		t.Fatalf("a missing key file was made: %v", err)
	}
}

// A node key kept apart stays apart in an exported configuration: the
// file names it and does not carry it.
func TestExportLeavesKeyFileApart(t *testing.T) {
	c := sealable(t.TempDir())
	c.NodeKeyFile = "/etc/ostium/node.key"
	sealed, err := node.SealSecrets(c, "p")
	if err != nil {
		t.Fatal(err)
	}
	if sealed.NodeKey != "" || sealed.NodeKeyFile != c.NodeKeyFile {
		t.Fatalf("export: node_key %q, node_key_file %q", sealed.NodeKey, sealed.NodeKeyFile)
	}
}
