package catalog

import (
	"context"
	"time"
)

// Traffic counts requests by billing class and bytes moved.
type Traffic struct {
	Get      int64 `json:"get"` // GET and HEAD
	Put      int64 `json:"put"` // PUT, COPY, POST
	List     int64 `json:"list"`
	Delete   int64 `json:"delete"`
	BytesIn  int64 `json:"bytes_in"`
	BytesOut int64 `json:"bytes_out"`
}

// Add adds o to t.
func (t *Traffic) Add(o Traffic) {
	t.Get += o.Get
	t.Put += o.Put
	t.List += o.List
	t.Delete += o.Delete
	t.BytesIn += o.BytesIn
	t.BytesOut += o.BytesOut
}

// MeterKey names one metering row: a tenant's bucket in one hour (Hour
// truncated to the hour, UTC).
type MeterKey struct {
	Tenant, Bucket string
	Hour           time.Time
}

// UsageRow is one bucket-hour of a usage report.
type UsageRow struct {
	Bucket string    `json:"bucket"`
	Hour   time.Time `json:"hour"`
	// ByteHours is the stored bytes sampled in that hour times one hour;
	// Objects the object count of the same sample.
	ByteHours int64 `json:"byte_hours"`
	Objects   int64 `json:"objects"`
	// ClassByteHours splits ByteHours by storage class, when any of the
	// bucket's bytes are of a class other than STANDARD (nil: all are).
	ClassByteHours map[string]int64 `json:"class_byte_hours,omitempty"`
	Traffic
}

// Metering is the catalog's part for usage metering.
type Metering interface {
	// AddTraffic adds counters to this node's rows.
	AddTraffic(ctx context.Context, node string, counts map[MeterKey]Traffic) error
	// SampleStorage records every bucket's totals for hour, unless some
	// node already has.
	SampleStorage(ctx context.Context, hour time.Time) error
	// UsageReport returns a tenant's rows with from <= hour < to, by
	// bucket and hour.
	UsageReport(ctx context.Context, tenant string, from, to time.Time) ([]UsageRow, error)
}
