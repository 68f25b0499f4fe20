package crash

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/ostiumio/ostium/internal/replicator"
	"github.com/ostiumio/ostium/internal/testenv"
)

// TestCrashDuringReplication kills a source node with SIGKILL while it
// takes writes and replicates them to another Ostium (its own data and
// catalog, a remote target), starts it again on the same data, and
// checks that every acknowledged version reaches the target, once, with
// its bytes: the replication queue is written with each version, in its
// transaction, and is delivered at least once, idempotently.
func TestCrashDuringReplication(t *testing.T) {
	ctx := context.Background()
	target := start(t, t.TempDir(), testenv.CatalogURL(t))
	defer target.kill()
	tc := client(target.addr)
	mkVersioned := func(c *s3.Client, name string) {
		t.Helper()
		if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(name)}); err != nil {
			t.Fatal(err)
		}
		if _, err := c.PutBucketVersioning(ctx, &s3.PutBucketVersioningInput{Bucket: aws.String(name),
			VersioningConfiguration: &types.VersioningConfiguration{Status: types.BucketVersioningStatusEnabled}}); err != nil {
			t.Fatal(err)
		}
	}
	mkVersioned(tc, "far")

	data, conf := t.TempDir(), filepath.Join(t.TempDir(), "ostium.yaml")
	catalog := testenv.CatalogURL(t)
	if err := os.WriteFile(conf, []byte("data: "+data+"\njob_lease: 3s\nreplication_poll: 100ms\nreplication_max_backoff: 500ms\nreplication_plain_http: [127.0.0.0/8]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	src := start(t, data, catalog, "--config", conf)
	sc := client(src.addr)
	mkVersioned(sc, "src")
	admin := exec.Command(binary, "admin", "replication", "target", "add", "site2", "http://"+target.addr,
		"--target-access-key", accessKey, "--path-style")
	admin.Env = append(os.Environ(), "OSTIUM_ENDPOINT=http://"+src.addr, "OSTIUM_ROOT_ACCESS_KEY="+accessKey,
		"OSTIUM_ROOT_SECRET_KEY="+secretKey, "OSTIUM_TARGET_SECRET_KEY="+secretKey)
	if out, err := admin.CombinedOutput(); err != nil {
		t.Fatalf("register the target: %v\n%s", err, out)
	}
	_, err := sc.PutBucketReplication(ctx, &s3.PutBucketReplicationInput{Bucket: aws.String("src"), ReplicationConfiguration: &types.ReplicationConfiguration{
		Role: aws.String("arn:aws:iam::000000000000:role/r"),
		Rules: []types.ReplicationRule{{ID: aws.String("all"), Priority: aws.Int32(1), Status: types.ReplicationRuleStatusEnabled,
			Filter:                  &types.ReplicationRuleFilter{Prefix: aws.String("")},
			DeleteMarkerReplication: &types.DeleteMarkerReplication{Status: types.DeleteMarkerReplicationStatusDisabled},
			Destination:             &types.Destination{Bucket: aws.String("arn:ostium:replication::site2:far")}}}}})
	if err != nil {
		t.Fatal(err)
	}

	// Writers until the kill; what was acknowledged is what must arrive.
	var mu sync.Mutex
	acked := map[string]string{} // key -> version id
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				key := fmt.Sprintf("w%d-%04d", w, i)
				out, err := sc.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("src"), Key: aws.String(key), Body: bytes.NewReader(content(key, 1))})
				if err != nil {
					return // the server died under it: not acknowledged
				}
				mu.Lock()
				acked[key] = aws.ToString(out.VersionId)
				mu.Unlock()
			}
		}()
	}
	time.Sleep(3 * time.Second)
	src.kill()
	close(stop)
	wg.Wait()
	if len(acked) == 0 {
		t.Fatal("nothing was acknowledged before the kill")
	}
	t.Logf("%d versions acknowledged before SIGKILL", len(acked))

	src = start(t, data, catalog, "--config", conf)
	defer src.kill()
	sc = client(src.addr)
	deadline := time.Now().Add(3 * time.Minute)
	for {
		n := 0
		for key, v := range acked {
			h, err := sc.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String("src"), Key: aws.String(key), VersionId: aws.String(v)})
			if err != nil {
				t.Fatalf("acknowledged %s lost at the source: %v", key, err)
			}
			if h.ReplicationStatus == types.ReplicationStatusCompleted {
				n++
			} else if h.ReplicationStatus != types.ReplicationStatusPending {
				t.Fatalf("%s: status %q", key, h.ReplicationStatus)
			}
		}
		if n == len(acked) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d versions replicated after 3 minutes", n, len(acked))
		}
		time.Sleep(500 * time.Millisecond)
	}
	// Each acknowledged version is at the target once, with its bytes.
	seen := map[string]int{}
	p := s3.NewListObjectVersionsPaginator(tc, &s3.ListObjectVersionsInput{Bucket: aws.String("far")})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range page.Versions {
			seen[aws.ToString(v.Key)]++
		}
	}
	for key, v := range acked {
		if seen[key] != 1 {
			t.Errorf("%s is at the target %d times", key, seen[key])
			continue
		}
		out, err := tc.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("far"), Key: aws.String(key)})
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		b.ReadFrom(out.Body)
		out.Body.Close()
		if !bytes.Equal(b.Bytes(), content(key, 1)) || out.Metadata[replicator.MetaSourceVersion] != v {
			t.Errorf("%s at the target: %d bytes, source version %q", key, b.Len(), out.Metadata[replicator.MetaSourceVersion])
		}
	}
	// Writes the kill cut short may have committed unacknowledged; they
	// are replicated too, never half.
	for key, n := range seen {
		if _, ok := acked[key]; !ok && (n != 1 || !strings.HasPrefix(key, "w")) {
			t.Errorf("unexpected %s (%d) at the target", key, n)
		}
	}
}
