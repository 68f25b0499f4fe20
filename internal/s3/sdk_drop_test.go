package s3_test

import (
	"context"
	"io/fs"
	"net"
	"path/filepath"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/ostiumio/ostium/internal/node/nodetest"
)

// A client that drops the connection halfway through an upload leaves no
// object, and no blob behind it.
func TestClientDropsMidUpload(t *testing.T) {
	c, srv := nodeWithBucket(t, nodetest.Options{}, "drop")
	ctx := context.Background()
	const size = 4 << 20
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	writeSignedPut(t, conn, srv, "/drop/half", size, nil)
	conn.Write(make([]byte, size/2))
	time.Sleep(100 * time.Millisecond) // let the server start writing its blob
	conn.Close()

	deadline := time.Now().Add(10 * time.Second)
	for {
		_, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String("drop"), Key: aws.String("half")})
		if apiCode(err) != "NotFound" {
			t.Fatalf("after a dropped upload, HEAD says %v", err)
		}
		if n := countFiles(t, filepath.Join(srv.Dir, "blobs")); n == 0 {
			return
		} else if time.Now().After(deadline) {
			t.Fatalf("%d blob files left by the dropped upload", n)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func countFiles(t *testing.T, dir string) int {
	n := 0
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			n++
		}
		return nil
	})
	return n
}
