package accesslog

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/jobs"
)

// Defaults of the bounds.
const (
	// DefaultBuffer bounds the records a node holds between flushes.
	DefaultBuffer = 100_000
	// DefaultQueue bounds the records waiting in the catalog for delivery.
	DefaultQueue = 1_000_000
	// flushBatch bounds the records of one catalog transaction.
	flushBatch = 1000
)

// Logger gathers one node's records. A request only appends to a slice
// under a mutex; the catalog sees the records in batches, off the
// requests' path, every flush interval.
type Logger struct {
	q        catalog.AccessLogQueue
	node     string
	max      int
	queueMax int

	mu      sync.Mutex
	buf     []Entry
	seq     uint64
	dropped int64 // since the last warning
}

// Options bound a Logger; zero values take the defaults.
type Options struct {
	Buffer int // records held in memory
	Queue  int // records waiting in the catalog
}

// New returns a logger queueing into q, under an id unique to this
// process, which keeps the records' ids apart from other nodes'.
func New(q catalog.AccessLogQueue, o Options) *Logger {
	host, _ := os.Hostname()
	var b [4]byte
	rand.Read(b[:])
	if o.Buffer <= 0 {
		o.Buffer = DefaultBuffer
	}
	if o.Queue <= 0 {
		o.Queue = DefaultQueue
	}
	return &Logger{q: q, node: host + "-" + hex.EncodeToString(b[:]), max: o.Buffer, queueMax: o.Queue}
}

// Record takes one request's record; past the buffer's bound it is
// dropped (and counted), never waited for.
func (l *Logger) Record(e Entry) {
	l.mu.Lock()
	if len(l.buf) < l.max {
		l.buf = append(l.buf, e)
	} else {
		l.dropped++
	}
	l.mu.Unlock()
}

// Flush queues what was recorded in the catalog. Records it could not
// write are kept for the next flush, within the buffer's bound.
func (l *Logger) Flush(ctx context.Context) error {
	l.mu.Lock()
	buf := l.buf
	l.buf = nil
	dropped := l.dropped
	l.dropped = 0
	first := l.seq
	l.seq += uint64(len(buf))
	l.mu.Unlock()
	if dropped > 0 {
		slog.Warn("access log records dropped: buffer full", "dropped", dropped)
	}
	recs := make([]catalog.AccessLogRecord, len(buf))
	for i := range buf {
		e := &buf[i]
		recs[i] = catalog.AccessLogRecord{
			// Time first, so that the queue's order is the records'.
			ID:     fmt.Sprintf("%019d-%s-%d", e.Time.UnixNano(), l.node, first+uint64(i)),
			Source: e.Source, Target: e.Target, KeyPrefix: e.KeyPrefix, Partition: e.Partition,
			Time: e.Time, Line: e.Line(),
		}
	}
	for i := 0; i < len(recs); i += flushBatch {
		batch := recs[i:min(i+flushBatch, len(recs))]
		n, err := l.q.QueueAccessLogs(ctx, batch, l.queueMax)
		if err != nil {
			l.keep(buf[i:])
			return fmt.Errorf("accesslog: queue records: %w", err)
		}
		if n > 0 {
			slog.Warn("access log records dropped: delivery queue full", "dropped", n)
		}
	}
	return nil
}

// keep puts back records a failed flush took, before any recorded since.
func (l *Logger) keep(es []Entry) {
	l.mu.Lock()
	all := append(es[:len(es):len(es)], l.buf...)
	if over := len(all) - l.max; over > 0 {
		all = all[over:]
		l.dropped += int64(over)
	}
	l.buf = all
	l.mu.Unlock()
}

// Run flushes every interval until ctx ends, and once more then, so a
// node stopped in order loses nothing.
func (l *Logger) Run(ctx context.Context, every time.Duration) {
	jobs.FlushEvery(ctx, every, "access log", l.Flush)
}
