package s3

import (
	"errors"
	"net/http"

	"github.com/ostiumio/ostium/internal/notify"
)

func init() {
	logOperations[OpGetBucketNotificationConfiguration] = "REST.GET.NOTIFICATION"
	logOperations[OpPutBucketNotificationConfiguration] = "REST.PUT.NOTIFICATION"
	// Where a bucket's changes are told, and to whom.
	audited[OpPutBucketNotificationConfiguration] = always
}

// notifyError is a refused configuration as AWS answers it.
func notifyError(err error) error {
	var ne *notify.Error
	if !errors.As(err, &ne) {
		return err
	}
	return &apiError{http.StatusBadRequest, ne.Code, ne.Message}
}

func getBucketNotification(s *Server, w http.ResponseWriter, r *http.Request, c *call) error {
	cfg, err := s.svc.GetBucketNotification(r.Context(), c.id, c.Bucket)
	if err != nil {
		return err
	}
	out := *cfg
	out.NS = s3NS
	writeXML(w, http.StatusOK, out)
	return nil
}

func putBucketNotification(s *Server, w http.ResponseWriter, r *http.Request, c *call) error {
	doc, err := readBody(r, c)
	if err != nil {
		return err
	}
	if err := xmlShaped(doc); err != nil {
		return err
	}
	cfg, err := notify.Parse(doc)
	if err != nil {
		return notifyError(err)
	}
	if err := s.svc.PutBucketNotification(r.Context(), c.id, c.Bucket, cfg, c.reqID); err != nil {
		return notifyError(err)
	}
	w.WriteHeader(http.StatusOK)
	return nil
}
