package lifecycle

import (
	"testing"
	"time"
)

// TestEvaluateTransitions: what is due to move where, as AWS's lifecycle
// decides it.
func TestEvaluateTransitions(t *testing.T) {
	created := at("2026-01-15T10:30:00Z")
	big := int64(TransitionMinSize)
	c, err := Parse(doc(
		`<Rule><ID>tier</ID><Filter><Prefix>logs/</Prefix></Filter><Status>Enabled</Status>`+
			`<Transition><Days>30</Days><StorageClass>STANDARD_IA</StorageClass></Transition>`+
			`<Transition><Days>90</Days><StorageClass>GLACIER_IR</StorageClass></Transition>`+
			`<NoncurrentVersionTransition><NoncurrentDays>1</NoncurrentDays><NewerNoncurrentVersions>2</NewerNoncurrentVersions><StorageClass>GLACIER_IR</StorageClass></NoncurrentVersionTransition>`+
			`<Expiration><Days>365</Days></Expiration></Rule>`,
		`<Rule><ID>small</ID><Filter><And><Prefix>tiny/</Prefix><ObjectSizeGreaterThan>0</ObjectSizeGreaterThan></And></Filter><Status>Enabled</Status>`+
			`<Transition><Date>2026-02-01T00:00:00Z</Date><StorageClass>ONEZONE_IA</StorageClass></Transition></Rule>`))
	if err != nil {
		t.Fatal(err)
	}
	day := func(n int) time.Time { return created.Add(time.Duration(n) * Day) }
	cur := func(key string, size int64, class string) Version {
		return Version{Key: key, Size: size, LastModified: created, IsLatest: true, OnlyVersion: true, StorageClass: class}
	}
	for _, tc := range []struct {
		name  string
		v     Version
		now   time.Time
		want  Action
		class string
	}{
		{"not yet", cur("logs/a", big, ""), day(29), None, ""},
		{"30 days", cur("logs/a", big, ""), day(31), Move, "STANDARD_IA"},
		// Of the transitions due, the coldest.
		{"90 days", cur("logs/a", big, ""), day(91), Move, "GLACIER_IR"},
		{"already there", cur("logs/a", big, "GLACIER_IR"), day(91), None, ""},
		// Never back up the waterfall.
		{"colder already", cur("logs/a", big, "GLACIER_IR"), day(31), None, ""},
		// AWS: under 128 KiB nothing moves unless the filter says by size.
		{"small", cur("logs/a", big-1, ""), day(91), None, ""},
		{"small by filter", cur("tiny/a", 10, ""), at("2026-02-01T00:00:00Z"), Move, "ONEZONE_IA"},
		{"before date", cur("tiny/a", 10, ""), at("2026-01-31T23:59:59Z"), None, ""},
		{"other prefix", cur("data/a", big, ""), day(91), None, ""},
		// An expiration due wins over a transition.
		{"expired", cur("logs/a", big, ""), day(366), ExpireCurrent, ""},
		{"noncurrent kept by newer", Version{Key: "logs/a", Size: big, LastModified: created, NoncurrentSince: created, NewerNoncurrent: 1}, day(3), None, ""},
		{"noncurrent", Version{Key: "logs/a", Size: big, LastModified: created, NoncurrentSince: created, NewerNoncurrent: 2}, day(3), Move, "GLACIER_IR"},
		{"delete marker", Version{Key: "logs/a", LastModified: created, IsLatest: true, DeleteMarker: true}, day(91), None, ""},
	} {
		got := c.Evaluate(tc.v, tc.now, Day)
		if got.Action != tc.want || got.Class != tc.class {
			t.Errorf("%s: %+v, want %v %s", tc.name, got, tc.want, tc.class)
		}
	}
}

// A configuration with transitions keeps them through the catalog's form.
func TestTransitionsEncode(t *testing.T) {
	c, err := Parse(doc(`<Rule><ID>r</ID><Filter/><Status>Enabled</Status><Transition><Days>0</Days><StorageClass>GLACIER_IR</StorageClass></Transition>` +
		`<NoncurrentVersionTransition><NoncurrentDays>30</NoncurrentDays><StorageClass>STANDARD_IA</StorageClass></NoncurrentVersionTransition></Rule>`))
	if err != nil {
		t.Fatal(err)
	}
	d, err := Decode(c.Encode())
	if err != nil || len(d.Rules[0].Transitions) != 1 || *d.Rules[0].Transitions[0].Days != 0 || d.Rules[0].NoncurrentTransitions[0].StorageClass != "STANDARD_IA" {
		t.Fatalf("decoded %+v %v", d, err)
	}
	if got := d.TransitionClasses(); len(got) != 2 || got[0] != "GLACIER_IR" || got[1] != "STANDARD_IA" {
		t.Fatalf("classes %v", got)
	}
}
