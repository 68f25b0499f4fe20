package sqldb

import (
	"context"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/ostiumio/ostium/internal/catalog"
)

// storedPart is a Part as kept in an object row's JSON.
type storedPart struct {
	Number    int               `json:"n"`
	BlobID    string            `json:"b"`
	Size      int64             `json:"s"`
	ETag      string            `json:"e,omitempty"`
	Modified  int64             `json:"t,omitempty"`
	Checksums map[string]string `json:"c,omitempty"`
	Identity  string            `json:"i,omitempty"`
}

// encodeParts gives an object row's parts column: nothing for a version
// without blobs (kept inline, or empty), which "[]" was before.
func encodeParts(ps []catalog.Part) (string, error) {
	if len(ps) == 0 {
		return "", nil
	}
	out := make([]storedPart, len(ps))
	for i, p := range ps {
		out[i] = storedPart{p.Number, p.BlobID, p.Size, p.ETag, nanos(p.LastModified), p.Checksums, p.Identity}
	}
	b, err := json.Marshal(out)
	return string(b), err
}

func decodeParts(s string) ([]catalog.Part, error) {
	if s == "" {
		return nil, nil
	}
	var in []storedPart
	if err := json.Unmarshal([]byte(s), &in); err != nil {
		return nil, fmt.Errorf("sqldb: decode parts: %w", err)
	}
	if len(in) == 0 {
		return nil, nil
	}
	out := make([]catalog.Part, len(in))
	for i, p := range in {
		out[i] = catalog.Part{Number: p.Number, BlobID: p.BlobID, Size: p.Size, ETag: p.ETag, LastModified: fromNanos(p.Modified), Checksums: p.Checksums, Identity: p.Identity}
	}
	return out, nil
}

// defaultContentType is what a PUT without a Content-Type stores, and
// what most SDKs send for bytes of no known type.
const defaultContentType = "application/octet-stream"

// encodeMeta gives an object row's meta column. Most versions carry a
// content type and nothing else, which as JSON cost 34 bytes a row for
// application/octet-stream (bench/results/2026-11-27-10m-objects-3.md):
// such a row keeps the content type alone, or nothing for
// application/octet-stream. JSON always starts with '{', so a content
// type that does too is kept as JSON; decodeMeta tells them apart.
func encodeMeta(m catalog.Meta) (string, error) {
	if only := (catalog.Meta{ContentType: m.ContentType}); m.ContentType != "" && m.ContentType[0] != '{' && reflect.DeepEqual(m, only) {
		if m.ContentType == defaultContentType {
			return "", nil
		}
		return m.ContentType, nil
	}
	b, err := json.Marshal(m)
	if err != nil {
		return "", fmt.Errorf("sqldb: encode meta: %w", err)
	}
	return string(b), nil
}

func decodeMeta(b []byte, m *catalog.Meta) error {
	switch {
	case len(b) == 0:
		*m = catalog.Meta{ContentType: defaultContentType}
	case b[0] != '{':
		*m = catalog.Meta{ContentType: string(b)}
	default:
		if err := json.Unmarshal(b, m); err != nil {
			return fmt.Errorf("sqldb: decode meta: %w", err)
		}
	}
	return nil
}

// storedETag gives an object row's etag column. An ETag is nearly always
// a quoted MD5, 34 characters for 16 bytes, or a multipart upload's
// quoted MD5 and part count: a row keeps those as a tag byte (0 and 1,
// which no ETag starts with) and the MD5's bytes (and the count), 17 of
// the row's bytes fewer; any other ETag as it is. readETag is its
// inverse.
func storedETag(etag string) []byte {
	n := len(etag)
	if n < 34 || etag[0] != '"' || etag[n-1] != '"' || !lowerHex(etag[1:33]) {
		return []byte(etag)
	}
	md5 := make([]byte, 17, 17+n-34)
	hex.Decode(md5[1:], []byte(etag[1:33])) // lowerHex: cannot fail
	switch count := etag[33 : n-1]; {
	case count == "":
		return md5
	case count[0] == '-' && len(count) > 1 && strings.Trim(count[1:], "0123456789") == "":
		md5[0] = 1
		return append(md5, count[1:]...)
	}
	return []byte(etag)
}

func lowerHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

func readETag(b []byte) string {
	if len(b) < 17 || b[0] > 1 || b[0] == 0 && len(b) != 17 || b[0] == 1 && len(b) == 17 {
		return string(b)
	}
	out := make([]byte, 0, 36+len(b)-17)
	out = hex.AppendEncode(append(out, '"'), b[1:17])
	if b[0] == 1 {
		out = append(append(out, '-'), b[17:]...)
	}
	return string(append(out, '"'))
}

// objectCols are the columns a write of a version gives, in the order of
// its values (putObject's row).
const objectCols = `key, version_id, latest, delete_marker, size, etag, modified, owner, storage_class, meta, lock_mode, retain_until, legal_hold`

// objectSelect reads objectCols, the owner as storedOwner keeps it. Its one
// parameter is the bucket (readArgs): a subquery that does not depend on
// the row, which both engines run once for the whole statement, not once
// for each of a list page's rows.
const objectSelect = `key, version_id, latest, delete_marker, size, etag, modified,
	CASE owner WHEN '' THEN (SELECT b.owner FROM buckets b WHERE b.name = ?) WHEN '-' THEN '' ELSE owner END,
	storage_class, meta, lock_mode, retain_until, legal_hold`

// readArgs puts the bucket, objectSelect's parameter, before args.
func readArgs(bucket string, args ...any) []any {
	return append([]any{[]byte(bucket)}, args...)
}

// A version's owner is nearly always its bucket's owner, and the owner is
// a 64-character canonical id: 65 bytes in every row, a fifth of a row
// (bench/results/2026-11-27-10m-objects.md). A row keeps the empty string
// for its bucket's owner (a bucket's owner never changes) and '-' for an
// owner that really is empty; objectSelect reads them back.
func storedOwner(owner, bucketOwner string) string {
	switch owner {
	case "":
		return "-"
	case bucketOwner:
		return ""
	}
	return owner
}

// storedClass keeps the default class, STANDARD, as the empty string (and
// an empty class as '-'); readClass is its inverse.
func storedClass(class string) string {
	switch class {
	case "STANDARD":
		return ""
	case "":
		return "-"
	}
	return class
}

func readClass(stored string) string {
	switch stored {
	case "":
		return "STANDARD"
	case "-":
		return ""
	}
	return stored
}

// scanObject reads objectSelect (and parts, when withParts) from a row.
func scanObject(sc interface{ Scan(...any) error }, bucket string, withParts bool) (catalog.Object, error) {
	o := catalog.Object{Bucket: bucket}
	var key []byte
	var latest, dm int
	var modified int64
	var meta, parts string
	lock := lockColumns{}
	var etag []byte
	dest := []any{&key, &o.VersionID, &latest, &dm, &o.Size, &etag, &modified, &o.Owner, &o.StorageClass, &meta, &lock.mode, &lock.until, &lock.hold}
	if withParts {
		dest = append(dest, &parts, &o.Inline)
	}
	if err := sc.Scan(dest...); err != nil {
		return o, err
	}
	o.Key, o.ETag, o.IsLatest, o.DeleteMarker, o.LastModified = string(key), readETag(etag), latest == 1, dm == 1, fromNanos(modified)
	o.StorageClass = readClass(o.StorageClass)
	o.Lock = lock.lock()
	if err := decodeMeta([]byte(meta), &o.Meta); err != nil {
		return o, err
	}
	if withParts {
		var err error
		if o.Parts, err = decodeParts(parts); err != nil {
			return o, err
		}
	}
	return o, nil
}

// versionQuery selects one version whole, or the latest when versionID is
// empty.
func versionQuery(bucket, key, versionID string) (string, []any) {
	const q = `SELECT ` + objectSelect + `, parts, inline FROM objects WHERE bucket = ? AND key = ? AND `
	if versionID == "" {
		return q + `latest = 1`, readArgs(bucket, []byte(bucket), []byte(key))
	}
	return q + `version_id = ?`, readArgs(bucket, []byte(bucket), []byte(key), versionID)
}

func (s *Store) GetObject(ctx context.Context, bucket, key, versionID string) (catalog.Object, error) {
	q, args := versionQuery(bucket, key, versionID)
	o, err := scanObject(s.row(ctx, nil, s.q(q), args...), bucket, true)
	if errors.Is(err, sql.ErrNoRows) {
		return o, catalog.ErrNoSuchObject
	}
	if err != nil {
		return o, fmt.Errorf("sqldb: get object: %w", err)
	}
	return o, nil
}

func (s *Store) PutObject(ctx context.Context, o catalog.Object, opt catalog.PutOptions) error {
	return s.w.Write(ctx, func(tx *sql.Tx) error { return s.putObject(ctx, tx, o, opt) })
}

// putObject makes o the latest version of its key, replacing a version with
// the same id (and queueing that version's blobs) and leaving the others.
func (s *Store) putObject(ctx context.Context, tx *sql.Tx, o catalog.Object, opt catalog.PutOptions) error {
	bucketOwner, err := s.lockForWrite(ctx, tx, o.Bucket, o.Key)
	if err != nil {
		return err
	}
	if opt.IfNoneMatch || opt.IfMatch != "" || len(opt.IfNoneMatchETags) > 0 || opt.IfLatest != nil {
		cur, err := s.current(ctx, tx, o.Bucket, o.Key)
		if err != nil {
			return err
		}
		exists := cur != nil && !cur.DeleteMarker
		if opt.IfMatch != "" && !exists {
			return fmt.Errorf("sqldb: no current version to match: %w", catalog.ErrNoSuchObject)
		}
		if opt.IfNoneMatch && exists || opt.IfMatch != "" && cur.ETag != opt.IfMatch ||
			exists && slices.Contains(opt.IfNoneMatchETags, cur.ETag) ||
			opt.IfLatest != nil && !catalog.SameVersion(cur, opt.IfLatest) {
			return catalog.ErrPreconditionFailed
		}
	}
	replaced, err := s.removeVersion(ctx, tx, o.Bucket, o.Key, o.VersionID, catalog.DeleteOptions{})
	isNew := errors.Is(err, catalog.ErrNoSuchObject)
	if err != nil && !isNew {
		return err
	}
	// A write that does not grow usage passes even over a quota, so that
	// a tenant over its quota can still shrink.
	check := !o.DeleteMarker && (isNew || o.Size > replaced.Size)
	meta, err := encodeMeta(o.Meta)
	if err != nil {
		return err
	}
	parts, err := encodeParts(o.Parts)
	if err != nil {
		return fmt.Errorf("sqldb: encode parts: %w", err)
	}
	dm := 0
	if o.DeleteMarker {
		dm = 1
	}
	// seq orders a key's versions by commit: the key is locked, so the
	// next number is exact where the clocks of nodes are not. The latest
	// version has the key's highest seq (removeVersion promotes the
	// highest), so the next is the latest's plus one, one search of
	// objects_latest however many versions the key has.
	lock := toLockColumns(o.Lock)
	row := []any{[]byte(o.Bucket), []byte(o.Key), o.VersionID, dm, o.Size, storedETag(o.ETag), nanos(o.LastModified),
		storedOwner(o.Owner, bucketOwner), storedClass(o.StorageClass), meta,
		lock.mode, lock.until, lock.hold, parts, o.Inline}
	if s.d.WritableCTE {
		if err := s.putVersionShort(ctx, tx, o, row, check, opt.Limits); err != nil {
			return err
		}
	} else {
		var seq int64
		if err := s.row(ctx, tx, s.q(nextSeq), []byte(o.Bucket), []byte(o.Key)).Scan(&seq); err != nil {
			return fmt.Errorf("sqldb: put object: next seq: %w", err)
		}
		if _, err := s.exec(ctx, tx, s.q(`UPDATE objects SET latest = 0 WHERE bucket = ? AND key = ? AND latest = 1`), []byte(o.Bucket), []byte(o.Key)); err != nil {
			return fmt.Errorf("sqldb: put object: %w", err)
		}
		if err := s.count(ctx, tx, o, 1); err != nil {
			return err
		}
		if check {
			if err := s.withinLimits(ctx, tx, o.Bucket, opt.Limits); err != nil {
				return err
			}
		}
		_, err = s.exec(ctx, tx, s.q(`INSERT INTO objects (bucket, `+objectCols+`, parts, inline, seq) VALUES (?, ?, ?, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
			append(row, seq)...)
		if err != nil {
			return fmt.Errorf("sqldb: put object: %w", err)
		}
	}
	for _, p := range o.Parts {
		_, err := s.exec(ctx, tx, s.q(`INSERT INTO object_blobs (blob_id, bucket, key, version_id) VALUES (?, ?, ?, ?)`),
			p.BlobID, []byte(o.Bucket), []byte(o.Key), o.VersionID)
		if err != nil {
			return fmt.Errorf("sqldb: record blob %s: %w", p.BlobID, err)
		}
	}
	return s.addEvents(ctx, tx, opt.Events, &o)
}

// nextSeq is the seq of a key's next version, read before the latest is
// demoted: its arguments are the bucket and the key.
const nextSeq = `SELECT COALESCE(MAX(seq), 0) + 1 FROM objects WHERE bucket = ? AND key = ? AND latest = 1`

// current returns the latest version of a key, or nil.
func (s *Store) current(ctx context.Context, tx *sql.Tx, bucket, key string) (*catalog.Object, error) {
	o, err := scanObject(s.row(ctx, tx, s.q(`SELECT `+objectSelect+` FROM objects WHERE bucket = ? AND key = ? AND latest = 1`),
		readArgs(bucket, []byte(bucket), []byte(key))...), bucket, false)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("sqldb: read current version: %w", err)
	}
	return &o, nil
}

// removeVersion deletes one version, queues its blobs and, if it was the
// latest, promotes the newest remaining version (by seq: commit order).
// Every removal passes here, so here a locked version is refused
// (ErrObjectLocked).
func (s *Store) removeVersion(ctx context.Context, tx *sql.Tx, bucket, key, versionID string, opt catalog.DeleteOptions) (catalog.Object, error) {
	q, args := versionQuery(bucket, key, versionID)
	o, err := scanObject(s.row(ctx, tx, s.q(q), args...), bucket, true)
	if errors.Is(err, sql.ErrNoRows) {
		return o, catalog.ErrNoSuchObject
	}
	if err != nil {
		return o, fmt.Errorf("sqldb: read version: %w", err)
	}
	if opt.IfLatest != nil && !catalog.SameVersion(&o, opt.IfLatest) {
		return o, catalog.ErrPreconditionFailed
	}
	if err := mayRemove(o, opt); err != nil {
		return o, err
	}
	if _, err := s.exec(ctx, tx, s.q(`DELETE FROM objects WHERE bucket = ? AND key = ? AND version_id = ?`), []byte(bucket), []byte(key), o.VersionID); err != nil {
		return o, fmt.Errorf("sqldb: delete version: %w", err)
	}
	ids := make([]string, len(o.Parts))
	for i, p := range o.Parts {
		ids[i] = p.BlobID
		if _, err := s.exec(ctx, tx, s.q(`DELETE FROM object_blobs WHERE blob_id = ?`), p.BlobID); err != nil {
			return o, fmt.Errorf("sqldb: forget blob: %w", err)
		}
	}
	if err := s.enqueue(ctx, tx, ids); err != nil {
		return o, err
	}
	if err := s.count(ctx, tx, o, -1); err != nil {
		return o, err
	}
	if o.IsLatest {
		_, err := s.exec(ctx, tx, s.q(`UPDATE objects SET latest = 1 WHERE bucket = ? AND key = ? AND version_id = (
			SELECT version_id FROM objects WHERE bucket = ? AND key = ? ORDER BY seq DESC LIMIT 1)`),
			[]byte(bucket), []byte(key), []byte(bucket), []byte(key))
		if err != nil {
			return o, fmt.Errorf("sqldb: promote version: %w", err)
		}
	}
	return o, nil
}

func (s *Store) DeleteObject(ctx context.Context, bucket, key, versionID string, opt catalog.DeleteOptions) (catalog.Object, error) {
	var removed catalog.Object
	err := s.w.Write(ctx, func(tx *sql.Tx) error {
		if err := s.lockKey(ctx, tx, bucket, key); err != nil {
			return fmt.Errorf("sqldb: lock key: %w", err)
		}
		var err error
		if removed, err = s.removeVersion(ctx, tx, bucket, key, versionID, opt); err != nil {
			return err
		}
		return s.addEvents(ctx, tx, opt.Events, &removed)
	})
	return removed, err
}

func (s *Store) SetObjectACL(ctx context.Context, bucket, key, versionID, acl string, opt catalog.ChangeOptions) error {
	return wrap("set object acl", s.updateMeta(ctx, bucket, key, versionID, opt, func(m *catalog.Meta) { m.ACL = acl }))
}

// updateMeta changes the meta of one version (versionID "" = the
// current) with the key held, so that it never races a write of the
// key: ErrNoSuchObject for an absent version or a delete marker. opt's
// events are queued and its status set in the same transaction.
func (s *Store) updateMeta(ctx context.Context, bucket, key, versionID string, opt catalog.ChangeOptions, change func(*catalog.Meta)) error {
	return s.w.Write(ctx, func(tx *sql.Tx) error {
		if err := s.lockKey(ctx, tx, bucket, key); err != nil {
			return err
		}
		return s.updateMetaTx(ctx, tx, bucket, key, versionID, opt, change)
	})
}

// updateMetaTx is updateMeta within tx, which holds the key.
func (s *Store) updateMetaTx(ctx context.Context, tx *sql.Tx, bucket, key, versionID string, opt catalog.ChangeOptions, change func(*catalog.Meta)) error {
	q, args := versionQuery(bucket, key, versionID)
	o, err := scanObject(s.row(ctx, tx, s.q(q), args...), bucket, true)
	if errors.Is(err, sql.ErrNoRows) || err == nil && o.DeleteMarker {
		return catalog.ErrNoSuchObject
	}
	if err != nil {
		return err
	}
	change(&o.Meta)
	if opt.Replication != "" {
		o.Meta.Replication = opt.Replication
	}
	meta, err := encodeMeta(o.Meta)
	if err != nil {
		return err
	}
	_, err = s.exec(ctx, tx, s.q(`UPDATE objects SET meta = ? WHERE bucket = ? AND key = ? AND version_id = ?`),
		meta, []byte(bucket), []byte(key), o.VersionID)
	if err != nil {
		return err
	}
	return s.addEvents(ctx, tx, opt.Events, &o)
}

func (s *Store) ListObjects(ctx context.Context, bucket string, q catalog.ListQuery) ([]catalog.Object, error) {
	cond, args := keyRange("key", q.Prefix, q.Start, q.Inclusive, []any{[]byte(bucket)})
	args = append(args, limit(q.Limit))
	return s.listObjects(ctx, bucket, `SELECT `+objectSelect+` FROM objects WHERE bucket = ? AND latest = 1 AND delete_marker = 0`+cond+` ORDER BY key LIMIT ?`, args)
}

func (s *Store) ListVersions(ctx context.Context, bucket string, q catalog.VersionQuery) ([]catalog.Object, error) {
	// Versions of a key run newest first (by seq, their commit order):
	// after the marker come older ones.
	cond, args, err := s.resume(ctx, resumeFrom{
		table: "objects", timeCol: "seq", idCol: "version_id", older: true,
		bucket: bucket, prefix: q.Prefix, key: q.KeyMarker, id: q.VersionMarker, start: q.Start, inclusive: q.Inclusive,
	})
	if err != nil {
		return nil, fmt.Errorf("sqldb: list versions: %w", err)
	}
	args = append(args, limit(q.Limit))
	return s.listObjects(ctx, bucket, `SELECT `+objectSelect+` FROM objects WHERE bucket = ?`+cond+` ORDER BY key, seq DESC, version_id DESC LIMIT ?`, args)
}

func (s *Store) listObjects(ctx context.Context, bucket, query string, args []any) ([]catalog.Object, error) {
	rows, err := s.read.QueryContext(ctx, s.q(query), readArgs(bucket, args...)...)
	if err != nil {
		return nil, fmt.Errorf("sqldb: list: %w", err)
	}
	defer rows.Close()
	var out []catalog.Object
	var sc listScanner
	for rows.Next() {
		o, err := sc.scan(rows, bucket)
		if err != nil {
			return nil, fmt.Errorf("sqldb: list: %w", err)
		}
		out = append(out, o)
	}
	return out, rows.Err()
}

// listScanner is scanObject (without parts) for the rows of a list page,
// with fewer allocations a row: the key and meta are read in place
// (sql.RawBytes, which only Rows allows), and a value the row before had
// too (the owner, the class, the version id "null", the lock mode) is
// that row's string rather than a new copy.
type listScanner struct {
	key, version, etag, owner, class, meta, mode sql.RawBytes
	last                                         struct{ version, owner, class, mode string }
}

func (sc *listScanner) scan(rows *sql.Rows, bucket string) (catalog.Object, error) {
	o := catalog.Object{Bucket: bucket}
	var latest, dm int
	var modified int64
	lock := lockColumns{}
	if err := rows.Scan(&sc.key, &sc.version, &latest, &dm, &o.Size, &sc.etag, &modified, &sc.owner, &sc.class, &sc.meta,
		&sc.mode, &lock.until, &lock.hold); err != nil {
		return o, err
	}
	same := func(raw []byte, last *string) string {
		if string(raw) != *last { // compares without a copy
			*last = string(raw)
		}
		return *last
	}
	o.Key, o.VersionID, o.ETag = string(sc.key), same(sc.version, &sc.last.version), readETag(sc.etag)
	o.Owner, o.StorageClass = same(sc.owner, &sc.last.owner), readClass(same(sc.class, &sc.last.class))
	lock.mode = same(sc.mode, &sc.last.mode)
	o.IsLatest, o.DeleteMarker, o.LastModified, o.Lock = latest == 1, dm == 1, fromNanos(modified), lock.lock()
	if err := decodeMeta(sc.meta, &o.Meta); err != nil {
		return o, err
	}
	return o, nil
}
