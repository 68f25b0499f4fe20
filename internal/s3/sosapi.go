package s3

import (
	"errors"
	"io"
	"net/http"
	"strconv"

	"github.com/ostiumio/ostium/internal/objects"
	"github.com/ostiumio/ostium/internal/sosapi"
)

// Veeam's Smart Object Storage API (package sosapi) meets the endpoint
// here and nowhere else: once a request is routed and authenticated,
// sosapiRoute refuses writes to the keys SOSAPI reserves and hands reads
// of its two documents to getSOSAPI, which computes them instead of
// reading stored objects. Objects stored under those keys before (or
// while SOSAPI is off) stay in the catalog, hidden while it is on.

// errSOSAPIReserved refuses writes under sosapi.Folder, as object stores
// serving SOSAPI do (403 AccessDenied): its keys are the protocol's.
var errSOSAPIReserved = &apiError{http.StatusForbidden, "AccessDenied",
	"Keys under " + sosapi.Folder + " are reserved for the Veeam Smart Object Storage API."}

// sosapiWrites are the operations that change an object named by the
// route's key. AbortMultipartUpload is not among them: no upload can
// start under the folder, and aborting one from before frees its room.
var sosapiWrites = map[Op]bool{
	OpPutObject: true, OpCopyObject: true, OpDeleteObject: true,
	OpCreateMultipartUpload: true, OpUploadPart: true, OpUploadPartCopy: true, OpCompleteMultipartUpload: true,
	OpPutObjectAcl: true, OpPutObjectTagging: true, OpDeleteObjectTagging: true,
	OpPutObjectRetention: true, OpPutObjectLegalHold: true,
}

// sosapiRoute is the seam: nil, or the error a write under the folder
// gets; reads of the documents are sent to getSOSAPI.
func (s *Server) sosapiRoute(c *call) error {
	if s.sosapi == nil || !sosapi.Reserved(c.Key) {
		return nil
	}
	switch {
	case sosapiWrites[c.Op]:
		return errSOSAPIReserved
	case (c.Op == OpGetObject || c.Op == OpHeadObject) && sosapi.Document(c.Key):
		c.serveWith = getSOSAPI
	}
	return nil
}

// sosapiRefusesKey tells whether a key given in a request's body (a
// DeleteObjects entry, a form upload's key) is one no write may touch.
func (s *Server) sosapiRefusesKey(key string) bool {
	return s.sosapi != nil && sosapi.Reserved(key)
}

// getSOSAPI answers GetObject and HeadObject of a SOSAPI document as
// getObject answers for a stored object: authorized alike, with its
// conditions, ranges and headers.
func getSOSAPI(s *Server, w http.ResponseWriter, r *http.Request, c *call) error {
	head := r.Method == http.MethodHead
	in := objects.GetInput{Bucket: c.Bucket, Key: c.Key, VersionID: c.Query.Get("versionId"), Cond: conditions(r.Header, "")}
	if v, ok := c.Query["partNumber"]; ok {
		n, err := strconv.Atoi(v[0])
		if err != nil || n < 1 || n > 10000 {
			return &apiError{400, "InvalidArgument", "Part number must be an integer between 1 and 10000, inclusive"}
		}
		in.PartNumber = n
	}
	if v := r.Header.Get("Range"); v != "" {
		in.Range = parseRange(v)
	}
	rec := *s.sosapi
	rd, err := s.svc.ReadComputed(r.Context(), c.id, in, head, func(h objects.Headroom) objects.Computed {
		// The tighter of the bucket's and the tenant's byte quotas, over
		// the totals the quota check reads; with neither, Veeam is told
		// there is no capacity to read (CapacityInfo false, capacity.xml
		// absent) and shows the repository as unlimited, as it does an
		// S3 store without SOSAPI: Ostium enforces no other bound, and
		// the platform's free space is not the tenant's to plan with.
		room, bounded := sosapi.Tightest(
			sosapi.Quota{Max: h.Limits.BucketBytes, Used: h.BucketUsage.Bytes},
			sosapi.Quota{Max: h.Limits.TenantBytes, Used: h.TenantUsage.Bytes})
		if c.Key == sosapi.SystemKey {
			return objects.Computed{Body: sosapi.System(rec, bounded), ContentType: "application/xml"}
		}
		return objects.Computed{Body: sosapi.Capacity(room), ContentType: "application/xml", Missing: !bounded}
	})
	if err != nil {
		if rd != nil && errors.Is(err, objects.ErrNotModified) {
			w.Header().Set("ETag", rd.Object.ETag)
			w.Header().Set("Last-Modified", rd.Object.LastModified.UTC().Format(http.TimeFormat))
		}
		return err
	}
	defer rd.Close()
	h := w.Header()
	setObjectHeaders(h, rd.Object, false)
	for q, hn := range responseOverrides {
		if v := c.Query.Get(q); v != "" {
			h.Set(hn, v)
		}
	}
	h.Set("Accept-Ranges", "bytes")
	h.Set("Content-Length", strconv.FormatInt(rd.Length, 10))
	s.objectAnswerHeaders(h)
	status := http.StatusOK
	if rd.Ranged {
		status = http.StatusPartialContent
		h.Set("Content-Range", "bytes "+strconv.FormatInt(rd.Start, 10)+"-"+
			strconv.FormatInt(rd.Start+rd.Length-1, 10)+"/"+strconv.FormatInt(rd.Object.Size, 10))
	}
	w.WriteHeader(status)
	if head || rd.Length == 0 {
		return nil
	}
	if _, err := io.Copy(w, rd.Body); err != nil {
		panic(http.ErrAbortHandler)
	}
	return nil
}
