package s3

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/ostiumio/ostium/internal/kms"
)

// The key service's failures reach the client as AWS answers them: an
// outage is 503 ServiceUnavailable with Retry-After (the client retries,
// nothing was stored), a key the tenant does not have 400
// KMS.NotFoundException, however deep the error is wrapped.
func TestKMSErrorAnswers(t *testing.T) {
	for _, tc := range []struct {
		err    error
		status int
		code   string
	}{
		{kms.ErrUnavailable, 503, "ServiceUnavailable"},
		{kms.ErrNoSuchKey, 400, "KMS.NotFoundException"},
		{kms.ErrKeyDisabled, 400, "KMS.DisabledException"},
		{kms.ErrDestroyed, 400, "KMS.KMSInvalidStateException"},
	} {
		err := fmt.Errorf("objects: data key under k: %w", fmt.Errorf("kms: vault: %w", tc.err))
		w := httptest.NewRecorder()
		r := httptest.NewRequest(http.MethodPut, "/b/k", nil)
		writeError(w, r, Route{Op: OpPutObject, Bucket: "b", Key: "k"}, "req", err)
		if w.Code != tc.status || toAPIError(err).Code != tc.code {
			t.Errorf("%v: %d %s", tc.err, w.Code, toAPIError(err).Code)
		}
		if (w.Header().Get("Retry-After") != "") != (tc.status == 503) {
			t.Errorf("%v: Retry-After %q", tc.err, w.Header().Get("Retry-After"))
		}
	}
}
