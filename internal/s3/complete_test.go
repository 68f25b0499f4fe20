package s3

import (
	"bytes"
	"crypto/md5"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
)

// completeDoc is a CompleteMultipartUpload document of n parts numbered
// by number(i).
func completeDoc(n int, number func(i int) int) []byte {
	var b bytes.Buffer
	b.WriteString(`<CompleteMultipartUpload xmlns="http://s3.amazonaws.com/doc/2006-03-01/">`)
	for i := range n {
		fmt.Fprintf(&b, `<Part><PartNumber>%d</PartNumber><ETag>"0123456789abcdef0123456789abcdef"</ETag></Part>`, number(i))
	}
	b.WriteString(`</CompleteMultipartUpload>`)
	return b.Bytes()
}

// parse runs readComplete on doc as a request body, with Content-MD5 md5
// if not empty, and returns the parts and the S3 code of any refusal.
func parse(t *testing.T, doc []byte, md5 string) (completeRequest, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", "/b/k?uploadId=u", bytes.NewReader(doc))
	if md5 != "" {
		req.Header.Set("Content-MD5", md5)
	}
	req.Body = &clientBody{r: io.NopCloser(bytes.NewReader(doc))}
	got, err := readComplete(req, &call{Route: Route{Op: OpCompleteMultipartUpload}})
	if err != nil {
		return got, toAPIError(err).Code
	}
	return got, ""
}

func md5Of(b []byte) string {
	s := md5.Sum(b)
	return base64.StdEncoding.EncodeToString(s[:])
}

// The streamed document gives what xml.Unmarshal gave: parts, their
// fields (whatever the namespace, with unknown elements skipped), and
// MalformedXML for what does not parse.
func TestReadCompleteParses(t *testing.T) {
	doc := []byte(`<?xml version="1.0"?><CompleteMultipartUpload><Other>x</Other>
	  <Part><PartNumber> 3 </PartNumber><ETag>&quot;abc&quot;</ETag><ChecksumSHA256>c2hh</ChecksumSHA256><Size>1</Size></Part>
	  <Part><ETag>"def"</ETag><PartNumber>7</PartNumber></Part></CompleteMultipartUpload>`)
	got, code := parse(t, doc, md5Of(doc))
	if code != "" || len(got.Part) != 2 || got.Part[0].PartNumber != 3 || got.Part[0].ETag != `"abc"` ||
		got.Part[0].ChecksumSHA256 != "c2hh" || got.Part[1].PartNumber != 7 || got.Part[1].ETag != `"def"` {
		t.Fatalf("parsed %+v, %s", got, code)
	}
	for _, bad := range []string{
		``,
		`<CompleteMultipartUpload><Part><PartNumber>x</PartNumber></Part></CompleteMultipartUpload>`,
		`<CompleteMultipartUpload><Part><PartNumber>1</PartNumber>`,
		`<CompleteMultipartUpload><Part><ETag><a>1</a></ETag></Part></CompleteMultipartUpload>`, // too deep
		`<CompleteMultipartUpload><Part><PartNumber>` + strings.Repeat("1", 40) + `</PartNumber></Part></CompleteMultipartUpload>`,
		`<CompleteMultipartUpload><Part ` + strings.Repeat(`a="" `, 20000) + `></Part></CompleteMultipartUpload>`, // a 100 KB tag
	} {
		if _, code := parse(t, []byte(bad), ""); code != "MalformedXML" {
			t.Errorf("%.80q: %q, want MalformedXML", bad, code)
		}
	}
	// An ETag longer than any is kept as one that matches no part.
	long := `<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>` + strings.Repeat("e", 1000) + `</ETag></Part></CompleteMultipartUpload>`
	if got, code := parse(t, []byte(long), ""); code != "" || len(got.Part) != 1 || len(got.Part[0].ETag) > maxPartText {
		t.Fatalf("a long ETag: %d parts, ETag of %d bytes, %q", len(got.Part), len(got.Part[0].ETag), code)
	}
}

// At most 10,000 parts are read. AWS allows part numbers 1 to 10,000
// (https://docs.aws.amazon.com/AmazonS3/latest/userguide/qfacts.html),
// in ascending order, so the 10,001st part of a list is either out of
// order (InvalidPartOrder, as for any list) or numbered past 10,000,
// which AWS answers with 400 InvalidArgument "Part number must be an
// integer between 1 and 10000, inclusive" (its answer to such a number,
// as reported in github.com/s3tools/s3cmd/issues/613 and
// github.com/bloomreach/s4cmd/issues/238). Exactly 10,000 parts are
// accepted.
func TestReadCompleteAtMostTenThousandParts(t *testing.T) {
	got, code := parse(t, completeDoc(10000, func(i int) int { return i + 1 }), "")
	if code != "" || len(got.Part) != 10000 {
		t.Fatalf("10,000 parts: %d read, %q", len(got.Part), code)
	}
	if _, code := parse(t, completeDoc(10001, func(i int) int { return i + 1 }), ""); code != "InvalidArgument" {
		t.Fatalf("10,001 ascending parts: %q, want InvalidArgument", code)
	}
	// 60,000 parts all numbered 1, in under 5 MiB: refused at the
	// 10,001st, having held 10,000.
	doc := completeDoc(60000, func(int) int { return 1 })
	if len(doc) > maxCompleteBody {
		t.Fatalf("document of %d bytes", len(doc))
	}
	if _, code := parse(t, doc, ""); code != "InvalidPartOrder" {
		t.Fatalf("60,000 parts numbered 1: %q, want InvalidPartOrder", code)
	}
}

// The Content-MD5 is checked over the whole streamed body, and comes
// first: a document that does not match its digest is BadDigest whether
// or not it parses, as when the document was read whole.
func TestReadCompleteChecksContentMD5(t *testing.T) {
	doc := completeDoc(2, func(i int) int { return i + 1 })
	if _, code := parse(t, doc, md5Of(doc)); code != "" {
		t.Fatalf("matching Content-MD5: %q", code)
	}
	if _, code := parse(t, doc, md5Of([]byte("other"))); code != "BadDigest" {
		t.Fatalf("mismatched Content-MD5: %q, want BadDigest", code)
	}
	tooMany := completeDoc(10001, func(i int) int { return i + 1 })
	if _, code := parse(t, tooMany, md5Of([]byte("other"))); code != "BadDigest" {
		t.Fatalf("10,001 parts with a mismatched Content-MD5: %q, want BadDigest", code)
	}
	if _, code := parse(t, []byte("<a"), md5Of([]byte("<a"))); code != "MalformedXML" {
		t.Fatalf("matching digest, broken document: %q, want MalformedXML", code)
	}
	if _, code := parse(t, doc, "not base64"); code != "InvalidDigest" {
		t.Fatalf("unreadable Content-MD5: %q, want InvalidDigest", code)
	}
	big := append(completeDoc(1, func(int) int { return 1 }), bytes.Repeat([]byte(" "), maxCompleteBody)...)
	if _, code := parse(t, big, ""); code != "MalformedXML" {
		t.Fatalf("a document over the cap: %q, want MalformedXML", code)
	}
}

// Other documents are refused for a shape that would make the decoder
// hold far more than their size: a tag of many attributes, or elements
// nested deeper than S3's documents go.
func TestXMLShapeBounded(t *testing.T) {
	ok := `<Tagging><TagSet><Tag><Key>a</Key><Value>b</Value></Tag></TagSet></Tagging>`
	if err := xmlShaped([]byte(ok)); err != nil {
		t.Fatalf("a tagging document: %v", err)
	}
	for name, doc := range map[string]string{
		"attributes": `<Tagging ` + strings.Repeat(`a="" `, 20000) + `></Tagging>`,
		"nesting":    `<Tagging>` + strings.Repeat(`<a>`, 100) + strings.Repeat(`</a>`, 100) + `</Tagging>`,
		"children":   `<Delete>` + strings.Repeat(`<Object/>`, maxXMLChildren+1) + `</Delete>`,
		"elements":   `<LifecycleConfiguration><Rule>` + strings.Repeat(`<Transition/>`, maxXMLElements) + `</Rule></LifecycleConfiguration>`,
		// Namespace declarations of 31 open elements, each tag under the
		// run's bound: the decoder holds them all until the elements end.
		"namespaces": `<Delete>` + strings.Repeat(`<x `+nsDecls(4000)+`>`, 31) + strings.Repeat(`</x>`, 31) + `</Delete>`,
	} {
		if err := xmlShaped([]byte(doc)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// nsDecls is n namespace declarations of one tag.
func nsDecls(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, `xmlns:a%d="u" `, i)
	}
	return b.String()
}
