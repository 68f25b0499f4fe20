package admin

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strconv"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/iam"
)

// AuditPage is one page of the audit log; Next, when not zero, is the
// after= of the next page.
type AuditPage struct {
	Entries []catalog.AuditEntry `json:"entries"`
	Next    int64                `json:"next,omitempty"`
}

// Page sizes of the audit listing: by default, at most, and per catalog
// read while exporting.
const (
	auditPageDefault = 100
	auditPageMax     = 1000
)

// auditScope checks who may read which entries: the root every entry (of
// one tenant's callers, if q names one), a tenant admin those of its own
// tenant's callers only.
func (s *Service) auditScope(id *iam.Identity, q catalog.AuditQuery) (catalog.AuditQuery, error) {
	if s.audit == nil {
		return q, newErr(http.StatusNotImplemented, "NotImplemented", "This node keeps no audit log")
	}
	if id != nil && !id.Root && q.Tenant == "" {
		q.Tenant = id.Tenant
	}
	if q.Tenant == "" {
		return q, allow(id, "")
	}
	return q, allow(id, q.Tenant)
}

// Audit returns a page of the audit log, oldest first.
func (s *Service) Audit(ctx context.Context, id *iam.Identity, q catalog.AuditQuery) (AuditPage, error) {
	q, err := s.auditScope(id, q)
	if err != nil {
		return AuditPage{}, err
	}
	if q.Limit <= 0 {
		q.Limit = auditPageDefault
	}
	q.Limit = min(q.Limit, auditPageMax)
	es, err := s.audit.Store().ListAudit(ctx, q)
	if err != nil {
		return AuditPage{}, apiErr(err)
	}
	page := AuditPage{Entries: es}
	if page.Entries == nil {
		page.Entries = []catalog.AuditEntry{}
	}
	if len(es) == q.Limit {
		page.Next = es[len(es)-1].ID
	}
	return page, nil
}

// ExportAudit writes the entries q selects as JSON lines, a page of the
// catalog at a time, so that an export of any size holds one page in
// memory. q.Limit bounds the lines (0 = all).
func (s *Service) ExportAudit(ctx context.Context, id *iam.Identity, q catalog.AuditQuery) (streamBody, error) {
	q, err := s.auditScope(id, q)
	if err != nil {
		return nil, err
	}
	total := q.Limit
	return func(w io.Writer, flush func()) error {
		enc := json.NewEncoder(w)
		for n := 0; total <= 0 || n < total; {
			q.Limit = auditPageMax
			if total > 0 {
				q.Limit = min(auditPageMax, total-n)
			}
			es, err := s.audit.Store().ListAudit(ctx, q)
			if err != nil {
				return err
			}
			for _, e := range es {
				if err := enc.Encode(e); err != nil {
					return err
				}
			}
			flush()
			n += len(es)
			if len(es) < q.Limit {
				return nil
			}
			q.After = es[len(es)-1].ID
		}
		return nil
	}, nil
}

// streamBody is a response written as it is produced (JSON lines); flush
// sends what was written so far.
type streamBody func(w io.Writer, flush func()) error

func auditQuery(r *http.Request) (catalog.AuditQuery, error) {
	v := r.URL.Query()
	from, err := parseTime("from", v.Get("from"))
	if err != nil {
		return catalog.AuditQuery{}, err
	}
	to, err := parseTime("to", v.Get("to"))
	if err != nil {
		return catalog.AuditQuery{}, err
	}
	q := catalog.AuditQuery{From: from, To: to, Tenant: v.Get("tenant")}
	for name, dst := range map[string]*int64{"after": &q.After, "limit": nil} {
		s := v.Get(name)
		if s == "" {
			continue
		}
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n < 0 {
			return q, newErr(http.StatusBadRequest, "InvalidArgument", "%s is a whole number, not %q", name, s)
		}
		if dst != nil {
			*dst = n
		} else {
			q.Limit = int(min(n, 1<<31-1))
		}
	}
	return q, nil
}
