package sqldb

import (
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
