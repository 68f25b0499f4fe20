package s3

import (
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/iam"
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

// sosapiList puts the documents in a listing of the folder (a prefix
// under it), in place of any stored object of their keys, as an object
// store serving them lists them: a listing of the bucket or of a prefix
// above the folder shows only what is stored there (Veeam reads the
// documents by name). A document is listed to whoever may read it, on
// the page its key falls in; the page keeps to max-keys.
func (s *Server) sosapiList(r *http.Request, c *call, in objects.ListInput, out *objects.ListOutput) error {
	if s.sosapi == nil || !strings.HasPrefix(in.Prefix, sosapi.Folder) || in.MaxKeys <= 0 {
		return nil
	}
	for _, key := range []string{sosapi.CapacityKey, sosapi.SystemKey} {
		if !strings.HasPrefix(key, in.Prefix) || key <= in.Marker || out.Truncated && key > out.NextMarker ||
			in.Delimiter != "" && strings.Contains(key[len(in.Prefix):], in.Delimiter) {
			continue
		}
		objs := slices.DeleteFunc(out.Objects, func(o catalog.Object) bool { return o.Key == key })
		out.Objects = objs
		rd, err := s.computeSOSAPI(r, c.id, objects.GetInput{Bucket: c.Bucket, Key: key}, true)
		switch {
		case errors.Is(err, objects.ErrNoSuchKey), errors.Is(err, objects.ErrAccessDenied):
			continue
		case err != nil:
			return err
		}
		i, _ := slices.BinarySearchFunc(objs, key, func(o catalog.Object, k string) int { return strings.Compare(o.Key, k) })
		out.Objects = slices.Insert(objs, i, rd.Object)
	}
	if n, most := len(out.Objects)+len(out.CommonPrefixes), min(in.MaxKeys, objects.MaxKeys); n > most {
		// The page grew by the documents: it ends before the last
		// entries (objects or common prefixes, in key order) that no
		// longer fit, and the next page starts after what it kept.
		for ; n > most; n-- {
			lo, lp := len(out.Objects)-1, len(out.CommonPrefixes)-1
			if lp < 0 || lo >= 0 && out.Objects[lo].Key > out.CommonPrefixes[lp] {
				out.Objects = out.Objects[:lo]
			} else {
				out.CommonPrefixes = out.CommonPrefixes[:lp]
			}
		}
		out.Truncated, out.NextMarker = true, ""
		if lo := len(out.Objects) - 1; lo >= 0 {
			out.NextMarker = out.Objects[lo].Key
		}
		if lp := len(out.CommonPrefixes) - 1; lp >= 0 && out.CommonPrefixes[lp] > out.NextMarker {
			out.NextMarker = out.CommonPrefixes[lp]
		}
	}
	return nil
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
	rd, err := s.computeSOSAPI(r, c.id, in, head)
	if err != nil {
		if rd != nil && errors.Is(err, objects.ErrNotModified) {
			w.Header().Set("ETag", rd.Object.ETag)
			w.Header().Set("Last-Modified", rd.Object.LastModified.UTC().Format(http.TimeFormat))
		}
		return err
	}
	defer rd.Close()
	return writeSOSAPI(s, w, r, c, rd, head)
}

// computeSOSAPI reads document in.Key as id.
func (s *Server) computeSOSAPI(r *http.Request, id *iam.Identity, in objects.GetInput, head bool) (*objects.Reader, error) {
	rec := *s.sosapi
	return s.svc.ReadComputed(r.Context(), id, in, head, func(h objects.Headroom) objects.Computed {
		// The tighter of the bucket's and the tenant's byte quotas, over
		// the totals the quota check reads; with neither, Veeam is told
		// there is no capacity to read (CapacityInfo false, capacity.xml
		// absent) and shows the repository as unlimited, as it does an
		// S3 store without SOSAPI: Ostium enforces no other bound, and
		// the platform's free space is not the tenant's to plan with.
		room, bounded := sosapi.Tightest(
			sosapi.Quota{Max: h.Limits.BucketBytes, Used: h.BucketUsage.Bytes},
			sosapi.Quota{Max: h.Limits.TenantBytes, Used: h.TenantUsage.Bytes})
		if in.Key == sosapi.SystemKey {
			return objects.Computed{Body: sosapi.System(rec, bounded), ContentType: "application/xml"}
		}
		return objects.Computed{Body: sosapi.Capacity(room), ContentType: "application/xml", Missing: !bounded}
	})
}

// writeSOSAPI sends a document as getObject sends an object.
func writeSOSAPI(s *Server, w http.ResponseWriter, r *http.Request, c *call, rd *objects.Reader, head bool) error {
	h := w.Header()
	setObjectHeaders(h, rd.Object, false)
	for q, hn := range responseOverrides {
		if v := c.Query.Get(q); v != "" {
			h.Set(hn, v)
		}
	}
	h.Set("Accept-Ranges", "bytes")
	return s.writeObject(w, rd, head)
}
