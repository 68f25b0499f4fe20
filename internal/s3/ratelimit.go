package s3

import (
	"errors"
	"math"
	"net/http"
	"strconv"

	"github.com/ostiumio/ostium/internal/ratelimit"
)

// throttle holds a tenant's request to the rates its provider set for
// the tenant and for the bucket (their quotas), across the cluster:
// over the request rate it is refused with SlowDown, as AWS throttles;
// within it, its bytes are paced to the bandwidths. The provider's root
// and anonymous requests have the node's slot shares, not rates.
func (s *Server) throttle(w *meteredWriter, r *http.Request, c *call) error {
	if s.rates == nil || c.id == nil || c.id.Tenant == "" {
		return nil
	}
	qs, err := s.keys.Quotas(r.Context(), c.id.Tenant)
	if err != nil {
		return err
	}
	scopes := map[string]ratelimit.Limits{}
	for _, q := range qs {
		lim := ratelimit.Limits{Requests: q.RequestsPerSec, BytesIn: q.BytesInPerSec, BytesOut: q.BytesOutPerSec}
		switch {
		case q.Bucket == "":
			scopes[ratelimit.TenantScope(c.id.Tenant)] = lim
		case q.Bucket == c.Bucket:
			scopes[ratelimit.BucketScope(c.Bucket)] = lim
		}
	}
	flow, err := s.rates.Admit(scopes)
	if err != nil {
		return err
	}
	ctx := r.Context()
	if flow.Paced(true) && c.body != nil {
		c.body.pace = func(n int) error { return flow.Wait(ctx, true, n) }
	}
	if flow.Paced(false) {
		w.pace = func(n int) error { return flow.Wait(ctx, false, n) }
	}
	return nil
}

// refusalRetry is the Retry-After of a request over its rate, in whole
// seconds, if err is one.
func refusalRetry(err error) (string, bool) {
	var rf *ratelimit.Refusal
	if !errors.As(err, &rf) {
		return "", false
	}
	return strconv.Itoa(max(1, int(math.Ceil(rf.RetryAfter.Seconds())))), true
}
