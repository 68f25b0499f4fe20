// Package kmstest is the conformance suite every implementation of
// kms.Keys (and kms.Manager) passes: the built-in keyring and each
// external KMS.
package kmstest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/ostiumio/ostium/internal/kms"
)

// Options say what the suite runs against.
type Options struct {
	// Open returns a fresh, empty key service for each subtest.
	Open func(t *testing.T) kms.Manager
	// Region is the region the service's key ARNs must name.
	Region string
}

// Run checks an implementation against the kms.Keys and kms.Manager
// contracts.
func Run(t *testing.T, o Options) {
	tests := []struct {
		name string
		fn   func(t *testing.T, k kms.Manager, o Options)
	}{
		{"DefaultKey", testDefaultKey},
		{"DefaultKeyConcurrent", testDefaultKeyConcurrent},
		{"WrapUnwrap", testWrapUnwrap},
		{"Tamper", testTamper},
		{"TenantsApart", testTenantsApart},
		{"KeyRefs", testKeyRefs},
		{"NamedKeys", testNamedKeys},
		{"Disable", testDisable},
		{"Rotate", testRotate},
		{"Destroy", testDestroy},
		{"DestroyTenantKeys", testDestroyTenantKeys},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.fn(t, o.Open(t), o)
		})
	}
}

var ctx = context.Background()

// must(f())(t) is f's value, or the test's end with f's error.
func must[T any](v T, err error) func(t *testing.T) T {
	return func(t *testing.T) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

func wantErr(t *testing.T, err, want error) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Fatalf("error = %v, want %v", err, want)
	}
}

func roundTrip(t *testing.T, k kms.Keys, tenant, keyID string, context []byte) {
	t.Helper()
	dk := must(k.NewDataKey(ctx, tenant, keyID, context))(t)
	plain := must(k.Unwrap(ctx, tenant, dk.KeyID, dk.Wrapped, context))(t)
	if !bytes.Equal(plain, dk.Plain) {
		t.Fatalf("Unwrap = %x, want %x", plain, dk.Plain)
	}
}

func testDefaultKey(t *testing.T, k kms.Manager, o Options) {
	a := must(k.DefaultKey(ctx, "acme"))(t)
	if again := must(k.DefaultKey(ctx, "acme"))(t); again != a {
		t.Fatalf("DefaultKey changed: %s, then %s", a, again)
	}
	if other := must(k.DefaultKey(ctx, "zed"))(t); other == a {
		t.Fatal("two tenants share a default key")
	}
	keys := must(k.ListKeys(ctx, "acme"))(t)
	if len(keys) != 1 || keys[0].ID != a || !keys[0].Default || keys[0].State != kms.StateEnabled || keys[0].Versions != 1 {
		t.Fatalf("ListKeys = %+v", keys)
	}
	roundTrip(t, k, "acme", a, []byte("ctx"))
	// The provider (tenant "") has its own key too.
	p := must(k.DefaultKey(ctx, ""))(t)
	roundTrip(t, k, "", p, nil)
}

// Nodes (and requests) asking at once for a tenant's first key agree on
// one.
func testDefaultKeyConcurrent(t *testing.T, k kms.Manager, o Options) {
	const n = 8
	ids := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			id, err := k.DefaultKey(ctx, "race")
			if err != nil {
				t.Error(err)
			}
			ids[i] = id
		}()
	}
	wg.Wait()
	for _, id := range ids {
		if id != ids[0] {
			t.Fatalf("DefaultKey raced to %v", ids)
		}
	}
	if keys := must(k.ListKeys(ctx, "race"))(t); len(keys) != 1 {
		t.Fatalf("%d default keys made", len(keys))
	}
}

func testWrapUnwrap(t *testing.T, k kms.Manager, o Options) {
	id := must(k.DefaultKey(ctx, "acme"))(t)
	cx := []byte("bucket\x00key\x00version")
	a := must(k.NewDataKey(ctx, "acme", id, cx))(t)
	b := must(k.NewDataKey(ctx, "acme", id, cx))(t)
	if len(a.Plain) != kms.DataKeySize || bytes.Equal(a.Plain, b.Plain) || bytes.Equal(a.Wrapped, b.Wrapped) {
		t.Fatalf("two data keys: %d bytes, equal plain %v, equal wrapped %v", len(a.Plain), bytes.Equal(a.Plain, b.Plain), bytes.Equal(a.Wrapped, b.Wrapped))
	}
	if a.KeyID != id {
		t.Fatalf("DataKey.KeyID = %q, want %q", a.KeyID, id)
	}
	if bytes.Contains(a.Wrapped, a.Plain) {
		t.Fatal("the wrapped key holds the plain one")
	}
	plain := must(k.Unwrap(ctx, "acme", id, a.Wrapped, cx))(t)
	if !bytes.Equal(plain, a.Plain) {
		t.Fatal("Unwrap gave another key")
	}
	roundTrip(t, k, "acme", id, nil)
	roundTrip(t, k, "acme", id, bytes.Repeat([]byte{0xff}, 4096))
}

// A wrapped key opens only under its own key, context and tenant, and
// only as it was made.
func testTamper(t *testing.T, k kms.Manager, o Options) {
	id := must(k.DefaultKey(ctx, "acme"))(t)
	other := must(k.CreateKey(ctx, "acme", "other"))(t).ID
	cx := []byte("b/k/v1")
	dk := must(k.NewDataKey(ctx, "acme", id, cx))(t)
	_, err := k.Unwrap(ctx, "acme", id, dk.Wrapped, []byte("b/k/v2"))
	wantErr(t, err, kms.ErrUnwrap)
	_, err = k.Unwrap(ctx, "acme", id, dk.Wrapped, nil)
	wantErr(t, err, kms.ErrUnwrap)
	_, err = k.Unwrap(ctx, "acme", other, dk.Wrapped, cx)
	wantErr(t, err, kms.ErrUnwrap)
	for _, i := range []int{0, 1, len(dk.Wrapped) / 2, len(dk.Wrapped) - 1} {
		bad := bytes.Clone(dk.Wrapped)
		bad[i] ^= 0x01
		if _, err := k.Unwrap(ctx, "acme", id, bad, cx); err == nil {
			t.Fatalf("a wrapped key with byte %d flipped opened", i)
		} else if !errors.Is(err, kms.ErrUnwrap) {
			t.Fatalf("byte %d flipped: error %v, want ErrUnwrap", i, err)
		}
	}
	for _, n := range []int{0, 1, len(dk.Wrapped) - 1} {
		_, err := k.Unwrap(ctx, "acme", id, dk.Wrapped[:n], cx)
		wantErr(t, err, kms.ErrUnwrap)
	}
	_, err = k.Unwrap(ctx, "acme", id, append(bytes.Clone(dk.Wrapped), 0), cx)
	wantErr(t, err, kms.ErrUnwrap)
}

// Another tenant's key is no key at all: not by id, not by ARN, not by
// alias.
func testTenantsApart(t *testing.T, k kms.Manager, o Options) {
	mine := must(k.DefaultKey(ctx, "acme"))(t)
	must(k.DefaultKey(ctx, "zed"))(t)
	dk := must(k.NewDataKey(ctx, "acme", mine, nil))(t)
	_, err := k.Unwrap(ctx, "zed", mine, dk.Wrapped, nil)
	wantErr(t, err, kms.ErrNoSuchKey)
	_, err = k.NewDataKey(ctx, "zed", mine, nil)
	wantErr(t, err, kms.ErrNoSuchKey)
	_, err = k.NewDataKey(ctx, "zed", kms.KeyARN(o.Region, "acme", mine), nil)
	wantErr(t, err, kms.ErrNoSuchKey)
	_, err = k.NewDataKey(ctx, "zed", kms.KeyARN(o.Region, "zed", mine), nil)
	wantErr(t, err, kms.ErrNoSuchKey)
	named := must(k.CreateKey(ctx, "acme", "shared-name"))(t)
	_, err = k.NewDataKey(ctx, "zed", "alias/shared-name", nil)
	wantErr(t, err, kms.ErrNoSuchKey)
	theirs := must(k.CreateKey(ctx, "zed", "shared-name"))(t)
	if theirs.ID == named.ID {
		t.Fatal("one alias in two tenants named one key")
	}
	_, err = k.RotateKey(ctx, "zed", named.ID)
	wantErr(t, err, kms.ErrNoSuchKey)
	_, err = k.SetKeyState(ctx, "zed", named.ID, kms.StateDestroyed)
	wantErr(t, err, kms.ErrNoSuchKey)
	if ks := must(k.ListKeys(ctx, "zed"))(t); len(ks) != 2 {
		t.Fatalf("ListKeys(zed) = %+v", ks)
	}
	roundTrip(t, k, "acme", named.ID, nil)
}

// A key named as AWS lets a client name it: id, ARN, alias, alias ARN.
func testKeyRefs(t *testing.T, k kms.Manager, o Options) {
	named := must(k.CreateKey(ctx, "acme", "app/logs"))(t)
	def := must(k.DefaultKey(ctx, "acme"))(t)
	for ref, want := range map[string]string{
		named.ID:                               named.ID,
		kms.KeyARN(o.Region, "acme", named.ID): named.ID,
		"alias/app/logs":                       named.ID,
		"arn:aws:kms:" + o.Region + ":acme:alias/app/logs": named.ID,
		"alias/aws/s3": def,
	} {
		dk, err := k.NewDataKey(ctx, "acme", ref, []byte("c"))
		if err != nil {
			t.Fatalf("NewDataKey(%q): %v", ref, err)
		}
		if dk.KeyID != want {
			t.Fatalf("NewDataKey(%q).KeyID = %q, want %q", ref, dk.KeyID, want)
		}
		if _, err := k.Unwrap(ctx, "acme", ref, dk.Wrapped, []byte("c")); err != nil {
			t.Fatalf("Unwrap(%q): %v", ref, err)
		}
	}
	for _, ref := range []string{"", "nope", "alias/nope", "alias/", "arn:aws:kms:" + o.Region + ":acme:key/nope",
		"arn:aws:kms:elsewhere-1:acme:key/" + named.ID, "arn:aws:s3:::bucket", "key/"} {
		if _, err := k.NewDataKey(ctx, "acme", ref, nil); !errors.Is(err, kms.ErrNoSuchKey) {
			t.Fatalf("NewDataKey(%q): %v, want ErrNoSuchKey", ref, err)
		}
	}
}

func testNamedKeys(t *testing.T, k kms.Manager, o Options) {
	a := must(k.CreateKey(ctx, "acme", "a"))(t)
	if a.Alias != "a" || a.Default || a.State != kms.StateEnabled || a.Tenant != "acme" || a.ID == "" {
		t.Fatalf("CreateKey = %+v", a)
	}
	_, err := k.CreateKey(ctx, "acme", "a")
	wantErr(t, err, kms.ErrAliasExists)
	for _, bad := range []string{"aws/s3", "aws/mine", "sp ace", "é", string(make([]byte, 251))} {
		_, err := k.CreateKey(ctx, "acme", bad)
		wantErr(t, err, kms.ErrBadAlias)
	}
	anon := must(k.CreateKey(ctx, "acme", ""))(t)
	roundTrip(t, k, "acme", anon.ID, nil)
	keys := must(k.ListKeys(ctx, "acme"))(t)
	if len(keys) != 2 {
		t.Fatalf("ListKeys = %+v", keys)
	}
}

// A disabled key neither wraps nor unwraps (as AWS: GetObject of an
// object under a disabled key fails), and comes back when enabled.
func testDisable(t *testing.T, k kms.Manager, o Options) {
	key := must(k.CreateKey(ctx, "acme", "d"))(t)
	dk := must(k.NewDataKey(ctx, "acme", key.ID, nil))(t)
	info := must(k.SetKeyState(ctx, "acme", "alias/d", kms.StateDisabled))(t)
	if info.State != kms.StateDisabled {
		t.Fatalf("SetKeyState = %+v", info)
	}
	_, err := k.NewDataKey(ctx, "acme", key.ID, nil)
	wantErr(t, err, kms.ErrKeyDisabled)
	_, err = k.Unwrap(ctx, "acme", key.ID, dk.Wrapped, nil)
	wantErr(t, err, kms.ErrKeyDisabled)
	must(k.SetKeyState(ctx, "acme", key.ID, kms.StateEnabled))(t)
	plain := must(k.Unwrap(ctx, "acme", key.ID, dk.Wrapped, nil))(t)
	if !bytes.Equal(plain, dk.Plain) {
		t.Fatal("a re-enabled key unwrapped another key")
	}
	if _, err := k.SetKeyState(ctx, "acme", key.ID, "bogus"); err == nil {
		t.Fatal("an unknown state was accepted")
	}
}

// What an older version wrapped still opens after rotations; new data
// keys are wrapped by the newest version.
func testRotate(t *testing.T, k kms.Manager, o Options) {
	id := must(k.DefaultKey(ctx, "acme"))(t)
	var old []kms.DataKey
	for i := range 3 {
		old = append(old, must(k.NewDataKey(ctx, "acme", id, []byte(fmt.Sprint(i))))(t))
		info := must(k.RotateKey(ctx, "acme", id))(t)
		if info.Versions != i+2 || info.ID != id {
			t.Fatalf("after rotation %d: %+v", i+1, info)
		}
	}
	latest := must(k.NewDataKey(ctx, "acme", id, []byte("new")))(t)
	for i, dk := range append(old, latest) {
		cx := []byte(fmt.Sprint(i))
		if i == len(old) {
			cx = []byte("new")
		}
		plain := must(k.Unwrap(ctx, "acme", id, dk.Wrapped, cx))(t)
		if !bytes.Equal(plain, dk.Plain) {
			t.Fatalf("data key %d opened to another key after rotation", i)
		}
	}
	keys := must(k.ListKeys(ctx, "acme"))(t)
	if len(keys) != 1 || keys[0].Versions != 4 {
		t.Fatalf("ListKeys after 3 rotations = %+v", keys)
	}
	_, err := k.RotateKey(ctx, "acme", "nope")
	wantErr(t, err, kms.ErrNoSuchKey)
}

// Crypto-shredding: what a destroyed key wrapped is gone, with an error
// that says so, never another key.
func testDestroy(t *testing.T, k kms.Manager, o Options) {
	key := must(k.CreateKey(ctx, "acme", "gone"))(t)
	dk := must(k.NewDataKey(ctx, "acme", key.ID, nil))(t)
	must(k.RotateKey(ctx, "acme", key.ID))(t)
	info := must(k.SetKeyState(ctx, "acme", key.ID, kms.StateDestroyed))(t)
	if info.State != kms.StateDestroyed {
		t.Fatalf("SetKeyState(destroyed) = %+v", info)
	}
	_, err := k.Unwrap(ctx, "acme", key.ID, dk.Wrapped, nil)
	wantErr(t, err, kms.ErrDestroyed)
	_, err = k.NewDataKey(ctx, "acme", key.ID, nil)
	wantErr(t, err, kms.ErrDestroyed)
	_, err = k.SetKeyState(ctx, "acme", key.ID, kms.StateEnabled)
	wantErr(t, err, kms.ErrDestroyed)
	_, err = k.RotateKey(ctx, "acme", key.ID)
	wantErr(t, err, kms.ErrDestroyed)
	// The alias is free again, for a new key that opens nothing old.
	_, err = k.NewDataKey(ctx, "acme", "alias/gone", nil)
	wantErr(t, err, kms.ErrNoSuchKey)
	again := must(k.CreateKey(ctx, "acme", "gone"))(t)
	if again.ID == key.ID {
		t.Fatal("a destroyed key came back")
	}
	_, err = k.Unwrap(ctx, "acme", "alias/gone", dk.Wrapped, nil)
	wantErr(t, err, kms.ErrUnwrap)
	keys := must(k.ListKeys(ctx, "acme"))(t)
	if len(keys) != 2 || keys[0].State != kms.StateDestroyed || keys[0].Versions != 0 {
		t.Fatalf("ListKeys = %+v", keys)
	}
}

func testDestroyTenantKeys(t *testing.T, k kms.Manager, o Options) {
	def := must(k.DefaultKey(ctx, "acme"))(t)
	named := must(k.CreateKey(ctx, "acme", "n"))(t).ID
	theirs := must(k.DefaultKey(ctx, "zed"))(t)
	var dks []kms.DataKey
	for _, id := range []string{def, named} {
		dks = append(dks, must(k.NewDataKey(ctx, "acme", id, nil))(t))
	}
	keep := must(k.NewDataKey(ctx, "zed", theirs, nil))(t)
	if err := k.DestroyTenantKeys(ctx, "acme"); err != nil {
		t.Fatal(err)
	}
	for _, dk := range dks {
		_, err := k.Unwrap(ctx, "acme", dk.KeyID, dk.Wrapped, nil)
		wantErr(t, err, kms.ErrDestroyed)
	}
	if _, err := k.Unwrap(ctx, "zed", theirs, keep.Wrapped, nil); err != nil {
		t.Fatalf("another tenant's key went too: %v", err)
	}
	for _, key := range must(k.ListKeys(ctx, "acme"))(t) {
		if key.State != kms.StateDestroyed {
			t.Fatalf("after DestroyTenantKeys: %+v", key)
		}
	}
	if err := k.DestroyTenantKeys(ctx, "acme"); err != nil {
		t.Fatalf("destroying again: %v", err)
	}
}
