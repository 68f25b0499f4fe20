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
}

// NewRecord builds the record of change c for configuration id.
func NewRecord(c Change, configurationID string) Record {
	r := Record{
		EventVersion: "2.1", EventSource: "aws:s3", AWSRegion: c.Region,
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
	if strings.HasPrefix(c.Name, "s3:ObjectCreated:") {
		size := c.Size
		r.S3.Object.Size, r.S3.Object.ETag = &size, strings.Trim(c.ETag, `"`)
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
