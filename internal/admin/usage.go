package admin

import (
	"context"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/iam"
)

// Usage is a tenant's metering over [From, To): one row per bucket and
// hour, and what the tenant stores now.
type Usage struct {
	Tenant string             `json:"tenant"`
	From   time.Time          `json:"from"`
	To     time.Time          `json:"to"`
	Now    catalog.Usage      `json:"stored_now"`
	Rows   []catalog.UsageRow `json:"rows"`
	// BucketsNow is each bucket's live totals, as Now is the tenant's:
	// the running totals quotas are enforced against, which the hourly
	// rows only sample (at most usageBucketsMax buckets, by name).
	BucketsNow map[string]catalog.Usage `json:"buckets_now"`
	// NowByClass splits Now by storage class (each row's
	// class_byte_hours splits its byte-hours alike).
	NowByClass map[string]catalog.Usage `json:"stored_now_by_class,omitempty"`
	// Rows of hours before ClosedUntil are final. The hour that starts
	// there is still counted and is final at Closes: its end, plus the
	// interval at which nodes add their counters to the catalog.
	ClosedUntil time.Time `json:"closed_until"`
	Closes      time.Time `json:"closes"`
}

// usageBucketsMax bounds the buckets whose live totals a report reads.
const usageBucketsMax = 1000

// DefaultMeterInterval is how often nodes add their usage counters to the
// catalog unless SetMeterInterval says otherwise.
const DefaultMeterInterval = 10 * time.Second

// SetMeterInterval tells the service how often nodes add their usage
// counters to the catalog, which is when an hour's figures are final.
func (s *Service) SetMeterInterval(d time.Duration) { s.meterEvery = d }

// openHour is the first hour whose figures are not final at now, and when
// they will be.
func openHour(now time.Time, every time.Duration) (hour, closes time.Time) {
	if every <= 0 {
		every = DefaultMeterInterval
	}
	hour = now.UTC().Truncate(time.Hour)
	if now.Before(hour.Add(every)) {
		hour = hour.Add(-time.Hour) // the last flush of the hour just ended may be to come
	}
	return hour, hour.Add(time.Hour + every)
}

// Usage reports a tenant's usage; from and to default to the last 24
// hours, and are rounded to whole hours.
//
// ProviderUsage names the provider's own usage: the buckets the root made,
// which belong to no tenant (and requests to buckets that no longer exist
// when they were counted). Only the root reads it.
func (s *Service) Usage(ctx context.Context, id *iam.Identity, tenant string, from, to time.Time) (Usage, error) {
	provider := tenant == ProviderUsage
	if provider {
		if err := allow(id, ""); err != nil {
			return Usage{}, err
		}
	} else if err := allow(id, tenant); err != nil {
		return Usage{}, err
	}
	var t catalog.Tenant
	if !provider {
		var err error
		if t, err = s.cat.GetTenant(ctx, tenant); err != nil {
			return Usage{}, apiErr(err)
		}
	}
	now := time.Now().UTC()
	if to.IsZero() {
		to = now.Add(time.Hour)
	}
	if from.IsZero() {
		from = to.Add(-25 * time.Hour)
	}
	from, to = from.UTC().Truncate(time.Hour), to.UTC().Truncate(time.Hour)
	if !from.Before(to) {
		return Usage{}, newErr(http.StatusBadRequest, "InvalidArgument", "from must be at least an hour before to")
	}
	// Usage is kept by tenant name, and a name may have served an earlier
	// tenant: a tenant's report starts with the hour it was created in,
	// so it never shows what an earlier tenant of its name did.
	if born := t.CreatedAt.UTC().Truncate(time.Hour); !provider && from.Before(born) {
		from = born
		to = later(to, from)
	}
	// The catalog keeps the provider's rows under the empty tenant.
	owner := tenant
	if provider {
		owner = ""
	}
	u := Usage{Tenant: tenant, From: from, To: to, Rows: []catalog.UsageRow{}}
	var err error
	if u.Rows, err = s.cat.UsageReport(ctx, owner, from, to); err != nil {
		return u, apiErr(err)
	}
	if u.Now, err = s.cat.TenantUsage(ctx, owner); err != nil {
		return u, apiErr(err)
	}
	if cl, ok := s.cat.(catalog.Classes); ok {
		if u.NowByClass, err = cl.TenantClassUsage(ctx, owner); err != nil {
			return u, apiErr(err)
		}
	}
	bs, err := s.cat.ListBuckets(ctx, catalog.BucketFilter{Tenant: tenant})
	if err != nil {
		return u, apiErr(err)
	}
	u.BucketsNow = make(map[string]catalog.Usage, min(len(bs), usageBucketsMax))
	for _, b := range bs[:min(len(bs), usageBucketsMax)] {
		if u.BucketsNow[b.Name], err = s.cat.BucketUsage(ctx, b.Name); err != nil {
			return u, apiErr(err)
		}
	}
	u.ClosedUntil, u.Closes = openHour(now, s.meterEvery)
	return u, nil
}

// ProviderUsage is the name under which Usage reports the provider's own
// buckets: it cannot be a tenant's (a tenant name starts with a letter or
// a digit), so no tenant's report is ever mistaken for it.
const ProviderUsage = "_provider"

func later(a, b time.Time) time.Time {
	if a.Before(b) {
		return b
	}
	return a
}

// usageCSV is the report as billing systems read it: a header, then one
// line per bucket and hour.
func usageCSV(u Usage) csvBody {
	out := csvBody{{"tenant", "bucket", "hour", "byte_hours", "objects", "get_requests", "put_requests",
		"list_requests", "delete_requests", "bytes_in", "bytes_out", "class_byte_hours"}}
	for _, r := range u.Rows {
		n := func(v int64) string { return strconv.FormatInt(v, 10) }
		out = append(out, []string{u.Tenant, r.Bucket, r.Hour.Format(time.RFC3339), n(r.ByteHours), n(r.Objects),
			n(r.Get), n(r.Put), n(r.List), n(r.Delete), n(r.BytesIn), n(r.BytesOut), classHours(r.ClassByteHours)})
	}
	return out
}

// csvBody is a response written as text/csv rather than JSON.
type csvBody [][]string

// parseTime reads a query time: RFC 3339 or Unix seconds; "" is zero.
func parseTime(name, v string) (time.Time, error) {
	if v == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.RFC3339, v); err == nil {
		return t, nil
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		return time.Unix(n, 0), nil
	}
	return time.Time{}, newErr(http.StatusBadRequest, "InvalidArgument", "%s: %q is neither RFC 3339 nor Unix seconds", name, v)
}

// classHours is a row's byte-hours by storage class as one CSV field,
// "STANDARD=10;STANDARD_IA=20" ("" when all are STANDARD), so that the
// columns before it keep their places.
func classHours(m map[string]int64) string {
	var parts []string
	for _, c := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, c+"="+strconv.FormatInt(m[c], 10))
	}
	return strings.Join(parts, ";")
}
