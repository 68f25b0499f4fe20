// Package catalog defines Ostium's metadata store: buckets, object versions,
// multipart uploads, access keys and the queue of blobs awaiting collection.
//
// The catalog is the single switch point of the write protocol: bytes are
// written to a fresh blob first, then one catalog call makes them visible and,
// in the same transaction, queues the blobs it replaces for collection. Every
// mutating method below is therefore atomic: it either happens entirely or not
// at all, and a nil error means the change is durable.
//
// Drivers (sqlite, postgres) implement Store and must pass the conformance
// suite in catalogtest.
package catalog

import (
	"context"
	"errors"
	"time"
)

// NullVersion is the version id of the only version an unversioned bucket
// keeps per key, as in S3.
const NullVersion = "null"

// Errors returned by every driver. Callers test them with errors.Is.
var (
	ErrBucketExists       = errors.New("catalog: bucket already exists")
	ErrNoSuchBucket       = errors.New("catalog: no such bucket")
	ErrBucketNotEmpty     = errors.New("catalog: bucket not empty")
	ErrNoSuchObject       = errors.New("catalog: no such object")
	ErrNoSuchUpload       = errors.New("catalog: no such upload")
	ErrPreconditionFailed = errors.New("catalog: precondition failed")
	ErrNoSuchAccessKey    = errors.New("catalog: no such access key")
	ErrAccessKeyExists    = errors.New("catalog: access key exists")
)

// Bucket is a bucket's catalog record.
type Bucket struct {
	Name      string
	Owner     string // canonical id of the owner
	Tenant    string // the owner's tenant; "" for the provider's buckets
	Region    string
	CreatedAt time.Time
	Settings
}

// Settings are a bucket's access settings, kept as the caller encodes
// them (package iam), and its placement; "" means never set.
type Settings struct {
	ACL               string
	Policy            string
	Ownership         string // BucketOwnerEnforced, BucketOwnerPreferred or ObjectWriter
	PublicAccessBlock string
	Platform          string // where new blobs go; "" = the tenant's default
	Logging           string // server access logging, as package objects encodes it
	Versioning        string // "", Enabled or Suspended
	ObjectLock        string // object lock configuration, as package objects encodes it
	Tagging           string // the bucket's tags, as package objects encodes them
	CORS              string // CORS rules, as package objects encodes them
	Lifecycle         string // lifecycle rules, as package objects encodes them
	Encryption        string // default encryption of new objects, as package objects encodes it
	Notification      string // event notification configuration, as package notify encodes it
	Replication       string // replication configuration, as package replication encodes it
}

// Setting names one of Settings for SetBucketSetting.
type Setting int

const (
	SettingACL Setting = iota
	SettingPolicy
	SettingOwnership
	SettingPublicAccessBlock
	SettingPlatform
	SettingLogging
	SettingVersioning
	SettingObjectLock
	SettingTagging
	SettingCORS
	SettingLifecycle
	SettingEncryption
	SettingNotification
	SettingReplication
)

// Meta is what S3 stores with an object besides its bytes.
type Meta struct {
	ContentType        string            `json:"ct,omitempty"`
	ContentEncoding    string            `json:"ce,omitempty"`
	ContentDisposition string            `json:"cd,omitempty"`
	ContentLanguage    string            `json:"cl,omitempty"`
	CacheControl       string            `json:"cc,omitempty"`
	ACL                string            `json:"acl,omitempty"` // as package iam encodes it; "" = private
	Expires            string            `json:"ex,omitempty"`
	User               map[string]string `json:"u,omitempty"` // x-amz-meta-* without the prefix, lower-case names
	// Checksums maps an algorithm (CRC32, CRC32C, SHA1, SHA256, CRC64NVME)
	// to its base64 value as S3 returns it.
	Checksums    map[string]string `json:"ck,omitempty"`
	ChecksumType string            `json:"cty,omitempty"` // FULL_OBJECT or COMPOSITE
	// Tags are the version's object tags (x-amz-tagging).
	Tags map[string]string `json:"tg,omitempty"`
	// Encryption says how the version's bytes (or an upload's parts) are
	// encrypted at rest; nil for plaintext.
	Encryption *Encryption `json:"enc,omitempty"`
	// UploadID names the multipart upload that completed into this
	// version, so that the same completion sent again (a client retrying
	// a response it lost) is answered with the version it made.
	UploadID string `json:"up,omitempty"`
	// Replication is the version's x-amz-replication-status: PENDING,
	// COMPLETED or FAILED on a source, REPLICA on a replica; "" for none.
	Replication string `json:"rs,omitempty"`
}

// Encryption is what reading an encrypted version needs, besides a key
// the catalog never holds: the kind S3 reports, the tenant key that wraps
// the data key, and the wrapped data key (package kms).
type Encryption struct {
	Kind       string `json:"k"`            // AES256 (SSE-S3), aws:kms (SSE-KMS) or SSE-C
	KeyID      string `json:"id,omitempty"` // the wrapping tenant key; "" for SSE-C
	WrappedKey []byte `json:"w,omitempty"`  // the data key, wrapped by that key (SSE-C: by the customer's key)
	// Context is SSE-KMS's encryption context as the client gave it
	// (base64 JSON), bound to the wrapped key.
	Context string `json:"cx,omitempty"`
	// CustomerKeyMD5 is SSE-C's key digest (base64) of versions written
	// before it stopped being kept: an unsalted digest names the key
	// wherever else it is used. Newer versions keep none; the wrapped data
	// key opening under the key the client sends is what checks it.
	CustomerKeyMD5 string `json:"c5,omitempty"`
	// SealedChecksums holds an SSE-C version's checksums of its plaintext
	// (Meta.Checksums, which the catalog then leaves empty), sealed under
	// its data key, so that only the customer's key reveals them; and
	// ChecksumAlgorithms names them, which listings tell.
	SealedChecksums    []byte   `json:"sc,omitempty"`
	ChecksumAlgorithms []string `json:"ca,omitempty"`
	BucketKey          bool     `json:"bk,omitempty"` // x-amz-server-side-encryption-bucket-key-enabled, as asked
}

// Part is one contiguous piece of an object's bytes, held in one blob. A
// single PUT yields one part with Number 0; a multipart upload yields its
// parts in order, so completing an upload never copies bytes.
type Part struct {
	Number       int
	BlobID       string
	Size         int64
	ETag         string // quoted hex MD5 of the part, as S3 returns it
	LastModified time.Time
	// Checksums maps an algorithm to its base64 value; a part of an SSE-C
	// object or upload has instead the one entry SealedChecksums, them
	// sealed under its data key.
	Checksums map[string]string
	// Identity is what an encrypted part's bytes are bound to (package
	// sse) when it is not BlobID: the id the bytes were first sealed
	// under, kept when a move (a lifecycle transition, a change of
	// storage class) copies the ciphertext to another platform.
	Identity string
}

// SealedChecksums is the entry of Part.Checksums that holds an SSE-C
// part's checksums sealed (see Encryption.SealedChecksums).
const SealedChecksums = "sealed"

// Object is one version of an object.
type Object struct {
	Bucket       string
	Key          string
	VersionID    string // NullVersion in unversioned buckets
	IsLatest     bool   // set by the driver on reads
	DeleteMarker bool
	Size         int64
	ETag         string // quoted, as S3 returns it
	LastModified time.Time
	Owner        string
	StorageClass string
	Meta         Meta
	Parts        []Part // data layout in order; empty for an empty or inline object
	// Lock is the version's object lock; the driver refuses to remove a
	// version it protects (ErrObjectLocked).
	Lock Lock
	// Inline holds the bytes of a small object kept in its catalog row
	// rather than in a blob (Parts is then empty): its write is one durable
	// catalog commit instead of a blob flush and a commit. Filled by
	// GetObject only.
	Inline []byte
}

// Upload is a multipart upload in progress.
type Upload struct {
	Bucket       string
	Key          string
	UploadID     string
	Initiated    time.Time
	Owner        string
	StorageClass string
	Meta         Meta // metadata the completed object will carry
	// ChecksumAlgorithm is the algorithm named at creation, if any.
	ChecksumAlgorithm string
	ChecksumType      string
	// Lock is the object lock asked for at creation, which the completed
	// version carries.
	Lock Lock
}

// PutOptions are conditions checked atomically with a write.
type PutOptions struct {
	// IfNoneMatch fails the write with ErrPreconditionFailed if a current
	// (non-delete-marker) version of the key exists (If-None-Match: *).
	IfNoneMatch bool
	// IfMatch, when set, fails the write with ErrPreconditionFailed unless
	// the current version has this quoted ETag, and with ErrNoSuchObject
	// when the key has no current version (none, or a delete marker).
	IfMatch string
	// IfLatest, when set, fails the write with ErrPreconditionFailed
	// unless this version is still the key's current one (see
	// DeleteOptions.IfLatest).
	IfLatest *Object
	// IfNoneMatchETags fails the write with ErrPreconditionFailed if the
	// current version exists and has one of these quoted ETags
	// (If-None-Match: "<etag>", as Ceph RGW and MinIO honour it).
	IfNoneMatchETags []string
	// Limits, checked in the write's transaction, fail a write that would
	// grow usage past a quota with ErrQuotaExceeded.
	Limits Limits
	// Events are queued in the outbox with the write (their Bucket, Key
	// and VersionID are the object's).
	Events []Event
}

// Limits are the quotas a write must stay within; zero means none.
type Limits struct {
	Tenant                     string // whose buckets the tenant limits sum over
	TenantBytes, TenantObjects int64
	BucketBytes, BucketObjects int64
}

// Usage is what a bucket or tenant stores: bytes and objects of every
// version that is not a delete marker, and the bytes of the parts of open
// multipart uploads (stored, so counted and billed, as S3 bills them).
type Usage struct {
	Bytes   int64 `json:"bytes"`
	Objects int64 `json:"objects"`
}

// ListQuery selects current versions of objects in key order (UTF-8 byte
// order, as S3).
type ListQuery struct {
	Prefix string
	// Start is the key to begin at; it is skipped unless Inclusive.
	Start     string
	Inclusive bool
	Limit     int // at most this many rows; the driver may cap it
}

// VersionQuery selects versions (and delete markers) in key order and, within
// a key, newest first.
type VersionQuery struct {
	Prefix string
	// KeyMarker/VersionMarker: resume after this version. With an empty
	// VersionMarker, resume after every version of KeyMarker.
	KeyMarker     string
	VersionMarker string
	// Start/Inclusive as in ListQuery, applied when KeyMarker is empty.
	Start     string
	Inclusive bool
	Limit     int
}

// UploadQuery selects multipart uploads in (key, initiation, upload id) order.
type UploadQuery struct {
	Prefix         string
	KeyMarker      string
	UploadIDMarker string
	Start          string
	Inclusive      bool
	Limit          int
}

// AccessKey is a stored credential. The secret is stored sealed by the node
// key (see package iam); the catalog never sees it in the clear.
type AccessKey struct {
	AccessKey    string
	SecretSealed []byte
	Owner        string // canonical id of the identity it authenticates
	DisplayName  string
	CreatedAt    time.Time
	Tenant, User string // whose key; "" and "root" for the provider
	Kind         string // KeyUser or KeyAppCred
	Status       string // KeyActive or KeyDisable
	Expires      time.Time
	// Buckets and ReadOnly limit an application credential.
	Buckets  []string
	ReadOnly bool
	// Source says where a root key came from (SourceEnv, ...); "" for
	// other keys.
	Source string
}

// BucketFilter selects buckets to list; empty fields select all.
type BucketFilter struct {
	Tenant string
	Owner  string
}

// GCEntry is a blob queued for collection.
type GCEntry struct {
	BlobID   string
	Enqueued time.Time
}

// Store is the catalog driver contract.
type Store interface {
	CloudDirector
	// Buckets.
	CreateBucket(ctx context.Context, b Bucket) error // ErrBucketExists
	GetBucket(ctx context.Context, name string) (Bucket, error)
	ListBuckets(ctx context.Context, f BucketFilter) ([]Bucket, error) // by name, settings included
	// DeleteBucket fails with ErrBucketNotEmpty while any version or delete
	// marker remains. Multipart uploads do not keep a bucket (as S3): it
	// aborts them, queueing their parts' blobs, in the same transaction.
	DeleteBucket(ctx context.Context, name string) error

	// Objects.
	//
	// PutObject makes o (a version, or a delete marker) the current
	// version of its key. It replaces the version with the same VersionID
	// if there is one (the null version, in unversioned and suspended
	// buckets), queueing that version's blobs for collection in the same
	// transaction, and leaves every other version. A key's versions are
	// ordered by commit: o becomes the newest, whatever its LastModified.
	// ErrNoSuchBucket if the bucket is gone.
	PutObject(ctx context.Context, o Object, opt PutOptions) error
	// GetObject returns the version (versionID "" = the current one, which
	// may be a delete marker), Parts included. ErrNoSuchObject if absent.
	GetObject(ctx context.Context, bucket, key, versionID string) (Object, error)
	// DeleteObject removes a version or delete marker for good (versionID
	// "" = the current one), queues its blobs and returns what was
	// removed; if it was the current one, the newest remaining version
	// (by commit order) becomes current. ErrNoSuchObject if absent,
	// ErrObjectLocked if its lock protects it (opt may lift governance).
	DeleteObject(ctx context.Context, bucket, key, versionID string, opt DeleteOptions) (Object, error)
	// ListObjects returns current, non-delete-marker versions. Parts are not
	// filled.
	ListObjects(ctx context.Context, bucket string, q ListQuery) ([]Object, error)
	// ListVersions returns versions and delete markers, with IsLatest set,
	// in key order and within a key newest (last committed) first.
	ListVersions(ctx context.Context, bucket string, q VersionQuery) ([]Object, error)

	// Multipart uploads.
	CreateUpload(ctx context.Context, u Upload) error                            // ErrNoSuchBucket
	GetUpload(ctx context.Context, bucket, key, uploadID string) (Upload, error) // ErrNoSuchUpload
	// PutPart records a part, replacing (and queueing the blob of) an earlier
	// part with the same number. A part's bytes count in its bucket's usage
	// until its upload ends (CompleteUpload turns those it keeps into the
	// object's). ErrNoSuchUpload if the upload is gone, ErrQuotaExceeded if
	// the part would grow the bytes past l (its bytes, not the object
	// count); then nothing is recorded and the caller deletes the part's
	// blob.
	PutPart(ctx context.Context, bucket, key, uploadID string, p Part, l Limits) error
	// ListParts returns parts with Number > after, by number, at most limit.
	ListParts(ctx context.Context, bucket, key, uploadID string, after, limit int) ([]Part, error)
	ListUploads(ctx context.Context, bucket string, q UploadQuery) ([]Upload, error)
	// CompleteUpload atomically checks the upload still exists, puts o (whose
	// Parts are a subset of the upload's parts) as PutObject does, deletes
	// the upload and queues the blobs of the upload's parts not in o.
	CompleteUpload(ctx context.Context, uploadID string, o Object, opt PutOptions) error
	// AbortUpload deletes the upload and queues all its parts' blobs.
	AbortUpload(ctx context.Context, bucket, key, uploadID string) error

	// SetBucketSetting changes one access setting of a bucket and advances
	// the identity generation, as access changes do.
	SetBucketSetting(ctx context.Context, bucket string, which Setting, value string) error
	// SetObjectACL changes a version's ACL (versionID "" = the current),
	// with opt's events and status.
	SetObjectACL(ctx context.Context, bucket, key, versionID, acl string, opt ChangeOptions) error

	// BucketUsage and TenantUsage read the running totals every write
	// keeps in its own transaction.
	BucketUsage(ctx context.Context, bucket string) (Usage, error)
	TenantUsage(ctx context.Context, tenant string) (Usage, error)

	// PurgeBucket deletes a bucket with every version and upload in it,
	// queueing their blobs; it commits in batches, so a purge cut short
	// is resumed by calling it again. ErrObjectLocked, before anything
	// is deleted, while a version in it is locked.
	PurgeBucket(ctx context.Context, name string) error

	Identities
	Metering
	Leases
	AccessLogQueue
	Locks
	ReplicationTargets
	Outbox
	RateDemand

	// CanWrite returns nil while the catalog takes writes: reachable,
	// and not a standby or otherwise read-only (a primary being
	// demoted), for the readiness check a load balancer drains by.
	CanWrite(ctx context.Context) error

	// Collection.
	//
	// GCPending returns up to limit queued blobs enqueued before the given
	// time, oldest first.
	GCPending(ctx context.Context, before time.Time, limit int) ([]GCEntry, error)
	// GCDone removes blobs from the queue once they are deleted.
	GCDone(ctx context.Context, blobIDs []string) error
	// Referenced reports which of ids are referenced by an object version, an
	// upload part or the collection queue; the sweeper deletes the others.
	Referenced(ctx context.Context, ids []string) (map[string]bool, error)

	Close() error
}

// Notifier is a catalog that tells of changes to what nodes cache as they
// commit (PostgreSQL's LISTEN/NOTIFY), sooner than polling the identity
// generation would.
type Notifier interface {
	// WatchChanges calls fn after each change, until ctx ends.
	WatchChanges(ctx context.Context, fn func())
}

// Lease is a background job's lease: while it has not expired, only its
// holder runs the job.
type Lease struct {
	Name, Holder string
	Expires      time.Time
}

// Leases let nodes sharing a catalog run each background job on one node
// at a time, and hand it over when that node dies.
type Leases interface {
	// AcquireLease takes (or renews) the lease name for holder until ttl
	// from now, and reports whether holder has it: false while another
	// holder's lease has not expired.
	AcquireLease(ctx context.Context, name, holder string, ttl time.Duration) (bool, error)
	// ReleaseLease gives the lease up, if holder has it.
	ReleaseLease(ctx context.Context, name, holder string) error
	ListLeases(ctx context.Context) ([]Lease, error)
}
