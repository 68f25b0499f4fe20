package replication

import (
	"errors"
	"strings"
	"testing"
)

const v2Rule = `<Rule><ID>r1</ID><Priority>1</Priority><Status>Enabled</Status>
<Filter><Prefix>logs/</Prefix></Filter>
<DeleteMarkerReplication><Status>Enabled</Status></DeleteMarkerReplication>
<Destination><Bucket>arn:aws:s3:::dst</Bucket><StorageClass>STANDARD</StorageClass></Destination></Rule>`

func doc(rules ...string) string {
	return `<ReplicationConfiguration xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Role>arn:aws:iam::1:role/r</Role>` +
		strings.Join(rules, "") + `</ReplicationConfiguration>`
}

func TestParseValid(t *testing.T) {
	c, err := Parse([]byte(doc(v2Rule,
		`<Rule><ID>r2</ID><Priority>2</Priority><Status>Enabled</Status>
<Filter><And><Prefix>logs/</Prefix><Tag><Key>k</Key><Value>v</Value></Tag></And></Filter>
<DeleteMarkerReplication><Status>Disabled</Status></DeleteMarkerReplication>
<ExistingObjectReplication><Status>Enabled</Status></ExistingObjectReplication>
<SourceSelectionCriteria><ReplicaModifications><Status>Enabled</Status></ReplicaModifications></SourceSelectionCriteria>
<Destination><Bucket>arn:ostium:replication::site2:far</Bucket></Destination></Rule>`)))
	if err != nil {
		t.Fatal(err)
	}
	// The tagged rule has the higher priority: it wins where both apply.
	if r := c.Match("logs/a", map[string]string{"k": "v"}); r == nil || r.ID != "r2" || !r.ReplicatesExisting() || !r.ReplicatesReplicas() {
		t.Fatalf("match tagged: %+v", r)
	}
	if r := c.Match("logs/a", nil); r == nil || r.ID != "r1" {
		t.Fatalf("match untagged: %+v", r)
	}
	if r := c.Match("other", nil); r != nil {
		t.Fatalf("matched outside the prefix: %+v", r)
	}
	if r := c.MatchDeleteMarker("logs/x"); r == nil || r.ID != "r1" {
		t.Fatalf("delete marker: %+v", r)
	}
	if got := c.Destinations(); len(got) != 2 || got[1] != (ARN{Target: "site2", Bucket: "far"}) {
		t.Fatalf("destinations %v", got)
	}
	back, err := Decode(c.Encode())
	if err != nil || back.Encode() != c.Encode() {
		t.Fatalf("round trip: %v", err)
	}
}

func TestParseV1(t *testing.T) {
	c, err := Parse([]byte(doc(`<Rule><ID>a</ID><Prefix>x/</Prefix><Status>Enabled</Status><Destination><Bucket>arn:aws:s3:::dst</Bucket></Destination></Rule>`)))
	if err != nil {
		t.Fatal(err)
	}
	// AWS: rules of the first schema replicate delete markers.
	if c.MatchDeleteMarker("x/1") == nil {
		t.Fatal("v1 rule does not replicate delete markers")
	}
}

// The answers AWS gives to refused configurations.
func TestParseRefused(t *testing.T) {
	dest := `<Destination><Bucket>arn:aws:s3:::dst</Bucket></Destination>`
	dm := `<DeleteMarkerReplication><Status>Disabled</Status></DeleteMarkerReplication>`
	for name, tc := range map[string]struct{ doc, code string }{
		"not xml":        {"<Repl", "MalformedXML"},
		"no role":        {`<ReplicationConfiguration>` + v2Rule + `</ReplicationConfiguration>`, "MalformedXML"},
		"no rules":       {doc(), "MalformedXML"},
		"bad status":     {doc(`<Rule><Priority>1</Priority><Status>On</Status><Filter/>` + dm + dest + `</Rule>`), "MalformedXML"},
		"no destination": {doc(`<Rule><Priority>1</Priority><Status>Enabled</Status><Filter/>` + dm + `</Rule>`), "MalformedXML"},
		"bad arn":        {doc(`<Rule><Priority>1</Priority><Status>Enabled</Status><Filter/>` + dm + `<Destination><Bucket>dst</Bucket></Destination></Rule>`), "InvalidArgument"},
		"no priority":    {doc(`<Rule><Status>Enabled</Status><Filter/>` + dm + dest + `</Rule>`), "InvalidRequest"},
		"no dm":          {doc(`<Rule><Priority>1</Priority><Status>Enabled</Status><Filter/>` + dest + `</Rule>`), "InvalidRequest"},
		"dup priority": {doc(`<Rule><ID>a</ID><Priority>1</Priority><Status>Enabled</Status><Filter><Prefix>a</Prefix></Filter>`+dm+dest+`</Rule>`,
			`<Rule><ID>b</ID><Priority>1</Priority><Status>Enabled</Status><Filter><Prefix>b</Prefix></Filter>`+dm+dest+`</Rule>`), "InvalidRequest"},
		"dup id": {doc(`<Rule><ID>a</ID><Priority>1</Priority><Status>Enabled</Status><Filter/>`+dm+dest+`</Rule>`,
			`<Rule><ID>a</ID><Priority>2</Priority><Status>Enabled</Status><Filter/>`+dm+dest+`</Rule>`), "InvalidArgument"},
		"dm with tag": {doc(`<Rule><Priority>1</Priority><Status>Enabled</Status><Filter><Tag><Key>k</Key><Value>v</Value></Tag></Filter>` +
			`<DeleteMarkerReplication><Status>Enabled</Status></DeleteMarkerReplication>` + dest + `</Rule>`), "InvalidRequest"},
		"two predicates":    {doc(`<Rule><Priority>1</Priority><Status>Enabled</Status><Filter><Prefix>a</Prefix><Tag><Key>k</Key><Value>v</Value></Tag></Filter>` + dm + dest + `</Rule>`), "MalformedXML"},
		"bad class":         {doc(`<Rule><Priority>1</Priority><Status>Enabled</Status><Filter/>` + dm + `<Destination><Bucket>arn:aws:s3:::d</Bucket><StorageClass>COLD</StorageClass></Destination></Rule>`), "MalformedXML"},
		"prefix and filter": {doc(`<Rule><Priority>1</Priority><Status>Enabled</Status><Prefix>a</Prefix><Filter/>` + dm + dest + `</Rule>`), "InvalidRequest"},
		"v1 overlap": {doc(`<Rule><ID>a</ID><Prefix>a</Prefix><Status>Enabled</Status>`+dest+`</Rule>`,
			`<Rule><ID>b</ID><Prefix>ab</Prefix><Status>Enabled</Status>`+dest+`</Rule>`), "InvalidRequest"},
		"rtc": {doc(`<Rule><Priority>1</Priority><Status>Enabled</Status><Filter/>` + dm + `<Destination><Bucket>arn:aws:s3:::d</Bucket><ReplicationTime><Status>Enabled</Status></ReplicationTime></Destination></Rule>`), "NotImplemented"},
	} {
		_, err := Parse([]byte(tc.doc))
		var e *Error
		if !errors.As(err, &e) || e.Code != tc.code {
			t.Errorf("%s: got %v, want %s", name, err, tc.code)
		}
	}
}

// Each destination is decided on its own rules, the highest priority
// first; a delete marker only by rules that replicate them.
func TestPerDestination(t *testing.T) {
	c, err := Parse([]byte(doc(v2Rule,
		`<Rule><ID>far</ID><Priority>5</Priority><Status>Enabled</Status><Filter><Prefix>logs/x</Prefix></Filter>
<DeleteMarkerReplication><Status>Disabled</Status></DeleteMarkerReplication>
<Destination><Bucket>arn:ostium:replication::site2:far</Bucket></Destination></Rule>`)))
	if err != nil {
		t.Fatal(err)
	}
	ids := func(rs []*Rule) string {
		var out []string
		for _, r := range rs {
			out = append(out, r.ID)
		}
		return strings.Join(out, ",")
	}
	if got := ids(c.PerDestination("logs/x1", nil, false)); got != "r1,far" {
		t.Fatalf("both destinations: %q", got)
	}
	if got := ids(c.PerDestination("logs/a", nil, false)); got != "r1" {
		t.Fatalf("one destination: %q", got)
	}
	if got := ids(c.PerDestination("logs/x1", nil, true)); got != "r1" {
		t.Fatalf("delete marker: %q", got)
	}
}
