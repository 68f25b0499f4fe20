// Package fs is the local-disk blob driver: one file per blob, fanned out
// over two levels of directories by the random tail of the id.
//
// A blob is written straight to its final name with O_EXCL: a partial file
// is harmless because no catalog record refers to it, and the sweeper
// removes it after a grace period. Put returns only once the file and its
// directory entry are on stable storage. Rather than two fsyncs per blob
// (file and directory), concurrent Puts share one syncfs(2): a journal
// commit makes all of them durable at once, which is what lets small
// durable writes scale with the number of clients.
package fs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sync"

	"github.com/ostiumio/ostium/internal/blob"
)

var _ blob.Store = (*Store)(nil)

// Store keeps blobs under a root directory.
type Store struct {
	root    string
	rootDir *os.File // held open for syncfs
	flusher *coalescer
	dirs    sync.Map // fan-out dirs known to exist
}

// Open returns a store rooted at dir, creating it if needed.
func Open(dir string) (*Store, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("fs: create root: %w", err)
	}
	// Blobs are tenants' data: a root others can enter is made 0700 (0700
	// closes everything beneath it), or the store refuses to open.
	if fi, err := os.Stat(dir); err != nil {
		return nil, fmt.Errorf("fs: root: %w", err)
	} else if fi.Mode().Perm()&0o077 != 0 {
		if err := os.Chmod(dir, 0o700); err != nil {
			return nil, fmt.Errorf("fs: root %s has mode %v, open to others, and cannot be made 0700: %w", dir, fi.Mode().Perm(), err)
		}
		slog.Warn("fs: others could enter the blob root; made it 0700", "path", dir, "was", fi.Mode().Perm().String())
	}
	f, err := os.Open(dir)
	if err != nil {
		return nil, fmt.Errorf("fs: open root: %w", err)
	}
	return &Store{root: dir, rootDir: f, flusher: newCoalescer(func() error { return flushFS(f) })}, nil
}

// dir is where id lives: under its namespace's directory, if any. The
// head of an id is a timestamp, so the fan-out comes from its random
// tail: directories fill evenly.
func (s *Store) dir(id string) string {
	ns, hex := blob.SplitID(id)
	return filepath.Join(s.root, ns, hex[30:32], hex[28:30])
}

func (s *Store) path(id string) (string, error) {
	if !blob.ValidID(id) {
		return "", fmt.Errorf("fs: invalid blob id %q", id)
	}
	_, hex := blob.SplitID(id)
	return filepath.Join(s.dir(id), hex), nil
}

var bufPool = sync.Pool{New: func() any { b := make([]byte, 1<<20); return &b }}

// Put writes r to a new file, then syncs the file and its directory.
func (s *Store) Put(ctx context.Context, id string, r io.Reader, size int64) (int64, error) {
	p, err := s.path(id)
	if err != nil {
		return 0, err
	}
	if err := s.ensureDir(s.dir(id)); err != nil {
		return 0, err
	}
	f, err := os.OpenFile(p, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return 0, blob.ErrExists
	}
	if err != nil {
		return 0, fmt.Errorf("fs: create blob: %w", err)
	}
	n, err := write(ctx, f, r, size)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = s.flusher.wait()
	}
	if err != nil {
		os.Remove(p)
		return n, fmt.Errorf("fs: put %s: %w", id, err)
	}
	return n, nil
}

func write(ctx context.Context, f *os.File, r io.Reader, size int64) (int64, error) {
	bp := bufPool.Get().(*[]byte)
	defer bufPool.Put(bp)
	buf := *bp
	if size >= 0 && size < int64(len(buf)) {
		buf = buf[:size+1] // one byte more than expected, to notice a longer body
	}
	var n int64
	for {
		if err := ctx.Err(); err != nil {
			return n, err
		}
		m, rerr := io.ReadFull(r, buf)
		if m > 0 {
			if _, err := f.Write(buf[:m]); err != nil {
				return n, err
			}
			n += int64(m)
		}
		if rerr == io.EOF || rerr == io.ErrUnexpectedEOF {
			break
		}
		if rerr != nil {
			return n, rerr
		}
	}
	if size >= 0 && n != size {
		return n, fmt.Errorf("read %d bytes, expected %d: %w", n, size, io.ErrUnexpectedEOF)
	}
	return n, nil
}

// ensureDir creates a fan-out directory on first use; the flush after the
// blob's write makes the new entries durable too.
func (s *Store) ensureDir(dir string) error {
	if _, ok := s.dirs.Load(dir); ok {
		return nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("fs: create %s: %w", dir, err)
	}
	s.dirs.Store(dir, struct{}{})
	return nil
}

// Get opens a range of a blob. An offset past the end gives an empty
// reader: callers resolve ranges against the catalog's size first.
func (s *Store) Get(ctx context.Context, id string, off, length int64) (io.ReadCloser, error) {
	p, err := s.path(id)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, blob.ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("fs: open blob: %w", err)
	}
	if off > 0 {
		if _, err := f.Seek(off, io.SeekStart); err != nil {
			f.Close()
			return nil, fmt.Errorf("fs: seek blob %s: %w", id, err)
		}
	}
	if length < 0 {
		length = 1<<63 - 1
	}
	return &reader{LimitedReader: io.LimitedReader{R: f, N: length}, f: f}, nil
}

// reader is a range of a file. WriteTo hands the *io.LimitedReader over
// *os.File to the destination, which is the shape net/http's TCP path
// recognises for sendfile: a large GET never passes through user space.
type reader struct {
	io.LimitedReader
	f *os.File
}

func (r *reader) WriteTo(w io.Writer) (int64, error) { return io.Copy(w, &r.LimitedReader) }
func (r *reader) Close() error                       { return r.f.Close() }

// Delete removes a blob. Its directory entry need not be synced: a blob
// that comes back after a crash is unreferenced and swept.
func (s *Store) Delete(ctx context.Context, id string) error {
	p, err := s.path(id)
	if err != nil {
		return err
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("fs: delete blob: %w", err)
	}
	return nil
}

// Walk visits every file whose name is a blob id.
func (s *Store) Walk(ctx context.Context, fn func(blob.Info) error) error {
	return filepath.WalkDir(s.root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil // removed while walking
			}
			return err
		}
		if cerr := ctx.Err(); cerr != nil {
			return cerr
		}
		if d.IsDir() || !blob.ValidID(d.Name()) {
			return nil
		}
		id := d.Name()
		// root/ns/xx/yy/id holds a namespaced blob, root/xx/yy/id another.
		if ns := filepath.Base(filepath.Dir(filepath.Dir(filepath.Dir(path)))); filepath.Dir(filepath.Dir(filepath.Dir(filepath.Dir(path)))) == filepath.Clean(s.root) {
			id = ns + "/" + id
		}
		info, err := d.Info()
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		return fn(blob.Info{ID: id, Size: info.Size(), ModTime: info.ModTime()})
	})
}

// Close releases the root directory; every Put has flushed what it wrote.
func (s *Store) Close() error { return s.rootDir.Close() }

// Check tells whether the root directory is still there.
func (s *Store) Check(ctx context.Context) error {
	if _, err := os.Stat(s.root); err != nil {
		return fmt.Errorf("fs: %w: %w", blob.ErrUnavailable, err)
	}
	return nil
}
