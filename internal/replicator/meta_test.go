package replicator_test

import (
	"fmt"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/ostiumio/ostium/internal/admin"
	"github.com/ostiumio/ostium/internal/node/nodetest"
	"github.com/ostiumio/ostium/internal/replicator"
	"github.com/ostiumio/ostium/internal/testenv"
)

// tagsOf reads a version's tags ("" = current) as a map.
func tagsOf(t *testing.T, c *s3.Client, bucket, key, version string) map[string]string {
	t.Helper()
	in := &s3.GetObjectTaggingInput{Bucket: aws.String(bucket), Key: aws.String(key)}
	if version != "" {
		in.VersionId = aws.String(version)
	}
	out, err := c.GetObjectTagging(ctx, in)
	must(t, err)
	m := map[string]string{}
	for _, tg := range out.TagSet {
		m[aws.ToString(tg.Key)] = aws.ToString(tg.Value)
	}
	return m
}

func putTags(t *testing.T, c *s3.Client, bucket, key, version string, tags map[string]string) {
	t.Helper()
	in := &s3.PutObjectTaggingInput{Bucket: aws.String(bucket), Key: aws.String(key), Tagging: &types.Tagging{}}
	if version != "" {
		in.VersionId = aws.String(version)
	}
	for k, v := range tags {
		in.Tagging.TagSet = append(in.Tagging.TagSet, types.Tag{Key: aws.String(k), Value: aws.String(v)})
	}
	_, err := c.PutObjectTagging(ctx, in)
	must(t, err)
}

// waitTags waits until a version's tags are want.
func waitTags(t *testing.T, c *s3.Client, bucket, key, version string, want map[string]string) {
	t.Helper()
	eventually(t, fmt.Sprintf("%s/%s tags %v", bucket, key, want), func() (bool, string) {
		got := tagsOf(t, c, bucket, key, version)
		return maps.Equal(got, want), fmt.Sprint(got)
	})
}

func waitStatus(t *testing.T, c *s3.Client, bucket, key, version string, want types.ReplicationStatus) {
	t.Helper()
	eventually(t, fmt.Sprintf("%s/%s %s", bucket, key, want), func() (bool, string) {
		s := status(t, c, bucket, key, version)
		return s == want, string(s)
	})
}

// backlog is a bucket's replication backlog, as the admin API tells it.
func backlog(t *testing.T, ac *admin.Client, bucket string) int64 {
	t.Helper()
	var br admin.BucketReplication
	must(t, ac.Do(ctx, "GET", "/buckets/"+bucket+"/replication", nil, &br))
	return br.Backlog
}

// completed is how many deliveries of a bucket's events the node has
// counted (0 for none).
func completed(t *testing.T, srv *nodetest.Server, bucket string) string {
	t.Helper()
	v := metric(t, srv, `ostium_replication_objects_total{bucket="`+bucket+`",outcome="completed"}`)
	if v == "" {
		v = "0"
	}
	return v
}

// openACLs lets a bucket's objects carry ACLs, public ones included.
func openACLs(t *testing.T, c *s3.Client, buckets ...string) {
	t.Helper()
	for _, b := range buckets {
		_, err := c.PutBucketOwnershipControls(ctx, &s3.PutBucketOwnershipControlsInput{Bucket: aws.String(b),
			OwnershipControls: &types.OwnershipControls{Rules: []types.OwnershipControlsRule{{ObjectOwnership: types.ObjectOwnershipObjectWriter}}}})
		must(t, err)
		_, err = c.DeletePublicAccessBlock(ctx, &s3.DeletePublicAccessBlockInput{Bucket: aws.String(b)})
		must(t, err)
	}
}

// publicRead tells whether an ACL lets everyone read.
func publicRead(grants []types.Grant) bool {
	for _, g := range grants {
		if g.Grantee != nil && aws.ToString(g.Grantee.URI) == "http://acs.amazonaws.com/groups/global/AllUsers" && g.Permission == types.PermissionRead {
			return true
		}
	}
	return false
}

// Changes made to a replicated version after it was written reach its
// replica in another bucket of the same Ostium: tags (put, changed twice
// quickly and ending as the last change, removed), ACL, retention
// extended, legal hold on and off. The source goes back to PENDING with
// each change and to COMPLETED once it is delivered; the replica stays
// REPLICA. A change to a version no rule matches queues nothing.
func TestReplicateMetadataChanges(t *testing.T) {
	srv := start(t)
	c := root(srv)
	ac := admin.NewClient(srv.URL, nodetest.AccessKey, nodetest.SecretKey, srv.Client())
	for _, b := range []string{"src", "dst"} {
		_, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(b), ObjectLockEnabledForBucket: aws.Bool(true)})
		must(t, err)
	}
	openACLs(t, c, "src", "dst")
	cfg := config("arn:aws:s3:::dst", false)
	cfg.Rules[0].Filter.Prefix = aws.String("docs/")
	must(t, putConfig(c, "src", cfg))

	until := time.Now().Add(time.Hour).UTC().Truncate(time.Second)
	put, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("src"), Key: aws.String("docs/a"), Body: strings.NewReader("a"),
		Tagging: aws.String("team=ops"), ChecksumAlgorithm: types.ChecksumAlgorithmCrc32, ObjectLockMode: types.ObjectLockModeGovernance, ObjectLockRetainUntilDate: aws.Time(until)})
	must(t, err)
	v := aws.ToString(put.VersionId)
	waitStatus(t, c, "src", "docs/a", v, types.ReplicationStatusCompleted)
	if got := tagsOf(t, c, "dst", "docs/a", v); !maps.Equal(got, map[string]string{"team": "ops"}) {
		t.Fatalf("replica's tags as written: %v", got)
	}

	// Tags: the source is PENDING until the change is delivered.
	putTags(t, c, "src", "docs/a", "", map[string]string{"team": "dev", "env": "prod"})
	if s := status(t, c, "src", "docs/a", v); s != types.ReplicationStatusPending && s != types.ReplicationStatusCompleted {
		t.Fatalf("status right after the change: %q", s)
	}
	waitTags(t, c, "dst", "docs/a", v, map[string]string{"team": "dev", "env": "prod"})
	waitStatus(t, c, "src", "docs/a", v, types.ReplicationStatusCompleted)
	if s := status(t, c, "dst", "docs/a", v); s != types.ReplicationStatusReplica {
		t.Fatalf("replica's status after the change: %q", s)
	}
	// Twice quickly: the replica ends as the last change, and stays so
	// once every event is delivered.
	putTags(t, c, "src", "docs/a", v, map[string]string{"n": "1"})
	putTags(t, c, "src", "docs/a", v, map[string]string{"n": "2"})
	eventually(t, "backlog drained", func() (bool, string) {
		n := backlog(t, ac, "src")
		return n == 0, fmt.Sprint(n)
	})
	if got := tagsOf(t, c, "dst", "docs/a", v); !maps.Equal(got, map[string]string{"n": "2"}) {
		t.Fatalf("replica's tags after two quick changes: %v", got)
	}
	_, err = c.DeleteObjectTagging(ctx, &s3.DeleteObjectTaggingInput{Bucket: aws.String("src"), Key: aws.String("docs/a")})
	must(t, err)
	waitTags(t, c, "dst", "docs/a", v, map[string]string{})

	// ACL.
	_, err = c.PutObjectAcl(ctx, &s3.PutObjectAclInput{Bucket: aws.String("src"), Key: aws.String("docs/a"), ACL: types.ObjectCannedACLPublicRead})
	must(t, err)
	eventually(t, "replica's ACL public-read", func() (bool, string) {
		acl, err := c.GetObjectAcl(ctx, &s3.GetObjectAclInput{Bucket: aws.String("dst"), Key: aws.String("docs/a"), VersionId: aws.String(v)})
		must(t, err)
		return publicRead(acl.Grants), fmt.Sprint(len(acl.Grants), " grants")
	})

	// Retention extended.
	later := until.Add(time.Hour)
	_, err = c.PutObjectRetention(ctx, &s3.PutObjectRetentionInput{Bucket: aws.String("src"), Key: aws.String("docs/a"), VersionId: aws.String(v),
		Retention: &types.ObjectLockRetention{Mode: types.ObjectLockRetentionModeGovernance, RetainUntilDate: aws.Time(later)}})
	must(t, err)
	eventually(t, "replica's retention extended", func() (bool, string) {
		r, err := c.GetObjectRetention(ctx, &s3.GetObjectRetentionInput{Bucket: aws.String("dst"), Key: aws.String("docs/a"), VersionId: aws.String(v)})
		must(t, err)
		got := aws.ToTime(r.Retention.RetainUntilDate)
		return got.Equal(later), got.String()
	})

	// Legal hold on, then off.
	for _, st := range []types.ObjectLockLegalHoldStatus{types.ObjectLockLegalHoldStatusOn, types.ObjectLockLegalHoldStatusOff} {
		_, err = c.PutObjectLegalHold(ctx, &s3.PutObjectLegalHoldInput{Bucket: aws.String("src"), Key: aws.String("docs/a"), VersionId: aws.String(v),
			LegalHold: &types.ObjectLockLegalHold{Status: st}})
		must(t, err)
		eventually(t, "replica's legal hold "+string(st), func() (bool, string) {
			h, err := c.GetObjectLegalHold(ctx, &s3.GetObjectLegalHoldInput{Bucket: aws.String("dst"), Key: aws.String("docs/a"), VersionId: aws.String(v)})
			if err != nil {
				return false, err.Error()
			}
			return h.LegalHold.Status == st, string(h.LegalHold.Status)
		})
	}
	waitStatus(t, c, "src", "docs/a", v, types.ReplicationStatusCompleted)

	// A version no rule matches: its change queues nothing and gets no
	// status.
	_, err = c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("src"), Key: aws.String("other"), Body: strings.NewReader("o")})
	must(t, err)
	eventually(t, "backlog drained", func() (bool, string) {
		n := backlog(t, ac, "src")
		return n == 0, fmt.Sprint(n)
	})
	before := completed(t, srv, "src")
	putTags(t, c, "src", "other", "", map[string]string{"x": "1"})
	_, err = c.PutObjectLegalHold(ctx, &s3.PutObjectLegalHoldInput{Bucket: aws.String("src"), Key: aws.String("other"),
		LegalHold: &types.ObjectLockLegalHold{Status: types.ObjectLockLegalHoldStatusOn}})
	must(t, err)
	if n := backlog(t, ac, "src"); n != 0 {
		t.Fatalf("a change to a version no rule matches queued %d events", n)
	}
	if s := status(t, c, "src", "other", ""); s != "" {
		t.Fatalf("a version no rule matches says %q", s)
	}
	if _, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String("dst"), Key: aws.String("other")}); err == nil {
		t.Fatal("a version no rule matches reached the destination")
	}
	if after := completed(t, srv, "src"); after != before {
		t.Fatalf("deliveries went from %s to %s for unmatched changes", before, after)
	}
	_, err = c.PutObjectLegalHold(ctx, &s3.PutObjectLegalHoldInput{Bucket: aws.String("src"), Key: aws.String("other"),
		LegalHold: &types.ObjectLockLegalHold{Status: types.ObjectLockLegalHoldStatusOff}})
	must(t, err)
}

// twoWay is a rule replicating everything to arn, with replica
// modification sync as asked.
func twoWay(arn string, sync bool) *types.ReplicationConfiguration {
	cfg := config(arn, false)
	if sync {
		cfg.Rules[0].SourceSelectionCriteria = &types.SourceSelectionCriteria{
			ReplicaModifications: &types.ReplicaModifications{Status: types.ReplicaModificationsStatusEnabled}}
	}
	return cfg
}

// Two buckets replicating to each other with replica modification sync:
// a version written in either reaches the other once and is not sent
// back; a change of the source's tags reaches the replica, and a change
// of the replica's tags reaches the source, each by one delivery, with
// no ping-pong (the deliveries are counted, and stay counted). Without
// replica modification sync, a change of the replica stays there.
func TestReplicaModificationSync(t *testing.T) {
	srv := start(t)
	c := root(srv)
	ac := admin.NewClient(srv.URL, nodetest.AccessKey, nodetest.SecretKey, srv.Client())
	versioned(t, c, "east", "west")
	must(t, putConfig(c, "east", twoWay("arn:aws:s3:::west", true)))
	must(t, putConfig(c, "west", twoWay("arn:aws:s3:::east", true)))
	drained := func() {
		t.Helper()
		eventually(t, "backlogs drained", func() (bool, string) {
			e, w := backlog(t, ac, "east"), backlog(t, ac, "west")
			return e == 0 && w == 0, fmt.Sprint(e, " ", w)
		})
	}
	counts := func() string { return completed(t, srv, "east") + "/" + completed(t, srv, "west") }
	// settled checks that the deliveries counted are want, and stay so
	// over several of the worker's polls.
	settled := func(want string) {
		t.Helper()
		drained()
		if got := counts(); got != want {
			t.Fatalf("deliveries east/west = %s, want %s", got, want)
		}
		time.Sleep(time.Second)
		drained()
		if got := counts(); got != want {
			t.Fatalf("deliveries east/west went on to %s after %s", got, want)
		}
	}

	put, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("east"), Key: aws.String("k"), Body: strings.NewReader("k"),
		Tagging: aws.String("v=0")})
	must(t, err)
	v := aws.ToString(put.VersionId)
	waitStatus(t, c, "east", "k", v, types.ReplicationStatusCompleted)
	settled("1/0")
	if s := status(t, c, "west", "k", v); s != types.ReplicationStatusReplica {
		t.Fatalf("replica says %q", s)
	}

	putTags(t, c, "east", "k", "", map[string]string{"v": "1"})
	waitTags(t, c, "west", "k", v, map[string]string{"v": "1"})
	settled("2/0")

	putTags(t, c, "west", "k", "", map[string]string{"v": "2"})
	waitTags(t, c, "east", "k", v, map[string]string{"v": "2"})
	settled("2/1")
	if s := status(t, c, "west", "k", v); s != types.ReplicationStatusReplica {
		t.Fatalf("replica after its change says %q", s)
	}
	if s := status(t, c, "east", "k", v); s != types.ReplicationStatusCompleted {
		t.Fatalf("source after its replica's change says %q", s)
	}
	vs, err := c.ListObjectVersions(ctx, &s3.ListObjectVersionsInput{Bucket: aws.String("east")})
	must(t, err)
	if len(vs.Versions) != 1 {
		t.Fatalf("east holds %d versions, want 1", len(vs.Versions))
	}

	// Without replica modification sync on west, west's change of a
	// replica stays in west.
	must(t, putConfig(c, "west", twoWay("arn:aws:s3:::east", false)))
	putTags(t, c, "west", "k", "", map[string]string{"v": "west only"})
	if n := backlog(t, ac, "west"); n != 0 {
		t.Fatalf("a replica's change without replica modification sync queued %d events", n)
	}
	settled("2/1")
	if got := tagsOf(t, c, "east", "k", v); !maps.Equal(got, map[string]string{"v": "2"}) {
		t.Fatalf("east's tags: %v", got)
	}

	// A copy of a replica is a version of its bucket's own: no REPLICA,
	// and replicated.
	cp, err := c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String("west"), Key: aws.String("copy"), CopySource: aws.String("west/k")})
	must(t, err)
	waitStatus(t, c, "west", "copy", aws.ToString(cp.VersionId), types.ReplicationStatusCompleted)
	if s := status(t, c, "east", "copy", aws.ToString(cp.VersionId)); s != types.ReplicationStatusReplica {
		t.Fatalf("the copy's replica in east says %q", s)
	}
}

// Another Ostium on its own catalog as a remote target, through a proxy
// that goes down: a tag change made while it is down keeps the source
// PENDING, and reaches the replica (the target's version that carries
// the source's version id) once it is back, then COMPLETED. The far
// side replicates back with replica modification sync: a change of its
// replica's tags reaches the source version, the replica itself is not
// sent back, and it all settles (the one echo of the change, which
// finds the far side already holding it, changes nothing there).
func TestMetadataToAnotherOstium(t *testing.T) {
	dst := start(t)
	rc := root(dst)
	versioned(t, rc, "far")
	proxy := newFlaky(t, dst.URL)

	src := start(t)
	c := root(src)
	versioned(t, c, "near")
	ac := admin.NewClient(src.URL, nodetest.AccessKey, nodetest.SecretKey, src.Client())
	must(t, ac.Do(ctx, "POST", "/replication-targets", map[string]any{"name": "site2", "endpoint": proxy.URL,
		"access_key": nodetest.AccessKey, "secret_key": nodetest.SecretKey, "path_style": true}, nil))
	must(t, putConfig(c, "near", twoWay("arn:ostium:replication::site2:far", true)))
	dac := admin.NewClient(dst.URL, nodetest.AccessKey, nodetest.SecretKey, dst.Client())
	must(t, dac.Do(ctx, "POST", "/replication-targets", map[string]any{"name": "site1", "endpoint": src.URL,
		"access_key": nodetest.AccessKey, "secret_key": nodetest.SecretKey, "path_style": true}, nil))
	must(t, putConfig(rc, "far", twoWay("arn:ostium:replication::site1:near", true)))

	put, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("near"), Key: aws.String("k"), Body: strings.NewReader("k")})
	must(t, err)
	v := aws.ToString(put.VersionId)
	waitStatus(t, c, "near", "k", v, types.ReplicationStatusCompleted)

	proxy.down.Store(true)
	putTags(t, c, "near", "k", "", map[string]string{"colour": "red"})
	time.Sleep(time.Second)
	if s := status(t, c, "near", "k", v); s != types.ReplicationStatusPending {
		t.Fatalf("status of a change while the target is down: %q", s)
	}
	proxy.down.Store(false)
	waitTags(t, rc, "far", "k", "", map[string]string{"colour": "red"})
	waitStatus(t, c, "near", "k", v, types.ReplicationStatusCompleted)
	h, err := rc.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String("far"), Key: aws.String("k")})
	must(t, err)
	if h.Metadata[replicator.MetaSourceVersion] != v {
		t.Fatalf("far replica's metadata: %v", h.Metadata)
	}

	// Back: the far side's change of its replica reaches the source.
	putTags(t, rc, "far", "k", "", map[string]string{"colour": "blue"})
	waitTags(t, c, "near", "k", v, map[string]string{"colour": "blue"})
	dstAC := dac
	eventually(t, "both backlogs drained", func() (bool, string) {
		a, b := backlog(t, ac, "near"), backlog(t, dstAC, "far")
		return a == 0 && b == 0, fmt.Sprint(a, " ", b)
	})
	near, far := completed(t, src, "near"), completed(t, dst, "far")
	time.Sleep(2 * time.Second)
	if n, f := completed(t, src, "near"), completed(t, dst, "far"); n != near || f != far {
		t.Fatalf("deliveries went on: near %s -> %s, far %s -> %s", near, n, far, f)
	}
	if got := tagsOf(t, rc, "far", "k", ""); !maps.Equal(got, map[string]string{"colour": "blue"}) {
		t.Fatalf("far's tags after it settled: %v", got)
	}
	for name, cl := range map[string]*s3.Client{"near": c, "far": rc} {
		vs, err := cl.ListObjectVersions(ctx, &s3.ListObjectVersionsInput{Bucket: aws.String(name)})
		must(t, err)
		if len(vs.Versions) != 1 {
			t.Fatalf("%s holds %d versions, want 1 (a replica is not sent back)", name, len(vs.Versions))
		}
	}
	// A copy of the far replica is far's own version: the mark is not
	// copied, and the copy is replicated to near.
	cp, err := rc.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String("far"), Key: aws.String("copy"), CopySource: aws.String("far/k")})
	must(t, err)
	waitStatus(t, rc, "far", "copy", aws.ToString(cp.VersionId), types.ReplicationStatusCompleted)
	h, err = c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String("near"), Key: aws.String("copy")})
	must(t, err)
	if h.Metadata[replicator.MetaSourceVersion] != aws.ToString(cp.VersionId) {
		t.Fatalf("near's replica of the copy: %v", h.Metadata)
	}
}

// Tag and ACL changes reach a replica at an S3 endpoint that is not
// Ostium (moto's server): the tags as they are, and the source's grant
// to everyone (grants to users of this Ostium mean nothing there).
func TestMetadataToAnotherS3Server(t *testing.T) {
	endpoint := testenv.Moto(t)
	far := s3.New(s3.Options{Region: "us-east-1", BaseEndpoint: aws.String(endpoint), UsePathStyle: true,
		Credentials: credentials.NewStaticCredentialsProvider("testing", "testing", "")})
	versioned(t, far, "far-meta")

	src := start(t)
	c := root(src)
	versioned(t, c, "src")
	openACLs(t, c, "src")
	ac := admin.NewClient(src.URL, nodetest.AccessKey, nodetest.SecretKey, src.Client())
	must(t, ac.Do(ctx, "POST", "/replication-targets", map[string]any{"name": "moto", "endpoint": endpoint,
		"access_key": "testing", "secret_key": "testing", "path_style": true}, nil))
	must(t, putConfig(c, "src", config("arn:ostium:replication::moto:far-meta", false)))
	put, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("src"), Key: aws.String("k"), Body: strings.NewReader("k"),
		Tagging: aws.String("a=1")})
	must(t, err)
	v := aws.ToString(put.VersionId)
	waitStatus(t, c, "src", "k", v, types.ReplicationStatusCompleted)
	waitTags(t, far, "far-meta", "k", "", map[string]string{"a": "1"})

	putTags(t, c, "src", "k", "", map[string]string{"a": "2", "b": "3"})
	waitTags(t, far, "far-meta", "k", "", map[string]string{"a": "2", "b": "3"})
	_, err = c.PutObjectAcl(ctx, &s3.PutObjectAclInput{Bucket: aws.String("src"), Key: aws.String("k"), ACL: types.ObjectCannedACLPublicRead})
	must(t, err)
	eventually(t, "far replica public-read", func() (bool, string) {
		acl, err := far.GetObjectAcl(ctx, &s3.GetObjectAclInput{Bucket: aws.String("far-meta"), Key: aws.String("k")})
		must(t, err)
		src, err := c.GetObjectAcl(ctx, &s3.GetObjectAclInput{Bucket: aws.String("src"), Key: aws.String("k")})
		must(t, err)
		return publicRead(acl.Grants), fmt.Sprintf("%d grants there, %d here (%s)", len(acl.Grants), len(src.Grants), status(t, c, "src", "k", v))
	})
	waitStatus(t, c, "src", "k", v, types.ReplicationStatusCompleted)
	_, err = c.DeleteObjectTagging(ctx, &s3.DeleteObjectTaggingInput{Bucket: aws.String("src"), Key: aws.String("k")})
	must(t, err)
	waitTags(t, far, "far-meta", "k", "", map[string]string{})
	listed, err := far.ListObjectVersions(ctx, &s3.ListObjectVersionsInput{Bucket: aws.String("far-meta")})
	must(t, err)
	if len(listed.Versions) != 1 {
		t.Fatalf("the far end holds %d versions, want 1 (changes are not new writes)", len(listed.Versions))
	}
}
