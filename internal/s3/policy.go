package s3

import (
	"encoding/xml"
	"net/http"
)

func getBucketPolicy(s *Server, w http.ResponseWriter, r *http.Request, c *call) error {
	doc, err := s.svc.GetBucketPolicy(r.Context(), c.id, c.Bucket)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(doc)
	return nil
}

func putBucketPolicy(s *Server, w http.ResponseWriter, r *http.Request, c *call) error {
	doc, err := readBody(r, c)
	if err != nil {
		return err
	}
	if err := s.svc.PutBucketPolicy(r.Context(), c.id, c.Bucket, doc); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func deleteBucketPolicy(s *Server, w http.ResponseWriter, r *http.Request, c *call) error {
	if err := s.svc.DeleteBucketPolicy(r.Context(), c.id, c.Bucket); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func getBucketPolicyStatus(s *Server, w http.ResponseWriter, r *http.Request, c *call) error {
	public, err := s.svc.BucketPolicyPublic(r.Context(), c.id, c.Bucket)
	if err != nil {
		return err
	}
	writeXML(w, http.StatusOK, struct {
		XMLName  xml.Name `xml:"PolicyStatus"`
		NS       string   `xml:"xmlns,attr"`
		IsPublic bool
	}{NS: s3NS, IsPublic: public})
	return nil
}
