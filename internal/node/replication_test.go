package node_test

import (
	"strings"
	"testing"
	"time"

	"github.com/ostiumio/ostium/internal/node"
)

// The replication settings are read from the file and checked: no
// negative bound, and plain http only for networks written as CIDR.
func TestReplicationSettings(t *testing.T) {
	c, err := node.ParseConfig([]byte("data: d\nreplication_concurrency: 8\nreplication_max_backoff: 30s\nreplication_plain_http: [10.0.0.0/8, 127.0.0.1/32]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if r := c.Replication; r.Concurrency != 8 || r.MaxBackoff != 30*time.Second || len(r.PlainHTTP) != 2 {
		t.Fatalf("parsed %+v", r)
	}
	for doc, key := range map[string]string{
		"data: d\nreplication_concurrency: -1":        "replication_",
		"data: d\nreplication_plain_http: [10.0.0.1]": "replication_plain_http",
		"data: d\nreplication_plain_http: [lan]":      "replication_plain_http",
	} {
		_, err := node.ParseConfig([]byte(doc))
		if err == nil || !strings.Contains(err.Error(), key) {
			t.Errorf("%q: error %v does not name %s", doc, err, key)
		}
	}
}
