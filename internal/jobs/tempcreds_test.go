package jobs_test

import (
	"errors"
	"testing"
	"time"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/jobs"
)

// Expired temporary credentials are kept for the retention (so a late
// request is told its token expired), then deleted; live ones stay.
func TestTempCredPrunerKeepsExpiredForTheRetention(t *testing.T) {
	cat, _ := stores(t)
	creds := cat.(catalog.TempCreds)
	now := time.Now()
	for name, exp := range map[string]time.Time{"ASIAEXPIRED": now.Add(-time.Minute), "ASIALIVE": now.Add(time.Hour)} {
		if err := creds.PutTempCred(ctx, catalog.TempCred{AccessKey: name, SecretSealed: []byte{1}, TokenHash: make([]byte, 32),
			Tenant: "t", User: "u", Owner: "o", Created: now, Expires: exp}); err != nil {
			t.Fatal(err)
		}
	}
	p := jobs.TempCredPruner{Creds: creds, Retention: jobs.ExpiredTempCredRetention, Interval: time.Hour}
	for _, tc := range []struct {
		at   time.Time
		gone int
	}{
		{now, 0}, // expired a minute ago: kept
		{now.Add(jobs.ExpiredTempCredRetention - 2*time.Minute), 0},
		{now.Add(jobs.ExpiredTempCredRetention + time.Minute), 1},
		{now.Add(jobs.ExpiredTempCredRetention + 30*time.Minute), 0}, // the live one is not yet past its retention
	} {
		if n, err := p.RunOnce(ctx, tc.at); err != nil || n != tc.gone {
			t.Fatalf("at now+%v: deleted %d (%v), want %d", tc.at.Sub(now), n, err, tc.gone)
		}
	}
	if _, err := creds.GetTempCred(ctx, "ASIAEXPIRED"); !errors.Is(err, catalog.ErrNoSuchTempCred) {
		t.Fatalf("the expired credentials: %v", err)
	}
	if _, err := creds.GetTempCred(ctx, "ASIALIVE"); err != nil {
		t.Fatal(err)
	}
}
