package s3

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"math/rand/v2"
	"testing"
)

// ListObjectsV2's hand-built document is byte for byte what encoding/xml
// makes of the same response: every optional element present and absent,
// and text that needs escaping (markup, quotes, control characters,
// invalid UTF-8, characters outside XML's range).
func TestListV2XMLMatchesEncodingXML(t *testing.T) {
	texts := []string{"", "photos/2024/a.jpg", "a&b<c>d\"e'f", "tab\there\nnew\rline", "caf\u00e9 \u65e5\u672c", "bad\xffutf8\xc3",
		"nul\x00ctl\x01\x1f", "\ufffd\ufffe\uffff", "\U0001F600 emoji", "+%2F/ space", "]]>"}
	r := rand.New(rand.NewPCG(7, 8))
	pick := func() string { return texts[r.IntN(len(texts))] }
	maybe := func() string {
		if r.IntN(2) == 0 {
			return ""
		}
		return pick()
	}
	for i := range 500 {
		var res listV2Result
		res.listing = listing{NS: s3NS, Name: pick(), Prefix: pick(), Delimiter: maybe(), MaxKeys: r.IntN(2000) - 1, EncodingType: maybe(), IsTruncated: r.IntN(2) == 0}
		for range r.IntN(5) {
			e := listEntry{Key: pick(), LastModified: "2026-11-27T15:04:05.000Z", ETag: `"` + pick() + `"`, Size: r.Int64N(1<<40) - 5, StorageClass: pick(), ChecksumType: maybe()}
			if r.IntN(2) == 0 {
				e.Owner = &owner{ID: pick(), DisplayName: maybe()}
			}
			for range r.IntN(3) {
				e.ChecksumAlgorithm = append(e.ChecksumAlgorithm, pick())
			}
			res.Contents = append(res.Contents, e)
		}
		for range r.IntN(3) {
			res.CommonPrefixes = append(res.CommonPrefixes, commonPrefix{pick()})
		}
		res.KeyCount, res.ContinuationToken, res.NextContinuationToken, res.StartAfter = r.IntN(1001), maybe(), maybe(), maybe()

		want, err := xml.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		if got := res.appendXML(nil); !bytes.Equal(got, want) {
			t.Fatalf("case %d:\n got %s\nwant %s", i, got, want)
		}
	}
}

// BenchmarkListV2XML encodes a page of 1,000 keys both ways.
//
//	go test -run '^$' -bench ListV2XML -benchmem ./internal/s3
func BenchmarkListV2XML(b *testing.B) {
	var res listV2Result
	res.listing = listing{NS: s3NS, Name: "photos", MaxKeys: 1000, IsTruncated: true}
	for i := range 1000 {
		res.Contents = append(res.Contents, listEntry{Key: fmt.Sprintf("2026/11/27/obj-%08d.jpg", i), LastModified: "2026-11-27T15:04:05.000Z",
			ETag: `"a2eaf6295c32adc403865fd96a2f182b"`, Size: 4096, StorageClass: "STANDARD"})
	}
	res.KeyCount, res.NextContinuationToken = 1000, "b2JqLTAwMDAxMDAw"
	b.Run("encoding-xml", func(b *testing.B) {
		for range b.N {
			if _, err := xml.Marshal(res); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("by-hand", func(b *testing.B) {
		for range b.N {
			res.appendXML(make([]byte, 0, 512+320*len(res.Contents)))
		}
	})
}
