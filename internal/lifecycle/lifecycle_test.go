package lifecycle

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

func at(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

// TestDueAt pins AWS's day counting: the days added to the start, rounded
// up to the next midnight UTC.
func TestDueAt(t *testing.T) {
	for _, tc := range []struct {
		start string
		days  int
		day   time.Duration
		want  string
	}{
		// AWS's example: created 1/15/2014 10:30 AM UTC, 3 days.
		{"2014-01-15T10:30:00Z", 3, 0, "2014-01-19T00:00:00Z"},
		// AWS's example for NoncurrentDays: noncurrent on 1/1/2014 10:30.
		{"2014-01-01T10:30:00Z", 3, Day, "2014-01-05T00:00:00Z"},
		{"2014-01-15T00:00:00Z", 1, Day, "2014-01-17T00:00:00Z"},
		{"2014-01-15T23:59:59Z", 1, Day, "2014-01-17T00:00:00Z"},
		{"2014-01-15T10:30:00+02:00", 1, Day, "2014-01-17T00:00:00Z"},
		// A test day of 2 s: 1 day after 10.5 s is the second "midnight"
		// after it.
		{"2014-01-15T00:00:10.5Z", 1, 2 * time.Second, "2014-01-15T00:00:14Z"},
	} {
		start, _ := time.Parse(time.RFC3339Nano, tc.start)
		if got := DueAt(start, tc.days, tc.day); !got.Equal(at(tc.want)) {
			t.Errorf("DueAt(%s, %d, %v) = %s, want %s", tc.start, tc.days, tc.day, got, tc.want)
		}
	}
}

// TestExpirationHeader: the form of AWS's PutObject documentation.
func TestExpirationHeader(t *testing.T) {
	got := ExpirationHeader(at("2012-12-23T00:00:00Z"), "picture-deletion-rule")
	if want := `expiry-date="Sun, 23 Dec 2012 00:00:00 GMT", rule-id="picture-deletion-rule"`; got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
}

const ns = ` xmlns="http://s3.amazonaws.com/doc/2006-03-01/"`

func doc(rules ...string) []byte {
	return []byte(`<LifecycleConfiguration` + ns + `>` + strings.Join(rules, "") + `</LifecycleConfiguration>`)
}

// TestParseAWSExamples parses the examples of AWS's "Examples of S3
// Lifecycle configurations" that use no transition.
func TestParseAWSExamples(t *testing.T) {
	for name, d := range map[string][]byte{
		"prefix filter": doc(`<Rule><ID>ExampleRule</ID><Filter><Prefix>documents/</Prefix></Filter><Status>Enabled</Status><Expiration><Days>365</Days></Expiration></Rule>`),
		"tag filter":    doc(`<Rule><Filter><Tag><Key>key1</Key><Value>value1</Value></Tag></Filter><Status>Enabled</Status><Expiration><Days>30</Days></Expiration></Rule>`),
		"and": doc(`<Rule><Filter><And><Prefix>tax/</Prefix><Tag><Key>key1</Key><Value>value1</Value></Tag><Tag><Key>key2</Key><Value>value2</Value></Tag></And></Filter>` +
			`<Status>Enabled</Status><Expiration><Days>30</Days></Expiration></Rule>`),
		"empty filter": doc(`<Rule><Filter></Filter><Status>Enabled</Status><Expiration><Days>30</Days></Expiration></Rule>`),
		"sizes": doc(`<Rule><ID>Allow small object transitions</ID><Filter><And><ObjectSizeGreaterThan>500</ObjectSizeGreaterThan><ObjectSizeLessThan>64000</ObjectSizeLessThan></And></Filter>` +
			`<Status>Enabled</Status><Expiration><Days>1</Days></Expiration></Rule>`),
		"legacy prefix": doc(`<Rule><ID>r</ID><Prefix>logs/</Prefix><Status>Enabled</Status><Expiration><Days>1</Days></Expiration></Rule>`),
		"date":          doc(`<Rule><ID>r</ID><Filter/><Status>Enabled</Status><Expiration><Date>2026-12-23T00:00:00.000Z</Date></Expiration></Rule>`),
		"delete markers": doc(`<Rule><ID>ExampleRule</ID><Filter><Prefix>logs/</Prefix></Filter><Status>Enabled</Status><Expiration><ExpiredObjectDeleteMarker>true</ExpiredObjectDeleteMarker></Expiration>` +
			`<NoncurrentVersionExpiration><NoncurrentDays>30</NoncurrentDays></NoncurrentVersionExpiration></Rule>`),
		"noncurrent newer": doc(`<Rule><ID>sample-rule</ID><Filter><Prefix></Prefix></Filter><Status>Enabled</Status>` +
			`<NoncurrentVersionExpiration><NewerNoncurrentVersions>5</NewerNoncurrentVersions><NoncurrentDays>30</NoncurrentDays></NoncurrentVersionExpiration></Rule>`),
		"abort": doc(`<Rule><ID>sample-rule</ID><Filter><Prefix>SomeKeyPrefix/</Prefix></Filter><Status>Enabled</Status>` +
			`<AbortIncompleteMultipartUpload><DaysAfterInitiation>7</DaysAfterInitiation></AbortIncompleteMultipartUpload></Rule>`),
		"disabled": doc(`<Rule><ID>r</ID><Filter><Prefix>logs/</Prefix></Filter><Status>Disabled</Status><Expiration><Days>1</Days></Expiration></Rule>`),
	} {
		c, err := Parse(d)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		back, err := Decode(c.Encode())
		if err != nil || len(back.Rules) != len(c.Rules) || back.Rules[0].ID == "" || back.Rules[0].ID != c.Rules[0].ID {
			t.Errorf("%s: round trip = %+v, %v", name, back, err)
		}
	}
}

// TestParseRefusals: each refused configuration gets AWS's code.
func TestParseRefusals(t *testing.T) {
	rule := func(body string) string {
		return `<Rule><ID>r</ID><Filter/><Status>Enabled</Status>` + body + `</Rule>`
	}
	exp := `<Expiration><Days>1</Days></Expiration>`
	many := make([]string, MaxRules+1)
	for i := range many {
		many[i] = fmt.Sprintf(`<Rule><ID>r%d</ID><Filter/><Status>Enabled</Status>%s</Rule>`, i, exp)
	}
	for _, tc := range []struct {
		name, code string
		doc        []byte
	}{
		{"not XML", "MalformedXML", []byte("<LifecycleConfiguration><Rule>")},
		{"no rules", "MalformedXML", doc()},
		{"too many rules", "InvalidRequest", doc(many...)},
		{"bad status", "MalformedXML", doc(`<Rule><ID>r</ID><Filter/><Status>On</Status>` + exp + `</Rule>`)},
		{"long id", "InvalidArgument", doc(`<Rule><ID>` + strings.Repeat("i", 256) + `</ID><Filter/><Status>Enabled</Status>` + exp + `</Rule>`)},
		{"duplicate id", "InvalidArgument", doc(rule(exp), rule(exp))},
		{"no action", "InvalidRequest", doc(rule(""))},
		{"no filter nor prefix", "MalformedXML", doc(`<Rule><ID>r</ID><Status>Enabled</Status>` + exp + `</Rule>`)},
		{"filter and prefix", "MalformedXML", doc(`<Rule><ID>r</ID><Prefix>a</Prefix><Filter/><Status>Enabled</Status>` + exp + `</Rule>`)},
		{"two predicates outside And", "MalformedXML", doc(`<Rule><ID>r</ID><Filter><Prefix>a</Prefix><Tag><Key>k</Key><Value>v</Value></Tag></Filter><Status>Enabled</Status>` + exp + `</Rule>`)},
		{"empty And", "MalformedXML", doc(`<Rule><ID>r</ID><Filter><And></And></Filter><Status>Enabled</Status>` + exp + `</Rule>`)},
		{"duplicate tag keys", "InvalidRequest", doc(`<Rule><ID>r</ID><Filter><And><Tag><Key>k</Key><Value>v</Value></Tag><Tag><Key>k</Key><Value>w</Value></Tag></And></Filter><Status>Enabled</Status>` + exp + `</Rule>`)},
		{"sizes reversed", "InvalidArgument", doc(`<Rule><ID>r</ID><Filter><And><ObjectSizeGreaterThan>10</ObjectSizeGreaterThan><ObjectSizeLessThan>5</ObjectSizeLessThan></And></Filter><Status>Enabled</Status>` + exp + `</Rule>`)},
		{"negative size", "InvalidArgument", doc(`<Rule><ID>r</ID><Filter><ObjectSizeGreaterThan>-1</ObjectSizeGreaterThan></Filter><Status>Enabled</Status>` + exp + `</Rule>`)},
		{"zero days", "InvalidArgument", doc(rule(`<Expiration><Days>0</Days></Expiration>`))},
		{"days not a number", "MalformedXML", doc(rule(`<Expiration><Days>one</Days></Expiration>`))},
		{"empty expiration", "MalformedXML", doc(rule(`<Expiration></Expiration>`))},
		{"days and date", "MalformedXML", doc(rule(`<Expiration><Days>1</Days><Date>2026-12-23T00:00:00Z</Date></Expiration>`))},
		{"days and delete marker", "MalformedXML", doc(rule(`<Expiration><Days>1</Days><ExpiredObjectDeleteMarker>true</ExpiredObjectDeleteMarker></Expiration>`))},
		{"date not midnight", "InvalidArgument", doc(rule(`<Expiration><Date>2026-12-23T10:00:00Z</Date></Expiration>`))},
		{"date not a date", "InvalidArgument", doc(rule(`<Expiration><Date>tomorrow</Date></Expiration>`))},
		{"delete marker with tags", "InvalidRequest", doc(`<Rule><ID>r</ID><Filter><Tag><Key>k</Key><Value>v</Value></Tag></Filter><Status>Enabled</Status><Expiration><ExpiredObjectDeleteMarker>true</ExpiredObjectDeleteMarker></Expiration></Rule>`)},
		{"noncurrent zero days", "InvalidArgument", doc(rule(`<NoncurrentVersionExpiration><NoncurrentDays>0</NoncurrentDays></NoncurrentVersionExpiration>`))},
		{"noncurrent no days", "MalformedXML", doc(rule(`<NoncurrentVersionExpiration><NewerNoncurrentVersions>3</NewerNoncurrentVersions></NoncurrentVersionExpiration>`))},
		{"newer too many", "InvalidArgument", doc(rule(`<NoncurrentVersionExpiration><NoncurrentDays>1</NoncurrentDays><NewerNoncurrentVersions>101</NewerNoncurrentVersions></NoncurrentVersionExpiration>`))},
		{"abort zero days", "InvalidArgument", doc(rule(`<AbortIncompleteMultipartUpload><DaysAfterInitiation>0</DaysAfterInitiation></AbortIncompleteMultipartUpload>`))},
		// AWS: AbortIncompleteMultipartUpload cannot be specified with Tags.
		{"abort with tags", "InvalidRequest", doc(`<Rule><ID>r</ID><Filter><Tag><Key>k</Key><Value>v</Value></Tag></Filter><Status>Enabled</Status><AbortIncompleteMultipartUpload><DaysAfterInitiation>1</DaysAfterInitiation></AbortIncompleteMultipartUpload></Rule>`)},
		// Archive classes: nothing restores them here.
		{"transition to an archive", "InvalidStorageClass", doc(rule(`<Transition><Days>30</Days><StorageClass>GLACIER</StorageClass></Transition>`))},
		{"noncurrent transition to an archive", "InvalidStorageClass", doc(rule(`<NoncurrentVersionTransition><NoncurrentDays>30</NoncurrentDays><StorageClass>DEEP_ARCHIVE</StorageClass></NoncurrentVersionTransition>`))},
		// AWS's schema: STANDARD is no transition target.
		{"transition to standard", "MalformedXML", doc(rule(`<Transition><Days>30</Days><StorageClass>STANDARD</StorageClass></Transition>`))},
		{"transition to no class", "MalformedXML", doc(rule(`<Transition><Days>30</Days></Transition>`))},
		{"transition days and date", "MalformedXML", doc(rule(`<Transition><Days>30</Days><Date>2026-12-23T00:00:00Z</Date><StorageClass>GLACIER_IR</StorageClass></Transition>`))},
		{"transition negative days", "InvalidArgument", doc(rule(`<Transition><Days>-1</Days><StorageClass>GLACIER_IR</StorageClass></Transition>`))},
		// AWS: objects spend 30 days in STANDARD before an IA class.
		{"standard_ia under 30 days", "InvalidArgument", doc(rule(`<Transition><Days>29</Days><StorageClass>STANDARD_IA</StorageClass></Transition>`))},
		{"onezone_ia under 30 days", "InvalidArgument", doc(rule(`<Transition><Days>1</Days><StorageClass>ONEZONE_IA</StorageClass></Transition>`))},
		{"noncurrent standard_ia under 30 days", "InvalidArgument", doc(rule(`<NoncurrentVersionTransition><NoncurrentDays>7</NoncurrentDays><StorageClass>STANDARD_IA</StorageClass></NoncurrentVersionTransition>`))},
		{"transition date not midnight", "InvalidArgument", doc(rule(`<Transition><Date>2026-12-23T10:00:00Z</Date><StorageClass>GLACIER_IR</StorageClass></Transition>`))},
		{"same class twice", "InvalidRequest", doc(rule(`<Transition><Days>30</Days><StorageClass>GLACIER_IR</StorageClass></Transition><Transition><Days>60</Days><StorageClass>GLACIER_IR</StorageClass></Transition>`))},
		{"days and dates mixed", "InvalidRequest", doc(rule(`<Transition><Days>30</Days><StorageClass>STANDARD_IA</StorageClass></Transition><Transition><Date>2026-12-23T00:00:00Z</Date><StorageClass>GLACIER_IR</StorageClass></Transition>`))},
		{"expiration before transition", "InvalidRequest", doc(rule(`<Transition><Days>30</Days><StorageClass>STANDARD_IA</StorageClass></Transition><Expiration><Days>30</Days></Expiration>`))},
		{"noncurrent transition no days", "MalformedXML", doc(rule(`<NoncurrentVersionTransition><StorageClass>GLACIER_IR</StorageClass></NoncurrentVersionTransition>`))},
		{"noncurrent transition newer too many", "InvalidArgument", doc(rule(`<NoncurrentVersionTransition><NoncurrentDays>1</NoncurrentDays><NewerNoncurrentVersions>101</NewerNoncurrentVersions><StorageClass>GLACIER_IR</StorageClass></NoncurrentVersionTransition>`))},
	} {
		_, err := Parse(tc.doc)
		var le *Error
		if !errors.As(err, &le) || le.Code != tc.code {
			t.Errorf("%s: error = %v, want %s", tc.name, err, tc.code)
		}
	}
}

func ptr[T any](v T) *T { return &v }

// TestEvaluate covers each action, filter and the rules of AWS's user
// guide on versioned buckets.
func TestEvaluate(t *testing.T) {
	created := at("2026-01-15T10:30:00Z")
	days := func(n int) *Expiration { return &Expiration{Days: ptr(n)} }
	cfg := func(rules ...Rule) *Configuration {
		for i := range rules {
			if rules[i].Status == "" {
				rules[i].Status = Enabled
			}
			if rules[i].ID == "" {
				rules[i].ID = fmt.Sprint("rule", i)
			}
			if rules[i].Filter == nil && rules[i].Prefix == nil {
				rules[i].Filter = &Filter{}
			}
		}
		return &Configuration{Rules: rules}
	}
	cur := Version{Key: "logs/a", Size: 100, LastModified: created, IsLatest: true}
	for _, tc := range []struct {
		name string
		c    *Configuration
		v    Version
		now  string
		want Due
	}{
		{"before due", cfg(Rule{Expiration: days(3)}), cur, "2026-01-18T23:59:59Z", Due{}},
		{"due at midnight", cfg(Rule{Expiration: days(3)}), cur, "2026-01-19T00:00:00Z", Due{Action: ExpireCurrent, RuleID: "rule0"}},
		{"disabled", cfg(Rule{Status: Disabled, Expiration: days(3)}), cur, "2027-01-01T00:00:00Z", Due{}},
		{"date passed", cfg(Rule{Expiration: &Expiration{Date: &Date{at("2026-01-10T00:00:00Z")}}}), cur, "2026-01-16T00:00:00Z", Due{Action: ExpireCurrent, RuleID: "rule0"}},
		{"date ahead", cfg(Rule{Expiration: &Expiration{Date: &Date{at("2026-02-01T00:00:00Z")}}}), cur, "2026-01-31T00:00:00Z", Due{}},
		{"prefix matches", cfg(Rule{Filter: &Filter{Prefix: ptr("logs/")}, Expiration: days(1)}), cur, "2027-01-01T00:00:00Z", Due{Action: ExpireCurrent, RuleID: "rule0"}},
		{"prefix misses", cfg(Rule{Filter: &Filter{Prefix: ptr("tmp/")}, Expiration: days(1)}), cur, "2027-01-01T00:00:00Z", Due{}},
		{"legacy prefix", cfg(Rule{Prefix: ptr("logs/"), Expiration: days(1)}), cur, "2027-01-01T00:00:00Z", Due{Action: ExpireCurrent, RuleID: "rule0"}},
		{"tag misses", cfg(Rule{Filter: &Filter{Tag: &Tag{"class", "tmp"}}, Expiration: days(1)}), cur, "2027-01-01T00:00:00Z", Due{}},
		{"tag matches", cfg(Rule{Filter: &Filter{Tag: &Tag{"class", "tmp"}}, Expiration: days(1)}),
			Version{Key: "a", Tags: map[string]string{"class": "tmp"}, LastModified: created, IsLatest: true}, "2027-01-01T00:00:00Z", Due{Action: ExpireCurrent, RuleID: "rule0"}},
		{"size greater: equal misses", cfg(Rule{Filter: &Filter{ObjectSizeGreaterThan: ptr[int64](100)}, Expiration: days(1)}), cur, "2027-01-01T00:00:00Z", Due{}},
		{"size less matches", cfg(Rule{Filter: &Filter{ObjectSizeLessThan: ptr[int64](101)}, Expiration: days(1)}), cur, "2027-01-01T00:00:00Z", Due{Action: ExpireCurrent, RuleID: "rule0"}},
		{"and all", cfg(Rule{Filter: &Filter{And: &And{Prefix: ptr("logs/"), ObjectSizeGreaterThan: ptr[int64](10), Tags: []Tag{{"k", "v"}}}}, Expiration: days(1)}),
			Version{Key: "logs/x", Size: 11, Tags: map[string]string{"k": "v", "o": "p"}, LastModified: created, IsLatest: true}, "2027-01-01T00:00:00Z", Due{Action: ExpireCurrent, RuleID: "rule0"}},
		{"and one misses", cfg(Rule{Filter: &Filter{And: &And{Prefix: ptr("logs/"), Tags: []Tag{{"k", "v"}, {"o", "q"}}}}, Expiration: days(1)}),
			Version{Key: "logs/x", Tags: map[string]string{"k": "v", "o": "p"}, LastModified: created, IsLatest: true}, "2027-01-01T00:00:00Z", Due{}},
		{"second rule", cfg(Rule{Filter: &Filter{Prefix: ptr("tmp/")}, Expiration: days(1)}, Rule{NoncurrentVersionExpiration: &NoncurrentVersionExpiration{NoncurrentDays: ptr(1)}}, Rule{Expiration: days(2)}),
			cur, "2027-01-01T00:00:00Z", Due{Action: ExpireCurrent, RuleID: "rule2"}},
		// Expiration has no effect on noncurrent versions.
		{"expiration skips noncurrent", cfg(Rule{Expiration: days(1)}), Version{Key: "a", LastModified: created, NoncurrentSince: created}, "2027-01-01T00:00:00Z", Due{}},
		{"noncurrent due", cfg(Rule{NoncurrentVersionExpiration: &NoncurrentVersionExpiration{NoncurrentDays: ptr(3)}}),
			Version{Key: "a", LastModified: created.Add(-Day * 100), NoncurrentSince: at("2026-01-01T10:30:00Z")}, "2026-01-05T00:00:00Z", Due{Action: RemoveVersion, RuleID: "rule0"}},
		{"noncurrent counted from successor", cfg(Rule{NoncurrentVersionExpiration: &NoncurrentVersionExpiration{NoncurrentDays: ptr(3)}}),
			Version{Key: "a", LastModified: created.Add(-Day * 100), NoncurrentSince: at("2026-01-01T10:30:00Z")}, "2026-01-04T23:00:00Z", Due{}},
		{"newer kept", cfg(Rule{NoncurrentVersionExpiration: &NoncurrentVersionExpiration{NoncurrentDays: ptr(1), NewerNoncurrentVersions: ptr(2)}}),
			Version{Key: "a", LastModified: created, NoncurrentSince: created, NewerNoncurrent: 1}, "2027-01-01T00:00:00Z", Due{}},
		{"beyond newer", cfg(Rule{NoncurrentVersionExpiration: &NoncurrentVersionExpiration{NoncurrentDays: ptr(1), NewerNoncurrentVersions: ptr(2)}}),
			Version{Key: "a", LastModified: created, NoncurrentSince: created, NewerNoncurrent: 2}, "2027-01-01T00:00:00Z", Due{Action: RemoveVersion, RuleID: "rule0"}},
		{"noncurrent delete marker", cfg(Rule{NoncurrentVersionExpiration: &NoncurrentVersionExpiration{NoncurrentDays: ptr(1)}}),
			Version{Key: "a", DeleteMarker: true, LastModified: created, NoncurrentSince: created}, "2027-01-01T00:00:00Z", Due{Action: RemoveVersion, RuleID: "rule0"}},
		// A current delete marker with versions behind it stays.
		{"marker with versions", cfg(Rule{Expiration: &Expiration{ExpiredObjectDeleteMarker: ptr(true)}}),
			Version{Key: "a", DeleteMarker: true, IsLatest: true, LastModified: created}, "2027-01-01T00:00:00Z", Due{}},
		{"expired marker", cfg(Rule{Expiration: &Expiration{ExpiredObjectDeleteMarker: ptr(true)}}),
			Version{Key: "a", DeleteMarker: true, IsLatest: true, OnlyVersion: true, LastModified: created}, "2026-01-15T10:30:01Z", Due{Action: RemoveVersion, RuleID: "rule0"}},
		{"expired marker false", cfg(Rule{Expiration: &Expiration{ExpiredObjectDeleteMarker: ptr(false)}}),
			Version{Key: "a", DeleteMarker: true, IsLatest: true, OnlyVersion: true, LastModified: created}, "2027-01-01T00:00:00Z", Due{}},
		// AWS: with Days, expired object delete markers are removed once
		// old enough for them.
		{"expired marker by days, young", cfg(Rule{Expiration: days(3)}),
			Version{Key: "a", DeleteMarker: true, IsLatest: true, OnlyVersion: true, LastModified: created}, "2026-01-18T00:00:00Z", Due{}},
		{"expired marker by days", cfg(Rule{Expiration: days(3)}),
			Version{Key: "a", DeleteMarker: true, IsLatest: true, OnlyVersion: true, LastModified: created}, "2026-01-19T00:00:00Z", Due{Action: RemoveVersion, RuleID: "rule0"}},
		{"marker ignores size", cfg(Rule{Filter: &Filter{ObjectSizeGreaterThan: ptr[int64](1000)}, Expiration: &Expiration{ExpiredObjectDeleteMarker: ptr(true)}}),
			Version{Key: "a", DeleteMarker: true, IsLatest: true, OnlyVersion: true, LastModified: created}, "2027-01-01T00:00:00Z", Due{Action: RemoveVersion, RuleID: "rule0"}},
		{"abort only rule", cfg(Rule{AbortIncompleteMultipartUpload: &AbortIncompleteMultipartUpload{DaysAfterInitiation: ptr(1)}}), cur, "2027-01-01T00:00:00Z", Due{}},
	} {
		if got := tc.c.Evaluate(tc.v, at(tc.now), Day); got != tc.want {
			t.Errorf("%s: Evaluate = %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

func TestExpiryAndAbort(t *testing.T) {
	c, err := Parse(doc(
		`<Rule><ID>late</ID><Filter/><Status>Enabled</Status><Expiration><Days>30</Days></Expiration></Rule>`,
		`<Rule><ID>early</ID><Filter><Prefix>tmp/</Prefix></Filter><Status>Enabled</Status><Expiration><Days>1</Days></Expiration></Rule>`,
		`<Rule><ID>off</ID><Filter/><Status>Disabled</Status><Expiration><Days>0001</Days></Expiration></Rule>`,
		`<Rule><ID>abort</ID><Filter><Prefix>up/</Prefix></Filter><Status>Enabled</Status><AbortIncompleteMultipartUpload><DaysAfterInitiation>2</DaysAfterInitiation></AbortIncompleteMultipartUpload></Rule>`,
	))
	if err != nil {
		t.Fatal(err)
	}
	created := at("2026-12-21T08:00:00Z")
	if at, id, ok := c.Expiry("tmp/x", 1, nil, created, Day); !ok || id != "early" || !at.Equal(at.UTC()) || at.Format(time.RFC3339) != "2026-12-23T00:00:00Z" {
		t.Errorf("Expiry(tmp/x) = %s %s %v", at, id, ok)
	}
	if _, id, ok := c.Expiry("other", 1, nil, created, Day); !ok || id != "late" {
		t.Errorf("Expiry(other) = %s %v", id, ok)
	}
	if _, ok := c.AbortDue("up/x", created, at("2026-12-23T23:59:59Z"), Day); ok {
		t.Error("upload aborted before its days")
	}
	if id, ok := c.AbortDue("up/x", created, at("2026-12-24T00:00:00Z"), Day); !ok || id != "abort" {
		t.Errorf("AbortDue = %s %v", id, ok)
	}
	if _, ok := c.AbortDue("other", created, at("2027-12-24T00:00:00Z"), Day); ok {
		t.Error("upload outside the prefix aborted")
	}
	none := &Configuration{Rules: []Rule{{ID: "x", Status: Enabled, Filter: &Filter{}, Expiration: &Expiration{ExpiredObjectDeleteMarker: ptr(true)}}}}
	if _, _, ok := none.Expiry("a", 1, nil, created, Day); ok {
		t.Error("ExpiredObjectDeleteMarker gave an expiry date")
	}
}
