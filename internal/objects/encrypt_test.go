package objects_test

import (
	"bytes"
	"context"
	"crypto/md5"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ostiumio/ostium/internal/blob"
	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/iam"
	"github.com/ostiumio/ostium/internal/kms"
	"github.com/ostiumio/ostium/internal/node/nodetest"
	"github.com/ostiumio/ostium/internal/objects"
	"github.com/ostiumio/ostium/internal/sse"
)

type encEnv struct {
	srv  *nodetest.Server
	svc  *objects.Service
	root *iam.Identity
	ctx  context.Context
}

// newEncEnv is a real node's object service, over its catalog, its blob
// store (fs) and its key service (the built-in keyring), with a bucket
// and a named KMS key (alias/k1) of its tenant.
func newEncEnv(t testing.TB) *encEnv {
	srv := nodetest.Start(t, nodetest.Options{})
	e := &encEnv{
		srv:  srv,
		svc:  srv.Node.Service,
		root: &iam.Identity{Root: true, CanonicalID: iam.RootCanonicalID},
		ctx:  context.Background(),
	}
	if err := e.svc.CreateBucket(e.ctx, e.root, objects.BucketInput{Name: "enc"}); err != nil {
		t.Fatal(err)
	}
	if _, err := srv.Node.KMS.CreateKey(e.ctx, "", "k1"); err != nil {
		t.Fatal(err)
	}
	return e
}

var customerKey = bytes.Repeat([]byte{0x5c}, 32)

func request(kind string) *objects.EncryptRequest {
	switch kind {
	case "plain":
		return nil
	case objects.KindKMS:
		return &objects.EncryptRequest{Kind: kind, KeyID: "alias/k1", Context: "eyJhIjoiYiJ9"}
	case objects.KindSSEC:
		return &objects.EncryptRequest{Kind: kind, CustomerKey: customerKey}
	}
	return &objects.EncryptRequest{Kind: kind}
}

// readKey is the SSE-C key a read of an object encrypted as kind brings.
func readKey(kind string) []byte {
	if kind == objects.KindSSEC {
		return customerKey
	}
	return nil
}

func (e *encEnv) put(t testing.TB, key string, data []byte, enc *objects.EncryptRequest) catalog.Object {
	t.Helper()
	obj, err := e.svc.PutObject(e.ctx, e.root, objects.PutInput{Bucket: "enc", Key: key,
		Payload: objects.Payload{Body: bytes.NewReader(data), Size: int64(len(data))}, Encrypt: enc})
	if err != nil {
		t.Fatalf("put %s: %v", key, err)
	}
	return obj
}

func (e *encEnv) get(in objects.GetInput) ([]byte, *objects.Reader, error) {
	if in.Bucket == "" {
		in.Bucket = "enc"
	}
	r, err := e.svc.GetObject(e.ctx, e.root, in, false)
	if err != nil {
		return nil, r, err
	}
	defer r.Body.Close()
	b, err := io.ReadAll(r.Body)
	return b, r, err
}

func randBytes(n int) []byte {
	b := make([]byte, n)
	rand.Read(b)
	return b
}

var kinds = []string{objects.KindS3, objects.KindKMS, objects.KindSSEC}

// Every kind, inline and in blobs: the version records its encryption
// and plaintext size, its blob holds ciphertext of the format's size,
// and whole reads, ranges and partNumber=1 return the plaintext.
func TestEncryptedPutGet(t *testing.T) {
	e := newEncEnv(t)
	for _, kind := range kinds {
		for _, size := range []int{0, 1, 100, 30 << 10, sse.SegmentSize + 1, 1<<20 + 3} {
			t.Run(fmt.Sprintf("%s/%d", kind, size), func(t *testing.T) {
				data := randBytes(size)
				key := fmt.Sprintf("%s-%d", kind, size)
				obj := e.put(t, key, data, request(kind))
				plainMD5 := md5.Sum(data)
				etag := `"` + hex.EncodeToString(plainMD5[:]) + `"`
				// As AWS: SSE-S3's ETag is the plaintext's MD5, SSE-KMS's
				// and SSE-C's are not.
				if (kind == objects.KindS3) != (obj.ETag == etag) {
					t.Errorf("ETag %s, plaintext MD5 %s", obj.ETag, etag)
				}
				if obj.Size != int64(size) {
					t.Errorf("size %d", obj.Size)
				}
				raw, err := e.srv.Node.Catalog.GetObject(e.ctx, "enc", key, "")
				if err != nil {
					t.Fatal(err)
				}
				if raw.Meta.Encryption == nil || raw.Meta.Encryption.Kind != kind || len(raw.Meta.Encryption.WrappedKey) == 0 {
					t.Fatalf("recorded encryption %+v", raw.Meta.Encryption)
				}
				// SSE-C: no digest of the customer's key is kept; the
				// wrapped data key is what checks it.
				if kind == objects.KindSSEC && raw.Meta.Encryption.CustomerKeyMD5 != "" {
					t.Error("the customer key's MD5 is kept")
				}
				if len(raw.Inline) > 0 && int64(len(raw.Inline)) != sse.CiphertextSize(int64(size)) {
					t.Errorf("inline bytes %d, want ciphertext of %d", len(raw.Inline), size)
				}
				for _, p := range raw.Parts {
					rc, err := e.srv.Node.Blobs.Get(e.ctx, p.BlobID, 0, -1)
					if err != nil {
						t.Fatal(err)
					}
					b, _ := io.ReadAll(rc)
					rc.Close()
					if int64(len(b)) != sse.CiphertextSize(p.Size) || p.Size != int64(size) {
						t.Errorf("blob of %d bytes for a part of %d", len(b), p.Size)
					}
				}
				got, _, err := e.get(objects.GetInput{Key: key, CustomerKey: readKey(kind)})
				if err != nil || !bytes.Equal(got, data) {
					t.Fatalf("get: %v (%d bytes)", err, len(got))
				}
				if size == 0 {
					return
				}
				n := int64(size)
				for _, rg := range []objects.ByteRange{
					{First: 0, Last: 0}, {First: n - 1, Last: -1}, {Suffix: 7},
					{First: n / 3, Last: n/2 + 1}, {First: sse.SegmentSize - 2, Last: sse.SegmentSize + 2},
				} {
					got, r, err := e.get(objects.GetInput{Key: key, Range: &rg, CustomerKey: readKey(kind)})
					if err != nil {
						if rg.First >= n {
							continue
						}
						t.Fatalf("range %+v: %v", rg, err)
					}
					if !bytes.Equal(got, data[r.Start:r.Start+r.Length]) {
						t.Fatalf("range %+v: wrong bytes", rg)
					}
				}
				got, _, err = e.get(objects.GetInput{Key: key, PartNumber: 1, CustomerKey: readKey(kind)})
				if err != nil || !bytes.Equal(got, data) {
					t.Fatalf("partNumber=1: %v", err)
				}
				head, err := e.svc.GetObject(e.ctx, e.root, objects.GetInput{Bucket: "enc", Key: key, CustomerKey: readKey(kind)}, true)
				if err != nil || head.Object.Size != n {
					t.Fatalf("head: %v", err)
				}
			})
		}
	}
}

// As AWS: an SSE-C object read without its key is 400 InvalidRequest,
// with another key 403 AccessDenied (GET and HEAD alike); SSE-C
// parameters on an object not encrypted with them are 400.
func TestCustomerKeyRequired(t *testing.T) {
	e := newEncEnv(t)
	e.put(t, "c", []byte("secret"), request(objects.KindSSEC))
	e.put(t, "c-big", randBytes(100<<10), request(objects.KindSSEC))
	e.put(t, "s3", []byte("x"), request(objects.KindS3))
	e.put(t, "plain", []byte("x"), nil)
	other := bytes.Repeat([]byte{1}, 32)
	for _, head := range []bool{false, true} {
		for _, c := range []struct {
			key  string
			ck   []byte
			want error
		}{
			{"c", nil, objects.ErrInvalidRequest},
			{"c-big", nil, objects.ErrInvalidRequest},
			{"c", other, objects.ErrAccessDenied},
			{"c-big", other, objects.ErrAccessDenied},
			{"s3", customerKey, objects.ErrInvalidRequest},
			{"plain", customerKey, objects.ErrInvalidRequest},
		} {
			_, err := e.svc.GetObject(e.ctx, e.root, objects.GetInput{Bucket: "enc", Key: c.key, CustomerKey: c.ck}, head)
			if !errors.Is(err, c.want) {
				t.Errorf("head=%v %s with key %x: %v, want %v", head, c.key, c.ck, err, c.want)
			}
		}
	}
	// A customer key of the wrong size is refused at write.
	_, err := e.svc.PutObject(e.ctx, e.root, objects.PutInput{Bucket: "enc", Key: "bad",
		Payload: objects.Payload{Body: strings.NewReader("x"), Size: 1},
		Encrypt: &objects.EncryptRequest{Kind: objects.KindSSEC, CustomerKey: []byte("short")}})
	if !errors.Is(err, objects.ErrInvalidArgument) {
		t.Errorf("short customer key: %v", err)
	}
	// An unknown KMS key: the key service's error, for the S3 layer to map.
	_, err = e.svc.PutObject(e.ctx, e.root, objects.PutInput{Bucket: "enc", Key: "bad",
		Payload: objects.Payload{Body: strings.NewReader("x"), Size: 1},
		Encrypt: &objects.EncryptRequest{Kind: objects.KindKMS, KeyID: "alias/nope"}})
	if !errors.Is(err, kms.ErrNoSuchKey) {
		t.Errorf("unknown KMS key: %v", err)
	}
}

// A multipart upload gets one data key at creation; each part is
// encrypted on its own with its number; completing copies nothing, and
// ranges across parts and partNumber reads decrypt.
func TestEncryptedMultipart(t *testing.T) {
	e := newEncEnv(t)
	for _, kind := range kinds {
		t.Run(kind, func(t *testing.T) {
			key := "mp-" + kind
			u, err := e.svc.CreateEncryptedUpload(e.ctx, e.root, catalog.Upload{Bucket: "enc", Key: key}, iam.ACLSpec{}, nil, request(kind))
			if err != nil {
				t.Fatal(err)
			}
			if u.Meta.Encryption == nil || u.Meta.Encryption.Kind != kind {
				t.Fatalf("upload encryption %+v", u.Meta.Encryption)
			}
			parts := [][]byte{randBytes(objects.MinPartSize + 1), randBytes(objects.MinPartSize), randBytes(100 << 10)}
			if kind == objects.KindSSEC {
				_, _, err := e.svc.UploadPart(e.ctx, e.root, objects.PartInput{Bucket: "enc", Key: key, UploadID: u.UploadID, Number: 1,
					Payload: objects.Payload{Body: bytes.NewReader(parts[0]), Size: int64(len(parts[0]))}})
				if !errors.Is(err, objects.ErrInvalidRequest) {
					t.Fatalf("SSE-C part without the key: %v", err)
				}
			}
			var list []objects.CompletePart
			var blobs []string
			for i, p := range parts {
				// Part 1 twice: a re-upload under the same data key and
				// number must still read back (a fresh blob, a fresh
				// segment key).
				times := 1
				if i == 0 {
					times = 2
				}
				for range times {
					part, _, err := e.svc.UploadPart(e.ctx, e.root, objects.PartInput{Bucket: "enc", Key: key, UploadID: u.UploadID, Number: i + 1,
						Payload: objects.Payload{Body: bytes.NewReader(p), Size: int64(len(p))}, CustomerKey: readKey(kind)})
					if err != nil {
						t.Fatalf("part %d: %v", i+1, err)
					}
					if i == 0 && len(list) == 1 {
						list = list[:0]
						blobs = blobs[:0]
					}
					list = append(list, objects.CompletePart{Number: i + 1, ETag: part.ETag})
					blobs = append(blobs, part.BlobID)
				}
			}
			obj, err := e.svc.CompleteUpload(e.ctx, e.root, "enc", key, u.UploadID, list, objects.CompleteOptions{})
			if err != nil {
				t.Fatal(err)
			}
			raw, _ := e.srv.Node.Catalog.GetObject(e.ctx, "enc", key, "")
			if raw.Meta.Encryption == nil || raw.Meta.Encryption.Kind != kind {
				t.Fatalf("object encryption %+v", raw.Meta.Encryption)
			}
			for i, p := range raw.Parts {
				if p.BlobID != blobs[i] {
					t.Fatalf("part %d moved to blob %s from %s: completing copied", i+1, p.BlobID, blobs[i])
				}
			}
			all := bytes.Join(parts, nil)
			if obj.Size != int64(len(all)) {
				t.Fatalf("size %d", obj.Size)
			}
			got, _, err := e.get(objects.GetInput{Key: key, CustomerKey: readKey(kind)})
			if err != nil || !bytes.Equal(got, all) {
				t.Fatalf("get: %v", err)
			}
			b1 := int64(len(parts[0]))
			for _, rg := range []objects.ByteRange{{First: b1 - 10, Last: b1 + 10}, {First: b1 - sse.SegmentSize - 3, Last: b1 + int64(len(parts[1])) + 5}, {Suffix: 70 << 10}} {
				got, r, err := e.get(objects.GetInput{Key: key, Range: &rg, CustomerKey: readKey(kind)})
				if err != nil || !bytes.Equal(got, all[r.Start:r.Start+r.Length]) {
					t.Fatalf("range %+v: %v", rg, err)
				}
			}
			got, _, err = e.get(objects.GetInput{Key: key, PartNumber: 2, CustomerKey: readKey(kind)})
			if err != nil || !bytes.Equal(got, parts[1]) {
				t.Fatalf("partNumber=2: %v", err)
			}
		})
	}
}

// CopyObject and UploadPartCopy decrypt the source and encrypt for the
// destination, between any two settings.
func TestEncryptedCopy(t *testing.T) {
	e := newEncEnv(t)
	all := append([]string{"plain"}, kinds...)
	for _, size := range []int{1000, 200 << 10} {
		data := randBytes(size)
		for _, from := range all {
			src := fmt.Sprintf("src-%s-%d", from, size)
			e.put(t, src, data, request(from))
			for _, to := range all {
				dst := fmt.Sprintf("dst-%s-%s-%d", from, to, size)
				_, obj, err := e.svc.CopyObject(e.ctx, e.root, objects.CopyInput{SrcBucket: "enc", SrcKey: src, Bucket: "enc", Key: dst,
					Encrypt: request(to), SrcCustomerKey: readKey(from)})
				if err != nil {
					t.Fatalf("copy %s -> %s: %v", from, to, err)
				}
				raw, _ := e.srv.Node.Catalog.GetObject(e.ctx, "enc", dst, "")
				if (to == "plain") != (raw.Meta.Encryption == nil) || to != "plain" && raw.Meta.Encryption.Kind != to {
					t.Fatalf("copy %s -> %s recorded %+v", from, to, raw.Meta.Encryption)
				}
				got, _, err := e.get(objects.GetInput{Key: dst, CustomerKey: readKey(to)})
				if err != nil || !bytes.Equal(got, data) || obj.Size != int64(size) {
					t.Fatalf("copy %s -> %s read back: %v", from, to, err)
				}
			}
			// The source's SSE-C key is needed to copy it.
			if from == objects.KindSSEC {
				_, _, err := e.svc.CopyObject(e.ctx, e.root, objects.CopyInput{SrcBucket: "enc", SrcKey: src, Bucket: "enc", Key: "x"})
				if !errors.Is(err, objects.ErrInvalidRequest) {
					t.Fatalf("copy of SSE-C without its key: %v", err)
				}
			}
		}
	}
	// UploadPartCopy of a range of an SSE-C source into an SSE-KMS upload.
	data := randBytes(300 << 10)
	e.put(t, "pc-src", data, request(objects.KindSSEC))
	u, err := e.svc.CreateEncryptedUpload(e.ctx, e.root, catalog.Upload{Bucket: "enc", Key: "pc"}, iam.ACLSpec{}, nil, request(objects.KindKMS))
	if err != nil {
		t.Fatal(err)
	}
	part, _, err := e.svc.UploadPart(e.ctx, e.root, objects.PartInput{Bucket: "enc", Key: "pc", UploadID: u.UploadID, Number: 1,
		Copy: &objects.CopySource{Bucket: "enc", Key: "pc-src", Range: &objects.ByteRange{First: 1000, Last: 200_000}, CustomerKey: customerKey}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.CompleteUpload(e.ctx, e.root, "enc", "pc", u.UploadID, []objects.CompletePart{{Number: 1, ETag: part.ETag}}, objects.CompleteOptions{}); err != nil {
		t.Fatal(err)
	}
	got, _, err := e.get(objects.GetInput{Key: "pc"})
	if err != nil || !bytes.Equal(got, data[1000:200_001]) {
		t.Fatalf("UploadPartCopy read back: %v", err)
	}
}

// A platform that alters a blob gets an error, never wrong bytes.
func TestEncryptedTamperedBlob(t *testing.T) {
	e := newEncEnv(t)
	data := randBytes(3 * sse.SegmentSize)
	e.put(t, "t", data, request(objects.KindS3))
	raw, _ := e.srv.Node.Catalog.GetObject(e.ctx, "enc", "t", "")
	id := raw.Parts[0].BlobID
	rc, err := e.srv.Node.Blobs.Get(e.ctx, id, 0, -1)
	if err != nil {
		t.Fatal(err)
	}
	ct, _ := io.ReadAll(rc)
	rc.Close()
	ct[sse.SegmentSize+sse.Overhead+5] ^= 1 // in segment 1
	if err := e.srv.Node.Blobs.Delete(e.ctx, id); err != nil {
		t.Fatal(err)
	}
	if _, err := e.srv.Node.Blobs.Put(e.ctx, id, bytes.NewReader(ct), int64(len(ct))); err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.get(objects.GetInput{Key: "t"}); !errors.Is(err, sse.ErrAuth) {
		t.Fatalf("read of an altered blob: %v", err)
	}
	// Segment 0 is intact and a range within it reads.
	got, _, err := e.get(objects.GetInput{Key: "t", Range: &objects.ByteRange{First: 10, Last: 20}})
	if err != nil || !bytes.Equal(got, data[10:21]) {
		t.Fatalf("range of an intact segment: %v", err)
	}
}

// The platform and the catalog hold no plaintext: a marker written in
// objects of every kind (inline, single blob, multipart) is found in no
// file of the node's data directory (fs blobs, SQLite catalog and its
// WAL) and in no catalog row.
func TestNoPlaintextAtRest(t *testing.T) {
	e := newEncEnv(t)
	marker := []byte("OSTIUM-PLAINTEXT-MARKER-7f3a9c")
	body := func(n int) []byte { return bytes.Repeat(marker, n/len(marker)+1)[:n] }
	var keys []string
	for _, kind := range kinds {
		for _, size := range []int{len(marker), 10 << 10, 300 << 10} {
			k := fmt.Sprintf("%s-%d", kind, size)
			e.put(t, k, body(size), request(kind))
			keys = append(keys, k)
		}
		k := "mp-" + kind
		u, err := e.svc.CreateEncryptedUpload(e.ctx, e.root, catalog.Upload{Bucket: "enc", Key: k}, iam.ACLSpec{}, nil, request(kind))
		if err != nil {
			t.Fatal(err)
		}
		part, _, err := e.svc.UploadPart(e.ctx, e.root, objects.PartInput{Bucket: "enc", Key: k, UploadID: u.UploadID, Number: 1,
			Payload: objects.Payload{Body: bytes.NewReader(body(200 << 10)), Size: 200 << 10}, CustomerKey: readKey(kind)})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.svc.CompleteUpload(e.ctx, e.root, "enc", k, u.UploadID, []objects.CompletePart{{Number: 1, ETag: part.ETag}}, objects.CompleteOptions{}); err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k)
	}
	// The grep proves it can see the marker: a plaintext object in a
	// blob, whose file must be the only one found.
	e.put(t, "control", body(300<<10), nil)
	var found []string
	err := filepath.WalkDir(e.srv.Dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if bytes.Contains(b, marker) {
			found = append(found, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	control, _ := e.srv.Node.Catalog.GetObject(e.ctx, "enc", "control", "")
	_, hexID := blob.SplitID(control.Parts[0].BlobID)
	if len(found) != 1 || !strings.Contains(found[0], hexID) {
		t.Fatalf("files holding the marker: %v; want only the control blob %s", found, hexID)
	}
	for _, k := range keys {
		raw, err := e.srv.Node.Catalog.GetObject(e.ctx, "enc", k, "")
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(raw.Inline, marker) || strings.Contains(fmt.Sprint(raw.Meta), string(marker)) {
			t.Errorf("%s: marker in its catalog row", k)
		}
		for _, p := range raw.Parts {
			rc, err := e.srv.Node.Blobs.Get(e.ctx, p.BlobID, 0, -1)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(rc)
			rc.Close()
			if bytes.Contains(b, marker) {
				t.Errorf("%s: marker in blob %s", k, p.BlobID)
			}
		}
	}
}

// Usage counts plaintext bytes, as AWS bills them, whatever the blobs'
// ciphertext adds: a single PUT, an inline object and an upload's parts.
func TestEncryptedUsageIsPlaintext(t *testing.T) {
	e := newEncEnv(t)
	e.put(t, "a", randBytes(200<<10), request(objects.KindS3))
	e.put(t, "b", randBytes(100), request(objects.KindSSEC))
	u, err := e.svc.CreateEncryptedUpload(e.ctx, e.root, catalog.Upload{Bucket: "enc", Key: "m"}, iam.ACLSpec{}, nil, request(objects.KindKMS))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.svc.UploadPart(e.ctx, e.root, objects.PartInput{Bucket: "enc", Key: "m", UploadID: u.UploadID, Number: 1,
		Payload: objects.Payload{Body: bytes.NewReader(randBytes(70 << 10)), Size: 70 << 10}}); err != nil {
		t.Fatal(err)
	}
	got, err := e.srv.Node.Catalog.BucketUsage(e.ctx, "enc")
	if err != nil {
		t.Fatal(err)
	}
	if want := int64(200<<10 + 100 + 70<<10); got.Bytes != want || got.Objects != 2 {
		t.Fatalf("usage %+v, want %d bytes in 2 objects", got, want)
	}
}

// Destroying the tenant key that wraps an object's data key makes the
// object unreadable (crypto-shredding), while objects under other keys
// still read; disabling it refuses reads until it is enabled again.
func TestEncryptedKeyDestroyed(t *testing.T) {
	e := newEncEnv(t)
	data := randBytes(100 << 10)
	e.put(t, "kms", data, request(objects.KindKMS))
	e.put(t, "kms-inline", data[:100], request(objects.KindKMS))
	e.put(t, "s3", data, request(objects.KindS3))
	if _, err := e.srv.Node.KMS.SetKeyState(e.ctx, "", "alias/k1", catalog.KeyDisabled); err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.get(objects.GetInput{Key: "kms"}); !errors.Is(err, kms.ErrKeyDisabled) {
		t.Fatalf("read under a disabled key: %v", err)
	}
	if _, err := e.srv.Node.KMS.SetKeyState(e.ctx, "", "alias/k1", catalog.KeyEnabled); err != nil {
		t.Fatal(err)
	}
	if got, _, err := e.get(objects.GetInput{Key: "kms"}); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("read under the key enabled again: %v", err)
	}
	if _, err := e.srv.Node.KMS.SetKeyState(e.ctx, "", "alias/k1", catalog.KeyDestroyed); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"kms", "kms-inline"} {
		if _, _, err := e.get(objects.GetInput{Key: k}); !errors.Is(err, kms.ErrDestroyed) {
			t.Fatalf("read of %s under a destroyed key: %v", k, err)
		}
	}
	if got, _, err := e.get(objects.GetInput{Key: "s3"}); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("read under the tenant's own key: %v", err)
	}
}
