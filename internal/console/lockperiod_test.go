package console_test

import (
	"testing"

	"github.com/ostiumio/ostium/internal/node/nodetest"
)

// The console's object lock settings go through the object service and
// get S3's answers: a default retention of zero or fewer days or years
// is 400 InvalidRetentionPeriod, as AWS answers PutObjectLockConfiguration.
func TestLockPeriodAnswers(t *testing.T) {
	srv := nodetest.Start(t, nodetest.Options{})
	c := tenantAdmin(t, srv)
	c.Must(201, "POST", "/buckets", map[string]any{"name": "vault", "object_lock": true})
	for _, conf := range []map[string]any{
		{"enabled": true, "mode": "GOVERNANCE", "days": -1},
		{"enabled": true, "mode": "COMPLIANCE", "years": -2},
	} {
		if r := c.Do("PUT", "/buckets/vault/settings/object-lock", conf); r.Status != 400 || r.Code() != "InvalidRetentionPeriod" {
			t.Errorf("%v: %d %s, want 400 InvalidRetentionPeriod", conf, r.Status, r.Body)
		}
	}
	c.Must(200, "PUT", "/buckets/vault/settings/object-lock", map[string]any{"enabled": true, "mode": "GOVERNANCE", "days": 2})
}
