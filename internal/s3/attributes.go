package s3

import (
	"encoding/xml"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/ostiumio/ostium/internal/objects"
)

// objectAttributes are the names x-amz-object-attributes may list.
var objectAttributes = []string{"ETag", "Checksum", "ObjectParts", "StorageClass", "ObjectSize"}

var errBadAttribute = &apiError{400, "InvalidArgument", "Invalid attribute name specified."}

// checksums is the Checksum element of GetObjectAttributes and a part's
// checksums within ObjectParts.
type checksums struct {
	ChecksumCRC32     string `xml:",omitempty"`
	ChecksumCRC32C    string `xml:",omitempty"`
	ChecksumCRC64NVME string `xml:",omitempty"`
	ChecksumSHA1      string `xml:",omitempty"`
	ChecksumSHA256    string `xml:",omitempty"`
}

func checksumsOf(m map[string]string) checksums {
	return checksums{m["CRC32"], m["CRC32C"], m["CRC64NVME"], m["SHA1"], m["SHA256"]}
}

// headerInt reads a non-negative integer header, def when absent.
func headerInt(r *http.Request, name string, def int) (int, error) {
	v := r.Header.Get(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n < 0 {
		return 0, &apiError{400, "InvalidArgument", "Invalid value for " + name + ": " + v}
	}
	return n, nil
}

func getObjectAttributes(s *Server, w http.ResponseWriter, r *http.Request, c *call) error {
	// The SDKs send the list as one comma-separated value or as one
	// header line per name; AWS requires at least one name.
	want := map[string]bool{}
	for _, v := range r.Header.Values("x-amz-object-attributes") {
		for _, name := range strings.Split(v, ",") {
			name = strings.TrimSpace(name)
			if name == "" {
				continue
			}
			if !slices.Contains(objectAttributes, name) {
				return errBadAttribute
			}
			want[name] = true
		}
	}
	if len(want) == 0 {
		return &apiError{400, "InvalidArgument", "Missing required header for this request: x-amz-object-attributes"}
	}
	maxParts, err := headerInt(r, "x-amz-max-parts", 1000)
	if err != nil {
		return err
	}
	marker, err := headerInt(r, "x-amz-part-number-marker", 0)
	if err != nil {
		return err
	}
	ckey, err := s.customerKey(r, "")
	if err != nil {
		return err
	}
	a, err := s.svc.GetObjectAttributes(r.Context(), c.id, objects.AttributesInput{Bucket: c.Bucket, Key: c.Key,
		VersionID: c.Query.Get("versionId"), MaxParts: min(maxParts, 1000), PartNumberMarker: marker, CustomerKey: ckey.CustomerKey})
	if err != nil {
		if a.Object.DeleteMarker {
			setDeleteMarkerHeaders(w.Header(), a.Object)
			if c.Query.Get("versionId") != "" {
				w.Header().Set("Last-Modified", a.Object.LastModified.UTC().Format(http.TimeFormat))
			}
		}
		return err
	}
	o := a.Object
	type part struct {
		checksums
		PartNumber int
		Size       int64
	}
	type objectParts struct {
		IsTruncated          bool
		MaxParts             int
		NextPartNumberMarker int
		PartNumberMarker     int
		Part                 []part
		PartsCount           int
	}
	type checksum struct {
		checksums
		ChecksumType string `xml:",omitempty"`
	}
	var res struct {
		XMLName      xml.Name `xml:"GetObjectAttributesResponse"`
		NS           string   `xml:"xmlns,attr"`
		ETag         string   `xml:",omitempty"`
		Checksum     *checksum
		ObjectParts  *objectParts
		StorageClass string `xml:",omitempty"`
		ObjectSize   *int64
	}
	res.NS = s3NS
	if want["ETag"] {
		// Unlike its headers and listings, AWS writes this ETag bare.
		res.ETag = strings.Trim(o.ETag, `"`)
	}
	if want["Checksum"] && len(o.Meta.Checksums) > 0 {
		res.Checksum = &checksum{checksumsOf(o.Meta.Checksums), o.Meta.ChecksumType}
	}
	if want["ObjectParts"] && a.PartsCount > 0 {
		op := &objectParts{IsTruncated: a.Truncated, MaxParts: min(maxParts, 1000), PartNumberMarker: marker,
			NextPartNumberMarker: a.NextPartNumberMarker, PartsCount: a.PartsCount}
		for _, p := range a.Parts {
			op.Part = append(op.Part, part{checksumsOf(p.Checksums), p.Number, p.Size})
		}
		res.ObjectParts = op
	}
	if want["StorageClass"] {
		res.StorageClass = o.StorageClass
		if res.StorageClass == "" {
			res.StorageClass = "STANDARD"
		}
	}
	if want["ObjectSize"] {
		res.ObjectSize = &o.Size
	}
	h := w.Header()
	h.Set("Last-Modified", o.LastModified.UTC().Format(http.TimeFormat))
	setVersionHeader(h, o)
	writeXML(w, http.StatusOK, res)
	return nil
}
