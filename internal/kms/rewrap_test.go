package kms_test

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ostiumio/ostium/internal/blob"
	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/kms"
)

// keyContext binds a wrapped key as the object service does.
func keyContext(bucket, key string, enc *catalog.Encryption) []byte {
	return []byte("ostium object\x00" + bucket + "\x00" + key + "\x00" + enc.Context)
}

// store is a catalog with objects whose data keys a keyring wrapped,
// and what each data key is.
type store struct {
	t     *testing.T
	s     catalog.Store
	k     *kms.Keyring
	mu    sync.Mutex
	plain map[string][]byte // bucket/key/version -> data key
}

func (st *store) put(bucket, tenant, key string) error {
	id, err := st.k.DefaultKey(ctx, tenant)
	if err != nil {
		return err
	}
	enc := &catalog.Encryption{Kind: "AES256", KeyID: id, Context: fmt.Sprint(rand.IntN(3))}
	dk, err := st.k.NewDataKey(ctx, tenant, id, keyContext(bucket, key, enc))
	if err != nil {
		return err
	}
	enc.WrappedKey = dk.Wrapped
	vid := fmt.Sprintf("v%016x", rand.Uint64())
	now := time.Now()
	o := catalog.Object{Bucket: bucket, Key: key, VersionID: vid, Size: 1, ETag: `"e"`, LastModified: now, StorageClass: "STANDARD",
		Meta: catalog.Meta{Encryption: enc}, Parts: []catalog.Part{{BlobID: blob.NewID(), Size: 1, ETag: `"e"`, LastModified: now}}}
	st.mu.Lock()
	st.plain[bucket+"/"+key+"/"+vid] = dk.Plain
	st.mu.Unlock()
	return st.s.PutObject(ctx, o, catalog.PutOptions{})
}

// check reads a version back and opens its data key.
func (st *store) check(o catalog.Object, tenant string) error {
	st.mu.Lock()
	want := st.plain[o.Bucket+"/"+o.Key+"/"+o.VersionID]
	st.mu.Unlock()
	enc := o.Meta.Encryption
	got, err := st.k.Unwrap(ctx, tenant, enc.KeyID, enc.WrappedKey, keyContext(o.Bucket, o.Key, enc))
	if err != nil {
		return fmt.Errorf("%s/%s %s: %w", o.Bucket, o.Key, o.VersionID, err)
	}
	if !bytes.Equal(got, want) {
		return fmt.Errorf("%s/%s %s: another data key", o.Bucket, o.Key, o.VersionID)
	}
	return nil
}

func (st *store) all(bucket string) []catalog.Object {
	st.t.Helper()
	vs, err := st.s.ListVersions(ctx, bucket, catalog.VersionQuery{Limit: 100000})
	if err != nil {
		st.t.Fatal(err)
	}
	return vs
}

var buckets = map[string]string{"acme-b": "acme", "zed-b": "zed"} // bucket -> tenant

func newStore(t *testing.T) *store {
	s := openCatalog(t)
	st := &store{t: t, s: s, k: keyring(t, s, nodeKey(), kms.KeyringOptions{}), plain: map[string][]byte{}}
	for b, tenant := range buckets {
		if err := s.CreateBucket(ctx, catalog.Bucket{Name: b, Tenant: tenant, CreatedAt: time.Now()}); err != nil {
			t.Fatal(err)
		}
	}
	return st
}

// Rotation under load loses nothing: while writers put versions and
// readers open their data keys, the tenant keys are rotated and the
// re-wrap job runs; every version written opens to its own data key
// throughout and after, and once the job has passed, every stored key
// (uploads' too) is under its key's newest version.
func TestRewrapUnderLoad(t *testing.T) {
	st := newStore(t)
	// An upload begun before the rotations.
	aid, _ := st.k.DefaultKey(ctx, "acme")
	uenc := &catalog.Encryption{Kind: "AES256", KeyID: aid}
	udk, err := st.k.NewDataKey(ctx, "acme", aid, keyContext("acme-b", "big", uenc))
	if err != nil {
		t.Fatal(err)
	}
	uenc.WrappedKey = udk.Wrapped
	if err := st.s.CreateUpload(ctx, catalog.Upload{Bucket: "acme-b", Key: "big", UploadID: "up1", Initiated: time.Now(), Meta: catalog.Meta{Encryption: uenc}}); err != nil {
		t.Fatal(err)
	}
	job, err := kms.NewRewrapJob(st.s, st.k, kms.RewrapOptions{Context: keyContext, Rate: 100000})
	if err != nil {
		t.Fatal(err)
	}
	runCtx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	var writes, reads atomic.Int64
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; runCtx.Err() == nil && i < 150; i++ {
				b := []string{"acme-b", "zed-b"}[w%2]
				if err := st.put(b, buckets[b], fmt.Sprintf("k%d", i%7)); err != nil {
					t.Error(err)
					return
				}
				writes.Add(1)
			}
		}()
	}
	for r := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b := []string{"acme-b", "zed-b"}[r]
			for runCtx.Err() == nil {
				time.Sleep(10 * time.Millisecond)
				for _, o := range st.all(b) {
					if err := st.check(o, buckets[b]); err != nil {
						t.Error(err)
						return
					}
					reads.Add(1)
				}
			}
		}()
	}
	rewrapped := 0
	for round := range 3 {
		time.Sleep(100 * time.Millisecond)
		for _, tenant := range []string{"acme", "zed"} {
			if _, err := st.k.RotateKey(ctx, tenant, "alias/aws/s3"); err != nil {
				t.Fatalf("rotation %d of %s: %v", round, tenant, err)
			}
		}
		stats, err := job.Pass(ctx)
		if err != nil {
			t.Fatal(err)
		}
		rewrapped += stats.Rewrapped
	}
	if rewrapped == 0 {
		t.Fatal("the passes under load re-wrapped nothing")
	}
	time.Sleep(100 * time.Millisecond)
	stop()
	wg.Wait()
	stats, err := job.Pass(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d writes, %d reads; %d re-wrapped under load, then %d of %d", writes.Load(), reads.Load(), rewrapped, stats.Rewrapped, stats.Seen)
	if writes.Load() < 20 || reads.Load() < 20 {
		t.Fatalf("too little load to tell: %d writes, %d reads", writes.Load(), reads.Load())
	}
	n := 0
	for b, tenant := range buckets {
		for _, o := range st.all(b) {
			if err := st.check(o, tenant); err != nil {
				t.Fatal(err)
			}
			if _, changed, err := st.k.Rewrap(ctx, tenant, o.Meta.Encryption.KeyID, o.Meta.Encryption.WrappedKey, keyContext(b, o.Key, o.Meta.Encryption)); err != nil || changed {
				t.Fatalf("%s/%s %s is not under the newest key version after the job's pass (%v)", b, o.Key, o.VersionID, err)
			}
			n++
		}
	}
	if n != int(writes.Load()) {
		t.Fatalf("%d versions stored, %d written", n, writes.Load())
	}
	u, err := st.s.GetUpload(ctx, "acme-b", "big", "up1")
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(u.Meta.Encryption.WrappedKey, udk.Wrapped) {
		t.Fatal("the upload's wrapped key was not re-wrapped")
	}
	plain, err := st.k.Unwrap(ctx, "acme", aid, u.Meta.Encryption.WrappedKey, keyContext("acme-b", "big", uenc))
	if err != nil || !bytes.Equal(plain, udk.Plain) {
		t.Fatalf("the upload's re-wrapped key: %v", err)
	}
}

// A pass cut short resumes where it stopped, on whichever node takes the
// job over: the re-wraps already done are not done again.
func TestRewrapResumes(t *testing.T) {
	st := newStore(t)
	for i := range 300 {
		if err := st.put("acme-b", "acme", fmt.Sprintf("k%03d", i)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := st.k.RotateKey(ctx, "acme", "alias/aws/s3"); err != nil {
		t.Fatal(err)
	}
	slow, _ := kms.NewRewrapJob(st.s, st.k, kms.RewrapOptions{Context: keyContext, Rate: 100})
	cut, cancel := context.WithTimeout(ctx, time.Second)
	first, err := slow.Pass(cut)
	cancel()
	if err == nil || first.Rewrapped == 0 || first.Rewrapped >= 300 {
		t.Fatalf("the cut pass: %+v, %v; want some of the 300 done", first, err)
	}
	other, _ := kms.NewRewrapJob(st.s, st.k, kms.RewrapOptions{Context: keyContext, Rate: 100000})
	second, err := other.Pass(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// The item the cut fell on may be re-wrapped by the first pass and
	// counted by neither (its commit beat the cut, its count did not);
	// every object being re-wrapped, below, is what must hold.
	if n := first.Rewrapped + second.Rewrapped; n < 299 || n > 300 || second.Seen > 300-first.Rewrapped {
		t.Fatalf("cut pass %+v, resumed pass %+v: want 300 re-wraps in all, the second starting where the first stopped", first, second)
	}
	for _, o := range st.all("acme-b") {
		if err := st.check(o, "acme"); err != nil {
			t.Fatal(err)
		}
	}
}
