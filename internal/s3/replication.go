package s3

import (
	"errors"
	"net/http"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/objects"
	"github.com/ostiumio/ostium/internal/replication"
)

func init() {
	domainErrors[objects.ErrNoSuchReplicationConfiguration] = apiError{404, "ReplicationConfigurationNotFoundError", "The replication configuration was not found"}
	logOperations[OpGetBucketReplication] = "REST.GET.REPLICATION"
	logOperations[OpPutBucketReplication] = "REST.PUT.REPLICATION"
	logOperations[OpDeleteBucketReplication] = "REST.DELETE.REPLICATION"
}

// replicationError is a refused configuration as AWS answers it.
func replicationError(err error) error {
	var re *replication.Error
	if !errors.As(err, &re) {
		return err
	}
	status := http.StatusBadRequest
	if re.Code == "NotImplemented" {
		status = http.StatusNotImplemented
	}
	return &apiError{status, re.Code, re.Message}
}

func getBucketReplication(s *Server, w http.ResponseWriter, r *http.Request, c *call) error {
	cfg, err := s.svc.GetBucketReplication(r.Context(), c.id, c.Bucket)
	if err != nil {
		return err
	}
	out := *cfg
	out.NS = s3NS
	writeXML(w, http.StatusOK, out)
	return nil
}

func putBucketReplication(s *Server, w http.ResponseWriter, r *http.Request, c *call) error {
	doc, err := readBody(r, c)
	if err != nil {
		return err
	}
	if err := xmlShaped(doc); err != nil {
		return err
	}
	cfg, err := replication.Parse(doc)
	if err != nil {
		return replicationError(err)
	}
	if err := s.svc.PutBucketReplication(r.Context(), c.id, c.Bucket, cfg); err != nil {
		return replicationError(err)
	}
	w.WriteHeader(http.StatusOK)
	return nil
}

func deleteBucketReplication(s *Server, w http.ResponseWriter, r *http.Request, c *call) error {
	if err := s.svc.DeleteBucketReplication(r.Context(), c.id, c.Bucket); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// setReplicationStatus sends a version's x-amz-replication-status, as
// AWS does on GET and HEAD of a source's or a replica's version.
func setReplicationStatus(h http.Header, o catalog.Object) {
	if o.Meta.Replication != "" {
		h.Set("x-amz-replication-status", o.Meta.Replication)
	}
}
