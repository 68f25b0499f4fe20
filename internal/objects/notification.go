package objects

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/iam"
	"github.com/ostiumio/ostium/internal/notify"
)

// GetBucketNotification returns a bucket's notification configuration:
// an empty one when it has none, as AWS answers.
func (s *Service) GetBucketNotification(ctx context.Context, id *iam.Identity, bucket string) (*notify.Configuration, error) {
	b, err := s.settings(ctx, id, bucket, "s3:GetBucketNotification")
	if err != nil {
		return nil, err
	}
	c, err := notify.Decode(b.Notification)
	if err != nil {
		return nil, fmt.Errorf("objects: notification configuration of %s: %w", bucket, err)
	}
	if c == nil {
		c = &notify.Configuration{}
	}
	return c, nil
}

// PutBucketNotification replaces a bucket's notification configuration,
// which the caller has parsed (notify.Parse), once it passes AWS's checks
// and names only targets the provider opened to the bucket's tenant (a
// *notify.Error otherwise). An empty configuration removes them all.
// Each destination it names is sent a test event (s3:TestEvent), as AWS
// does; requestID is the request's, which the test event tells.
func (s *Service) PutBucketNotification(ctx context.Context, id *iam.Identity, bucket string, c *notify.Configuration, requestID string) error {
	b, err := s.bucket(ctx, id, bucket, "", "s3:PutBucketNotification")
	if err != nil {
		return err
	}
	if err := c.Validate(); err != nil {
		return err
	}
	var arns []string
	if ds := c.Destinations(); len(ds) > 0 {
		targets, ok := s.cat.(catalog.NotifyTargets)
		if !ok {
			return errors.New("objects: the catalog keeps no notification targets")
		}
		if err := notify.CheckTargets(ctx, c, b.Tenant, targets.NotifyTarget); err != nil {
			return err
		}
		seen := map[string]bool{}
		for _, d := range ds {
			if !seen[d.ARN] {
				seen[d.ARN] = true
				arns = append(arns, d.ARN)
			}
		}
	}
	if err := s.setSetting(ctx, bucket, catalog.SettingNotification, c.Encode()); err != nil {
		return err
	}
	return s.testEvents(ctx, bucket, arns, requestID)
}

// testEvents queues AWS's s3:TestEvent for each destination of a new
// configuration, delivered as its events are.
func (s *Service) testEvents(ctx context.Context, bucket string, arns []string, requestID string) error {
	if len(arns) == 0 {
		return nil
	}
	doc := notify.TestEvent(bucket, requestID, time.Now())
	events := make([]catalog.Event, len(arns))
	for i, arn := range arns {
		events[i] = catalog.Event{Sink: notify.Sink(arn), Bucket: bucket, Name: notify.TestEventName, Payload: doc}
	}
	if err := s.cat.AddEvents(ctx, events); err != nil {
		return fmt.Errorf("objects: queue test events of %s: %w", bucket, err)
	}
	return nil
}
