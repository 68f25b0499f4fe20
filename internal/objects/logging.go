package objects

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/iam"
	"github.com/ostiumio/ostium/internal/iam/bucketpolicy"
)

// LoggingService is the service principal that delivers server access
// logs, as AWS names it in the target bucket policy it recommends.
const LoggingService = "logging.s3.amazonaws.com"

// Errors of PutBucketLogging, as AWS names them.
var (
	ErrInvalidTargetBucketForLogging = errors.New("invalid target bucket for logging")
	ErrCrossLocationLogging          = errors.New("cross-location logging prohibited")
)

// Logging is a bucket's server access logging configuration
// (LoggingEnabled of BucketLoggingStatus).
type Logging struct {
	TargetBucket string      `json:"target"`
	TargetPrefix string      `json:"prefix,omitempty"`
	Grants       []iam.Grant `json:"grants,omitempty"`
	// Partitioned asks for PartitionedPrefix keys, dated by DateSource
	// (EventTime or DeliveryTime); else SimplePrefix keys.
	Partitioned bool   `json:"partitioned,omitempty"`
	DateSource  string `json:"date_source,omitempty"`
}

// Partition dates of PartitionedPrefix keys.
const (
	EventTime    = "EventTime"
	DeliveryTime = "DeliveryTime"
)

func decodeLogging(s string) (*Logging, error) {
	if s == "" {
		return nil, nil
	}
	var l Logging
	if err := json.Unmarshal([]byte(s), &l); err != nil {
		return nil, fmt.Errorf("objects: decode logging: %w", err)
	}
	return &l, nil
}

// GetBucketLogging returns a bucket's logging configuration; nil when
// logging is off.
func (s *Service) GetBucketLogging(ctx context.Context, id *iam.Identity, bucket string) (*Logging, error) {
	b, err := s.settings(ctx, id, bucket, "s3:GetBucketLogging")
	if err != nil {
		return nil, err
	}
	return decodeLogging(b.Logging)
}

// PutBucketLogging turns logging on (l != nil) or off. As on AWS, the
// target bucket must exist in the source's region and its owner must let
// the logging service write there: by a bucket policy allowing
// logging.s3.amazonaws.com s3:PutObject, or (the legacy way) by the
// target's ACL granting the LogDelivery group WRITE and READ_ACP. That
// holds for a target of another tenant too: it is that tenant's bucket,
// and only its policy or ACL can let logs in.
func (s *Service) PutBucketLogging(ctx context.Context, id *iam.Identity, bucket string, l *Logging) error {
	b, err := s.bucket(ctx, id, bucket, "", "s3:PutBucketLogging")
	if err != nil {
		return err
	}
	if l == nil {
		return s.setSetting(ctx, bucket, catalog.SettingLogging, "")
	}
	if l.TargetBucket == "" {
		return errorf(ErrMalformedXML, "TargetBucket is required")
	}
	switch {
	case !l.Partitioned:
		l.DateSource = ""
	case l.DateSource == "":
		l.DateSource = EventTime
	case l.DateSource != EventTime && l.DateSource != DeliveryTime:
		return errorf(ErrMalformedXML, "PartitionDateSource must be EventTime or DeliveryTime")
	}
	for _, g := range l.Grants {
		if g.Permission != iam.PermFullControl && g.Permission != iam.PermRead && g.Permission != iam.PermWrite {
			return errorf(ErrMalformedXML, "TargetGrants permissions are FULL_CONTROL, READ or WRITE")
		}
	}
	spec, err := s.resolve(ctx, iam.ACLSpec{Grants: l.Grants})
	if err != nil {
		return err
	}
	l.Grants = spec.Grants
	tb, ta, err := s.getBucket(ctx, l.TargetBucket)
	if errors.Is(err, ErrNoSuchBucket) {
		return errorf(ErrInvalidTargetBucketForLogging, "The target bucket for logging does not exist")
	}
	if err != nil {
		return err
	}
	if tb.Region != b.Region {
		return errorf(ErrCrossLocationLogging, "Cross S3 location logging not allowed.")
	}
	if len(l.Grants) > 0 && !ta.ACLsEnabled() {
		return errorf(ErrACLNotSupported, "The target bucket for logging does not allow ACLs.")
	}
	src := LogSource{Bucket: b.Name, Account: account(b)}
	key := LogObjectKey(LogKeyPrefix(l, src, s.region), l.DateSource, time.Now(), time.Now(), "0000000000000000")
	if err := validKey(key); err != nil {
		return errorf(ErrInvalidArgument, "TargetPrefix is too long or not valid UTF-8")
	}
	ok, err := s.mayDeliver(ctx, src, tb, ta, key)
	if err != nil {
		return err
	}
	if !ok {
		return errorf(ErrInvalidTargetBucketForLogging, "You must either provide the necessary permissions to the logging service using a bucket policy or give the log-delivery group WRITE and READ_ACP permissions to the target bucket")
	}
	doc, _ := json.Marshal(l)
	return s.setSetting(ctx, bucket, catalog.SettingLogging, string(doc))
}

// LogSource is the bucket whose requests a log tells of, as the target's
// policy sees it (aws:SourceArn, aws:SourceAccount).
type LogSource struct {
	Bucket  string
	Account string
}

// account is the account id a bucket's logs name: its tenant (what
// bucket policies name as an account), or for the provider's buckets the
// owner's canonical id.
func account(b catalog.Bucket) string {
	if b.Tenant != "" {
		return b.Tenant
	}
	return b.Owner
}

// mayDeliver reports whether the target bucket's owner lets the logging
// service write key for src: an explicit deny in the target's policy
// wins, then an allow, then the LogDelivery group's ACL grants (while
// ACLs are enabled). A suspended tenant's bucket takes no logs.
func (s *Service) mayDeliver(ctx context.Context, src LogSource, tb catalog.Bucket, ta *iam.BucketAccess, key string) (bool, error) {
	if tb.Tenant != "" {
		suspended, err := s.tenants.TenantSuspended(ctx, tb.Tenant)
		if err != nil {
			return false, fmt.Errorf("objects: log delivery: %w", err)
		}
		if suspended {
			return false, nil
		}
	}
	if ta.Policy != nil {
		r := bucketpolicy.Request{Service: LoggingService, Action: "s3:PutObject", Resource: "arn:aws:s3:::" + tb.Name + "/" + key,
			Context: map[string][]string{
				"aws:sourcearn":       {"arn:aws:s3:::" + src.Bucket},
				"aws:sourceaccount":   {src.Account},
				"aws:securetransport": {"true"},
				"aws:currenttime":     {time.Now().UTC().Format(time.RFC3339)},
			}}
		switch ta.Policy.Evaluate(r) {
		case bucketpolicy.Deny:
			return false, nil
		case bucketpolicy.Allow:
			return true, nil
		}
	}
	if !ta.ACLsEnabled() {
		return false, nil
	}
	var write, readACP bool
	for _, g := range ta.ACL.Grants {
		if g.Type != iam.GranteeGroup || g.URI != iam.LogDelivery {
			continue
		}
		write = write || g.Permission == iam.PermWrite || g.Permission == iam.PermFullControl
		readACP = readACP || g.Permission == iam.PermReadACP || g.Permission == iam.PermFullControl
	}
	return write && readACP, nil
}

// LogKeyPrefix is the part of a log object's key before its date:
// TargetPrefix, and for PartitionedPrefix keys the source's account,
// region and bucket after it, as AWS writes them.
func LogKeyPrefix(l *Logging, src LogSource, region string) string {
	if !l.Partitioned {
		return l.TargetPrefix
	}
	return l.TargetPrefix + src.Account + "/" + region + "/" + src.Bucket + "/"
}

// LogObjectKey is a log object's key: prefix, for partitioned keys
// (partition EventTime or DeliveryTime) the date directories, then
// YYYY-MM-DD-hh-mm-ss of delivery and a unique string.
func LogObjectKey(prefix, partition string, event, delivery time.Time, unique string) string {
	var b strings.Builder
	b.WriteString(prefix)
	switch partition {
	case EventTime:
		b.WriteString(event.UTC().Format("2006/01/02/"))
	case DeliveryTime:
		b.WriteString(delivery.UTC().Format("2006/01/02/"))
	}
	b.WriteString(delivery.UTC().Format("2006-01-02-15-04-05-"))
	b.WriteString(unique)
	return b.String()
}

// LogTarget is where the records of a logged bucket's requests go.
type LogTarget struct {
	Owner     string // the logged bucket's owner, the first field of a record
	Target    string
	KeyPrefix string
	Partition string // "", EventTime or DeliveryTime
}

// AccessLogTarget tells whether requests on bucket are logged and where,
// from the cached bucket: a logged request pays a map lookup and a small
// decode, an unlogged one the lookup.
func (s *Service) AccessLogTarget(ctx context.Context, bucket string) (LogTarget, bool) {
	b, _, err := s.getBucket(ctx, bucket)
	if err != nil || b.Logging == "" {
		return LogTarget{}, false
	}
	l, err := decodeLogging(b.Logging)
	if err != nil || l == nil {
		return LogTarget{}, false
	}
	return LogTarget{Owner: b.Owner, Target: l.TargetBucket, Partition: l.DateSource,
		KeyPrefix: LogKeyPrefix(l, LogSource{Bucket: b.Name, Account: account(b)}, s.region)}, true
}

// DeliverAccessLog writes one log object into target as the logging
// service: only while the target's owner still allows it (permissions
// may have changed since PutBucketLogging; ErrAccessDenied if not),
// within the target's quotas and on its platform. The target's owner
// owns the object, with the TargetGrants of source's configuration, if
// it still logs there.
func (s *Service) DeliverAccessLog(ctx context.Context, source, target, key string, body []byte) error {
	tb, ta, err := s.getBucket(ctx, target)
	if err != nil {
		return err
	}
	src := LogSource{Bucket: source}
	var grants []iam.Grant
	if sb, _, err := s.getBucket(ctx, source); err == nil {
		src.Account = account(sb)
		if l, _ := decodeLogging(sb.Logging); l != nil && l.TargetBucket == target {
			grants = l.Grants
		}
	} else if !errors.Is(err, ErrNoSuchBucket) {
		return err
	}
	ok, err := s.mayDeliver(ctx, src, tb, ta, key)
	if err != nil {
		return err
	}
	if !ok {
		return ErrAccessDenied
	}
	if err := validKey(key); err != nil {
		return err
	}
	meta := catalog.Meta{ContentType: "text/plain"}
	if ta.ACLsEnabled() {
		acl, _ := iam.CannedACL("private", tb.Owner, "")
		acl.Grants = append(acl.Grants, grants...)
		meta.ACL = iam.EncodeACL(acl)
	}
	st, err := s.writeBlob(ctx, tb, Payload{Body: bytes.NewReader(body), Size: int64(len(body))}, true)
	if err != nil {
		return err
	}
	obj := catalog.Object{Bucket: target, Key: key, VersionID: versionFor(tb), Size: st.part.Size, ETag: st.part.ETag,
		LastModified: st.part.LastModified, Owner: tb.Owner, StorageClass: storageClass(""), Meta: meta}
	obj.Parts, obj.Inline = st.layout()
	if err := s.commit(ctx, Change{Name: EventPut}, tb, obj, catalog.PutOptions{}); err != nil {
		s.deleteBlobs(ctx, st.part.BlobID)
		return err
	}
	return nil
}
