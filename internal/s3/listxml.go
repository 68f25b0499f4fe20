package s3

import (
	"bytes"
	"encoding/xml"
	"io"
	"net/http"
	"strconv"
	"unicode/utf8"
)

// listV2Result is ListObjectsV2's response.
type listV2Result struct {
	XMLName xml.Name `xml:"ListBucketResult"`
	listing
	KeyCount              int
	ContinuationToken     string `xml:",omitempty"`
	NextContinuationToken string `xml:",omitempty"`
	StartAfter            string `xml:",omitempty"`
}

// A page of 1,000 keys is the listing clients read most, and
// encoding/xml's reflection over its entries was a fifth of the node's
// CPU for a page (bench/results/2026-11-27-10m-objects-2.md). appendXML
// writes the same bytes that xml.Marshal makes of r (the tests hold it
// to that), element by element.
func (r *listV2Result) appendXML(b []byte) []byte {
	l := &r.listing
	b = append(b, `<ListBucketResult xmlns="`...)
	b = appendEscaped(b, l.NS)
	b = append(b, `">`...)
	b = appendElem(b, "Name", l.Name)
	b = appendElem(b, "Prefix", l.Prefix)
	if l.Delimiter != "" {
		b = appendElem(b, "Delimiter", l.Delimiter)
	}
	b = append(b, "<MaxKeys>"...)
	b = strconv.AppendInt(b, int64(l.MaxKeys), 10)
	b = append(b, "</MaxKeys>"...)
	if l.EncodingType != "" {
		b = appendElem(b, "EncodingType", l.EncodingType)
	}
	b = append(b, "<IsTruncated>"...)
	b = strconv.AppendBool(b, l.IsTruncated)
	b = append(b, "</IsTruncated>"...)
	for i := range l.Contents {
		e := &l.Contents[i]
		b = append(b, "<Contents>"...)
		b = appendElem(b, "Key", e.Key)
		b = appendElem(b, "LastModified", e.LastModified)
		b = appendElem(b, "ETag", e.ETag)
		b = append(b, "<Size>"...)
		b = strconv.AppendInt(b, e.Size, 10)
		b = append(b, "</Size>"...)
		b = appendElem(b, "StorageClass", e.StorageClass)
		if e.Owner != nil {
			b = append(b, "<Owner>"...)
			b = appendElem(b, "ID", e.Owner.ID)
			if e.Owner.DisplayName != "" {
				b = appendElem(b, "DisplayName", e.Owner.DisplayName)
			}
			b = append(b, "</Owner>"...)
		}
		for _, a := range e.ChecksumAlgorithm {
			if a != "" { // omitempty leaves out an empty item of a list
				b = appendElem(b, "ChecksumAlgorithm", a)
			}
		}
		if e.ChecksumType != "" {
			b = appendElem(b, "ChecksumType", e.ChecksumType)
		}
		b = append(b, "</Contents>"...)
	}
	for _, p := range l.CommonPrefixes {
		b = append(b, "<CommonPrefixes>"...)
		b = appendElem(b, "Prefix", p.Prefix)
		b = append(b, "</CommonPrefixes>"...)
	}
	b = append(b, "<KeyCount>"...)
	b = strconv.AppendInt(b, int64(r.KeyCount), 10)
	b = append(b, "</KeyCount>"...)
	if r.ContinuationToken != "" {
		b = appendElem(b, "ContinuationToken", r.ContinuationToken)
	}
	if r.NextContinuationToken != "" {
		b = appendElem(b, "NextContinuationToken", r.NextContinuationToken)
	}
	if r.StartAfter != "" {
		b = appendElem(b, "StartAfter", r.StartAfter)
	}
	return append(b, "</ListBucketResult>"...)
}

func appendElem(b []byte, name, text string) []byte {
	b = append(b, '<')
	b = append(b, name...)
	b = append(b, '>')
	b = appendEscaped(b, text)
	b = append(b, "</"...)
	b = append(b, name...)
	return append(b, '>')
}

// appendEscaped appends s as encoding/xml escapes text: ASCII here (an
// ETag's quotes are in every entry), anything else through
// xml.EscapeText itself.
func appendEscaped(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= utf8.RuneSelf || c < 0x20 && c != '\t' && c != '\n' && c != '\r' {
			var buf bytes.Buffer
			xml.EscapeText(&buf, []byte(s)) // writes to memory: no error
			return append(b, buf.Bytes()...)
		}
	}
	last := 0
	for i := 0; i < len(s); i++ {
		var esc string
		switch s[i] {
		case '"':
			esc = "&#34;"
		case '\'':
			esc = "&#39;"
		case '&':
			esc = "&amp;"
		case '<':
			esc = "&lt;"
		case '>':
			esc = "&gt;"
		case '\t':
			esc = "&#x9;"
		case '\n':
			esc = "&#xA;"
		case '\r':
			esc = "&#xD;"
		default:
			continue
		}
		b = append(append(b, s[last:i]...), esc...)
		last = i + 1
	}
	return append(b, s[last:]...)
}

// writeXMLBytes writes doc, a document without its XML header, as
// writeXML writes an encoded one.
func writeXMLBytes(w http.ResponseWriter, status int, doc []byte) {
	h := w.Header()
	h.Set("Content-Type", "application/xml")
	h.Set("Content-Length", strconv.Itoa(len(xml.Header)+len(doc)))
	w.WriteHeader(status)
	io.WriteString(w, xml.Header)
	w.Write(doc)
}
