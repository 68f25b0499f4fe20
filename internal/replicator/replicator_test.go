package replicator_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"

	"github.com/ostiumio/ostium/internal/admin"
	"github.com/ostiumio/ostium/internal/node"
	"github.com/ostiumio/ostium/internal/node/nodetest"
	"github.com/ostiumio/ostium/internal/replicator"
	"github.com/ostiumio/ostium/internal/testenv"
)

var ctx = context.Background()

// fast makes the worker poll and retry within moments, and lets remote
// targets on loopback be plain http, as a provider may allow for a
// network of its own.
func fast(c *node.Config) {
	c.Replication = node.ReplicationConfig{Poll: 50 * time.Millisecond, MaxBackoff: 300 * time.Millisecond,
		BackfillInterval: 300 * time.Millisecond, PlainHTTP: []string{"127.0.0.0/8"}}
	c.Metrics.Allow = []string{"127.0.0.0/8"}
}

// metric returns the value of a series /metrics exports ("" if none).
func metric(t *testing.T, srv *nodetest.Server, series string) string {
	t.Helper()
	resp, err := srv.Client().Get(srv.URL + "/metrics")
	must(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	must(t, err)
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, series+" "); ok {
			return v
		}
	}
	return ""
}

func start(t *testing.T) *nodetest.Server {
	return nodetest.Start(t, nodetest.Options{Config: fast})
}

func client(srv *nodetest.Server, ak, sk string) *s3.Client {
	return s3.New(s3.Options{Region: "us-east-1", BaseEndpoint: aws.String(srv.URL), UsePathStyle: true,
		Credentials: credentials.NewStaticCredentialsProvider(ak, sk, ""), HTTPClient: srv.Client()})
}

func root(srv *nodetest.Server) *s3.Client {
	return client(srv, nodetest.AccessKey, nodetest.SecretKey)
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func versioned(t *testing.T, c *s3.Client, buckets ...string) {
	t.Helper()
	for _, b := range buckets {
		_, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(b)})
		must(t, err)
		_, err = c.PutBucketVersioning(ctx, &s3.PutBucketVersioningInput{Bucket: aws.String(b),
			VersioningConfiguration: &types.VersioningConfiguration{Status: types.BucketVersioningStatusEnabled}})
		must(t, err)
	}
}

// rule is a current-schema rule replicating everything (delete markers
// too) to arn.
func config(arn string, existing bool) *types.ReplicationConfiguration {
	r := types.ReplicationRule{ID: aws.String("all"), Priority: aws.Int32(1), Status: types.ReplicationRuleStatusEnabled,
		Filter:                  &types.ReplicationRuleFilter{Prefix: aws.String("")},
		DeleteMarkerReplication: &types.DeleteMarkerReplication{Status: types.DeleteMarkerReplicationStatusEnabled},
		Destination:             &types.Destination{Bucket: aws.String(arn)}}
	if existing {
		r.ExistingObjectReplication = &types.ExistingObjectReplication{Status: types.ExistingObjectReplicationStatusEnabled}
	}
	return &types.ReplicationConfiguration{Role: aws.String("arn:aws:iam::000000000000:role/replication"), Rules: []types.ReplicationRule{r}}
}

func putConfig(c *s3.Client, bucket string, cfg *types.ReplicationConfiguration) error {
	_, err := c.PutBucketReplication(ctx, &s3.PutBucketReplicationInput{Bucket: aws.String(bucket), ReplicationConfiguration: cfg})
	return err
}

func code(err error) string {
	var ae smithy.APIError
	if errors.As(err, &ae) {
		return ae.ErrorCode()
	}
	return ""
}

// eventually polls cond for up to a minute (the machine is loaded).
func eventually(t *testing.T, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	last := ""
	for time.Now().Before(deadline) {
		ok, state := cond()
		if ok {
			return
		}
		last = state
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("%s: still %s after a minute", what, last)
}

func status(t *testing.T, c *s3.Client, bucket, key, version string) types.ReplicationStatus {
	t.Helper()
	in := &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)}
	if version != "" {
		in.VersionId = aws.String(version)
	}
	h, err := c.HeadObject(ctx, in)
	must(t, err)
	return h.ReplicationStatus
}

func get(t *testing.T, c *s3.Client, bucket, key, version string) (*s3.GetObjectOutput, []byte) {
	t.Helper()
	in := &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)}
	if version != "" {
		in.VersionId = aws.String(version)
	}
	out, err := c.GetObject(ctx, in)
	must(t, err)
	defer out.Body.Close()
	b, err := io.ReadAll(out.Body)
	must(t, err)
	return out, b
}

// The configuration API answers as AWS: 404
// ReplicationConfigurationNotFoundError with none, InvalidRequest while
// the source or the destination is not versioned or the destination
// does not exist, and a configuration read back as written.
func TestReplicationConfigurationAPI(t *testing.T) {
	srv := start(t)
	c := root(srv)
	_, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("plain")})
	must(t, err)
	versioned(t, c, "src", "dst")
	_, err = c.GetBucketReplication(ctx, &s3.GetBucketReplicationInput{Bucket: aws.String("src")})
	if code(err) != "ReplicationConfigurationNotFoundError" {
		t.Fatalf("GET with none: %v", err)
	}
	for _, tc := range []struct{ bucket, arn, code string }{
		{"plain", "arn:aws:s3:::dst", "InvalidRequest"}, // source not versioned
		{"src", "arn:aws:s3:::plain", "InvalidRequest"}, // destination not versioned
		{"src", "arn:aws:s3:::nowhere", "InvalidRequest"},
		{"src", "arn:ostium:replication::unregistered:b", "InvalidRequest"},
		{"src", "dst", "InvalidArgument"},
	} {
		if err := putConfig(c, tc.bucket, config(tc.arn, false)); code(err) != tc.code {
			t.Errorf("%s -> %s: %v, want %s", tc.bucket, tc.arn, err, tc.code)
		}
	}
	must(t, putConfig(c, "src", config("arn:aws:s3:::dst", true)))
	got, err := c.GetBucketReplication(ctx, &s3.GetBucketReplicationInput{Bucket: aws.String("src")})
	must(t, err)
	r := got.ReplicationConfiguration.Rules
	if aws.ToString(got.ReplicationConfiguration.Role) != "arn:aws:iam::000000000000:role/replication" || len(r) != 1 ||
		aws.ToString(r[0].Destination.Bucket) != "arn:aws:s3:::dst" || r[0].ExistingObjectReplication.Status != types.ExistingObjectReplicationStatusEnabled {
		t.Fatalf("read back %+v", got.ReplicationConfiguration)
	}
	_, err = c.DeleteBucketReplication(ctx, &s3.DeleteBucketReplicationInput{Bucket: aws.String("src")})
	must(t, err)
	_, err = c.GetBucketReplication(ctx, &s3.GetBucketReplicationInput{Bucket: aws.String("src")})
	if code(err) != "ReplicationConfigurationNotFoundError" {
		t.Fatalf("GET after DELETE: %v", err)
	}
}

// Replication to a bucket of the same Ostium: the replica keeps the
// version id, bytes, metadata and tags, and says REPLICA; the source
// goes from PENDING to COMPLETED; a delete marker follows (with
// DeleteMarkerReplication), a version's removal does not (as AWS);
// existing versions follow with ExistingObjectReplication; an SSE-S3
// version is sealed again at the destination.
func TestReplicateWithinOstium(t *testing.T) {
	srv := start(t)
	c := root(srv)
	versioned(t, c, "src", "dst")
	old, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("src"), Key: aws.String("before"), Body: strings.NewReader("old")})
	must(t, err)
	must(t, putConfig(c, "src", config("arn:aws:s3:::dst", true)))

	put, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("src"), Key: aws.String("docs/a.txt"),
		Body: strings.NewReader("hello replica"), ContentType: aws.String("text/plain"),
		Metadata: map[string]string{"colour": "blue"}, Tagging: aws.String("team=ops")})
	must(t, err)
	v := aws.ToString(put.VersionId)
	if s := status(t, c, "src", "docs/a.txt", v); s != types.ReplicationStatusPending && s != types.ReplicationStatusCompleted {
		t.Fatalf("source status right after the write: %q", s)
	}
	eventually(t, "source COMPLETED", func() (bool, string) {
		s := status(t, c, "src", "docs/a.txt", v)
		return s == types.ReplicationStatusCompleted, string(s)
	})
	out, body := get(t, c, "dst", "docs/a.txt", v)
	if string(body) != "hello replica" || aws.ToString(out.ContentType) != "text/plain" || out.Metadata["colour"] != "blue" ||
		out.ReplicationStatus != types.ReplicationStatusReplica || aws.ToString(out.VersionId) != v {
		t.Fatalf("replica: %q %q %v %q version %q", body, aws.ToString(out.ContentType), out.Metadata, out.ReplicationStatus, aws.ToString(out.VersionId))
	}
	tags, err := c.GetObjectTagging(ctx, &s3.GetObjectTaggingInput{Bucket: aws.String("dst"), Key: aws.String("docs/a.txt")})
	must(t, err)
	if len(tags.TagSet) != 1 || aws.ToString(tags.TagSet[0].Key) != "team" {
		t.Fatalf("replica's tags: %+v", tags.TagSet)
	}
	// Existing versions (ExistingObjectReplication) arrive by the backfill.
	eventually(t, "existing version replicated", func() (bool, string) {
		_, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String("dst"), Key: aws.String("before"), VersionId: old.VersionId})
		return err == nil, fmt.Sprint(err)
	})

	// A delete marker is replicated; the removal of a version is not.
	del, err := c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String("src"), Key: aws.String("docs/a.txt")})
	must(t, err)
	eventually(t, "delete marker replicated", func() (bool, string) {
		vs, err := c.ListObjectVersions(ctx, &s3.ListObjectVersionsInput{Bucket: aws.String("dst"), Prefix: aws.String("docs/")})
		must(t, err)
		for _, m := range vs.DeleteMarkers {
			if aws.ToString(m.VersionId) == aws.ToString(del.VersionId) {
				return true, ""
			}
		}
		return false, fmt.Sprintf("%d markers", len(vs.DeleteMarkers))
	})
	_, err = c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String("src"), Key: aws.String("docs/a.txt"), VersionId: aws.String(v)})
	must(t, err)
	// SSE-S3: a version encrypted at the source is replicated, and the
	// replica is sealed under the destination's tenant key.
	_, err = c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("src"), Key: aws.String("secret"), Body: strings.NewReader("sealed"),
		ServerSideEncryption: types.ServerSideEncryptionAes256})
	must(t, err)
	eventually(t, "SSE-S3 version replicated", func() (bool, string) {
		h, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String("dst"), Key: aws.String("secret")})
		if err != nil {
			return false, err.Error()
		}
		return h.ServerSideEncryption == types.ServerSideEncryptionAes256, string(h.ServerSideEncryption)
	})
	if _, b := get(t, c, "dst", "secret", ""); string(b) != "sealed" {
		t.Fatalf("SSE-S3 replica reads %q", b)
	}
	// The version removed at the source is still at the destination.
	if _, b := get(t, c, "dst", "docs/a.txt", v); string(b) != "hello replica" {
		t.Fatalf("the replica of a removed version: %q", b)
	}
	// A replica is not replicated again (dst has no configuration, and
	// would not send REPLICA versions on without ReplicaModifications).
	var br admin.BucketReplication
	ac := admin.NewClient(srv.URL, nodetest.AccessKey, nodetest.SecretKey, srv.Client())
	// Its event is acknowledged just after the status is recorded.
	eventually(t, "backlog empty", func() (bool, string) {
		must(t, ac.Do(ctx, "GET", "/buckets/src/replication", nil, &br))
		return br.Backlog == 0, fmt.Sprint(br.Backlog)
	})
	if !br.Configured || len(br.Destinations) != 1 || br.Destinations[0] != "arn:aws:s3:::dst" {
		t.Fatalf("admin view of src: %+v", br)
	}
}

// A tenant cannot replicate into another tenant's bucket: the
// configuration is refused with AccessDenied, as the writer may not
// write there; into its own bucket it may.
func TestTenantCannotReplicateIntoAnotherTenant(t *testing.T) {
	srv := start(t)
	ac := admin.NewClient(srv.URL, nodetest.AccessKey, nodetest.SecretKey, srv.Client())
	keys := map[string]admin.Key{}
	for _, tn := range []string{"acme", "beta"} {
		must(t, ac.Do(ctx, "POST", "/tenants", map[string]string{"name": tn}, nil))
		must(t, ac.Do(ctx, "POST", "/tenants/"+tn+"/users", map[string]string{"name": "ann", "role": "admin"}, nil))
		var k admin.Key
		must(t, ac.Do(ctx, "POST", "/tenants/"+tn+"/users/ann/keys", nil, &k))
		keys[tn] = k
	}
	acme := client(srv, keys["acme"].AccessKey, keys["acme"].SecretKey)
	beta := client(srv, keys["beta"].AccessKey, keys["beta"].SecretKey)
	versioned(t, acme, "acme-src", "acme-dst")
	versioned(t, beta, "beta-dst")
	if err := putConfig(acme, "acme-src", config("arn:aws:s3:::beta-dst", false)); code(err) != "AccessDenied" {
		t.Fatalf("into another tenant's bucket: %v", err)
	}
	must(t, putConfig(acme, "acme-src", config("arn:aws:s3:::acme-dst", false)))
	_, err := acme.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("acme-src"), Key: aws.String("k"), Body: strings.NewReader("x")})
	must(t, err)
	eventually(t, "own replica", func() (bool, string) {
		_, err := acme.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String("acme-dst"), Key: aws.String("k")})
		return err == nil, fmt.Sprint(err)
	})
	// Nor through a remote target of another tenant's.
	must(t, ac.Do(ctx, "POST", "/tenants/beta/replication-targets", map[string]any{"name": "site2",
		"endpoint": srv.URL, "access_key": "x", "secret_key": "y", "path_style": true}, nil))
	if err := putConfig(acme, "acme-src", config("arn:ostium:replication::site2:x", false)); code(err) != "InvalidRequest" {
		t.Fatalf("through beta's target: %v", err)
	}
}

// flaky is a proxy to a target that can be taken down (503, as a
// platform in trouble answers) and brought back.
type flaky struct {
	*httptest.Server
	down atomic.Bool
}

func newFlaky(t *testing.T, target string) *flaky {
	u, err := url.Parse(target)
	must(t, err)
	f := &flaky{}
	p := httputil.NewSingleHostReverseProxy(u)
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if f.down.Load() {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		p.ServeHTTP(w, r)
	}))
	t.Cleanup(f.Close)
	return f
}

// Another Ostium (its own catalog) as a remote target, reached through
// a proxy that goes down: what is written while it is down waits
// (PENDING), nothing is lost, and when it comes back everything
// arrives, once; the source node is closed mid-backlog and reopened,
// and catches up. An SSE-S3 version is never sent over plain http
// (FAILED).
func TestRemoteTargetDownAndCrash(t *testing.T) {
	dst := nodetest.Start(t, nodetest.Options{})
	rc := root(dst)
	versioned(t, rc, "far")
	proxy := newFlaky(t, dst.URL)

	src := start(t)
	c := root(src)
	versioned(t, c, "src")
	ac := admin.NewClient(src.URL, nodetest.AccessKey, nodetest.SecretKey, src.Client())
	var tg admin.ReplicationTarget
	must(t, ac.Do(ctx, "POST", "/replication-targets", map[string]any{"name": "site2", "endpoint": proxy.URL,
		"access_key": nodetest.AccessKey, "secret_key": nodetest.SecretKey, "path_style": true}, &tg))
	if tg.ARN != "arn:ostium:replication::site2:BUCKET" {
		t.Fatalf("target's ARN %q", tg.ARN)
	}
	must(t, putConfig(c, "src", config("arn:ostium:replication::site2:far", false)))

	proxy.down.Store(true)
	const n = 20
	versions := map[string]string{}
	for i := range n {
		key := fmt.Sprintf("k%02d", i)
		out, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("src"), Key: aws.String(key),
			Body: bytes.NewReader([]byte("body of " + key)), Metadata: map[string]string{"n": key}})
		must(t, err)
		versions[key] = aws.ToString(out.VersionId)
	}
	// Down: tried, and still waiting.
	time.Sleep(time.Second)
	if s := status(t, c, "src", "k00", ""); s != types.ReplicationStatusPending {
		t.Fatalf("status while the target is down: %q", s)
	}
	var br admin.BucketReplication
	must(t, ac.Do(ctx, "GET", "/buckets/src/replication", nil, &br))
	if br.Backlog != n || br.LagSeconds <= 0 {
		t.Fatalf("backlog while down: %+v", br)
	}
	if v := metric(t, src, `ostium_replication_backlog{bucket="src"}`); v != fmt.Sprint(n) {
		t.Fatalf("backlog metric while down: %q", v)
	}
	if v := metric(t, src, `ostium_replication_objects_total{bucket="src",outcome="retried"}`); v == "" || v == "0" {
		t.Fatalf("no retry counted while down: %q", v)
	}
	// The node closes mid-backlog and a new one opens on its data and
	// catalog; then the target comes back.
	src.Stop()
	again := nodetest.StartPeer(t, src, nodetest.Options{Config: fast})
	c = root(again)
	proxy.down.Store(false)
	for key, v := range versions {
		eventually(t, key+" replicated", func() (bool, string) {
			s := status(t, c, "src", key, v)
			return s == types.ReplicationStatusCompleted, string(s)
		})
	}
	if v := metric(t, again, `ostium_replication_objects_total{bucket="src",outcome="completed"}`); v != fmt.Sprint(n) {
		t.Fatalf("completed metric: %q", v)
	}
	listed, err := rc.ListObjectVersions(ctx, &s3.ListObjectVersionsInput{Bucket: aws.String("far")})
	must(t, err)
	if len(listed.Versions) != n {
		t.Fatalf("the target holds %d versions, want %d (each once)", len(listed.Versions), n)
	}
	out, body := get(t, rc, "far", "k07", "")
	if string(body) != "body of k07" || out.Metadata["n"] != "k07" || out.Metadata[replicator.MetaSourceVersion] != versions["k07"] {
		t.Fatalf("remote replica: %q %v", body, out.Metadata)
	}
	// A delete marker reaches the remote too.
	_, err = c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String("src"), Key: aws.String("k01")})
	must(t, err)
	eventually(t, "remote delete marker", func() (bool, string) {
		_, err := rc.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String("far"), Key: aws.String("k01")})
		return err != nil, "still there"
	})
	// Plain http: an encrypted version is never sent.
	_, err = c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("src"), Key: aws.String("secret"), Body: strings.NewReader("s"),
		ServerSideEncryption: types.ServerSideEncryptionAes256})
	must(t, err)
	eventually(t, "encrypted version FAILED over http", func() (bool, string) {
		s := status(t, c, "src", "secret", "")
		return s == types.ReplicationStatusFailed, string(s)
	})
	if _, err := rc.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String("far"), Key: aws.String("secret")}); err == nil {
		t.Fatal("an encrypted version went over plain http")
	}
}

// Replication to an S3 endpoint that is not Ostium (moto's server): the
// versions, their bytes and metadata reach it, each once, and the source
// says COMPLETED; a delete marker follows.
func TestReplicateToAnotherS3Server(t *testing.T) {
	endpoint := testenv.Moto(t)
	far := s3.New(s3.Options{Region: "us-east-1", BaseEndpoint: aws.String(endpoint), UsePathStyle: true,
		Credentials: credentials.NewStaticCredentialsProvider("testing", "testing", "")})
	versioned(t, far, "far")

	src := start(t)
	c := root(src)
	versioned(t, c, "src")
	ac := admin.NewClient(src.URL, nodetest.AccessKey, nodetest.SecretKey, src.Client())
	must(t, ac.Do(ctx, "POST", "/replication-targets", map[string]any{"name": "moto", "endpoint": endpoint,
		"access_key": "testing", "secret_key": "testing", "path_style": true}, nil))
	must(t, putConfig(c, "src", config("arn:ostium:replication::moto:far", false)))
	versions := map[string]string{}
	for i := range 5 {
		key := fmt.Sprintf("k%d", i)
		out, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("src"), Key: aws.String(key),
			Body: strings.NewReader("body of " + key), Metadata: map[string]string{"n": key}, ContentType: aws.String("text/plain")})
		must(t, err)
		versions[key] = aws.ToString(out.VersionId)
	}
	for key, v := range versions {
		eventually(t, key+" replicated", func() (bool, string) {
			s := status(t, c, "src", key, v)
			return s == types.ReplicationStatusCompleted, string(s)
		})
	}
	for key := range versions {
		out, body := get(t, far, "far", key, "")
		if string(body) != "body of "+key || out.Metadata["n"] != key || aws.ToString(out.ContentType) != "text/plain" {
			t.Fatalf("%s at the far end: %q %v %q", key, body, out.Metadata, aws.ToString(out.ContentType))
		}
	}
	listed, err := far.ListObjectVersions(ctx, &s3.ListObjectVersionsInput{Bucket: aws.String("far")})
	must(t, err)
	if len(listed.Versions) != len(versions) {
		t.Fatalf("the far end holds %d versions, want %d (each once)", len(listed.Versions), len(versions))
	}
	_, err = c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String("src"), Key: aws.String("k1")})
	must(t, err)
	eventually(t, "delete marker at the far end", func() (bool, string) {
		_, err := far.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String("far"), Key: aws.String("k1")})
		return err != nil, "still there"
	})
}

// A tenant's target must be at a public address (or in a network the
// provider allows): registering one on loopback is refused for a tenant,
// and allowed for the provider, whose own sites may be anywhere.
func TestTenantTargetMustBePublic(t *testing.T) {
	srv := nodetest.Start(t, nodetest.Options{}) // no network allowed
	ac := admin.NewClient(srv.URL, nodetest.AccessKey, nodetest.SecretKey, srv.Client())
	must(t, ac.Do(ctx, "POST", "/tenants", map[string]string{"name": "acme"}, nil))
	in := map[string]any{"name": "inside", "endpoint": "https://127.0.0.1:8443", "access_key": "a", "secret_key": "s"}
	err := ac.Do(ctx, "POST", "/tenants/acme/replication-targets", in, nil)
	var ae *admin.Error
	if !errors.As(err, &ae) || ae.Status != http.StatusBadRequest || !strings.Contains(ae.Message, "public address") {
		t.Fatalf("a tenant's target on loopback: %v", err)
	}
	must(t, ac.Do(ctx, "POST", "/replication-targets", in, nil))
}
