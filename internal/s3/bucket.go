package s3

import (
	"encoding/base64"
	"encoding/xml"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/ostiumio/ostium/internal/iam"
	"github.com/ostiumio/ostium/internal/objects"
)

type owner struct {
	ID          string
	DisplayName string `xml:",omitempty"`
}

func ownerOf(canonicalID string) *owner {
	name := ""
	if canonicalID == iam.RootCanonicalID {
		name = "root"
	}
	return &owner{ID: canonicalID, DisplayName: name}
}

// s3Time formats a time as S3's XML documents do.
func s3Time(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

func listBuckets(s *Server, w http.ResponseWriter, r *http.Request, c *call) error {
	bs, err := s.svc.ListBuckets(r.Context(), c.id)
	if err != nil {
		return err
	}
	type bucket struct {
		Name         string
		CreationDate string
		BucketRegion string `xml:",omitempty"`
	}
	var out struct {
		XMLName           xml.Name `xml:"ListAllMyBucketsResult"`
		NS                string   `xml:"xmlns,attr"`
		Owner             *owner
		Buckets           []bucket `xml:"Buckets>Bucket"`
		ContinuationToken string   `xml:",omitempty"`
		Prefix            string   `xml:",omitempty"`
	}
	out.NS, out.Owner = s3NS, ownerOf(c.id.CanonicalID)
	// Paging and filters, as AWS: by name, after the token's name.
	q := c.Query
	prefix, region := q.Get("prefix"), q.Get("bucket-region")
	max := 10000
	if v, ok := q["max-buckets"]; ok {
		n, err := strconv.Atoi(v[0])
		if err != nil || n < 1 || n > 10000 {
			return &apiError{400, "InvalidArgument", "Argument max-buckets must be an integer between 1 and 10000"}
		}
		max = n
	}
	after := ""
	if v, ok := q["continuation-token"]; ok {
		name, err := base64.RawURLEncoding.DecodeString(v[0])
		if err != nil || len(name) == 0 {
			return &apiError{400, "InvalidArgument", "The continuation token provided is incorrect"}
		}
		after = string(name)
	}
	sort.Slice(bs, func(i, j int) bool { return bs[i].Name < bs[j].Name })
	for _, b := range bs {
		if !strings.HasPrefix(b.Name, prefix) || region != "" && b.Region != region || b.Name <= after && after != "" {
			continue
		}
		if len(out.Buckets) == max {
			out.ContinuationToken = base64.RawURLEncoding.EncodeToString([]byte(out.Buckets[max-1].Name))
			break
		}
		out.Buckets = append(out.Buckets, bucket{b.Name, s3Time(b.CreatedAt), b.Region})
	}
	out.Prefix = prefix
	writeXML(w, http.StatusOK, out)
	return nil
}

// bucketConfiguration is CreateBucket's (optional) document.
type bucketConfiguration struct {
	LocationConstraint string
	// Directory buckets and tags at creation: not done here.
	Location, Bucket, Tags *struct{}
}

func readBucketConfiguration(r *http.Request, c *call) (bucketConfiguration, error) {
	var conf bucketConfiguration
	body, err := readBody(r, c)
	if err != nil || len(body) == 0 {
		return conf, err
	}
	if xmlShaped(body) != nil || xml.Unmarshal(body, &conf) != nil {
		return conf, errMalformedXML
	}
	if conf.Location != nil || conf.Bucket != nil || conf.Tags != nil {
		return conf, errNotImplemented
	}
	return conf, nil
}

func createBucket(s *Server, w http.ResponseWriter, r *http.Request, c *call) error {
	conf, err := readBucketConfiguration(r, c)
	if err != nil {
		return err
	}
	acl, err := aclHeaders(r)
	if err != nil {
		return err
	}
	in := objects.BucketInput{Name: c.Bucket, Region: conf.LocationConstraint, ACL: acl, Ownership: r.Header.Get("x-amz-object-ownership")}
	in.ObjectLock, _ = strconv.ParseBool(strings.TrimSpace(r.Header.Get("x-amz-bucket-object-lock-enabled")))
	if err := s.svc.CreateBucket(r.Context(), c.id, in); err != nil {
		return err
	}
	w.Header().Set("Location", "/"+c.Bucket)
	w.WriteHeader(http.StatusOK)
	return nil
}

func deleteBucket(s *Server, w http.ResponseWriter, r *http.Request, c *call) error {
	if err := s.svc.DeleteBucket(r.Context(), c.id, c.Bucket); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func headBucket(s *Server, w http.ResponseWriter, r *http.Request, c *call) error {
	b, err := s.svc.HeadBucket(r.Context(), c.id, c.Bucket)
	if err != nil {
		return err
	}
	w.Header().Set("x-amz-bucket-region", b.Region)
	w.WriteHeader(http.StatusOK)
	return nil
}

func getBucketLocation(s *Server, w http.ResponseWriter, r *http.Request, c *call) error {
	b, err := s.svc.HeadBucket(r.Context(), c.id, c.Bucket)
	if err != nil {
		return err
	}
	region := b.Region
	if region == "us-east-1" {
		region = "" // as S3: the classic region is reported empty
	}
	writeXML(w, http.StatusOK, struct {
		XMLName xml.Name `xml:"LocationConstraint"`
		NS      string   `xml:"xmlns,attr"`
		Region  string   `xml:",chardata"`
	}{NS: s3NS, Region: region})
	return nil
}
