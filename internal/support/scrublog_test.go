package support

import (
	"strings"
	"testing"
)

// A log the bundle collects loses request credentials it was never told
// of: a presigned URL's signature, an SSE-C key, as the node's own log
// handler masks them.
func TestScrubLogMasksRequestCredentials(t *testing.T) {
	line := `level=DEBUG msg=request uri="/b/k?X-Amz-Credential=AK%2F20261127&X-Amz-Signature=deadbeef01" ` +
		`hdr="X-Amz-Server-Side-Encryption-Customer-Key: c2VjcmV0LWtleQ=="`
	got := string((&Secrets{}).ScrubLog([]byte(line)))
	if strings.Contains(got, "deadbeef01") || strings.Contains(got, "c2VjcmV0LWtleQ") || !strings.Contains(got, "X-Amz-Credential=AK") {
		t.Fatalf("ScrubLog = %s", got)
	}
}
