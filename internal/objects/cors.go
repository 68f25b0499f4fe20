package objects

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/cors"
	"github.com/ostiumio/ostium/internal/iam"
)

// ErrNoSuchCORSConfiguration is GetBucketCors's answer for a bucket
// without rules.
var ErrNoSuchCORSConfiguration = errors.New("no CORS configuration")

// GetBucketCors returns a bucket's CORS configuration.
func (s *Service) GetBucketCors(ctx context.Context, id *iam.Identity, bucket string) (*cors.Config, error) {
	b, err := s.settings(ctx, id, bucket, "s3:GetBucketCORS")
	if err != nil {
		return nil, err
	}
	c, err := decodeCORS(b.CORS)
	if err != nil {
		return nil, err
	}
	if c == nil {
		return nil, errorf(ErrNoSuchCORSConfiguration, "The CORS configuration does not exist")
	}
	return c, nil
}

// PutBucketCors replaces a bucket's CORS configuration, once it passes
// S3's checks (cors.Config.Validate).
func (s *Service) PutBucketCors(ctx context.Context, id *iam.Identity, bucket string, c cors.Config) error {
	if _, err := s.bucket(ctx, id, bucket, "", "s3:PutBucketCORS"); err != nil {
		return err
	}
	if err := c.Validate(); err != nil {
		var ce *cors.Error
		switch {
		case errors.As(err, &ce) && ce.Code == "InvalidArgument":
			return errorf(ErrInvalidArgument, ce.Message)
		case errors.As(err, &ce):
			return errorf(ErrInvalidRequest, ce.Message)
		}
		return errorf(ErrMalformedXML, "The XML you provided was not well-formed or did not validate against our published schema")
	}
	doc, err := json.Marshal(c)
	if err != nil {
		return fmt.Errorf("objects: encode CORS configuration: %w", err)
	}
	return s.setSetting(ctx, bucket, catalog.SettingCORS, string(doc))
}

// DeleteBucketCors removes a bucket's CORS configuration; AWS asks for
// s3:PutBucketCORS, there being no permission of its own, and answers
// alike whether there was one or not.
func (s *Service) DeleteBucketCors(ctx context.Context, id *iam.Identity, bucket string) error {
	if _, err := s.bucket(ctx, id, bucket, "", "s3:PutBucketCORS"); err != nil {
		return err
	}
	return s.setSetting(ctx, bucket, catalog.SettingCORS, "")
}

// BucketCORS returns a bucket's CORS rules (nil: none) without asking
// who wants them: AWS answers preflights, and adds CORS headers to
// answers, for anyone, the rules being what a browser needs before it
// may send a signed request at all. It reads the cached bucket;
// ErrNoSuchBucket if there is none.
func (s *Service) BucketCORS(ctx context.Context, bucket string) (*cors.Config, error) {
	b, _, err := s.getBucket(ctx, bucket)
	if err != nil {
		return nil, err
	}
	return decodeCORS(b.CORS)
}

// CachedBucketCORS is BucketCORS for callers that may not read the
// catalog (a request not yet given a slot): ok is false unless the
// bucket is in this node's cache and current.
func (s *Service) CachedBucketCORS(bucket string) (c *cors.Config, ok bool) {
	epoch := s.tenants.Epoch()
	s.buckets.mu.RLock()
	e, found := s.buckets.m[bucket]
	s.buckets.mu.RUnlock()
	if !found || e.epoch != epoch {
		return nil, false
	}
	c, err := decodeCORS(e.b.CORS)
	return c, err == nil
}

// parsedCORS memoizes decodeCORS by the stored document: requests with
// an Origin header then pay a map lookup, not a JSON parse of up to 100
// rules. The document is its own key, so a changed configuration is a
// new entry and nothing needs invalidating; the map starts over past its
// bound.
var parsedCORS struct {
	sync.RWMutex
	m map[string]*cors.Config
}

const maxParsedCORS = 1024

func decodeCORS(doc string) (*cors.Config, error) {
	if doc == "" {
		return nil, nil
	}
	parsedCORS.RLock()
	c, ok := parsedCORS.m[doc]
	parsedCORS.RUnlock()
	if ok {
		return c, nil
	}
	c = &cors.Config{}
	if err := json.Unmarshal([]byte(doc), c); err != nil {
		return nil, fmt.Errorf("objects: decode CORS configuration: %w", err)
	}
	parsedCORS.Lock()
	if parsedCORS.m == nil || len(parsedCORS.m) >= maxParsedCORS {
		parsedCORS.m = map[string]*cors.Config{}
	}
	parsedCORS.m[doc] = c
	parsedCORS.Unlock()
	return c, nil
}
