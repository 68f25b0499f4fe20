package s3

import (
	"bytes"
	"io"
	"net/http"

	"github.com/ostiumio/ostium/internal/iam"
)

// Row is one row of the honoured table, for the tests outside the
// package that walk it over real HTTP.
type Row struct {
	Name   string
	Query  bool
	Ops    []string
	Values []string
	How    string
	Status int
	Code   string
	Note   string
}

// Table returns the honoured table.
func Table() []Row {
	var out []Row
	for _, f := range fields {
		r := Row{Name: f.name, Query: f.query, Values: f.values, How: f.how.String(), Note: f.note}
		for op := Op(1); op < opCount; op++ {
			if f.ops.has(op) {
				r.Ops = append(r.Ops, op.String())
			}
		}
		if f.how == refused {
			e := f.err
			if e == nil {
				e = errNotImplemented
			}
			r.Status, r.Code = e.Status, e.Code
		}
		out = append(out, r)
	}
	return out
}

// ParseRoute is parseRoute with the table applied, for the fuzz target:
// the operation's name, and the status and code of any refusal.
func ParseRoute(r *http.Request, domains []string, anonymous bool) (op string, status int, code string) {
	rt, err := parseRoute(r, domains)
	if err == nil {
		if handlers[rt.Op] == nil {
			panic("no handler for " + rt.Op.String())
		}
		c := &call{Route: rt}
		if !anonymous {
			c.id = &iam.Identity{Root: true}
		}
		err = honour(r, c)
	}
	if err != nil {
		e := toAPIError(err)
		return rt.Op.String(), e.Status, e.Code
	}
	return rt.Op.String(), 0, ""
}

// DocumentOps are the operations DecodeDocument decodes for.
var DocumentOps = []string{"CreateBucket", "DeleteObjects", "CompleteMultipartUpload", "PutBucketAcl",
	"PutObjectAcl", "PutBucketOwnershipControls", "PutPublicAccessBlock", "PutBucketPolicy", "PutBucketLogging",
	"PutObjectTagging", "PutBucketTagging"}

// DecodeDocument runs an operation's document decoder on body, sent
// with header, as its handler does; it returns the refusal's status and
// code, or 0.
func DecodeDocument(op string, body []byte, header http.Header, chunked bool) (status int, code string) {
	req, _ := http.NewRequest("PUT", "/b/k", bytes.NewReader(body))
	for k, v := range header {
		req.Header[k] = v
	}
	if chunked {
		req.ContentLength = -1
	}
	req.Body = &clientBody{r: io.NopCloser(bytes.NewReader(body))}
	c := &call{}
	for o := Op(1); o < opCount; o++ {
		if o.String() == op {
			c.Op = o
		}
	}
	var err error
	switch c.Op {
	case OpCreateBucket:
		_, err = readBucketConfiguration(req, c)
	case OpDeleteObjects:
		err = readXML(req, c, &deleteRequest{})
	case OpCompleteMultipartUpload:
		_, err = readComplete(req, c)
	case OpPutBucketAcl, OpPutObjectAcl:
		_, err = aclRequest(req, c)
	case OpPutBucketOwnershipControls:
		err = readXML(req, c, &ownershipControls{})
	case OpPutPublicAccessBlock:
		err = readXML(req, c, &publicAccessBlock{})
	case OpPutBucketPolicy:
		_, err = readBody(req, c)
	case OpPutBucketLogging:
		err = readXML(req, c, &loggingIn{})
	case OpPutObjectTagging, OpPutBucketTagging:
		_, err = readTagging(req, c)
	default:
		panic("no decoder for " + op)
	}
	if err != nil {
		e := toAPIError(err)
		return e.Status, e.Code
	}
	return 0, ""
}
