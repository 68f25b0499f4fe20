package sqldb

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/ostiumio/ostium/internal/catalog"
)

// A version's metadata reads back as it was written, whatever form its
// row keeps it in, and the common forms take few bytes.
func TestMetaEncoding(t *testing.T) {
	for _, c := range []struct {
		meta   catalog.Meta
		stored string // "" = any JSON
	}{
		{catalog.Meta{ContentType: "application/octet-stream"}, "-"},
		{catalog.Meta{ContentType: "image/png"}, "image/png"},
		{catalog.Meta{ContentType: "text/plain; charset=utf-8"}, "text/plain; charset=utf-8"},
		{catalog.Meta{}, ""},
		// A content type that looks like JSON must not be taken for it.
		{catalog.Meta{ContentType: `{"ct":"evil","acl":"public-read"}`}, ""},
		{catalog.Meta{ContentType: "{"}, ""},
		{catalog.Meta{ContentType: "image/png", User: map[string]string{"a": "b"}}, ""},
		{catalog.Meta{ContentType: "application/octet-stream", ACL: "public-read"}, ""},
		{catalog.Meta{ContentType: "application/octet-stream", Tags: map[string]string{"k": "v"}}, ""},
		{catalog.Meta{ContentType: "text/html", Encryption: &catalog.Encryption{}}, ""},
	} {
		s, err := encodeMeta(c.meta)
		if err != nil {
			t.Fatal(err)
		}
		switch c.stored {
		case "-":
			if s != "" {
				t.Errorf("%+v stored as %q, want nothing", c.meta, s)
			}
		case "":
			if len(s) == 0 || s[0] != '{' {
				t.Errorf("%+v stored as %q, want JSON", c.meta, s)
			}
		default:
			if s != c.stored {
				t.Errorf("%+v stored as %q, want %q", c.meta, s, c.stored)
			}
		}
		var got catalog.Meta
		if err := decodeMeta([]byte(s), &got); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, c.meta) {
			t.Errorf("%+v read back as %+v (stored %q)", c.meta, got, s)
		}
	}
	// Rows written before the short forms hold JSON, and read as before.
	var got catalog.Meta
	if err := decodeMeta([]byte(`{"ct":"application/octet-stream"}`), &got); err != nil || got.ContentType != "application/octet-stream" {
		t.Errorf("JSON meta read back as %+v, %v", got, err)
	}
}

// Every ETag reads back as it was written; quoted MD5s, of a PUT or of a
// multipart upload, take 17 bytes fewer.
func TestETagEncoding(t *testing.T) {
	const md5 = `"0123456789abcdef0123456789abcdef"`
	for etag, size := range map[string]int{
		md5:                                     17,
		`"0123456789abcdef0123456789abcdef-12"`: 19,
		`"0123456789abcdef0123456789abcdef-1"`:  18,
		`"0123456789ABCDEF0123456789abcdef"`:    34, // not as S3 writes it: kept as it is
		`"0123456789abcdef0123456789abcdef-"`:   35,
		`"0123456789abcdef0123456789abcdef-x1"`: 37,
		`"0123456789abcdef0123456789abcdef--1"`: 37,
		`"0123456789abcdef0123456789abcde"`:     33,
		`"0123456789abcdef0123456789abcdef0"`:   35,
		`0123456789abcdef0123456789abcdef`:      32,
		`W/"0123456789abcdef0123456789abcdef"`:  36,
		``:                                      0,
		`""`:                                    2,
		"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00": 17, // never an ETag; still read back
	} {
		b := storedETag(etag)
		if len(b) != size {
			t.Errorf("%q stored in %d bytes, want %d", etag, len(b), size)
		}
		if got := readETag(b); got != etag && etag[0] != 0 {
			t.Errorf("%q read back as %q", etag, got)
		}
	}
	// Random ETags of the shapes that are packed, and random bytes that
	// are not, read back as written.
	rng := rand.New(rand.NewPCG(1, 2))
	for range 10000 {
		var etag string
		switch rng.IntN(3) {
		case 0:
			etag = fmt.Sprintf(`"%032x"`, rng.Uint64())
		case 1:
			etag = fmt.Sprintf(`"%016x%016x-%d"`, rng.Uint64(), rng.Uint64(), rng.IntN(10001))
		default:
			b := make([]byte, rng.IntN(40))
			for i := range b {
				b[i] = byte(rng.IntN(256))
			}
			etag = string(b)
			if len(b) > 0 && b[0] <= 1 {
				continue // no ETag starts with a control byte
			}
		}
		if got := readETag(storedETag(etag)); got != etag {
			t.Fatalf("%q read back as %q", etag, got)
		}
	}
}

// A version without blobs keeps nothing in its parts column; rows
// written before keep "[]" and read the same.
func TestPartsEncoding(t *testing.T) {
	if s, err := encodeParts(nil); err != nil || s != "" {
		t.Errorf("no parts stored as %q, %v", s, err)
	}
	for _, s := range []string{"", "[]"} {
		if ps, err := decodeParts(s); err != nil || ps != nil {
			t.Errorf("%q read as %v, %v", s, ps, err)
		}
	}
	in := []catalog.Part{{Number: 1, BlobID: "b1", Size: 5, ETag: `"e"`}}
	s, err := encodeParts(in)
	if err != nil {
		t.Fatal(err)
	}
	if out, err := decodeParts(s); err != nil || len(out) != 1 || out[0].BlobID != "b1" || out[0].Size != 5 {
		t.Errorf("%+v read back as %+v, %v", in, out, err)
	}
}
