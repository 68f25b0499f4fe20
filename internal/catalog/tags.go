package catalog

import "context"

// ObjectTags changes the tags of object versions (Meta.Tags), which S3
// lets a client replace without writing the object again.
type ObjectTags interface {
	// SetObjectTags replaces the tags of a version (versionID "" = the
	// current one); nil or empty removes them, with opt's events and
	// status. ErrNoSuchObject if the version is absent or is a delete
	// marker, which has no tags.
	SetObjectTags(ctx context.Context, bucket, key, versionID string, tags map[string]string, opt ChangeOptions) error
}
