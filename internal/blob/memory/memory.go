// Package memory is the reference blob driver: blobs in a map. It defines
// by example what blobtest expects of every driver, and serves tests that
// need a blob store without a disk.
package memory

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/ostiumio/ostium/internal/blob"
)

var _ blob.Store = (*Store)(nil)

type entry struct {
	data    []byte
	modTime time.Time
}

// Store keeps blobs in memory.
type Store struct {
	mu    sync.RWMutex
	blobs map[string]entry
}

// New returns an empty store.
func New() *Store { return &Store{blobs: map[string]entry{}} }

// Put reads all of r before storing it, so a failed read stores nothing.
func (s *Store) Put(ctx context.Context, id string, r io.Reader, size int64) (int64, error) {
	if !blob.ValidID(id) {
		return 0, fmt.Errorf("memory: invalid blob id %q", id)
	}
	s.mu.RLock()
	_, taken := s.blobs[id]
	s.mu.RUnlock()
	if taken {
		return 0, blob.ErrExists
	}
	var buf bytes.Buffer
	if _, err := io.Copy(&buf, ctxReader{ctx, r}); err != nil {
		return 0, fmt.Errorf("memory: put %s: %w", id, err)
	}
	if size >= 0 && int64(buf.Len()) != size {
		return 0, fmt.Errorf("memory: put %s: read %d bytes, expected %d: %w", id, buf.Len(), size, io.ErrUnexpectedEOF)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, taken := s.blobs[id]; taken {
		return 0, blob.ErrExists
	}
	s.blobs[id] = entry{data: buf.Bytes(), modTime: time.Now()}
	return int64(buf.Len()), nil
}

// Get returns a copy-free reader over the stored bytes; blobs are never
// modified in place, so sharing the slice is safe.
func (s *Store) Get(ctx context.Context, id string, off, length int64) (io.ReadCloser, error) {
	s.mu.RLock()
	e, ok := s.blobs[id]
	s.mu.RUnlock()
	if !ok {
		return nil, blob.ErrNotFound
	}
	n := int64(len(e.data))
	off = min(max(off, 0), n)
	end := n
	if length >= 0 {
		end = min(off+length, n)
	}
	return io.NopCloser(bytes.NewReader(e.data[off:end])), nil
}

// Delete removes a blob; a missing one is not an error.
func (s *Store) Delete(ctx context.Context, id string) error {
	s.mu.Lock()
	delete(s.blobs, id)
	s.mu.Unlock()
	return nil
}

// Walk visits a snapshot of the store, so fn may delete blobs.
func (s *Store) Walk(ctx context.Context, fn func(blob.Info) error) error {
	s.mu.RLock()
	infos := make([]blob.Info, 0, len(s.blobs))
	for id, e := range s.blobs {
		infos = append(infos, blob.Info{ID: id, Size: int64(len(e.data)), ModTime: e.modTime})
	}
	s.mu.RUnlock()
	for _, in := range infos {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := fn(in); err != nil {
			return err
		}
	}
	return nil
}

// SetModTime ages a blob, for tests of the sweeper's grace period.
func (s *Store) SetModTime(id string, t time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e, ok := s.blobs[id]; ok {
		e.modTime = t
		s.blobs[id] = e
	}
}

// Close does nothing: there is nothing to release.
func (s *Store) Close() error { return nil }

// ctxReader stops a copy once ctx is done.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
