package main

import (
	"bufio"
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/ostiumio/ostium/internal/node/nodetest"
	"github.com/ostiumio/ostium/internal/support"
)

// clearCredentials leaves the test's environment without any key pair,
// and with a user configuration directory of its own, where a node it
// starts makes its node key.
func clearCredentials(t *testing.T) {
	for _, n := range []string{"OSTIUM_ROOT_ACCESS_KEY", "OSTIUM_ROOT_SECRET_KEY", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "OSTIUM_NODE_KEY", "OSTIUM_CONFIG", "CREDENTIALS_DIRECTORY"} {
		t.Setenv(n, "")
	}
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
}

// `config validate` lists every error, each naming its key, and `serve`
// refuses the same file with the same words: both run resolveConfig.
func TestConfigValidateReportsEveryErrorAsServeDoes(t *testing.T) {
	clearCredentials(t)
	file := filepath.Join(t.TempDir(), "bad.yaml")
	os.WriteFile(file, []byte("data: \"\"\nmax_requests: -1\ntenant_share: 200\nroot_access_key: AK\nplatforms: {a: {type: s3}}\ndefault_platform: b\ngc_interval: -1s\n"), 0o600)
	verr := execute([]string{"config", "validate", file})
	if verr == nil {
		t.Fatal("config validate passed a bad file")
	}
	for _, key := range []string{"data:", "max_requests:", "tenant_share:", "root_secret_key:", "default_platform:", "platforms.a.bucket:", "gc_interval:", "7 error(s)"} {
		if !strings.Contains(verr.Error(), key) {
			t.Errorf("config validate does not name %s:\n%v", key, verr)
		}
	}
	serr := execute([]string{"serve", "--config", file})
	if serr == nil || serr.Error() != verr.Error() {
		t.Errorf("serve says\n%v\nconfig validate says\n%v", serr, verr)
	}
}

// What serve takes from the environment counts for validate as well: a
// file with half a root pair is valid when the environment gives both.
func TestConfigValidateTakesTheEnvironmentAsServeDoes(t *testing.T) {
	clearCredentials(t)
	file := filepath.Join(t.TempDir(), "half.yaml")
	os.WriteFile(file, []byte("data: /var/lib/ostium\nroot_access_key: AK\n"), 0o600)
	if err := execute([]string{"config", "validate", file}); err == nil || !strings.Contains(err.Error(), "root_secret_key") {
		t.Fatalf("half a root pair: %v", err)
	}
	t.Setenv("OSTIUM_ROOT_ACCESS_KEY", "AK2")
	t.Setenv("OSTIUM_ROOT_SECRET_KEY", "a-secret")
	if err := execute([]string{"config", "validate", file}); err != nil {
		t.Fatalf("with the pair in the environment: %v", err)
	}
}

// A missing or half credential is reported as such, and nothing reaches
// the endpoint.
func TestMissingCredentialsBeforeAnyRequest(t *testing.T) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	defer srv.Close()
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"admin, none", []string{"admin", "--endpoint", srv.URL, "tenant", "list"}, "no credentials"},
		{"admin, no secret", []string{"admin", "--endpoint", srv.URL, "--access-key", "AK", "tenant", "list"}, "incomplete credentials: an access key but no secret key"},
		{"admin, no access key", []string{"admin", "--endpoint", srv.URL, "--secret-key", "S", "tenant", "list"}, "incomplete credentials: a secret key but no access key"},
		{"bench, none", []string{"bench", "put", "--endpoint", srv.URL, "--no-ceiling", "--ops", "1"}, "no credentials"},
		{"bench, no secret", []string{"bench", "put", "--endpoint", srv.URL, "--no-ceiling", "--ops", "1", "--access-key", "AK"}, "incomplete credentials"},
		{"bench run, no secret", []string{"bench", "run", "--endpoint", srv.URL, "--no-ceiling", "--access-key", "AK", "no-such-file.yaml"}, "incomplete credentials"},
	} {
		clearCredentials(t)
		err := execute(tc.args)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
	// Given by flag, the pair is not mixed with the environment's.
	clearCredentials(t)
	t.Setenv("OSTIUM_ROOT_SECRET_KEY", "env-secret")
	if err := execute([]string{"bench", "put", "--endpoint", srv.URL, "--no-ceiling", "--ops", "1", "--access-key", "AK"}); err == nil || !strings.Contains(err.Error(), "incomplete credentials") {
		t.Errorf("bench with --access-key alone: %v", err)
	}
	// The environment's half pair is caught the same way.
	clearCredentials(t)
	t.Setenv("OSTIUM_ROOT_ACCESS_KEY", "AK")
	if err := execute([]string{"admin", "--endpoint", srv.URL, "tenant", "list"}); err == nil || !strings.Contains(err.Error(), "incomplete credentials") {
		t.Errorf("admin with OSTIUM_ROOT_ACCESS_KEY alone: %v", err)
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("%d requests reached the endpoint", n)
	}
}

// serve logs the start and the end of its graceful shutdown, with the
// signal that asked for it.
func TestServeLogsShutdown(t *testing.T) {
	clearCredentials(t)
	dir := t.TempDir()
	os.Chmod(dir, 0o700)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr, stdout, logger := os.Stderr, os.Stdout, slog.Default()
	devnull, _ := os.Open(os.DevNull)
	// serve writes its log to os.Stderr, and the generated root keys to
	// os.Stdout.
	os.Stderr, os.Stdout = w, devnull
	defer func() { os.Stderr, os.Stdout = stderr, stdout; slog.SetDefault(logger); devnull.Close() }()
	done := make(chan error, 1)
	go func() {
		done <- execute([]string{"serve", "--listen", "127.0.0.1:0", "--console-listen", "127.0.0.1:0", "--data", dir})
		w.Close()
	}()

	lines := make(chan string, 100)
	go func() {
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	var log []string
	wait := func(what string) {
		t.Helper()
		timeout := time.After(20 * time.Second)
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					t.Fatalf("serve ended before %q:\n%s", what, strings.Join(log, "\n"))
				}
				log = append(log, l)
				if strings.Contains(l, what) {
					return
				}
			case <-timeout:
				t.Fatalf("no %q in:\n%s", what, strings.Join(log, "\n"))
			}
		}
	}
	wait("ostium serving S3")
	wait("ostium serving the console")
	syscall.Kill(os.Getpid(), syscall.SIGTERM)
	wait("ostium shutting down")
	if l := log[len(log)-1]; !strings.Contains(l, `reason="signal terminated"`) {
		t.Errorf("shutdown line without its reason: %s", l)
	}
	wait("ostium shut down")
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("serve: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("serve did not return")
	}
	io.Copy(io.Discard, r)
}

// A bundle never overwrites another: an --out that exists is refused and
// left as it was, and bundles named by default in the same second get
// names of their own, each readable by its owner only.
func TestSupportBundleNeverOverwrites(t *testing.T) {
	clearCredentials(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "b.tar.gz")
	os.WriteFile(out, []byte("old"), 0o644)
	o := support.Options{Unit: "ostium-test-no-such-unit", Progress: io.Discard}
	if err := writeBundle(context.Background(), out, false, o); err == nil || !strings.Contains(err.Error(), "exists") {
		t.Errorf("over an existing --out: %v", err)
	}
	if b, _ := os.ReadFile(out); string(b) != "old" {
		t.Errorf("the existing file was changed: %q", b)
	}
	stem := filepath.Join(dir, "ostium-support-host-20261126-120000")
	for range 3 {
		// No node and no unit: parts fail, and the archive is still written.
		if err := writeBundle(context.Background(), stem, true, o); err == nil || !strings.Contains(err.Error(), "parts failed") {
			t.Errorf("a bundle with failed parts: %v", err)
		}
	}
	for _, name := range []string{stem + ".tar.gz", stem + "-2.tar.gz", stem + "-3.tar.gz"} {
		fi, err := os.Stat(name)
		if err != nil || fi.Mode().Perm() != 0o600 || fi.Size() < 100 {
			t.Errorf("%s: %v, %v", name, err, fi)
		}
	}
}

// support bundle finds the node and the keys as admin does (one code),
// with the same default endpoint; it exits 0 only when every part was
// collected, and otherwise names the parts that failed.
func TestSupportBundleFindsTheNodeAsAdminDoes(t *testing.T) {
	clearCredentials(t)
	t.Setenv("OSTIUM_ENDPOINT", "")
	os.Unsetenv("OSTIUM_ENDPOINT")
	for _, words := range [][]string{{"admin", "tenant", "list"}, {"support", "bundle"}} {
		c, _, err := newRootCmd().Find(words)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"endpoint", "access-key", "secret-key"} {
			if f := c.Flag(name); f == nil || (name == "endpoint" && f.DefValue != "http://localhost:9000") {
				t.Errorf("%q --%s: %+v", words, name, f)
			}
		}
	}

	srv := nodetest.Start(t, nodetest.Options{})
	dir := t.TempDir()
	log := filepath.Join(dir, "node.log")
	os.WriteFile(log, []byte("time="+time.Now().UTC().Format(time.RFC3339)+" level=INFO msg=\"ostium serving S3\"\n"), 0o600)
	args := func(out string, more ...string) []string {
		return append([]string{"support", "bundle", "--cpu-seconds", "1", "--out", filepath.Join(dir, out)}, more...)
	}
	t.Setenv("OSTIUM_ENDPOINT", srv.URL)
	// No credentials: refused before any request, in admin's words.
	if err := execute(args("none.tar.gz", "--log-file", log)); err == nil || !strings.Contains(err.Error(), "no credentials: give --access-key and --secret-key, or OSTIUM_ROOT_ACCESS_KEY") {
		t.Errorf("without credentials: %v", err)
	}
	t.Setenv("OSTIUM_ROOT_ACCESS_KEY", nodetest.AccessKey)
	t.Setenv("OSTIUM_ROOT_SECRET_KEY", nodetest.SecretKey)
	if err := execute(args("ok.tar.gz", "--log-file", log)); err != nil {
		t.Fatalf("every part there: %v", err)
	}
	// No journal of that unit and no --log-file: the logs part fails,
	// and so does the command, naming it.
	err := execute(args("nolog.tar.gz", "--unit", "ostium-test-no-such-unit"))
	if err == nil || !strings.Contains(err.Error(), "1 of 9 parts failed: logs") {
		t.Errorf("without logs: %v", err)
	}
	if _, serr := os.Stat(filepath.Join(dir, "nolog.tar.gz")); serr != nil {
		t.Errorf("the archive of a bundle with a failed part: %v", serr)
	}
}

// The console's address and S3's, however spelt, cannot be one: serve
// refuses before it opens anything (no catalog is made).
func TestServeRefusesConsoleOnS3Address(t *testing.T) {
	clearCredentials(t)
	t.Setenv("OSTIUM_CONSOLE_LISTEN", "")
	dir := t.TempDir()
	os.Chmod(dir, 0o700)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	ln.Close()
	err = execute([]string{"serve", "--listen", "127.0.0.1:" + port, "--console-listen", "0.0.0.0:" + port, "--data", dir})
	if err == nil || !strings.Contains(err.Error(), "in use") {
		t.Fatalf("serve with the console on S3's port: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "catalog.db")); !os.IsNotExist(err) {
		t.Errorf("a catalog was made: %v", err)
	}
	// The same address, spelt alike, is a configuration error.
	err = execute([]string{"serve", "--listen", "127.0.0.1:" + port, "--console-listen", "127.0.0.1:" + port, "--data", dir})
	if err == nil || !strings.Contains(err.Error(), "console_listen:") {
		t.Fatalf("serve with console_listen = listen: %v", err)
	}
}
