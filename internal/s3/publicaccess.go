package s3

import (
	"encoding/xml"
	"net/http"

	"github.com/ostiumio/ostium/internal/iam"
	"github.com/ostiumio/ostium/internal/objects"
)

type ownershipControls struct {
	XMLName xml.Name `xml:"OwnershipControls"`
	NS      string   `xml:"xmlns,attr,omitempty"`
	Rules   []struct {
		ObjectOwnership string
	} `xml:"Rule"`
}

func getOwnershipControls(s *Server, w http.ResponseWriter, r *http.Request, c *call) error {
	v, err := s.svc.GetBucketOwnership(r.Context(), c.id, c.Bucket)
	if err != nil {
		return err
	}
	out := ownershipControls{NS: s3NS}
	out.Rules = append(out.Rules, struct{ ObjectOwnership string }{v})
	writeXML(w, http.StatusOK, out)
	return nil
}

func putOwnershipControls(s *Server, w http.ResponseWriter, r *http.Request, c *call) error {
	var in ownershipControls
	if err := readXML(r, c, &in); err != nil {
		return err
	}
	if len(in.Rules) != 1 || in.Rules[0].ObjectOwnership == "" {
		return objects.ErrMalformedXML
	}
	return s.svc.PutBucketOwnership(r.Context(), c.id, c.Bucket, in.Rules[0].ObjectOwnership)
}

func deleteOwnershipControls(s *Server, w http.ResponseWriter, r *http.Request, c *call) error {
	if err := s.svc.PutBucketOwnership(r.Context(), c.id, c.Bucket, ""); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

type publicAccessBlock struct {
	XMLName               xml.Name `xml:"PublicAccessBlockConfiguration"`
	NS                    string   `xml:"xmlns,attr,omitempty"`
	BlockPublicAcls       bool
	IgnorePublicAcls      bool
	BlockPublicPolicy     bool
	RestrictPublicBuckets bool
}

func getPublicAccessBlock(s *Server, w http.ResponseWriter, r *http.Request, c *call) error {
	p, err := s.svc.GetPublicAccessBlock(r.Context(), c.id, c.Bucket)
	if err != nil {
		return err
	}
	writeXML(w, http.StatusOK, publicAccessBlock{NS: s3NS, BlockPublicAcls: p.BlockPublicACLs, IgnorePublicAcls: p.IgnorePublicACLs,
		BlockPublicPolicy: p.BlockPublicPolicy, RestrictPublicBuckets: p.RestrictPublicBuckets})
	return nil
}

func putPublicAccessBlock(s *Server, w http.ResponseWriter, r *http.Request, c *call) error {
	var in publicAccessBlock
	if err := readXML(r, c, &in); err != nil {
		return err
	}
	p := iam.PublicAccessBlock{BlockPublicACLs: in.BlockPublicAcls, IgnorePublicACLs: in.IgnorePublicAcls,
		BlockPublicPolicy: in.BlockPublicPolicy, RestrictPublicBuckets: in.RestrictPublicBuckets}
	return s.svc.PutPublicAccessBlock(r.Context(), c.id, c.Bucket, &p)
}

func deletePublicAccessBlock(s *Server, w http.ResponseWriter, r *http.Request, c *call) error {
	if err := s.svc.PutPublicAccessBlock(r.Context(), c.id, c.Bucket, nil); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
