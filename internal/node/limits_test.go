package node

import (
	"strings"
	"testing"
)

// The request limits' keys are checked like every other: a share is a
// percentage and a timeout is not negative.
func TestValidateRequestLimits(t *testing.T) {
	for doc, want := range map[string]string{
		"data: d\nanonymous_share: 101\n":   "anonymous_share",
		"data: d\ntenant_share: -1\n":       "tenant_share",
		"data: d\nbody_idle_timeout: -1s\n": "body_idle_timeout",
		"data: d\nrequest_timeout: -5m\n":   "request_timeout",
		"data: d\nheader_timeuot: 5s\n":     "header_timeuot",      // misspelt: unknown key
		"data: d\ndocument_memory_mib: 4\n": "document_memory_mib", // under a share's largest document
		"data: d\nbody_min_rate: -1\n":      "body_min_rate",
	} {
		_, err := ParseConfig([]byte(doc))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got %v, want an error naming %s", doc, err, want)
		}
	}
	if _, err := ParseConfig([]byte("data: d\nanonymous_share: 5\ntenant_share: 100\nheader_timeout: 1s\nbody_idle_timeout: 2s\nkeepalive_timeout: 3s\nrequest_timeout: 4s\n" +
		"document_memory_mib: 64\nbody_min_rate: 100\n")); err != nil {
		t.Fatal(err)
	}
}
