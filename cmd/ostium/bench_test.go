package main

import (
	"flag"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ostiumio/ostium/internal/bench/mock"
	"github.com/ostiumio/ostium/internal/node/nodetest"
)

func TestParseInterleaved(t *testing.T) {
	for _, args := range [][]string{
		{"FILE", "--endpoint", "E", "-n", "3"},
		{"--endpoint", "E", "FILE", "-n", "3"},
		{"-n", "3", "--endpoint", "E", "FILE"},
	} {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		e := fs.String("endpoint", "", "")
		n := fs.Int("n", 0, "")
		if err := parseInterleaved(fs, args); err != nil || *e != "E" || *n != 3 || !reflect.DeepEqual(fs.Args(), []string{"FILE"}) {
			t.Errorf("%q: endpoint %q, n %d, args %q, %v", args, *e, *n, fs.Args(), err)
		}
	}
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.Bool("v", false, "")
	if err := parseInterleaved(fs, []string{"a", "--", "-v", "b"}); err != nil || !reflect.DeepEqual(fs.Args(), []string{"a", "-v", "b"}) {
		t.Errorf("after --: %q, %v", fs.Args(), err)
	}
	for _, mode := range []string{"run", "get", "compare", "mock"} {
		if err := bench([]string{mode, "-h"}); err != nil {
			t.Errorf("bench %s -h: %v", mode, err)
		}
	}
}

const example = "../../internal/bench/workload/testdata/hybrid-small.xml"

// As the README writes it: the file first, flags after, and the keys from
// the environment (the file's are placeholders).
func TestBenchRunAsTheReadmeWritesIt(t *testing.T) {
	srv := nodetest.Start(t, nodetest.Options{})
	t.Setenv("OSTIUM_ROOT_ACCESS_KEY", nodetest.AccessKey)
	t.Setenv("OSTIUM_ROOT_SECRET_KEY", nodetest.SecretKey)
	out := filepath.Join(t.TempDir(), "run")
	if err := bench([]string{"run", example, "--endpoint", srv.URL, "--no-ceiling", "--out", out}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(out, "report.html")); err != nil {
		t.Fatal(err)
	}
	// A wrong key in the environment fails the run at its first request,
	// with S3's reason.
	t.Setenv("OSTIUM_ROOT_ACCESS_KEY", "AKWRONG")
	err := bench([]string{"run", example, "--endpoint", srv.URL, "--no-ceiling", "--out", filepath.Join(t.TempDir(), "bad")})
	if err == nil || !strings.Contains(err.Error(), "403 InvalidAccessKeyId") {
		t.Fatalf("wrong key: %v", err)
	}
	t.Setenv("OSTIUM_ROOT_SECRET_KEY", "")
	err = bench([]string{"run", example, "--endpoint", srv.URL, "--no-ceiling"})
	if err == nil || !strings.Contains(err.Error(), "needs its secret key") {
		t.Fatalf("half a key pair: %v", err)
	}
}

// A run whose operations fail more often than --max-error-ratio allows
// fails, after writing its results; one in which nothing succeeded too.
func TestBenchFailsOnErrors(t *testing.T) {
	m := mock.New()
	var gets atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && strings.Count(r.URL.Path, "/") == 2 && gets.Add(1)%10 == 0 {
			http.Error(w, "<Error><Code>InternalError</Code><Message>one in ten</Message></Error>", http.StatusInternalServerError)
			return
		}
		m.ServeHTTP(w, r)
	}))
	defer srv.Close()
	args := func(extra ...string) []string {
		return append([]string{"get", "--endpoint", srv.URL, "--access-key", "k", "--secret-key", "s", "--ops", "500", "--objects", "20",
			"--concurrency", "4", "--no-ceiling", "--out", filepath.Join(t.TempDir(), "r")}, extra...)
	}
	err := bench(args())
	if err == nil || !strings.Contains(err.Error(), "operations failed") || !strings.Contains(err.Error(), "--max-error-ratio") {
		t.Fatalf("10%% failed: %v", err)
	}
	if err := bench(args("--max-error-ratio", "0.2")); err != nil {
		t.Fatalf("10%% failed, 20%% allowed: %v", err)
	}
	down := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			http.Error(w, "<Error><Code>ServiceUnavailable</Code></Error>", http.StatusServiceUnavailable)
			return
		}
		m.ServeHTTP(w, r)
	}))
	defer down.Close()
	err = bench([]string{"get", "--endpoint", down.URL, "--access-key", "k", "--secret-key", "s", "--ops", "50", "--objects", "5",
		"--no-ceiling", "--max-error-ratio", "1", "--out", filepath.Join(t.TempDir(), "d")})
	if err == nil || !strings.Contains(err.Error(), "all 50 operations failed") {
		t.Fatalf("nothing succeeded: %v", err)
	}
}
