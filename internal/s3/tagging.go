package s3

import (
	"encoding/xml"
	"net/http"
	"strconv"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/objects"
)

func init() {
	domainErrors[objects.ErrInvalidTag] = apiError{400, "InvalidTag", "The tag provided was not a valid tag."}
	// What AWS answers to an eleventh object tag: BadRequest, not
	// InvalidTag.
	domainErrors[objects.ErrTooManyObjectTags] = apiError{400, "BadRequest", "Object tags cannot be greater than 10"}
	domainErrors[objects.ErrNoSuchTagSet] = apiError{404, "NoSuchTagSet", "The TagSet does not exist"}
}

// Tagging documents are small: 10 tags of an object, 50 of a bucket,
// each of at most 128 + 256 characters of up to 4 bytes in UTF-8.
const (
	maxObjectTaggingBody = 64 << 10
	maxBucketTaggingBody = 256 << 10
)

// taggingOut is the document of GetObjectTagging and GetBucketTagging.
// TagSet is always there, empty for an object without tags, as SDKs
// expect.
type taggingOut struct {
	XMLName xml.Name `xml:"Tagging"`
	NS      string   `xml:"xmlns,attr,omitempty"`
	TagSet  struct {
		Tag []xmlTag
	}
}

type xmlTag struct {
	Key, Value string
}

// taggingIn is the document of PutObjectTagging and PutBucketTagging:
// Tagging and TagSet are required, and each Tag has a Key and a Value.
type taggingIn struct {
	XMLName xml.Name `xml:"Tagging"`
	TagSet  *struct {
		Tag []struct {
			Key, Value *string
		}
	}
}

// readTagging reads a tagging document.
func readTagging(r *http.Request, c *call) ([]objects.Tag, error) {
	var doc taggingIn
	if err := readXML(r, c, &doc); err != nil {
		return nil, err
	}
	return doc.tags()
}

// tags returns the document's tags, unchecked against S3's limits.
func (doc taggingIn) tags() ([]objects.Tag, error) {
	if doc.TagSet == nil {
		return nil, errMalformedXML
	}
	tags := make([]objects.Tag, 0, len(doc.TagSet.Tag))
	for _, t := range doc.TagSet.Tag {
		if t.Key == nil || t.Value == nil {
			return nil, errMalformedXML
		}
		tags = append(tags, objects.Tag{Key: *t.Key, Value: *t.Value})
	}
	return tags, nil
}

func writeTagging(w http.ResponseWriter, ns string, tags []objects.Tag) {
	out := taggingOut{NS: ns}
	for _, t := range tags {
		out.TagSet.Tag = append(out.TagSet.Tag, xmlTag{t.Key, t.Value})
	}
	writeXML(w, http.StatusOK, out)
}

// taggingHeader reads x-amz-tagging, the tags a write sets: the header,
// or the query parameter a presigner hoisted it into (signed with the
// rest of the query, so as much the signer's as a header).
func taggingHeader(r *http.Request, c *call) (map[string]string, error) {
	v := r.Header.Get("x-amz-tagging")
	if _, ok := r.Header["X-Amz-Tagging"]; !ok {
		v = c.Query.Get("x-amz-tagging")
	}
	return objects.ParseTagging(v)
}

// setTaggingCount answers x-amz-tagging-count on GET and HEAD, when the
// object has tags the caller may read.
func setTaggingCount(h http.Header, n int) {
	if n > 0 {
		h.Set("x-amz-tagging-count", strconv.Itoa(n))
	}
}

func getObjectTagging(s *Server, w http.ResponseWriter, r *http.Request, c *call) error {
	o, err := s.svc.GetObjectTagging(r.Context(), c.id, c.Bucket, c.Key, c.Query.Get("versionId"))
	if err != nil {
		return err
	}
	setVersionHeader(w.Header(), o)
	// AWS's sample declares S3's namespace here, not on the bucket's.
	writeTagging(w, s3NS, objects.SortedTags(o.Meta.Tags))
	return nil
}

func putObjectTagging(s *Server, w http.ResponseWriter, r *http.Request, c *call) error {
	tags, err := readTagging(r, c)
	if err != nil {
		return err
	}
	v, err := s.svc.PutObjectTagging(r.Context(), c.id, c.Bucket, c.Key, c.Query.Get("versionId"), tags)
	if err != nil {
		return err
	}
	setVersionHeader(w.Header(), catalog.Object{VersionID: v})
	w.WriteHeader(http.StatusOK)
	return nil
}

func deleteObjectTagging(s *Server, w http.ResponseWriter, r *http.Request, c *call) error {
	v, err := s.svc.DeleteObjectTagging(r.Context(), c.id, c.Bucket, c.Key, c.Query.Get("versionId"))
	if err != nil {
		return err
	}
	setVersionHeader(w.Header(), catalog.Object{VersionID: v})
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func getBucketTagging(s *Server, w http.ResponseWriter, r *http.Request, c *call) error {
	tags, err := s.svc.GetBucketTagging(r.Context(), c.id, c.Bucket)
	if err != nil {
		return err
	}
	writeTagging(w, "", tags)
	return nil
}

func putBucketTagging(s *Server, w http.ResponseWriter, r *http.Request, c *call) error {
	tags, err := readTagging(r, c)
	if err != nil {
		return err
	}
	if err := s.svc.PutBucketTagging(r.Context(), c.id, c.Bucket, tags); err != nil {
		return err
	}
	// AWS's sample answers 204; the SDKs take any 2xx.
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func deleteBucketTagging(s *Server, w http.ResponseWriter, r *http.Request, c *call) error {
	if err := s.svc.DeleteBucketTagging(r.Context(), c.id, c.Bucket); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
