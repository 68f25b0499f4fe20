package notify

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"time"
)

// Record is one entry of an event document's Records, in AWS's event
// message structure (version 2.1).
type Record struct {
	EventVersion      string            `json:"eventVersion"`
	EventSource       string            `json:"eventSource"`
	AWSRegion         string            `json:"awsRegion"`
	EventTime         string            `json:"eventTime"`
	EventName         string            `json:"eventName"`
	UserIdentity      principal         `json:"userIdentity"`
	RequestParameters map[string]string `json:"requestParameters"`
	ResponseElements  map[string]string `json:"responseElements"`
	S3                S3Entity          `json:"s3"`
	// The extra data of a transition and of a failed replication, as
	// AWS's versions 2.3 and 2.2 of the structure carry them.
	LifecycleEventData   *LifecycleEventData   `json:"lifecycleEventData,omitempty"`
	ReplicationEventData *ReplicationEventData `json:"replicationEventData,omitempty"`
}

// LifecycleEventData tells where a transition moved the object.
type LifecycleEventData struct {
	TransitionEventData struct {
		DestinationStorageClass string `json:"destinationStorageClass"`
	} `json:"transitionEventData"`
}

// ReplicationEventData tells of a replication that failed: the rule,
// its destination, the operation (PutObject, ...), when the version was
// written, and one of AWS's failure reasons.
type ReplicationEventData struct {
	ReplicationRuleID string `json:"replicationRuleId"`
	DestinationBucket string `json:"destinationBucket"`
	S3Operation       string `json:"s3Operation"`
	RequestTime       string `json:"requestTime"`
	FailureReason     string `json:"failureReason"`
}

type principal struct {
	PrincipalID string `json:"principalId"`
}

// S3Entity is a record's s3 element.
type S3Entity struct {
	SchemaVersion   string       `json:"s3SchemaVersion"`
	ConfigurationID string       `json:"configurationId"`
	Bucket          BucketEntity `json:"bucket"`
	Object          ObjectEntity `json:"object"`
}

// BucketEntity names the bucket, its owner and its ARN.
type BucketEntity struct {
	Name          string    `json:"name"`
	OwnerIdentity principal `json:"ownerIdentity"`
	ARN           string    `json:"arn"`
}

// ObjectEntity is the object: its key URL-encoded as AWS encodes it,
// size and ETag for creations only, the version id where the bucket
// keeps versions, and a sequencer that orders a key's events.
type ObjectEntity struct {
	Key       string `json:"key"`
	Size      *int64 `json:"size,omitempty"`
	ETag      string `json:"eTag,omitempty"`
	VersionID string `json:"versionId,omitempty"`
	Sequencer string `json:"sequencer"`
}

// Change is what a record tells of one change.
type Change struct {
	Name                     string // s3:ObjectCreated:Put, ...
	Region                   string
	Time                     time.Time
	Principal, SourceIP      string
	RequestID                string
	Bucket, BucketOwner, Key string
	Size                     int64
	ETag                     string // quoted or not
	VersionID                string // "" or "null": not told
	// Sequence orders a key's changes (the version's commit time in
	// nanoseconds will do: a key's versions are written in order).
	Sequence uint64
	// StorageClass is where a transition moved the version.
	StorageClass string
	// Replication is what a failed replication's record tells.
	Replication *ReplicationEventData
}

// eventVersion is the version of the structure AWS gives an event:
// 2.3 for its lifecycle's, tagging and ACL events, 2.2 for
// replication's, 2.1 for the others.
func eventVersion(name string) string {
	switch {
	case strings.HasPrefix(name, "s3:Lifecycle"), strings.HasPrefix(name, "s3:ObjectTagging:"), strings.HasPrefix(name, "s3:ObjectAcl:"):
		return "2.3"
	case strings.HasPrefix(name, "s3:Replication:"):
		return "2.2"
	}
	return "2.1"
}

// withSize tells the events whose records carry the object's size: its
// creation, a transition and a failed replication move or copy its
// bytes; a removal, or a change of its tags or ACL, does not.
func withSize(name string) bool {
	return strings.HasPrefix(name, "s3:ObjectCreated:") || name == "s3:LifecycleTransition" || strings.HasPrefix(name, "s3:Replication:")
}

// withETag tells the events whose records carry the version's ETag:
// all but removals.
func withETag(name string) bool {
	return !strings.HasPrefix(name, "s3:ObjectRemoved:") && !strings.HasPrefix(name, "s3:LifecycleExpiration:")
}

// NewRecord builds the record of change c for configuration id.
func NewRecord(c Change, configurationID string) Record {
	r := Record{
		EventVersion: eventVersion(c.Name), EventSource: "aws:s3", AWSRegion: c.Region,
		EventTime:         c.Time.UTC().Format("2006-01-02T15:04:05.000Z"),
		EventName:         strings.TrimPrefix(c.Name, "s3:"),
		UserIdentity:      principal{c.Principal},
		RequestParameters: map[string]string{"sourceIPAddress": c.SourceIP},
		ResponseElements:  map[string]string{"x-amz-request-id": c.RequestID, "x-amz-id-2": c.RequestID},
		S3: S3Entity{
			SchemaVersion: "1.0", ConfigurationID: configurationID,
			Bucket: BucketEntity{Name: c.Bucket, OwnerIdentity: principal{c.BucketOwner}, ARN: "arn:aws:s3:::" + c.Bucket},
			Object: ObjectEntity{Key: EncodeKey(c.Key), Sequencer: fmt.Sprintf("%016X", c.Sequence)},
		},
	}
	if withSize(c.Name) {
		size := c.Size
		r.S3.Object.Size = &size
	}
	if withETag(c.Name) {
		r.S3.Object.ETag = strings.Trim(c.ETag, `"`)
	}
	if c.Name == "s3:LifecycleTransition" {
		r.LifecycleEventData = &LifecycleEventData{}
		r.LifecycleEventData.TransitionEventData.DestinationStorageClass = c.StorageClass
	}
	if c.Replication != nil && strings.HasPrefix(c.Name, "s3:Replication:") {
		d := *c.Replication
		r.ReplicationEventData = &d
	}
	if c.VersionID != "" && c.VersionID != "null" {
		r.S3.Object.VersionID = c.VersionID
	}
	return r
}

// EncodeKey is a key as AWS's records carry it: form-encoded (a space
// is "+"), with "/" left as it is.
func EncodeKey(key string) string {
	return strings.ReplaceAll(url.QueryEscape(key), "%2F", "/")
}

// Document is the JSON delivered for records.
func Document(records ...Record) []byte {
	b, _ := json.Marshal(struct {
		Records []Record `json:"Records"`
	}{records})
	return b
}

// TestEventName names a test event in the outbox.
const TestEventName = "s3:TestEvent"

// TestEvent is the document AWS sends each destination when a
// configuration is put.
func TestEvent(bucket, requestID string, now time.Time) []byte {
	b, _ := json.Marshal(map[string]string{
		"Service": "Amazon S3", "Event": "s3:TestEvent",
		"Time":   now.UTC().Format("2006-01-02T15:04:05.000Z"),
		"Bucket": bucket, "RequestId": requestID, "HostId": requestID,
	})
	return b
}

// SinkPrefix begins the outbox sink of each target: one sink a target,
// so that a target that is down holds back only its own events.
const SinkPrefix = "notification/"

// Sink is the outbox sink of the target arn.
func Sink(arn string) string { return SinkPrefix + arn }
