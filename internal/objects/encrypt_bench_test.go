package objects_test

import (
	"fmt"
	"io"
	"testing"

	"github.com/ostiumio/ostium/internal/objects"
)

// BenchmarkGetSealed is an encrypted GET's cost in the object service
// alone, against a plain one on the same node: the lookup, the data key
// (unwrapped by the keyring, or opened with the customer's key), the
// segment key, and the bytes copied to a writer as the S3 layer's
// io.Copy does (bench/sse_test.go measures the node over HTTP).
//
//	go test ./internal/objects -run '^$' -bench GetSealed -benchmem
func BenchmarkGetSealed(b *testing.B) {
	e := newEncEnv(b)
	for _, size := range []int{4 << 10, 1 << 20} {
		data := randBytes(size)
		for _, kind := range []string{"plain", objects.KindS3, objects.KindSSEC} {
			key := fmt.Sprintf("bench-%s-%d", kind, size)
			e.put(b, key, data, request(kind))
			b.Run(fmt.Sprintf("size=%dKiB/kind=%s", size>>10, kind), func(b *testing.B) {
				b.SetBytes(int64(size))
				b.ReportAllocs()
				in := objects.GetInput{Bucket: "enc", Key: key, CustomerKey: readKey(kind)}
				for b.Loop() {
					r, err := e.svc.GetObject(e.ctx, e.root, in, false)
					if err != nil {
						b.Fatal(err)
					}
					n, err := io.Copy(discard{}, r.Body)
					r.Body.Close()
					if err != nil || n != int64(size) {
						b.Fatalf("read %d bytes: %v", n, err)
					}
				}
			})
		}
	}
}

// discard is io.Discard without its ReadFrom, so that io.Copy takes the
// reader's WriteTo (or Read), as it does into a response writer.
type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
