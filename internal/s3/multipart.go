package s3

import (
	"encoding/xml"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/objects"
)

type copyResultXML struct {
	XMLName           xml.Name
	NS                string `xml:"xmlns,attr"`
	LastModified      string
	ETag              string
	ChecksumCRC32     string `xml:",omitempty"`
	ChecksumCRC32C    string `xml:",omitempty"`
	ChecksumCRC64NVME string `xml:",omitempty"`
	ChecksumSHA1      string `xml:",omitempty"`
	ChecksumSHA256    string `xml:",omitempty"`
}

func copyResult(name, etag string, mod time.Time, sums map[string]string) copyResultXML {
	return copyResultXML{XMLName: xml.Name{Local: name}, NS: s3NS, LastModified: s3Time(mod), ETag: etag,
		ChecksumCRC32: sums["CRC32"], ChecksumCRC32C: sums["CRC32C"], ChecksumCRC64NVME: sums["CRC64NVME"],
		ChecksumSHA1: sums["SHA1"], ChecksumSHA256: sums["SHA256"]}
}

func createUpload(s *Server, w http.ResponseWriter, r *http.Request, c *call) error {
	sc, err := storageClass(r.Header)
	if err != nil {
		return err
	}
	u := catalog.Upload{Bucket: c.Bucket, Key: c.Key, Meta: metaFromHeaders(r.Header), StorageClass: sc}
	if u.Meta.Tags, err = taggingHeader(r, c); err != nil {
		return err
	}
	if v := r.Header.Get("x-amz-checksum-algorithm"); v != "" {
		a, ok := objects.ChecksumAlgorithm(v)
		if !ok {
			return &apiError{400, "InvalidRequest", "Checksum algorithm provided is unsupported."}
		}
		u.ChecksumAlgorithm = a
	}
	switch t := strings.ToUpper(r.Header.Get("x-amz-checksum-type")); {
	case t == "":
	case u.ChecksumAlgorithm == "":
		return &apiError{400, "InvalidRequest", "The x-amz-checksum-type header can only be used with the x-amz-checksum-algorithm header."}
	case t == "FULL_OBJECT" && !objects.Combinable(u.ChecksumAlgorithm),
		t == "COMPOSITE" && u.ChecksumAlgorithm == "CRC64NVME":
		return &apiError{400, "InvalidRequest", "The " + t + " checksum type cannot be used with the " + strings.ToLower(u.ChecksumAlgorithm) + " checksum algorithm."}
	case t == "FULL_OBJECT" || t == "COMPOSITE":
		u.ChecksumType = t
	default:
		return &apiError{400, "InvalidRequest", "Value for x-amz-checksum-type header is invalid."}
	}
	acl, err := aclHeaders(r)
	if err != nil {
		return err
	}
	lock, err := lockRequest(r.Header)
	if err != nil {
		return err
	}
	enc, err := s.writeSSE(r)
	if err != nil {
		return err
	}
	r = withSSEConditions(r)
	u, err = s.svc.CreateEncryptedUpload(r.Context(), c.id, u, acl, lock, enc.request())
	if err != nil {
		return err
	}
	s.setSSEHeaders(r.Context(), w.Header(), c, u.Meta.Encryption, true, true, r.Header.Get(hSSECKeyMD5))
	if u.ChecksumAlgorithm != "" {
		w.Header().Set("x-amz-checksum-algorithm", u.ChecksumAlgorithm)
		w.Header().Set("x-amz-checksum-type", u.ChecksumType)
	}
	writeXML(w, http.StatusOK, struct {
		XMLName  xml.Name `xml:"InitiateMultipartUploadResult"`
		NS       string   `xml:"xmlns,attr"`
		Bucket   string
		Key      string
		UploadID string `xml:"UploadId"`
	}{NS: s3NS, Bucket: c.Bucket, Key: c.Key, UploadID: u.UploadID})
	return nil
}

func partNumber(c *call) (int, error) {
	n, err := strconv.Atoi(c.Query.Get("partNumber"))
	if err != nil || n < 1 || n > objects.MaxParts {
		return 0, &apiError{400, "InvalidArgument", "Part number must be an integer between 1 and 10000, inclusive"}
	}
	return n, nil
}

// uploadPart serves UploadPart and UploadPartCopy.
func uploadPart(s *Server, w http.ResponseWriter, r *http.Request, c *call) error {
	n, err := partNumber(c)
	if err != nil {
		return err
	}
	in := objects.PartInput{Bucket: c.Bucket, Key: c.Key, UploadID: c.Query.Get("uploadId"), Number: n}
	key, err := s.customerKey(r, "")
	if err != nil {
		return err
	}
	in.CustomerKey = key.CustomerKey
	if c.Op == OpUploadPartCopy {
		sb, sk, sv, err := copySource(r.Header.Get("x-amz-copy-source"))
		if err != nil {
			return err
		}
		srcKey, err := s.customerKey(r, copySourcePfx)
		if err != nil {
			return err
		}
		in.Copy = &objects.CopySource{Bucket: sb, Key: sk, Version: sv, Cond: conditions(r.Header, "x-amz-copy-source-"),
			CustomerKey: srcKey.CustomerKey}
		if v := r.Header.Get("x-amz-copy-source-range"); v != "" {
			if in.Copy.Range = parseRange(v); in.Copy.Range == nil {
				return &apiError{400, "InvalidArgument", "The x-amz-copy-source-range value must be of the form bytes=first-last where first and last are the zero-based offsets of the first and last bytes to copy"}
			}
		}
	} else if in.Payload, err = payload(r, c); err != nil {
		return err
	}
	p, srcVersion, err := s.svc.UploadPart(r.Context(), c.id, in)
	if err != nil {
		return err
	}
	// The part is written: its upload's encryption, which the response
	// reports as AWS's does, is read without a second decision.
	enc, err := s.svc.UploadEncryption(r.Context(), c.Bucket, c.Key, in.UploadID)
	if err != nil {
		return err
	}
	s.setSSEHeaders(r.Context(), w.Header(), c, enc, false, true, r.Header.Get(hSSECKeyMD5))
	if c.Op == OpUploadPartCopy {
		if srcVersion != "" {
			w.Header().Set("x-amz-copy-source-version-id", srcVersion)
		}
		writeXML(w, http.StatusOK, copyResult("CopyPartResult", p.ETag, p.LastModified, p.Checksums))
		return nil
	}
	w.Header().Set("ETag", p.ETag)
	setChecksumHeaders(w.Header(), p.Checksums, "")
	w.WriteHeader(http.StatusOK)
	return nil
}

func completeUpload(s *Server, w http.ResponseWriter, r *http.Request, c *call) error {
	// SSE-C's key: completing moves no bytes, but the parts' checksums
	// are sealed under the data key it opens, so an upload with checksums
	// needs it, as on AWS.
	ckey, err := s.customerKey(r, "")
	if err != nil {
		return err
	}
	req, err := readComplete(r, c)
	if err != nil {
		return err
	}
	cond, err := putOptions(r.Header)
	if err != nil {
		return err
	}
	if err := checkChecksumType(s, r, c); err != nil {
		return err
	}
	list := make([]objects.CompletePart, len(req.Part))
	for i, p := range req.Part {
		list[i] = objects.CompletePart{Number: p.PartNumber, ETag: p.ETag}
		for algo, v := range map[string]string{"CRC32": p.ChecksumCRC32, "CRC32C": p.ChecksumCRC32C,
			"CRC64NVME": p.ChecksumCRC64NVME, "SHA1": p.ChecksumSHA1, "SHA256": p.ChecksumSHA256} {
			if v != "" {
				if list[i].Checksums == nil {
					list[i].Checksums = map[string]string{}
				}
				list[i].Checksums[algo] = v
			}
		}
	}
	// A whole-object checksum the client declares is checked against a
	// FULL_OBJECT one; a COMPOSITE one ("...-N") is taken as said.
	want := map[string]string{}
	for _, a := range objects.ChecksumAlgorithms() {
		if v := r.Header.Get("x-amz-checksum-" + strings.ToLower(a)); v != "" {
			want[a] = v
		}
	}
	o := objects.CompleteOptions{Checksums: want, Cond: cond, CustomerKey: ckey.CustomerKey}
	// x-amz-mp-object-size was checked with the table (honoured.go).
	if v := r.Header.Get("x-amz-mp-object-size"); v != "" {
		size, _ := strconv.ParseInt(v, 10, 64)
		o.Size = &size
	}
	obj, err := s.svc.CompleteUpload(r.Context(), c.id, c.Bucket, c.Key, c.Query.Get("uploadId"), list, o)
	if err != nil {
		return err
	}
	res := struct {
		XMLName           xml.Name `xml:"CompleteMultipartUploadResult"`
		NS                string   `xml:"xmlns,attr"`
		Location          string
		Bucket            string
		Key               string
		ETag              string
		ChecksumCRC32     string `xml:",omitempty"`
		ChecksumCRC32C    string `xml:",omitempty"`
		ChecksumCRC64NVME string `xml:",omitempty"`
		ChecksumSHA1      string `xml:",omitempty"`
		ChecksumSHA256    string `xml:",omitempty"`
		ChecksumType      string `xml:",omitempty"`
	}{NS: s3NS, Location: "/" + c.Bucket + "/" + c.Key, Bucket: c.Bucket, Key: c.Key, ETag: obj.ETag}
	sums := obj.Meta.Checksums
	res.ChecksumCRC32, res.ChecksumCRC32C, res.ChecksumCRC64NVME = sums["CRC32"], sums["CRC32C"], sums["CRC64NVME"]
	res.ChecksumSHA1, res.ChecksumSHA256, res.ChecksumType = sums["SHA1"], sums["SHA256"], obj.Meta.ChecksumType
	setVersionHeader(w.Header(), obj)
	s.setSSEHeaders(r.Context(), w.Header(), c, obj.Meta.Encryption, false, false, r.Header.Get(hSSECKeyMD5))
	s.setExpiration(r.Context(), w.Header(), obj)
	writeXML(w, http.StatusOK, res)
	return nil
}

// checkChecksumType holds a completion to the checksum type it states,
// as AWS: it must be the type the upload was created with.
func checkChecksumType(s *Server, r *http.Request, c *call) error {
	t := strings.ToUpper(r.Header.Get("x-amz-checksum-type"))
	if t == "" {
		return nil
	}
	if t != "COMPOSITE" && t != "FULL_OBJECT" {
		return &apiError{400, "InvalidRequest", "Value for x-amz-checksum-type header is invalid."}
	}
	have, err := s.svc.UploadChecksumType(r.Context(), c.id, c.Bucket, c.Key, c.Query.Get("uploadId"))
	if errors.Is(err, objects.ErrNoSuchUpload) {
		return nil // completed already, perhaps: the completion answers
	}
	if err != nil {
		return err
	}
	if have != t {
		return &apiError{400, "InvalidRequest", "The upload was created using the " + strings.ToLower(have) + " checksum type. The complete request must use the same checksum type."}
	}
	return nil
}

func abortUpload(s *Server, w http.ResponseWriter, r *http.Request, c *call) error {
	if err := s.svc.AbortUpload(r.Context(), c.id, c.Bucket, c.Key, c.Query.Get("uploadId")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func intParam(c *call, name string, def int) (int, error) {
	v := c.Query.Get(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, &apiError{400, "InvalidArgument", "Provided " + name + " not an integer or within integer range"}
	}
	return n, nil
}

func listParts(s *Server, w http.ResponseWriter, r *http.Request, c *call) error {
	// SSE-C's key: listing reads no bytes, but an SSE-C upload's parts
	// show their checksums only to a listing that brings it.
	ckey, err := s.customerKey(r, "")
	if err != nil {
		return err
	}
	marker, err := intParam(c, "part-number-marker", 0)
	if err != nil {
		return err
	}
	max, err := intParam(c, "max-parts", 1000)
	if err != nil {
		return err
	}
	u, parts, truncated, err := s.svc.ListParts(r.Context(), c.id, c.Bucket, c.Key, c.Query.Get("uploadId"), marker, max, ckey.CustomerKey)
	if err != nil {
		return err
	}
	type part struct {
		PartNumber        int
		LastModified      string
		ETag              string
		Size              int64
		ChecksumCRC32     string `xml:",omitempty"`
		ChecksumCRC32C    string `xml:",omitempty"`
		ChecksumCRC64NVME string `xml:",omitempty"`
		ChecksumSHA1      string `xml:",omitempty"`
		ChecksumSHA256    string `xml:",omitempty"`
	}
	var res struct {
		XMLName              xml.Name `xml:"ListPartsResult"`
		NS                   string   `xml:"xmlns,attr"`
		Bucket               string
		Key                  string
		UploadID             string `xml:"UploadId"`
		Initiator            *owner
		Owner                *owner
		StorageClass         string
		PartNumberMarker     int
		NextPartNumberMarker int
		MaxParts             int
		IsTruncated          bool
		ChecksumAlgorithm    string `xml:",omitempty"`
		ChecksumType         string `xml:",omitempty"`
		Part                 []part
	}
	res.NS, res.Bucket, res.Key, res.UploadID = s3NS, c.Bucket, c.Key, u.UploadID
	res.Initiator, res.Owner, res.StorageClass = ownerOf(u.Owner), ownerOf(u.Owner), u.StorageClass
	res.PartNumberMarker, res.MaxParts, res.IsTruncated = marker, max, truncated
	res.ChecksumAlgorithm, res.ChecksumType = u.ChecksumAlgorithm, u.ChecksumType
	for _, p := range parts {
		s := p.Checksums
		res.Part = append(res.Part, part{p.Number, s3Time(p.LastModified), p.ETag, p.Size,
			s["CRC32"], s["CRC32C"], s["CRC64NVME"], s["SHA1"], s["SHA256"]})
		res.NextPartNumberMarker = p.Number
	}
	writeXML(w, http.StatusOK, res)
	return nil
}

func listUploads(s *Server, w http.ResponseWriter, r *http.Request, c *call) error {
	in, e, err := listParams(r, c)
	if err != nil {
		return err
	}
	if v, ok := c.Query["max-uploads"]; ok {
		if in.MaxKeys, err = strconv.Atoi(v[0]); err != nil || in.MaxKeys < 0 {
			return &apiError{400, "InvalidArgument", "Provided max-uploads not an integer or within integer range"}
		}
	}
	in.Marker, in.VersionMarker = c.Query.Get("key-marker"), c.Query.Get("upload-id-marker")
	out, err := s.svc.ListUploads(r.Context(), c.id, in)
	if err != nil {
		return err
	}
	type upload struct {
		Key               string
		UploadID          string `xml:"UploadId"`
		Initiator         *owner
		Owner             *owner
		StorageClass      string
		Initiated         string
		ChecksumAlgorithm string `xml:",omitempty"`
	}
	var res struct {
		XMLName            xml.Name `xml:"ListMultipartUploadsResult"`
		NS                 string   `xml:"xmlns,attr"`
		Bucket             string
		KeyMarker          string
		UploadIDMarker     string `xml:"UploadIdMarker"`
		NextKeyMarker      string
		NextUploadIDMarker string `xml:"NextUploadIdMarker"`
		Prefix             string
		Delimiter          string `xml:",omitempty"`
		MaxUploads         int
		EncodingType       string `xml:",omitempty"`
		IsTruncated        bool
		Upload             []upload
		CommonPrefixes     []commonPrefix
	}
	res.NS, res.Bucket, res.KeyMarker, res.UploadIDMarker = s3NS, c.Bucket, e.enc(in.Marker), in.VersionMarker
	res.NextKeyMarker, res.NextUploadIDMarker = e.enc(out.NextKeyMarker), out.NextUploadIDMarker
	res.Prefix, res.Delimiter, res.MaxUploads, res.IsTruncated = e.enc(in.Prefix), e.enc(in.Delimiter), in.MaxKeys, out.Truncated
	if e {
		res.EncodingType = "url"
	}
	for _, u := range out.Uploads {
		res.Upload = append(res.Upload, upload{e.enc(u.Key), u.UploadID, ownerOf(u.Owner), ownerOf(u.Owner),
			u.StorageClass, s3Time(u.Initiated), u.ChecksumAlgorithm})
	}
	for _, p := range out.CommonPrefixes {
		res.CommonPrefixes = append(res.CommonPrefixes, commonPrefix{e.enc(p)})
	}
	writeXML(w, http.StatusOK, res)
	return nil
}
