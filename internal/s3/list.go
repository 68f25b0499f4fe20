package s3

import (
	"encoding/base64"
	"encoding/xml"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/objects"
)

type listEntry struct {
	Key               string
	LastModified      string
	ETag              string
	Size              int64
	StorageClass      string
	Owner             *owner   `xml:",omitempty"`
	ChecksumAlgorithm []string `xml:",omitempty"`
	ChecksumType      string   `xml:",omitempty"`
}

type commonPrefix struct{ Prefix string }

// listing holds what V1 and V2 responses share.
type listing struct {
	NS             string `xml:"xmlns,attr"`
	Name           string
	Prefix         string
	Delimiter      string `xml:",omitempty"`
	MaxKeys        int
	EncodingType   string `xml:",omitempty"`
	IsTruncated    bool
	Contents       []listEntry
	CommonPrefixes []commonPrefix
}

// encoder applies encoding-type=url to keys and prefixes in a response.
type encoder bool

// enc encodes as AWS does: form encoding (a space is "+", a "+" is
// "%2B"), except that "/" stays as it is. botocore decodes V1's Marker,
// NextMarker, Delimiter and keys but not its Prefix, so an encoded "/"
// gave boto3's list_objects(Prefix="foo/") a Prefix of "foo%2F".
func (e encoder) enc(s string) string {
	if !e {
		return s
	}
	return strings.ReplaceAll(url.QueryEscape(s), "%2F", "/")
}

func listParams(r *http.Request, c *call) (objects.ListInput, encoder, error) {
	q := c.Query
	in := objects.ListInput{Bucket: c.Bucket, Prefix: q.Get("prefix"), Delimiter: q.Get("delimiter"), MaxKeys: objects.MaxKeys}
	if v := q.Get("max-keys"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return in, false, &apiError{400, "InvalidArgument", "Provided max-keys not an integer or within integer range"}
		}
		in.MaxKeys = n
	}
	switch et := q.Get("encoding-type"); et {
	case "", "url":
		return in, et == "url", nil
	}
	return in, false, &apiError{400, "InvalidArgument", "Invalid Encoding Method specified in Request"}
}

func (e encoder) listing(c *call, in objects.ListInput, out objects.ListOutput, fetchOwner bool) listing {
	l := listing{NS: s3NS, Name: c.Bucket, Prefix: e.enc(in.Prefix), Delimiter: e.enc(in.Delimiter),
		MaxKeys: in.MaxKeys, IsTruncated: out.Truncated}
	if e {
		l.EncodingType = "url"
	}
	for _, o := range out.Objects {
		le := listEntry{Key: e.enc(o.Key), LastModified: s3Time(o.LastModified), ETag: o.ETag,
			Size: o.Size, StorageClass: o.StorageClass, ChecksumAlgorithm: checksumNames(o), ChecksumType: o.Meta.ChecksumType}
		if fetchOwner {
			le.Owner = ownerOf(o.Owner)
		}
		l.Contents = append(l.Contents, le)
	}
	for _, p := range out.CommonPrefixes {
		l.CommonPrefixes = append(l.CommonPrefixes, commonPrefix{e.enc(p)})
	}
	return l
}

func checksumNames(o catalog.Object) []string {
	if enc := o.Meta.Encryption; enc != nil && len(enc.ChecksumAlgorithms) > 0 {
		return enc.ChecksumAlgorithms // an SSE-C version's, whose values are sealed
	}
	var out []string
	for _, a := range objects.ChecksumAlgorithms() {
		if _, ok := o.Meta.Checksums[a]; ok {
			out = append(out, a)
		}
	}
	return out
}

func listObjectsV1(s *Server, w http.ResponseWriter, r *http.Request, c *call) error {
	in, e, err := listParams(r, c)
	if err != nil {
		return err
	}
	in.Marker = c.Query.Get("marker")
	out, err := s.svc.ListObjects(r.Context(), c.id, in)
	if err != nil {
		return err
	}
	if err := s.sosapiList(r, c, in, &out); err != nil {
		return err
	}
	var res struct {
		XMLName xml.Name `xml:"ListBucketResult"`
		listing
		Marker     string
		NextMarker string `xml:",omitempty"`
	}
	res.listing = e.listing(c, in, out, true)
	res.Marker = e.enc(in.Marker)
	if out.Truncated && in.Delimiter != "" { // as S3: only with a delimiter
		res.NextMarker = e.enc(out.NextMarker)
	}
	writeXML(w, http.StatusOK, res)
	return nil
}

func listObjectsV2(s *Server, w http.ResponseWriter, r *http.Request, c *call) error {
	in, e, err := listParams(r, c)
	if err != nil {
		return err
	}
	q := c.Query
	token, startAfter := q.Get("continuation-token"), q.Get("start-after")
	in.Marker = startAfter
	if _, ok := q["continuation-token"]; ok {
		k, err := base64.RawURLEncoding.DecodeString(token)
		if err != nil || token == "" {
			return &apiError{400, "InvalidArgument", "The continuation token provided is incorrect"}
		}
		in.Marker = string(k)
	}
	out, err := s.svc.ListObjects(r.Context(), c.id, in)
	if err != nil {
		return err
	}
	if err := s.sosapiList(r, c, in, &out); err != nil {
		return err
	}
	var res listV2Result
	res.listing = e.listing(c, in, out, q.Get("fetch-owner") == "true")
	res.KeyCount = len(out.Objects) + len(out.CommonPrefixes)
	res.ContinuationToken, res.StartAfter = token, e.enc(startAfter)
	if out.Truncated {
		res.NextContinuationToken = base64.RawURLEncoding.EncodeToString([]byte(out.NextMarker))
	}
	writeXMLBytes(w, http.StatusOK, res.appendXML(make([]byte, 0, 512+320*len(res.Contents))))
	return nil
}

func listObjectVersions(s *Server, w http.ResponseWriter, r *http.Request, c *call) error {
	in, e, err := listParams(r, c)
	if err != nil {
		return err
	}
	in.Marker, in.VersionMarker = c.Query.Get("key-marker"), c.Query.Get("version-id-marker")
	switch {
	case in.VersionMarker == "":
	case in.Marker == "":
		return &apiError{400, "InvalidArgument", "A version-id marker cannot be specified without a key marker."}
	case !validVersionID(in.VersionMarker):
		return errBadVersionID
	}
	out, err := s.svc.ListVersions(r.Context(), c.id, in)
	if err != nil {
		return err
	}
	type version struct {
		XMLName           xml.Name
		Key               string
		VersionID         string `xml:"VersionId"`
		IsLatest          bool
		LastModified      string
		ETag              string   `xml:",omitempty"`
		ChecksumAlgorithm []string `xml:",omitempty"`
		ChecksumType      string   `xml:",omitempty"`
		Size              *int64   `xml:",omitempty"`
		StorageClass      string   `xml:",omitempty"`
		Owner             *owner
	}
	var res struct {
		XMLName             xml.Name `xml:"ListVersionsResult"`
		NS                  string   `xml:"xmlns,attr"`
		Name                string
		Prefix              string
		KeyMarker           string
		VersionIDMarker     string `xml:"VersionIdMarker"`
		NextKeyMarker       string `xml:",omitempty"`
		NextVersionIDMarker string `xml:"NextVersionIdMarker,omitempty"`
		Delimiter           string `xml:",omitempty"`
		MaxKeys             int
		EncodingType        string `xml:",omitempty"`
		IsTruncated         bool
		Versions            []version
		CommonPrefixes      []commonPrefix
	}
	res.NS, res.Name, res.Prefix, res.Delimiter = s3NS, c.Bucket, e.enc(in.Prefix), e.enc(in.Delimiter)
	res.KeyMarker, res.VersionIDMarker, res.MaxKeys, res.IsTruncated = e.enc(in.Marker), in.VersionMarker, in.MaxKeys, out.Truncated
	if e {
		res.EncodingType = "url"
	}
	if out.Truncated {
		res.NextKeyMarker, res.NextVersionIDMarker = e.enc(out.NextMarker), out.NextVersionMarker
	}
	for _, o := range out.Objects {
		v := version{XMLName: xml.Name{Local: "Version"}, Key: e.enc(o.Key), VersionID: o.VersionID,
			IsLatest: o.IsLatest, LastModified: s3Time(o.LastModified), Owner: ownerOf(o.Owner)}
		if o.DeleteMarker {
			v.XMLName.Local = "DeleteMarker"
		} else {
			size := o.Size
			v.ETag, v.Size, v.StorageClass = o.ETag, &size, o.StorageClass
			v.ChecksumAlgorithm, v.ChecksumType = checksumNames(o), o.Meta.ChecksumType
		}
		res.Versions = append(res.Versions, v)
	}
	for _, p := range out.CommonPrefixes {
		res.CommonPrefixes = append(res.CommonPrefixes, commonPrefix{e.enc(p)})
	}
	writeXML(w, http.StatusOK, res)
	return nil
}
