package s3

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"time"

	"github.com/ostiumio/ostium/internal/blob"
	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/metrics"
	"github.com/ostiumio/ostium/internal/ratelimit"
	"github.com/ostiumio/ostium/internal/redact"
)

// OpNames names the operations by their Op, for metrics.Options.Ops.
func OpNames() []string { return opNames[:] }

// observe counts an answered request in the metrics and logs it: the one
// place, at the end of the chain, where both are taken. The request line
// names the request as sent, its credentials masked (redact.String).
func (s *Server) observe(r *http.Request, c *call, w *meteredWriter, start time.Time) {
	ctx := r.Context()
	status := w.status
	if status == 0 {
		status = http.StatusOK // nothing written: net/http sends 200
	}
	req := metrics.Request{Op: int(c.Op), Status: status, Out: w.n, Elapsed: time.Since(start)}
	if c.body != nil {
		req.In = c.body.n
	}
	if c.id != nil {
		req.Tenant = c.id.Tenant
	}
	if status == http.StatusServiceUnavailable {
		req.Reason = unavailableReason(c.err)
	}
	s.metrics.Done(&req)
	log := slog.Default()
	if !log.Enabled(ctx, s.logLevel) {
		return
	}
	attrs := []slog.Attr{
		slog.String("request_id", c.reqID), slog.String("tenant", req.Tenant),
		slog.String("op", c.Op.String()), slog.String("bucket", c.Bucket), slog.String("key", c.Key),
		slog.String("method", r.Method), slog.String("uri", redact.String(r.RequestURI)),
		slog.Int("status", status), slog.Int64("bytes_in", req.In), slog.Int64("bytes_out", req.Out),
		slog.Duration("dur", req.Elapsed),
	}
	if c.err != nil {
		attrs = append(attrs, slog.String("err", c.err.Error()))
	}
	log.LogAttrs(ctx, s.logLevel, "request", attrs...)
}

// unavailableReason says why a request was answered 503.
func unavailableReason(err error) string {
	var rf *ratelimit.Refusal
	switch {
	case errors.As(err, &rf):
		return metrics.ReasonRateLimited
	case errors.Is(err, &errSlowDown):
		return metrics.ReasonSlowDown
	// transfer.outcome answers a request stalled past the request
	// timeout with this very error.
	case err == &errUnavailable, errors.Is(err, context.DeadlineExceeded):
		return metrics.ReasonTimeout
	case errors.Is(err, blob.ErrUnavailable):
		return metrics.ReasonUnavailable
	case catalog.Unavailable(err):
		return metrics.ReasonCatalog
	}
	if toAPIError(err).Code == errSlowDown.Code {
		return metrics.ReasonSlowDown
	}
	return metrics.ReasonOther
}
