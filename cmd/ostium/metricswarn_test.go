package main

import (
	"bufio"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ostiumio/ostium/internal/node/nodetest"
)

const metricsWarning = "metrics: /metrics answers anyone who reaches"

// `config validate` warns, as serve does at start, when /metrics is open
// to anyone on a listener other hosts can reach; a token, an allow list
// or loopback-only listeners close it.
func TestConfigValidateWarnsOfOpenMetrics(t *testing.T) {
	clearCredentials(t)
	dir := t.TempDir()
	ca := nodetest.NewCA(t)
	crt, key := filepath.Join(dir, "n.crt"), filepath.Join(dir, "n.key")
	ca.Issue(t, 1, crt, key)
	for i, tc := range []struct {
		yaml string
		open string // the address the warning names; "" = no warning
	}{
		{"listen: \":9000\"\n", ":9000"},
		{"listen: 0.0.0.0:9000\n", "0.0.0.0:9000"},
		{"listen: \"[::]:9000\"\n", "[::]:9000"},
		{"listen: s3.example.com:9000\n", "s3.example.com:9000"},
		{"listen: 127.0.0.1:9000\n", ""},
		{"listen: \"[::1]:9000\"\n", ""},
		{"listen: localhost:9000\n", ""},
		{"listen: \":9000\"\nmetrics: {token: a-long-scrape-token}\n", ""},
		{"listen: \":9000\"\nmetrics: {allow: [10.0.0.5, 192.168.0.0/24]}\n", ""},
		{"listen: 127.0.0.1:9000\ntls_listen: \":9443\"\ntls_cert: " + crt + "\ntls_key: " + key + "\n", ":9443"},
	} {
		file := filepath.Join(dir, "c.yaml")
		os.WriteFile(file, []byte("data: "+filepath.Join(dir, "d", string(rune('a'+i)))+"\n"+tc.yaml), 0o600)
		out, err := runCLI(t, "config", "validate", file)
		if err != nil {
			t.Fatalf("%s: %v", tc.yaml, err)
		}
		warned := strings.Contains(out, "warning: "+metricsWarning)
		if warned != (tc.open != "") || (warned && !strings.Contains(out, "reaches "+tc.open+" ")) || !strings.Contains(out, ": ok") {
			t.Errorf("%s: validate says %q; want a warning naming %q", tc.yaml, out, tc.open)
		}
	}
}

// serve logs the same warning, once, at WARN, when it starts with
// /metrics open on every address.
func TestServeWarnsOfOpenMetrics(t *testing.T) {
	clearCredentials(t)
	t.Setenv("OSTIUM_METRICS_TOKEN", "")
	t.Setenv("OSTIUM_METRICS_ALLOW", "")
	dir := t.TempDir()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr, stdout, logger := os.Stderr, os.Stdout, slog.Default()
	devnull, _ := os.Open(os.DevNull)
	os.Stderr, os.Stdout = w, devnull
	defer func() { os.Stderr, os.Stdout = stderr, stdout; slog.SetDefault(logger); devnull.Close() }()
	done := make(chan error, 1)
	go func() { done <- execute([]string{"serve", "--listen", "0.0.0.0:0", "--data", dir}); w.Close() }()

	var log []string
	sc := bufio.NewScanner(r)
	deadline := time.AfterFunc(30*time.Second, func() { w.Close() })
	defer deadline.Stop()
	serving := false
	for !serving && sc.Scan() {
		log = append(log, sc.Text())
		serving = strings.Contains(sc.Text(), "ostium serving S3")
	}
	if !serving { // no signal handler to catch a SIGTERM
		t.Fatalf("serve did not start:\n%s", strings.Join(log, "\n"))
	}
	syscall.Kill(os.Getpid(), syscall.SIGTERM)
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("serve: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not stop")
	}
	io.Copy(io.Discard, r)
	var warnings []string
	for _, l := range log {
		if strings.Contains(l, metricsWarning) {
			warnings = append(warnings, l)
		}
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "level=WARN") || !strings.Contains(warnings[0], "0.0.0.0:0") {
		t.Fatalf("want one WARN line naming 0.0.0.0:0, got %q in:\n%s", warnings, strings.Join(log, "\n"))
	}
}
