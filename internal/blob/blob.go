// Package blob defines where Ostium keeps object bytes: immutable blobs named
// by fresh ids. A blob is written once, read by range and deleted once no
// catalog record refers to it; it is never overwritten.
//
// Drivers (fs, memory, and later s3) implement Store and must pass the
// conformance suite in blobtest.
package blob

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"io"
	"time"
)

// ErrNotFound is returned by Get for a blob that does not exist.
var ErrNotFound = errors.New("blob: not found")

// ErrExists is returned by Put when the id is already taken.
var ErrExists = errors.New("blob: already exists")

// ErrUnavailable wraps failures of a platform that cannot be reached or
// keeps refusing (after the driver's retries): the request may succeed
// later, and S3 clients should be told to retry.
var ErrUnavailable = errors.New("blob: platform unavailable")

// Info describes a stored blob during a walk.
type Info struct {
	ID      string
	Size    int64
	ModTime time.Time // last write; the sweeper spares young blobs
}

// Store is the blob driver contract.
type Store interface {
	// Put writes all of r to a new blob named id and returns the bytes
	// written. When it returns nil the bytes are on stable storage (fsync on
	// disk, acknowledged by a platform). On error nothing need be cleaned up
	// by the caller: a partial blob is never referenced and the sweeper
	// removes it. size is a hint (-1 if unknown).
	Put(ctx context.Context, id string, r io.Reader, size int64) (int64, error)
	// Get opens the length bytes at offset off (length < 0: to the end).
	// ErrNotFound if the blob does not exist.
	Get(ctx context.Context, id string, off, length int64) (io.ReadCloser, error)
	// Delete removes a blob. Deleting a missing blob is not an error.
	Delete(ctx context.Context, id string) error
	// Walk calls fn for every blob, in no particular order, until fn returns
	// an error, which Walk returns.
	Walk(ctx context.Context, fn func(Info) error) error
	Close() error
}

// MD5Reporter is a Store whose platform hashes what it stores and says
// so, sparing the caller a second MD5 of every byte (the ETag of a single
// PUT).
type MD5Reporter interface {
	// ReportsMD5 tells, before a Put of size bytes as id, whether PutMD5
	// will return the MD5.
	ReportsMD5(id string, size int64) bool
	// PutMD5 is Put that also returns the MD5 of what was stored.
	PutMD5(ctx context.Context, id string, r io.Reader, size int64) (int64, []byte, error)
}

// NewID returns a fresh blob id: 32 lower-case hex digits, the first 16 a
// big-endian nanosecond timestamp (so ids sort by creation time and spread
// evenly over directory fan-out by their random tail).
func NewID() string {
	var b [16]byte
	binary.BigEndian.PutUint64(b[:8], uint64(time.Now().UnixNano()))
	if _, err := rand.Read(b[8:]); err != nil {
		panic("blob: crypto/rand failed: " + err.Error())
	}
	return hex.EncodeToString(b[:])
}

// ValidID reports whether id is a driver's blob id: what NewID produces,
// perhaps under a namespace ("acme/" + NewID()), which drivers use to
// place a tenant's blobs apart (a platform bucket per tenant, a prefix, a
// directory). Drivers refuse other ids so that an id can never name a
// path outside the store.
func ValidID(id string) bool {
	ns, hex := SplitID(id)
	return validHex(hex) && (ns == "" && len(id) == len(hex) || ValidNamespace(ns))
}

// SplitID returns an id's namespace ("" if none) and its NewID part.
func SplitID(id string) (ns, hex string) {
	if i := len(id) - 33; i > 0 && id[i] == '/' {
		return id[:i], id[i+1:]
	}
	return "", id
}

// ValidNamespace reports whether ns may name a namespace: 1 to 40 of
// a-z, 0-9 and '-', not starting with '-' (a tenant's name qualifies, and
// fits in a bucket name with a prefix).
func ValidNamespace(ns string) bool {
	if len(ns) == 0 || len(ns) > 40 || ns[0] == '-' {
		return false
	}
	for i := 0; i < len(ns); i++ {
		c := ns[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

func validHex(id string) bool {
	if len(id) != 32 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}
