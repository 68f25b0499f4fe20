package catalogtest

import (
	"bytes"
	"testing"
	"time"

	"github.com/ostiumio/ostium/internal/catalog"
)

// Temporary credentials: stored whole (sealed secret, token hash, tags),
// an access key issued once, kept past expiry until pruned, and issuing
// one moves no node's caches.
func testTempCreds(t *testing.T, s catalog.Store) {
	ss, ok := s.(catalog.TempCreds)
	if !ok {
		t.Skipf("%T holds no sessions", s)
	}
	now := time.Now().UTC().Truncate(time.Microsecond)
	se := catalog.TempCred{AccessKey: "ASIAONE", SecretSealed: []byte{1, 0, 0xff}, TokenHash: bytes.Repeat([]byte{7}, 32),
		Tenant: "t1", User: "alice", Owner: "c1", RoleName: "r", SessionName: "s", Policy: `{"Version":"2012-10-17"}`,
		Tags: map[string]string{"team": "blue"}, Created: now, Expires: now.Add(-time.Minute)}
	before := generation(t, s)
	must(t, ss.PutTempCred(ctx, se))
	if after := generation(t, s); after != before {
		t.Errorf("issuing a session moved the identity generation %d -> %d", before, after)
	}
	wantErr(t, ss.PutTempCred(ctx, se), catalog.ErrAccessKeyExists)
	got, err := ss.GetTempCred(ctx, "ASIAONE")
	must(t, err)
	if !bytes.Equal(got.SecretSealed, se.SecretSealed) || !bytes.Equal(got.TokenHash, se.TokenHash) || got.Tenant != "t1" ||
		got.User != "alice" || got.Owner != "c1" || got.RoleName != "r" || got.SessionName != "s" || got.Policy != se.Policy ||
		got.Tags["team"] != "blue" || !got.Created.Equal(now) || !got.Expires.Equal(se.Expires) {
		t.Fatalf("GetTempCred = %+v, want %+v", got, se)
	}
	_, err = ss.GetTempCred(ctx, "ASIANONE")
	wantErr(t, err, catalog.ErrNoSuchTempCred)

	later := se
	later.AccessKey, later.Expires, later.Tags = "ASIATWO", now.Add(time.Hour), nil
	must(t, ss.PutTempCred(ctx, later))
	n, err := ss.DeleteExpiredTempCreds(ctx, now)
	must(t, err)
	if n != 1 {
		t.Fatalf("pruned %d sessions, want the expired one", n)
	}
	_, err = ss.GetTempCred(ctx, "ASIAONE")
	wantErr(t, err, catalog.ErrNoSuchTempCred)
	if got, err := ss.GetTempCred(ctx, "ASIATWO"); err != nil || got.Tags != nil {
		t.Fatalf("the live session: %+v %v", got, err)
	}
}
