package objects

import (
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"testing"
	"time"

	"github.com/ostiumio/ostium/internal/catalog"
)

// TestRetriedCompletion: a completion sent again is answered with the
// object only when it is the same upload's, with the same list, recently
// (CompletedUploadRetry); the loopback tests (TestCompleteRetried) show
// the rest over HTTP.
func TestRetriedCompletion(t *testing.T) {
	etag := func(b string) string { s := md5.Sum([]byte(b)); return `"` + hex.EncodeToString(s[:]) + `"` }
	list := []CompletePart{{Number: 1, ETag: etag("a")}, {Number: 2, ETag: etag("b")}, {Number: 3, ETag: etag("")}}
	sum := md5.New()
	for _, p := range list {
		raw, _ := hex.DecodeString(p.ETag[1 : len(p.ETag)-1])
		sum.Write(raw)
	}
	done := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	obj := catalog.Object{Bucket: "b", Key: "k", ETag: fmt.Sprintf(`"%x-3"`, sum.Sum(nil)), LastModified: done,
		Meta: catalog.Meta{UploadID: "up"},
		// The empty third part holds no blob, so it is not in the layout.
		Parts: []catalog.Part{{Number: 1, ETag: list[0].ETag}, {Number: 2, ETag: list[1].ETag}}}
	if !retriedCompletion(obj, "up", list, done.Add(time.Second)) {
		t.Fatal("the same completion a second later is not a retry")
	}
	if !retriedCompletion(obj, "up", list, done.Add(CompletedUploadRetry)) {
		t.Fatal("the same completion at the end of the window is not a retry")
	}
	if retriedCompletion(obj, "up", list, done.Add(CompletedUploadRetry+time.Second)) {
		t.Fatal("a completion past the window is taken as a retry")
	}
	if retriedCompletion(obj, "other", list, done) {
		t.Fatal("another upload's completion is taken as a retry")
	}
	if retriedCompletion(obj, "up", list[:2], done) {
		t.Fatal("a shorter list is taken as a retry")
	}
	renumbered := []CompletePart{list[0], {Number: 5, ETag: list[1].ETag}, list[2]}
	if retriedCompletion(obj, "up", renumbered, done) {
		t.Fatal("a list with another part number is taken as a retry")
	}
	if retriedCompletion(obj, "up", []CompletePart{{Number: 1, ETag: "nothex"}}, done) {
		t.Fatal("a malformed ETag is taken as a retry")
	}
	marker := obj
	marker.DeleteMarker = true
	if retriedCompletion(marker, "up", list, done) {
		t.Fatal("a delete marker is taken as the upload's object")
	}
	plain := obj
	plain.Meta.UploadID = ""
	if retriedCompletion(plain, "", list, done) {
		t.Fatal("an object of no upload matches an empty upload id")
	}
}
