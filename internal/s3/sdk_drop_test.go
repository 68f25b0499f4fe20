package s3_test

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/ostiumio/ostium/internal/node/nodetest"
)

// A client that drops the connection halfway through an upload leaves no
// object, and no blob behind it.
func TestClientDropsMidUpload(t *testing.T) {
	srv := nodetest.Start(t, nodetest.Options{})
	c := client(t, srv, srv.URL, false)
	ctx := context.Background()
	if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("drop")}); err != nil {
		t.Fatal(err)
	}
	const size = 4 << 20
	req, _ := http.NewRequest("PUT", srv.URL+"/drop/half", bytes.NewReader(make([]byte, size)))
	req.Header.Set("X-Amz-Content-Sha256", "UNSIGNED-PAYLOAD")
	err := v4.NewSigner().SignHTTP(ctx, aws.Credentials{AccessKeyID: nodetest.AccessKey, SecretAccessKey: nodetest.SecretKey},
		req, "UNSIGNED-PAYLOAD", "s3", "us-east-1", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(conn, "PUT /drop/half HTTP/1.1\r\nHost: %s\r\nContent-Length: %d\r\n", req.Host, size)
	for k, vs := range req.Header {
		fmt.Fprintf(conn, "%s: %s\r\n", k, vs[0])
	}
	conn.Write([]byte("\r\n"))
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
