package s3

import (
	"context"
	"fmt"
	"testing"

	"github.com/ostiumio/ostium/internal/blob"
	"github.com/ostiumio/ostium/internal/metrics"
)

// Each 503 is counted under why it was sent, wrapped or not.
func TestUnavailableReason(t *testing.T) {
	for err, want := range map[error]string{
		&errSlowDown: metrics.ReasonSlowDown,
		fmt.Errorf("x: %w", &apiError{503, "SlowDown", "again"}): metrics.ReasonSlowDown,
		fmt.Errorf("get: %w", blob.ErrUnavailable):               metrics.ReasonUnavailable,
		fmt.Errorf("catalog: %w", context.DeadlineExceeded):      metrics.ReasonTimeout,
		&errUnavailable: metrics.ReasonTimeout, // transfer.outcome's answer to a stalled request
		&apiError{503, "ServiceUnavailable", "x"}: metrics.ReasonOther,
	} {
		if got := unavailableReason(err); got != want {
			t.Errorf("%v: reason %q, want %q", err, got, want)
		}
	}
}
