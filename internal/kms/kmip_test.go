package kms_test

import (
	"bytes"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/kms"
	"github.com/ostiumio/ostium/internal/kms/kmstest"
)

func kmipKeys(t *testing.T, srv *kmstest.KMIPServer, s catalog.Store, o kms.KeyringOptions) *kms.Keyring {
	t.Helper()
	k, err := kms.NewKMIP(s.(catalog.KeyStore), srv.Config, o)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// The KMIP implementation passes the suite the built-in keyring passes,
// against a real PyKMIP server.
func TestKMIPConformance(t *testing.T) {
	srv := kmstest.StartKMIP(t)
	kmstest.Run(t, kmstest.Options{Region: "eu-west-3", Open: func(t *testing.T) kms.Manager {
		return kmipKeys(t, srv, openSQLite(t), kms.KeyringOptions{Region: "eu-west-3"})
	}})
}

// An outage of the KMS: a server that is gone, or hung, makes wrapping
// and unwrapping fail with ErrUnavailable within the configured timeout,
// never hang; when it is back, everything wrapped before opens again.
func TestKMIPOutage(t *testing.T) {
	srv := kmstest.StartKMIP(t)
	srv.Config.Timeout = time.Second
	k := kmipKeys(t, srv, openSQLite(t), kms.KeyringOptions{})
	id, err := k.DefaultKey(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	var before []kms.DataKey
	for range 3 {
		dk, err := k.NewDataKey(ctx, "acme", id, []byte("cx"))
		if err != nil {
			t.Fatal(err)
		}
		before = append(before, dk)
	}
	down := func(what string) {
		t.Helper()
		// Several at once: more than the connections, so some wait for
		// one; each still answers within its deadline.
		var wg sync.WaitGroup
		for i := range 6 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				start := time.Now()
				var err error
				if i%2 == 0 {
					_, err = k.NewDataKey(ctx, "acme", id, []byte("cx"))
				} else {
					_, err = k.Unwrap(ctx, "acme", id, before[0].Wrapped, []byte("cx"))
				}
				if !errors.Is(err, kms.ErrUnavailable) {
					t.Errorf("%s: call %d: %v, want ErrUnavailable", what, i, err)
				}
				if d := time.Since(start); d > 3*time.Second {
					t.Errorf("%s: call %d took %v with a timeout of 1s", what, i, d)
				}
			}()
		}
		wg.Wait()
	}
	back := func(what string) {
		t.Helper()
		for i, dk := range before {
			plain, err := k.Unwrap(ctx, "acme", id, dk.Wrapped, []byte("cx"))
			if err != nil || !bytes.Equal(plain, dk.Plain) {
				t.Fatalf("%s: data key %d: %v", what, i, err)
			}
		}
		dk, err := k.NewDataKey(ctx, "acme", id, []byte("cx"))
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		before = append(before, dk)
	}
	srv.Pause()
	down("hung server")
	srv.Resume()
	back("after the hang")
	srv.Stop()
	down("stopped server")
	srv.Start()
	back("after a restart")
}

// Destroying a key destroys it on the KMIP server: what it wrapped is
// gone there, whatever the catalog says.
func TestKMIPDestroyReachesServer(t *testing.T) {
	srv := kmstest.StartKMIP(t)
	s := openSQLite(t)
	k := kmipKeys(t, srv, s, kms.KeyringOptions{})
	id, _ := k.DefaultKey(ctx, "acme")
	dk, err := k.NewDataKey(ctx, "acme", id, nil)
	if err != nil {
		t.Fatal(err)
	}
	ck, err := s.(catalog.KeyStore).GetKey(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if err := k.DestroyTenantKeys(ctx, "acme"); err != nil {
		t.Fatal(err)
	}
	// A key service whose catalog still holds the key as it was (a
	// restored backup): the server has nothing left to open it with.
	s2 := openSQLite(t)
	ks2 := s2.(catalog.KeyStore)
	ck.State = catalog.KeyEnabled
	if err := ks2.CreateKey(ctx, ck); err != nil {
		t.Fatal(err)
	}
	k2 := kmipKeys(t, srv, s2, kms.KeyringOptions{})
	if _, err := k2.Unwrap(ctx, "acme", id, dk.Wrapped, nil); !errors.Is(err, kms.ErrDestroyed) {
		t.Fatalf("Unwrap after the server destroyed the key: %v, want ErrDestroyed", err)
	}
}
