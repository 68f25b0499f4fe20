package s3

import (
	"mime"
	"net/http"
	"strings"
)

// Stored objects are hostile content. The console has a listener, an
// origin, of its own, so a tenant's page rendered by a browser cannot
// call it as a page of the console's origin; but a provider may still
// map both onto one host name, and on the default set-up the console's
// host differs from S3's by its port alone, which cookies ignore. So
// every object answer says what it is and is never sniffed into
// something else, and an answer a browser would render actively (HTML,
// SVG, XML, script, text, or no type at all) is sandboxed: its scripts
// do not run, its document gets an opaque origin and can set no cookie.
// This is the one visible difference from AWS
// (docs/s3-compatibility.md); Options.AllowActiveObjects turns the
// sandbox off for a provider whose console has a host name of its own,
// so that tenants' pages run scripts as they do on AWS.

// objectAnswerHeaders sets the headers every object answer (GetObject,
// HeadObject: presigned, public, any version, any response-content-type
// override) carries, from the Content-Type already set in h. It runs
// once, after every other header of the answer is set.
func (s *Server) objectAnswerHeaders(h http.Header) {
	h.Set("X-Content-Type-Options", "nosniff")
	if !s.allowActive && activeContent(h.Get("Content-Type")) {
		h.Set("Content-Security-Policy", "sandbox")
	}
}

// activeContent tells whether a browser may render a body of media type
// ct as a document that runs script or loads other resources: anything
// but a short list of passive types. Unparsable and missing types count
// as active, as a browser may sniff them.
func activeContent(ct string) bool {
	t, _, err := mime.ParseMediaType(ct)
	if err != nil || t == "" {
		return true
	}
	major, minor, _ := strings.Cut(t, "/")
	switch major {
	case "image":
		// SVG is a document with scripts; so is anything XML.
		return strings.Contains(minor, "svg") || strings.Contains(minor, "xml")
	case "audio", "video", "font":
		return false
	case "application":
		switch minor {
		case "pdf", "octet-stream":
			return false
		}
	}
	return true
}
