package notify_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"regexp"
	"testing"
	"time"

	"github.com/ostiumio/ostium/internal/notify"
)

// AWS's documented example of an event message (Amazon S3 User Guide,
// "Event message structure"), for s3:ObjectCreated:Put.
const awsExample = `{
  "Records": [{
    "eventVersion": "2.1",
    "eventSource": "aws:s3",
    "awsRegion": "us-west-2",
    "eventTime": "1970-01-01T00:00:00.000Z",
    "eventName": "ObjectCreated:Put",
    "userIdentity": {"principalId": "AIDAJDPLRKLG7UEXAMPLE"},
    "requestParameters": {"sourceIPAddress": "172.16.0.1"},
    "responseElements": {"x-amz-request-id": "C3D13FE58DE4C810", "x-amz-id-2": "C3D13FE58DE4C810"},
    "s3": {
      "s3SchemaVersion": "1.0",
      "configurationId": "testConfigRule",
      "bucket": {
        "name": "amzn-s3-demo-bucket",
        "ownerIdentity": {"principalId": "A3NL1KOZZKExample"},
        "arn": "arn:aws:s3:::amzn-s3-demo-bucket"
      },
      "object": {
        "key": "HappyFace.jpg",
        "size": 1024,
        "eTag": "d41d8cd98f00b204e9800998ecf8427e",
        "versionId": "096fKKXTRTtl3on89fVO.nfljtsv6qko",
        "sequencer": "0055AED6DCD90281E5"
      }
    }
  }]
}`

// The record of a PUT has the shape and values of AWS's example: the
// same fields, nested alike, with the same values where the inputs are
// the same (AWS's x-amz-id-2 is another id; here it repeats the request
// id), and a hexadecimal sequencer.
func TestRecordMatchesAWSExample(t *testing.T) {
	doc := notify.Document(notify.NewRecord(notify.Change{
		Name: "s3:ObjectCreated:Put", Region: "us-west-2", Time: time.Unix(0, 0),
		Principal: "AIDAJDPLRKLG7UEXAMPLE", SourceIP: "172.16.0.1", RequestID: "C3D13FE58DE4C810",
		Bucket: "amzn-s3-demo-bucket", BucketOwner: "A3NL1KOZZKExample", Key: "HappyFace.jpg",
		Size: 1024, ETag: `"d41d8cd98f00b204e9800998ecf8427e"`, VersionID: "096fKKXTRTtl3on89fVO.nfljtsv6qko",
		Sequence: 0x55AED6DCD90281E5,
	}, "testConfigRule"))
	var got, want map[string]any
	if err := json.Unmarshal(doc, &got); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(awsExample), &want); err != nil {
		t.Fatal(err)
	}
	seq := func(m map[string]any) map[string]any {
		return m["Records"].([]any)[0].(map[string]any)["s3"].(map[string]any)["object"].(map[string]any)
	}
	if s, _ := seq(got)["sequencer"].(string); !regexp.MustCompile(`^[0-9A-F]{16,}$`).MatchString(s) {
		t.Fatalf("sequencer %q", s)
	}
	delete(seq(got), "sequencer")
	delete(seq(want), "sequencer")
	if !reflect.DeepEqual(got, want) {
		g, _ := json.MarshalIndent(got, "", " ")
		t.Fatalf("record differs from AWS's example:\n%s", g)
	}
}

// Removals carry no size or ETag, unversioned objects no version id, and
// keys are form-encoded with "/" kept, as AWS's records.
func TestRecordOfARemoval(t *testing.T) {
	r := notify.NewRecord(notify.Change{Name: "s3:ObjectRemoved:Delete", Key: "photos/my cat+dog é.jpg", Size: 5, ETag: `"x"`, VersionID: "null"}, "id")
	o := r.S3.Object
	if o.Size != nil || o.ETag != "" || o.VersionID != "" {
		t.Fatalf("removal record %+v", o)
	}
	if o.Key != "photos/my+cat%2Bdog+%C3%A9.jpg" {
		t.Fatalf("key encoded as %q", o.Key)
	}
	if r.EventName != "ObjectRemoved:Delete" {
		t.Fatalf("eventName %q", r.EventName)
	}
}

func parse(t *testing.T, doc string) *notify.Configuration {
	t.Helper()
	c, err := notify.Parse([]byte(doc))
	if err != nil {
		t.Fatalf("parse %s: %v", doc, err)
	}
	return c
}

func code(err error) string {
	var e *notify.Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

// Validation follows AWS: events it defines that are not produced here
// are refused, as are unknown ones, bad filters and ambiguous rules.
func TestValidate(t *testing.T) {
	rule := func(event, filter string) string {
		return `<TopicConfiguration><Topic>arn:ostium:sns:r:a:t</Topic><Event>` + event + `</Event>` + filter + `</TopicConfiguration>`
	}
	f := func(rules ...string) string {
		s := `<Filter><S3Key>`
		for i := 0; i+1 < len(rules); i += 2 {
			s += `<FilterRule><Name>` + rules[i] + `</Name><Value>` + rules[i+1] + `</Value></FilterRule>`
		}
		return s + `</S3Key></Filter>`
	}
	doc := func(rules ...string) string {
		s := `<NotificationConfiguration>`
		for _, r := range rules {
			s += r
		}
		return s + `</NotificationConfiguration>`
	}
	for name, c := range map[string]struct{ doc, code string }{
		"empty":               {doc(), ""},
		"all created":         {doc(rule("s3:ObjectCreated:*", "")), ""},
		"lifecycle":           {doc(rule("s3:LifecycleExpiration:DeleteMarkerCreated", "")), ""},
		"restore":             {doc(rule("s3:ObjectRestore:Completed", "")), "InvalidArgument"},
		"replication family":  {doc(rule("s3:Replication:*", "")), "InvalidArgument"},
		"acl":                 {doc(rule("s3:ObjectAcl:Put", "")), ""},
		"tagging family":      {doc(rule("s3:ObjectTagging:*", "")), ""},
		"transition":          {doc(rule("s3:LifecycleTransition", "")), ""},
		"failed replication":  {doc(rule("s3:Replication:OperationFailedReplication", "")), ""},
		"missed threshold":    {doc(rule("s3:Replication:OperationMissedThreshold", "")), "InvalidArgument"},
		"intelligent tiering": {doc(rule("s3:IntelligentTiering", "")), "InvalidArgument"},
		"unknown":             {doc(rule("s3:Nothing:*", "")), "InvalidArgument"},
		"bare star":           {doc(rule("s3:*", "")), "InvalidArgument"},
		"no event":            {doc(`<TopicConfiguration><Topic>arn:ostium:sns:r:a:t</Topic></TopicConfiguration>`), "MalformedXML"},
		"bad filter name":     {doc(rule("s3:ObjectCreated:*", f("middle", "x"))), "InvalidArgument"},
		"two prefixes":        {doc(rule("s3:ObjectCreated:*", f("prefix", "a", "prefix", "b"))), "InvalidArgument"},
		"filter name case":    {doc(rule("s3:ObjectCreated:*", f("Prefix", "a", "Suffix", ".b"))), ""},
		"disjoint prefixes":   {doc(rule("s3:ObjectCreated:*", f("prefix", "a/")), rule("s3:ObjectCreated:Put", f("prefix", "b/"))), ""},
		"nested prefixes":     {doc(rule("s3:ObjectCreated:*", f("prefix", "a/")), rule("s3:ObjectCreated:Put", f("prefix", "a/b/"))), "InvalidArgument"},
		"disjoint suffixes":   {doc(rule("s3:ObjectCreated:*", f("prefix", "a/", "suffix", ".jpg")), rule("s3:ObjectCreated:Put", f("prefix", "a/", "suffix", ".png"))), ""},
		"other event types":   {doc(rule("s3:ObjectCreated:*", ""), rule("s3:ObjectRemoved:*", "")), ""},
		"two unfiltered":      {doc(rule("s3:ObjectCreated:Put", ""), rule("s3:ObjectCreated:Copy", "")), ""},
		"wildcard and member": {doc(rule("s3:ObjectCreated:*", ""), rule("s3:ObjectCreated:Copy", "")), "InvalidArgument"},
		"event bridge":        {doc(`<EventBridgeConfiguration/>`), "InvalidArgument"},
	} {
		err := parse(t, c.doc).Validate()
		if code(err) != c.code || (c.code == "" && err != nil) {
			t.Errorf("%s: %v, want %q", name, err, c.code)
		}
	}
	if _, err := notify.Parse([]byte(`<Other/>`)); code(err) != "MalformedXML" {
		t.Fatalf("another document: %v", err)
	}
}

// A rule matches its events (a family by its wildcard) on keys with its
// prefix and suffix; a stored configuration decodes to what was put.
func TestMatchAndEncode(t *testing.T) {
	c := parse(t, `<NotificationConfiguration><QueueConfiguration><Id>q</Id><Queue>arn:ostium:sqs:r:a:q</Queue>
		<Event>s3:ObjectCreated:*</Event><Event>s3:ObjectRemoved:Delete</Event>
		<Filter><S3Key><FilterRule><Name>prefix</Name><Value>images/</Value></FilterRule><FilterRule><Name>suffix</Name><Value>.jpg</Value></FilterRule></S3Key></Filter>
		</QueueConfiguration></NotificationConfiguration>`)
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	d, err := notify.Decode(c.Encode())
	if err != nil {
		t.Fatal(err)
	}
	ds := d.Destinations()
	if len(ds) != 1 || ds[0].ARN != "arn:ostium:sqs:r:a:q" || ds[0].Service != "sqs" || ds[0].ID != "q" {
		t.Fatalf("decoded %+v", ds)
	}
	r := ds[0].Rule
	for _, m := range []struct {
		name, key string
		want      bool
	}{
		{"s3:ObjectCreated:Put", "images/a.jpg", true},
		{"s3:ObjectCreated:CompleteMultipartUpload", "images/x/y.jpg", true},
		{"s3:ObjectRemoved:Delete", "images/a.jpg", true},
		{"s3:ObjectRemoved:DeleteMarkerCreated", "images/a.jpg", false},
		{"s3:ObjectCreated:Put", "images/a.png", false},
		{"s3:ObjectCreated:Put", "docs/a.jpg", false},
		{"s3:ObjectCreated:Put", "images/.jpg", true},
	} {
		if r.Match(m.name, m.key) != m.want {
			t.Errorf("%s %s: match = %v", m.name, m.key, !m.want)
		}
	}
	if (&notify.Configuration{}).Encode() != "" {
		t.Fatal("an empty configuration is stored as a setting")
	}
}
