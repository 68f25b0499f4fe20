package target_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/ostiumio/ostium/internal/bench/mock"
	"github.com/ostiumio/ostium/internal/bench/payload"
	"github.com/ostiumio/ostium/internal/bench/target"
)

// Verified counts the reads checked to the last byte, and a read of other
// contents as a mismatch.
func TestVerifiedCounts(t *testing.T) {
	m := mock.New()
	bad := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/wrong") {
			io.WriteString(w, strings.Repeat("x", 1000))
			return
		}
		m.ServeHTTP(w, r)
	}))
	defer bad.Close()
	tg, _ := target.New(target.Config{Endpoints: []string{bad.URL}, AccessKey: "k", SecretKey: "s"})
	ctx := context.Background()
	for _, k := range []string{"a", "b", "wrong"} {
		if _, err := tg.Put(ctx, "bk", k, 1000); err != nil {
			t.Fatal(err)
		}
	}
	for _, k := range []string{"a", "b"} {
		if _, err := tg.Get(ctx, "bk", k, 1000, true); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := tg.Get(ctx, "bk", "a", 1000, false); err != nil { // not verified: not counted
		t.Fatal(err)
	}
	if _, err := tg.Get(ctx, "bk", "wrong", 1000, true); !errors.Is(err, payload.ErrMismatch) {
		t.Fatalf("a wrong body read as %v", err)
	}
	if got := tg.Verified(); got != (target.Verified{Objects: 2, Bytes: 2000, Mismatches: 1}) {
		t.Fatalf("verified %+v", got)
	}
}

// An S3 error carries its code and message, as the server sent them.
func TestErrorCarriesTheMessage(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusForbidden)
		io.WriteString(w, `<Error><Code>InvalidAccessKeyId</Code><Message>The AWS Access Key Id you provided does not exist in our records.</Message></Error>`)
	}))
	defer srv.Close()
	tg, _ := target.New(target.Config{Endpoints: []string{srv.URL}, AccessKey: "k", SecretKey: "s"})
	err := tg.CreateBucket(context.Background(), "b")
	if err == nil || err.Error() != "S3 error 403 InvalidAccessKeyId: The AWS Access Key Id you provided does not exist in our records." {
		t.Fatalf("err %v", err)
	}
	// A HEAD has no body: the status names the error.
	_, err = tg.Head(context.Background(), "b", "k")
	if err == nil || err.Error() != "S3 error 403 Forbidden" {
		t.Fatalf("HEAD err %v", err)
	}
}
