package catalog

import (
	"context"
	"time"
)

// AccessLogRecord is one line of a bucket's server access log waiting to
// be delivered to its target bucket.
type AccessLogRecord struct {
	// ID is unique and sorts records by the time they were made (the
	// node that made one chooses it).
	ID     string
	Source string // the bucket whose request the line tells of
	Target string // the bucket the line is delivered to
	// KeyPrefix is the log object's key before its date: the target
	// prefix, and for partitioned keys the source's account, region and
	// bucket after it.
	KeyPrefix string
	// Partition is "" for simple keys, else the date partitioned keys
	// carry: "EventTime" (the record's) or "DeliveryTime".
	Partition string
	Time      time.Time
	Line      string
}

// AccessLogQueue is the catalog's part for server access logs: each node
// adds its records in batches and one node at a time delivers them.
type AccessLogQueue interface {
	// QueueAccessLogs adds records while the queue holds fewer than max
	// of them, and returns how many it dropped for want of room.
	QueueAccessLogs(ctx context.Context, recs []AccessLogRecord, max int) (dropped int, err error)
	// PendingAccessLogs returns up to limit records, oldest first.
	PendingAccessLogs(ctx context.Context, limit int) ([]AccessLogRecord, error)
	// AccessLogsDone removes delivered records.
	AccessLogsDone(ctx context.Context, ids []string) error
}
