// Package audit records who did what, to what, from where and how it
// ended: every admin API call and every change to a bucket's access
// settings, in the catalog's audit log, and prunes entries past their
// retention.
package audit

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/iam"
)

// DefaultRetention is how long entries are kept when the configuration
// does not say.
const DefaultRetention = 90 * 24 * time.Hour

// writeTimeout bounds how long a request waits for its entry to be
// stored: the entry is written after the change, so a slow catalog delays
// the response, never the change.
const writeTimeout = 5 * time.Second

// Log writes and prunes audit entries. A nil *Log records nothing.
type Log struct {
	store     catalog.AuditLog
	retention time.Duration
}

// New returns a Log over store keeping entries for retention
// (DefaultRetention when zero); nil when the catalog keeps no audit log.
func New(store catalog.Store, retention time.Duration) *Log {
	a, ok := store.(catalog.AuditLog)
	if !ok {
		return nil
	}
	if retention <= 0 {
		retention = DefaultRetention
	}
	return &Log{store: a, retention: retention}
}

// Store is the catalog's audit log.
func (l *Log) Store() catalog.AuditLog { return l.store }

// Record stores e, stamped now, with its caller taken from id (nil =
// anonymous; then the access key e names, if any, is the one claimed).
// It waits for the write, so that an entry is durable when the response
// goes out, but even when the client has gone; a failure is logged, not
// returned: the call it records already happened.
func (l *Log) Record(ctx context.Context, id *iam.Identity, e catalog.AuditEntry) {
	if l == nil {
		return
	}
	if e.Time.IsZero() {
		e.Time = time.Now().UTC()
	}
	if id != nil {
		e.AccessKey, e.Tenant, e.User, e.Root = id.AccessKey, id.Tenant, id.User, id.Root
		if id.Root {
			e.User = "root"
		}
	}
	if e.Source == "" {
		e.Source = iam.OriginOf(ctx).SourceIP
	}
	if e.Outcome == "" {
		e.Outcome = "ok"
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), writeTimeout)
	defer cancel()
	if _, err := l.store.AppendAudit(ctx, e); err != nil {
		slog.Error("audit entry not stored", "action", e.Action, "target", e.Target, "access_key", e.AccessKey, "outcome", e.Outcome, "err", err)
	}
}

// ClaimedKey is the access key r says it is signed with (Authorization
// header or presigned URL, V4 or V2), for recording a call that failed
// authentication; "" if none.
func ClaimedKey(r *http.Request) string {
	authz, q := r.Header.Get("Authorization"), r.URL.Query()
	cred := q.Get("X-Amz-Credential")
	if cred == "" {
		cred = q.Get("AWSAccessKeyId")
	}
	if i := strings.Index(authz, "Credential="); i >= 0 {
		cred = authz[i+len("Credential="):]
	} else if strings.HasPrefix(authz, "AWS ") { // Signature V2
		cred = strings.TrimPrefix(authz, "AWS ")
		if i := strings.LastIndexByte(cred, ':'); i >= 0 {
			cred = cred[:i]
		}
	}
	if i := strings.IndexAny(cred, "/, "); i >= 0 {
		cred = cred[:i]
	}
	if len(cred) > 128 {
		cred = cred[:128]
	}
	return cred
}

// pruneBatch bounds one pruning transaction.
const pruneBatch = 5000

// Prune deletes the entries older than the retention, a batch at a time.
func (l *Log) Prune(ctx context.Context) (int, error) {
	before := time.Now().Add(-l.retention)
	total := 0
	for {
		n, err := l.store.PruneAudit(ctx, before, pruneBatch)
		total += n
		if err != nil || n < pruneBatch {
			return total, err
		}
	}
}

// Run prunes every interval until ctx ends; one node runs it at a time
// (a leased job).
func (l *Log) Run(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		if n, err := l.Prune(ctx); err != nil && ctx.Err() == nil {
			slog.Warn("audit log pruning failed", "err", err)
		} else if n > 0 {
			slog.Info("audit log pruned", "entries", n, "retention", l.retention)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
