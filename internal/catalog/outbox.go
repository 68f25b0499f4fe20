package catalog

import (
	"context"
	"time"
)

// An Event is a change to an object for one consumer of the outbox (its
// Sink: replication, notifications), written in the same transaction as
// the change, so that nothing a client was told is done can be missed,
// and delivered at least once.
type Event struct {
	ID                     int64 // set by the catalog; a key's events increase in commit order
	Sink                   string
	Bucket, Key, VersionID string
	Name                   string // what happened, e.g. s3:ObjectCreated:Put
	Payload                []byte // the consumer's own encoding; it bounds the size
	CreatedAt              time.Time
	Attempts               int
	NotBefore              time.Time // due from then: retries back off
	LastError              string
}

// Outbox is the queue of events. A sink may name a consumer and one of
// its targets ("notification/arn:..."), so that a target that is down
// holds back only its own events.
type Outbox interface {
	// AddEvents queues events outside an object write (PutOptions.Events
	// and DeleteOptions.Events queue them with one).
	AddEvents(ctx context.Context, events []Event) error
	// DueEvents returns up to limit events of sink that are due, oldest
	// first, and of each key only its oldest event: a key's later events
	// wait while its first is retried, so each key's are delivered in
	// order.
	DueEvents(ctx context.Context, sink string, limit int) ([]Event, error)
	// AckEvents removes delivered (or abandoned) events.
	AckEvents(ctx context.Context, ids ...int64) error
	// RetryEvent counts a failed attempt and makes the event due again
	// at notBefore.
	RetryEvent(ctx context.Context, id int64, notBefore time.Time, lastErr string) error
	// Backlog counts the events of sink and tells the oldest one's time
	// (zero when none); bucket "" counts every bucket's.
	Backlog(ctx context.Context, sink, bucket string) (n int64, oldest time.Time, err error)
}
