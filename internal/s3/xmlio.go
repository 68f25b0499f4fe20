package s3

import (
	"encoding/xml"
	"io"
	"net/http"
	"strconv"
)

// s3NS is the namespace of S3's XML documents.
const s3NS = "http://s3.amazonaws.com/doc/2006-03-01/"

// writeXML encodes v as a complete response.
func writeXML(w http.ResponseWriter, status int, v any) {
	out, err := xml.Marshal(v)
	if err != nil {
		status, out = 500, []byte("<Error><Code>InternalError</Code></Error>")
	}
	h := w.Header()
	h.Set("Content-Type", "application/xml")
	h.Set("Content-Length", strconv.Itoa(len(xml.Header)+len(out)))
	w.WriteHeader(status)
	io.WriteString(w, xml.Header)
	w.Write(out)
}

// maxXMLBody bounds request documents (DeleteObjects with 1000 long keys is
// the largest S3 accepts).
const maxXMLBody = 2 << 20

// readXML decodes a request document into v, as MalformedXML on failure.
func readXML(body io.Reader, v any) error {
	data, err := io.ReadAll(io.LimitReader(body, maxXMLBody+1))
	if err != nil {
		return err
	}
	if len(data) > maxXMLBody || xml.Unmarshal(data, v) != nil {
		return &apiError{400, "MalformedXML", "The XML you provided was not well-formed or did not validate against our published schema"}
	}
	return nil
}
