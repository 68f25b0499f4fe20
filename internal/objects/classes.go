package objects

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/lifecycle"
	"github.com/ostiumio/ostium/internal/sse"
	"github.com/ostiumio/ostium/internal/storageclass"
)

// Storage classes are platforms: an object written with a class its
// tenant's map, the provider's or the node's gives a platform has its
// blobs written there (placement); any other class is stored where
// STANDARD is. Move sends a stored version's bytes to another class's
// platform (a lifecycle transition).

// TenantStorageClasses is a Tenants that knows a tenant's own map of
// classes to platforms (*iam.Keyring).
type TenantStorageClasses interface {
	TenantStorageClasses(ctx context.Context, tenant string) (string, error)
}

// ProviderStorageClasses is a Tenants that knows the provider-wide map
// set through the admin API (*iam.Keyring).
type ProviderStorageClasses interface {
	ProviderStorageClasses(ctx context.Context) (string, error)
}

// writableClass is the class a write records: STANDARD when none is
// asked; an archive class is refused, as nothing restores it.
func (s *Service) writableClass(class string) (string, error) {
	switch {
	case class == "":
		return storageclass.Standard, nil
	case storageclass.IsArchive(class):
		return "", ErrInvalidStorageClass
	}
	return class, nil
}

// classMaps are the maps that give classes platforms for a bucket of
// tenant, most specific first.
func (s *Service) classMaps(ctx context.Context, tenant string) ([]storageclass.Map, error) {
	var maps []storageclass.Map
	if tc, ok := s.tenants.(TenantStorageClasses); ok && tenant != "" {
		enc, err := tc.TenantStorageClasses(ctx, tenant)
		if err != nil {
			return nil, fmt.Errorf("objects: storage classes of %s: %w", tenant, err)
		}
		m, err := storageclass.Parse(enc)
		if err != nil {
			return nil, fmt.Errorf("objects: storage classes of %s: %w", tenant, err)
		}
		maps = append(maps, m)
	}
	if pc, ok := s.tenants.(ProviderStorageClasses); ok {
		enc, err := pc.ProviderStorageClasses(ctx)
		if err != nil {
			return nil, fmt.Errorf("objects: storage classes: %w", err)
		}
		m, err := storageclass.Parse(enc)
		if err != nil {
			return nil, fmt.Errorf("objects: storage classes: %w", err)
		}
		maps = append(maps, m)
	}
	return append(maps, s.classes), nil
}

// classPlatform is the platform of class for a bucket of tenant, and
// whether the class has one of its own.
func (s *Service) classPlatform(ctx context.Context, tenant, class string) (string, bool, error) {
	if class == "" || class == storageclass.Standard {
		return "", false, nil
	}
	maps, err := s.classMaps(ctx, tenant)
	if err != nil {
		return "", false, err
	}
	p, ok := storageclass.Resolve(class, maps...)
	return p, ok, nil
}

// ClassPlatform is the platform a class sends the blobs of bucket b's
// tenant to, and whether it has one of its own (else its objects are
// stored as STANDARD's are).
func (s *Service) ClassPlatform(ctx context.Context, b catalog.Bucket, class string) (string, bool, error) {
	return s.classPlatform(ctx, b.Tenant, class)
}

// moveHook, when a test sets it, runs between a move's copies and its
// switch (where a crash leaves the copies for the sweeper).
var moveHook func()

// ErrMoveChanged is a move whose version changed (or went) while its
// bytes were copied: nothing was switched, and the copies are deleted.
var ErrMoveChanged = errors.New("objects: the version changed during its move")

// Moved is what a move did.
type Moved struct {
	Bytes int64 // copied to the new platform (0 when nothing had to be)
	Blobs int
}

// Move sends version o of bucket b (as listed, with its parts) to class:
// every blob of it is copied, as stored (ciphertext stays ciphertext,
// bound to the identity it was sealed under), to the class's platform;
// then one catalog transaction switches the version to the copies, only
// if it is still as it was read, and queues the old blobs for the
// collector, which deletes them after its grace period, so a read that
// began before the switch finishes on them. A crash between the copy and
// the switch leaves the version on its old blobs and the copies
// unreferenced, for the sweeper. An object the class's platform would
// keep in its catalog row, or already on it, changes class without a
// copy. The version's lock and metadata are kept.
func (s *Service) Move(ctx context.Context, b catalog.Bucket, o catalog.Object, class string) (Moved, error) {
	var m Moved
	cl, ok := s.cat.(catalog.Classes)
	if !ok {
		return m, fmt.Errorf("objects: catalog %T keeps no storage classes", s.cat)
	}
	if o.DeleteMarker {
		return m, nil
	}
	if len(o.Parts) == 0 && o.Size > 0 && o.Inline == nil {
		// A listing leaves the bytes of inline objects out: read them.
		full, err := s.cat.GetObject(ctx, o.Bucket, o.Key, o.VersionID)
		if err != nil {
			return m, moveErr(err)
		}
		if !full.LastModified.Equal(o.LastModified) {
			return m, ErrMoveChanged
		}
		o = full
	}
	pl, err := s.placement(ctx, b, class)
	if err != nil {
		return m, err
	}
	var parts []catalog.Part
	switch {
	case len(o.Parts) == 0 && o.Size <= pl.inlineMax:
		// Kept in its row, there as well as anywhere.
	case len(o.Parts) == 0:
		// Out of its row onto the class's platform.
		p := catalog.Part{BlobID: s.newBlobID(pl, b), Size: o.Size, ETag: o.ETag, LastModified: o.LastModified}
		if o.Meta.Encryption != nil {
			p.Identity = inlineIdentity
		}
		if _, err := s.blobs.Put(ctx, p.BlobID, bytes.NewReader(o.Inline), int64(len(o.Inline))); err != nil {
			s.deleteBlobs(ctx, p.BlobID)
			return m, fmt.Errorf("objects: move %s/%s: %w", o.Bucket, o.Key, err)
		}
		m.Bytes, m.Blobs = int64(len(o.Inline)), 1
		parts = []catalog.Part{p}
	case onPlatform(o.Parts, pl.platform):
		// Already there (its bucket's platform is the class's).
	default:
		parts = make([]catalog.Part, 0, len(o.Parts))
		for _, p := range o.Parts {
			n, err := s.copyBlob(ctx, p, o.Meta.Encryption != nil, pl, b)
			if err != nil {
				s.deleteBlobs(ctx, blobIDs(parts)...)
				return m, fmt.Errorf("objects: move %s/%s: %w", o.Bucket, o.Key, err)
			}
			if p.Identity == "" && o.Meta.Encryption != nil {
				p.Identity = p.BlobID // what its bytes were sealed under
			}
			p.BlobID = n.id
			parts = append(parts, p)
			m.Bytes += n.bytes
			m.Blobs++
		}
	}
	if moveHook != nil {
		moveHook()
	}
	// The move's notification is queued with its switch, as an
	// expiration's is with its removal: only a move that happened tells.
	moved := o
	moved.StorageClass = class
	events, err := s.observe(ctx, Change{Name: EventTransition, Bucket: b, Object: moved})
	if err != nil {
		s.deleteBlobs(ctx, blobIDs(parts)...)
		return Moved{}, err
	}
	if err := cl.MoveVersion(ctx, o, parts, class, events...); err != nil {
		s.deleteBlobs(ctx, blobIDs(parts)...)
		return Moved{}, moveErr(err)
	}
	return m, nil
}

func moveErr(err error) error {
	if errors.Is(err, catalog.ErrPreconditionFailed) || errors.Is(err, catalog.ErrNoSuchObject) {
		return fmt.Errorf("%w: %w", ErrMoveChanged, err)
	}
	return fmt.Errorf("objects: move: %w", err)
}

type copied struct {
	id    string
	bytes int64
}

// copyBlob copies part p's blob as stored to a fresh blob where pl says.
func (s *Service) copyBlob(ctx context.Context, p catalog.Part, sealed bool, pl placement, b catalog.Bucket) (copied, error) {
	size := p.Size
	if sealed {
		size = sse.CiphertextSize(p.Size)
	}
	src, err := s.blobs.Get(ctx, p.BlobID, 0, -1)
	if err != nil {
		return copied{}, fmt.Errorf("open blob %s: %w", p.BlobID, err)
	}
	defer src.Close()
	id := s.newBlobID(pl, b)
	n, err := s.blobs.Put(ctx, id, src, size)
	if err == nil && n != size {
		err = fmt.Errorf("copied %d bytes of %d", n, size)
	}
	if err != nil {
		s.deleteBlobs(ctx, id)
		return copied{}, fmt.Errorf("copy blob %s: %w", p.BlobID, err)
	}
	return copied{id, n}, nil
}

// onPlatform tells whether every part is on platform.
func onPlatform(parts []catalog.Part, platform string) bool {
	for _, p := range parts {
		name, _, ok := cutPlatform(p.BlobID)
		if !ok || name != platform {
			return false
		}
	}
	return platform != ""
}

func cutPlatform(id string) (string, string, bool) {
	for i := 0; i < len(id); i++ {
		if id[i] == '/' {
			return id[:i], id[i+1:], true
		}
	}
	return "", id, false
}

func blobIDs(parts []catalog.Part) []string {
	out := make([]string, len(parts))
	for i, p := range parts {
		out[i] = p.BlobID
	}
	return out
}

// LifecycleMove moves version o of bucket b to class for a lifecycle
// transition (Move), and returns the bytes copied. A class with no
// platform of its own for the bucket (its map changed since the rule was
// set) is refused with lifecycle.ErrNoPlatform; a version changed or
// gone since it was listed with lifecycle.ErrChanged.
func (s *Service) LifecycleMove(ctx context.Context, b catalog.Bucket, o catalog.Object, class string) (int64, error) {
	if _, ok, err := s.classPlatform(ctx, b.Tenant, class); err != nil {
		return 0, err
	} else if !ok {
		return 0, fmt.Errorf("%w: %s", lifecycle.ErrNoPlatform, class)
	}
	m, err := s.Move(ctx, b, o, class)
	if errors.Is(err, ErrMoveChanged) {
		return 0, fmt.Errorf("%w: %w", lifecycle.ErrChanged, err)
	}
	return m.Bytes, err
}

// transitionsPlaced refuses a lifecycle configuration that transitions
// to a class with no platform of its own for bucket b: such a
// transition would move nothing.
func (s *Service) transitionsPlaced(ctx context.Context, b catalog.Bucket, c *lifecycle.Configuration) error {
	for _, class := range c.TransitionClasses() {
		_, ok, err := s.classPlatform(ctx, b.Tenant, class)
		if err != nil {
			return err
		}
		if !ok {
			return &lifecycle.Error{Code: "InvalidStorageClass", Message: "The storage class you specified is not valid: " + class + " has no platform of its own on this endpoint"}
		}
	}
	return nil
}
