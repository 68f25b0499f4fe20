package catalog

// ChangeOptions are what a change of a version's tags, ACL, retention or
// legal hold carries besides the change itself: S3 lets a client make
// these without writing the version again, and replication and event
// notifications must learn of them as of any write.
type ChangeOptions struct {
	// BypassGovernance lets SetRetention shorten or remove a GOVERNANCE
	// retention (never a COMPLIANCE one): the caller asked to bypass it
	// and is permitted to.
	BypassGovernance bool
	// Events are queued in the outbox with the change, in its
	// transaction (their Bucket, Key and VersionID are the version's
	// changed).
	Events []Event
	// Replication, when set, becomes the version's
	// x-amz-replication-status in the same transaction (PENDING while
	// the change's replication events wait to be delivered).
	Replication string
}
