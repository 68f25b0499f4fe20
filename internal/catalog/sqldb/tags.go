package sqldb

import (
	"context"
	"maps"

	"github.com/ostiumio/ostium/internal/catalog"
)

var _ catalog.ObjectTags = (*Store)(nil)

func (s *Store) SetObjectTags(ctx context.Context, bucket, key, versionID string, tags map[string]string, opt catalog.ChangeOptions) error {
	if len(tags) == 0 {
		tags = nil
	}
	tags = maps.Clone(tags)
	return wrap("set object tags", s.updateMeta(ctx, bucket, key, versionID, opt, func(m *catalog.Meta) { m.Tags = tags }))
}
