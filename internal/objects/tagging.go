package objects

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/iam"
)

// Tag limits, as AWS: a key of 1 to 128 and a value of up to 256
// Unicode characters, counted as UTF-16 code units since S3 keeps tags
// in UTF-16.
const (
	MaxObjectTags = 10
	MaxBucketTags = 50
	maxTagKey     = 128
	maxTagValue   = 256
)

// Errors of tagging, as AWS names them.
var (
	ErrInvalidTag = errors.New("invalid tag")
	// ErrTooManyObjectTags is AWS's BadRequest for an eleventh tag.
	ErrTooManyObjectTags = errors.New("too many object tags")
	ErrNoSuchTagSet      = errors.New("no such tag set")
)

// Tag is one tag as a client sends it.
type Tag struct{ Key, Value string }

// tagChar reports whether S3 takes r in a tag: Unicode letters, numbers
// and spaces, and _ . : / = + - @ (AWS's [\p{L}\p{Z}\p{N}_.:/=+\-@]).
func tagChar(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.In(r, unicode.Z) || strings.ContainsRune("_.:/=+-@", r)
}

// validTagText checks one key or value: valid UTF-8 of allowed
// characters, at most max UTF-16 code units.
func validTagText(s string, max int) bool {
	if !utf8.ValidString(s) {
		return false
	}
	n := 0
	for _, r := range s {
		if !tagChar(r) {
			return false
		}
		n += utf16.RuneLen(r)
	}
	return n <= max
}

// ValidTags checks a tag set against AWS's rules (at most max tags,
// unique keys, lengths and characters, no aws: keys) and returns it as
// a map.
func ValidTags(tags []Tag, max int) (map[string]string, error) {
	if len(tags) > max {
		if max == MaxObjectTags {
			return nil, errorf(ErrTooManyObjectTags, "Object tags cannot be greater than 10")
		}
		return nil, errorf(ErrInvalidTag, fmt.Sprintf("Bucket tag count cannot be greater than %d", max))
	}
	m := make(map[string]string, len(tags))
	for _, t := range tags {
		switch {
		case t.Key == "" || !validTagText(t.Key, maxTagKey):
			return nil, errorf(ErrInvalidTag, "The TagKey you have provided is invalid")
		case !validTagText(t.Value, maxTagValue):
			return nil, errorf(ErrInvalidTag, "The TagValue you have provided is invalid")
		case strings.HasPrefix(strings.ToLower(t.Key), "aws:"):
			return nil, errorf(ErrInvalidTag, "Your TagKey cannot be prefixed with aws:")
		}
		if _, dup := m[t.Key]; dup {
			return nil, errorf(ErrInvalidTag, "Cannot provide multiple Tags with the same key")
		}
		m[t.Key] = t.Value
	}
	return m, nil
}

// ParseTagging reads x-amz-tagging: a URL query ("k1=v1&k2"; a key
// without "=" has the empty value, "+" is a space as in a form). A pair
// that does not decode, holds a bare "=" in its value or repeats a key
// is InvalidArgument, as AWS answers; the tags are then held to AWS's
// rules. An empty header sets no tags.
func ParseTagging(h string) (map[string]string, error) {
	bad := errorf(ErrInvalidArgument, "The header 'x-amz-tagging' shall be encoded as UTF-8 then URLEncoded URL query parameters without tag name duplicates.")
	if h == "" {
		return nil, nil
	}
	var tags []Tag
	seen := map[string]bool{}
	for _, pair := range strings.Split(h, "&") {
		if pair == "" {
			continue
		}
		k, v, _ := strings.Cut(pair, "=")
		if strings.Contains(v, "=") {
			return nil, bad
		}
		key, err1 := url.QueryUnescape(k)
		value, err2 := url.QueryUnescape(v)
		if err1 != nil || err2 != nil || seen[key] {
			return nil, bad
		}
		seen[key] = true
		tags = append(tags, Tag{key, value})
	}
	if len(tags) == 0 {
		return nil, nil
	}
	return ValidTags(tags, MaxObjectTags)
}

// SortedTags returns a tag map in key order, as S3 lists tags.
func SortedTags(m map[string]string) []Tag {
	out := make([]Tag, 0, len(m))
	for k, v := range m {
		out = append(out, Tag{k, v})
	}
	slices.SortFunc(out, func(a, b Tag) int { return strings.Compare(a.Key, b.Key) })
	return out
}

// mayTagNew decides, for a write that sets tags, s3:PutObjectTagging on
// the new object besides the write itself, as AWS asks of a PUT with
// x-amz-tagging. The object it replaces is not read: its tags are not
// the new object's.
func (s *Service) mayTagNew(ctx context.Context, id *iam.Identity, b catalog.Bucket, a *iam.BucketAccess, key string, tags map[string]string) error {
	if len(tags) == 0 {
		return nil
	}
	none := &target{bucket: b.Name, key: key, read: true, err: catalog.ErrNoSuchObject}
	return s.decideOn(ctx, iam.Request{ID: id, Action: "s3:PutObjectTagging", Key: key, RequestTags: tags}, b, a, none)
}

// tagCount is the number of tags of the object t has read, when id may
// read them (GetObjectTagging), for x-amz-tagging-count; 0 otherwise.
func (s *Service) tagCount(ctx context.Context, id *iam.Identity, b catalog.Bucket, a *iam.BucketAccess, t *target) int {
	n := len(t.o.Meta.Tags)
	if n == 0 {
		return 0
	}
	if err := s.decideOn(ctx, iam.Request{ID: id, Action: "s3:GetObjectTagging", Key: t.key}, b, a, t); err != nil {
		return 0
	}
	return n
}

func (s *Service) objectTags() (catalog.ObjectTags, error) {
	ot, ok := s.cat.(catalog.ObjectTags)
	if !ok {
		return nil, fmt.Errorf("objects: the catalog %T keeps no object tags", s.cat)
	}
	return ot, nil
}

// TaggingAction is the action a tagging call on an object is authorized
// as: its Version form (s3:GetObjectVersionTagging, ...) when the call
// names a version, "null" included, as AWS.
func TaggingAction(action iam.Action, version string) iam.Action {
	if version == "" {
		return action
	}
	return iam.Action(strings.Replace(string(action), "ObjectTagging", "ObjectVersionTagging", 1))
}

// GetObjectTagging returns an object version ("" = current) for its
// tags (Meta.Tags) and version id.
func (s *Service) GetObjectTagging(ctx context.Context, id *iam.Identity, bucket, key, version string) (catalog.Object, error) {
	r := iam.Request{ID: id, Action: TaggingAction("s3:GetObjectTagging", version), Key: key}
	b, _, t, err := s.bucketTarget(ctx, r, bucket, version)
	if err != nil {
		return catalog.Object{}, err
	}
	o, err := s.lookup(ctx, t)
	return reported(b, o), err
}

// PutObjectTagging replaces the tags of an object version ("" =
// current); an empty set removes them, as on AWS. It returns the
// version changed. The tags count in the decision (s3:RequestObjectTag),
// so they are checked first.
func (s *Service) PutObjectTagging(ctx context.Context, id *iam.Identity, bucket, key, version string, tags []Tag) (string, error) {
	m, err := ValidTags(tags, MaxObjectTags)
	if err != nil {
		return "", err
	}
	r := iam.Request{ID: id, Action: TaggingAction("s3:PutObjectTagging", version), Key: key, RequestTags: m}
	return s.setObjectTags(ctx, r, bucket, version, m, EventTaggingPut)
}

// DeleteObjectTagging removes the tags of an object version ("" =
// current) and returns the version changed.
func (s *Service) DeleteObjectTagging(ctx context.Context, id *iam.Identity, bucket, key, version string) (string, error) {
	r := iam.Request{ID: id, Action: TaggingAction("s3:DeleteObjectTagging", version), Key: key}
	return s.setObjectTags(ctx, r, bucket, version, nil, EventTaggingDelete)
}

func (s *Service) setObjectTags(ctx context.Context, r iam.Request, bucket, version string, tags map[string]string, event string) (string, error) {
	ot, err := s.objectTags()
	if err != nil {
		return "", err
	}
	b, _, t, err := s.bucketTarget(ctx, r, bucket, version)
	if err != nil {
		return "", err
	}
	o, err := s.lookup(ctx, t)
	if err != nil {
		return "", err
	}
	changed := o
	changed.Meta.Tags = tags
	opt, err := s.observeChange(ctx, event, r.ID, b, changed)
	if err != nil {
		return "", err
	}
	// The version read, not "" again: a write between the read and the
	// change must not receive tags meant for the version decided on.
	err = ot.SetObjectTags(ctx, bucket, r.Key, o.VersionID, tags, opt)
	if errors.Is(err, catalog.ErrNoSuchObject) {
		return "", ErrNoSuchKey
	}
	if err != nil {
		return "", fmt.Errorf("objects: set tags of %s/%s: %w", bucket, r.Key, err)
	}
	return reported(b, o).VersionID, nil
}

// bucketTags is a bucket's tag set as it is stored (catalog.SettingTagging).
type bucketTags []Tag

func decodeBucketTags(s string) ([]Tag, error) {
	if s == "" {
		return nil, nil
	}
	var out []Tag
	if err := json.Unmarshal([]byte(s), &out); err != nil {
		return nil, fmt.Errorf("objects: decode bucket tags: %w", err)
	}
	return out, nil
}

// GetBucketTagging returns a bucket's tags in the order they were put;
// NoSuchTagSet when it has none, as AWS.
func (s *Service) GetBucketTagging(ctx context.Context, id *iam.Identity, bucket string) ([]Tag, error) {
	b, err := s.settings(ctx, id, bucket, "s3:GetBucketTagging")
	if err != nil {
		return nil, err
	}
	tags, err := decodeBucketTags(b.Tagging)
	if err == nil && len(tags) == 0 {
		err = errorf(ErrNoSuchTagSet, "The TagSet does not exist")
	}
	return tags, err
}

// PutBucketTagging replaces a bucket's tags; an empty set removes them.
func (s *Service) PutBucketTagging(ctx context.Context, id *iam.Identity, bucket string, tags []Tag) error {
	if _, err := s.bucket(ctx, id, bucket, "", "s3:PutBucketTagging"); err != nil {
		return err
	}
	if _, err := ValidTags(tags, MaxBucketTags); err != nil {
		return err
	}
	if len(tags) == 0 {
		return s.setSetting(ctx, bucket, catalog.SettingTagging, "")
	}
	enc, err := json.Marshal(bucketTags(tags))
	if err != nil {
		return fmt.Errorf("objects: encode bucket tags: %w", err)
	}
	return s.setSetting(ctx, bucket, catalog.SettingTagging, string(enc))
}

// DeleteBucketTagging removes a bucket's tags; AWS authorizes it as
// s3:PutBucketTagging.
func (s *Service) DeleteBucketTagging(ctx context.Context, id *iam.Identity, bucket string) error {
	if _, err := s.bucket(ctx, id, bucket, "", "s3:PutBucketTagging"); err != nil {
		return err
	}
	return s.setSetting(ctx, bucket, catalog.SettingTagging, "")
}
