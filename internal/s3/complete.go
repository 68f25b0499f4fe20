package s3

import (
	"bytes"
	"crypto/md5"
	"encoding/xml"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/ostiumio/ostium/internal/objects"
)

// completeRequest is CompleteMultipartUpload's document.
type completeRequest struct {
	Part []completePart
}

type completePart struct {
	PartNumber        int
	ETag              string
	ChecksumCRC32     string
	ChecksumCRC32C    string
	ChecksumCRC64NVME string
	ChecksumSHA1      string
	ChecksumSHA256    string
}

// The longest text of a part's element that is kept: an ETag is 34
// characters (quoted MD5 hex, a few more with entities), a checksum at
// most 50 (SHA-256 in base64 with a composite "-N"). A longer ETag is
// kept as one that matches no part, so the completion is refused as
// InvalidPart, as AWS refuses an ETag it does not know.
const (
	maxPartText   = 256
	maxPartNumber = 32 // digits and spaces of a PartNumber
)

// errTooManyParts answers a list of more than objects.MaxParts parts in
// ascending order, whose last part's number is then past 10,000: what
// AWS answers a part number out of its range.
var errTooManyParts = &apiError{400, "InvalidArgument", "Part number must be an integer between 1 and 10000, inclusive"}

// readComplete parses CompleteMultipartUpload's document as it streams
// in, never holding more of it than one token: at most objects.MaxParts
// parts, each element's text bounded (maxPartText), the whole capped
// (maxCompleteBody) and of bounded shape (xmlRuns, three levels), so
// that what a request holds is its list of parts, not its document. The
// Content-MD5 sent with it is checked over the bytes as they pass, and
// the document is acted on only once both the parse and the digest
// succeeded; a digest that does not match is BadDigest whatever the
// document holds, as when the document is read whole.
func readComplete(r *http.Request, c *call) (completeRequest, error) {
	var req completeRequest
	limit := documentLimit(c)
	size := declaredSize(r, c)
	if size > limit {
		return req, tooLarge(c.Op)
	}
	want, err := contentMD5(r)
	if err != nil {
		return req, err
	}
	n := limit + 1
	if size >= 0 {
		n = size + 1 // a body longer than declared is noticed below
	}
	sum := md5.New()
	body := &countedBody{r: io.TeeReader(io.LimitReader(r.Body, n), sum)}
	parseErr := parseComplete(xml.NewDecoder(&xmlRuns{r: body}), &req)
	if body.err == nil && (want != nil || parseErr == nil) {
		// The digest, and the length, are of the whole body.
		_, _ = io.Copy(io.Discard, body)
	}
	switch {
	case body.err != nil:
		return completeRequest{}, bodyReadError(body.err)
	case body.n > limit:
		return completeRequest{}, tooLarge(c.Op)
	case parseErr == nil && size >= 0 && body.n < size:
		return completeRequest{}, errIncomplete
	case want != nil && !bytes.Equal(sum.Sum(nil), want):
		return completeRequest{}, errBadDigest
	case parseErr != nil:
		return completeRequest{}, parseErr
	}
	return req, nil
}

// countedBody counts the bytes read and keeps the first error other
// than the end.
type countedBody struct {
	r   io.Reader
	n   int64
	err error
}

func (b *countedBody) Read(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	n, err := b.r.Read(p)
	b.n += int64(n)
	if err != nil && err != io.EOF {
		b.err = err
	}
	return n, err
}

// parseComplete reads the document's parts into req: the root element
// (of any name, as xml.Unmarshal took it) holds <Part> elements, each of
// which holds its fields; other elements of those two levels are
// skipped, and nothing may nest deeper. The 10,001st part ends the parse.
func parseComplete(d *xml.Decoder, req *completeRequest) error {
	depth := 0
	var part *completePart
	var field string
	var text []byte
	over := false // the field's text passed its bound
	ascending := true
	for {
		tok, err := d.Token()
		if err != nil { // the end before the root element's
			return errMalformedXML
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch depth++; depth {
			case 1:
			case 2:
				if t.Name.Local != "Part" {
					field = ""
					continue
				}
				if len(req.Part) == objects.MaxParts {
					// The 10,001st part: a list in ascending order
					// has passed part number 10,000 by now.
					if !ascending {
						return &apiError{400, "InvalidPartOrder", "The list of parts was not in ascending order. Parts must be ordered by part number."}
					}
					return errTooManyParts
				}
				req.Part = append(req.Part, completePart{})
				part = &req.Part[len(req.Part)-1]
			case 3:
				field, text, over = "", text[:0], false
				if part != nil {
					field = t.Name.Local
				}
			default:
				return errMalformedXML
			}
		case xml.CharData:
			if depth == 3 && field != "" {
				bound := maxPartText
				if field == "PartNumber" {
					bound = maxPartNumber
				}
				if len(text)+len(t) > bound {
					over = true
				} else {
					text = append(text, t...)
				}
			}
		case xml.EndElement:
			switch depth {
			case 2:
				if part != nil {
					if k := len(req.Part); k > 1 && part.PartNumber <= req.Part[k-2].PartNumber {
						ascending = false
					}
				}
				part = nil
			case 3:
				if part != nil && field != "" {
					if err := setPartField(part, field, text, over); err != nil {
						return err
					}
				}
				field = ""
			}
			if depth--; depth == 0 {
				// What follows the root element is not parsed, as
				// xml.Unmarshal does not (its bytes are still read for
				// the digest).
				return nil
			}
		}
	}
}

// setPartField sets a part's field from its element's text, as
// xml.Unmarshal would have: a PartNumber must be an integer.
func setPartField(p *completePart, field string, text []byte, over bool) error {
	s := string(text)
	switch field {
	case "PartNumber":
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if over || err != nil {
			return errMalformedXML
		}
		p.PartNumber = n
	case "ETag":
		if over {
			s = "\x00" // matches no part
		}
		p.ETag = s
	case "ChecksumCRC32", "ChecksumCRC32C", "ChecksumCRC64NVME", "ChecksumSHA1", "ChecksumSHA256":
		if over {
			return errMalformedXML
		}
		switch field {
		case "ChecksumCRC32":
			p.ChecksumCRC32 = s
		case "ChecksumCRC32C":
			p.ChecksumCRC32C = s
		case "ChecksumCRC64NVME":
			p.ChecksumCRC64NVME = s
		case "ChecksumSHA1":
			p.ChecksumSHA1 = s
		case "ChecksumSHA256":
			p.ChecksumSHA256 = s
		}
	}
	return nil
}
