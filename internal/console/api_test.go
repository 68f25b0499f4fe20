package console_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/ostiumio/ostium/internal/admin"
	"github.com/ostiumio/ostium/internal/console/consoletest"
	"github.com/ostiumio/ostium/internal/node/nodetest"
)

// tenantAdmin onboards acme and returns ann, signed in with her password
// changed.
func tenantAdmin(t *testing.T, srv *nodetest.Server) *consoletest.Client {
	t.Helper()
	ann, _ := onboard(t, srv, "acme")
	ann.Must(204, "POST", "/password", map[string]string{"current": "first-pass-1", "new": "ann-pass-2"})
	return ann
}

// TestBuckets: create with versioning and with object lock and a default
// retention, list, read and change settings through the object service
// (its validation and errors), delete.
func TestBuckets(t *testing.T) {
	srv := nodetest.Start(t, nodetest.Options{})
	c := tenantAdmin(t, srv)
	c.Must(201, "POST", "/buckets", map[string]any{"name": "photos", "versioning": true})
	var locked struct {
		Versioning string `json:"versioning"`
		ObjectLock struct {
			Enabled bool   `json:"enabled"`
			Mode    string `json:"mode"`
			Days    int    `json:"days"`
		} `json:"object_lock"`
	}
	c.Must(201, "POST", "/buckets", map[string]any{"name": "ledger", "object_lock": map[string]any{"mode": "GOVERNANCE", "days": 1}}).JSON(t, &locked)
	if locked.Versioning != "Enabled" || !locked.ObjectLock.Enabled || locked.ObjectLock.Mode != "GOVERNANCE" || locked.ObjectLock.Days != 1 {
		t.Fatalf("object lock bucket: %+v", locked)
	}
	// S3's answers to S3's mistakes.
	for _, tc := range []struct {
		body   map[string]any
		status int
		code   string
	}{
		{map[string]any{"name": "photos"}, 409, "BucketAlreadyOwnedByYou"},
		{map[string]any{"name": "Bad_Name"}, 400, "InvalidBucketName"},
		{map[string]any{"name": "console"}, 409, "BucketAlreadyExists"},
	} {
		if r := c.Do("POST", "/buckets", tc.body); r.Status != tc.status || r.Code() != tc.code {
			t.Errorf("create %v: %d %s, want %d %s", tc.body, r.Status, r.Body, tc.status, tc.code)
		}
	}
	var list struct {
		Buckets []struct {
			Name, Versioning string
			ObjectLock       *struct{ Mode string } `json:"object_lock"`
		} `json:"buckets"`
	}
	c.Must(200, "GET", "/buckets", nil).JSON(t, &list)
	if len(list.Buckets) != 2 || list.Buckets[0].Name != "ledger" || list.Buckets[1].Name != "photos" {
		t.Fatalf("buckets: %+v", list)
	}
	// The list shows each bucket's versioning and lock, as its own page does.
	if b := list.Buckets[0]; b.Versioning != "Enabled" || b.ObjectLock == nil || b.ObjectLock.Mode != "GOVERNANCE" || list.Buckets[1].Versioning != "Enabled" {
		t.Fatalf("listed settings: %+v", list)
	}

	// Settings, each through its S3 call.
	if r := c.Must(200, "GET", "/buckets/photos", nil); !strings.Contains(string(r.Body), `"versioning":"Enabled"`) {
		t.Fatalf("bucket: %s", r.Body)
	}
	c.Must(200, "PUT", "/buckets/photos/settings/versioning", map[string]string{"status": "Suspended"})
	if r := c.Must(200, "GET", "/buckets/photos/settings/versioning", nil); !strings.Contains(string(r.Body), "Suspended") {
		t.Fatalf("versioning: %s", r.Body)
	}
	if r := c.Do("PUT", "/buckets/ledger/settings/versioning", map[string]string{"status": "Suspended"}); r.Status != 409 && r.Status != 400 {
		t.Errorf("suspending an object lock bucket's versioning: %d %s", r.Status, r.Body)
	}
	c.Must(200, "PUT", "/buckets/photos/settings/tags", map[string]any{"tags": []map[string]string{{"key": "team", "value": "web"}}})
	if r := c.Must(200, "GET", "/buckets/photos/settings/tags", nil); !strings.Contains(string(r.Body), `"team"`) {
		t.Fatalf("tags: %s", r.Body)
	}
	c.Must(200, "PUT", "/buckets/photos/settings/cors", map[string]any{"rules": []map[string]any{{"origins": []string{"https://app.example"}, "methods": []string{"GET"}}}})
	if r := c.Do("PUT", "/buckets/photos/settings/cors", map[string]any{"rules": []map[string]any{{"origins": []string{"*"}, "methods": []string{"BREW"}}}}); r.Status != 400 {
		t.Errorf("a bad CORS method: %d %s", r.Status, r.Body)
	}
	c.Must(200, "PUT", "/buckets/photos/settings/lifecycle", map[string]any{"rules": []map[string]any{{"id": "old", "status": "Enabled", "filter": map[string]any{"prefix": "tmp/"}, "expiration": map[string]any{"days": 7}}}})
	c.Must(200, "GET", "/buckets/photos/settings/lifecycle", nil)
	xml := `<LifecycleConfiguration><Rule><ID>x</ID><Status>Enabled</Status><Filter><Prefix>logs/</Prefix></Filter><Expiration><Days>30</Days></Expiration></Rule></LifecycleConfiguration>`
	c.Must(200, "PUT", "/buckets/photos/settings/lifecycle", []byte(xml), "Content-Type", "application/xml")
	if r := c.Must(200, "GET", "/buckets/photos/settings/lifecycle", nil); !strings.Contains(string(r.Body), "logs/") {
		t.Fatalf("lifecycle from S3's XML: %s", r.Body)
	}
	if r := c.Do("PUT", "/buckets/photos/settings/lifecycle", map[string]any{"rules": []map[string]any{{"id": "bad", "status": "Enabled", "expiration": map[string]any{"days": 0}}}}); r.Status != 400 {
		t.Errorf("a lifecycle rule of 0 days: %d %s, want 400 as S3", r.Status, r.Body)
	}
	// S3's XML documents are taken as S3 takes them.
	c.Must(200, "PUT", "/buckets/photos/settings/tags", []byte(`<Tagging><TagSet><Tag><Key>from</Key><Value>xml</Value></Tag></TagSet></Tagging>`), "Content-Type", "application/xml")
	if r := c.Must(200, "GET", "/buckets/photos/settings/tags", nil); !strings.Contains(string(r.Body), `"from"`) {
		t.Fatalf("tags from XML: %s", r.Body)
	}
	c.Must(200, "PUT", "/buckets/photos/settings/cors", []byte(`<CORSConfiguration><CORSRule><AllowedOrigin>*</AllowedOrigin><AllowedMethod>GET</AllowedMethod></CORSRule></CORSConfiguration>`), "Content-Type", "text/xml")
	for _, bad := range []struct{ setting, doc, code string }{
		{"tags", `<Tagging><TagSet>`, "MalformedXML"},
		{"versioning", `<VersioningConfiguration><Status>Enabled</Status><MfaDelete>Enabled</MfaDelete></VersioningConfiguration>`, "NotImplemented"},
		{"policy", `<x/>`, "UnsupportedMediaType"},
	} {
		if r := c.Do("PUT", "/buckets/photos/settings/"+bad.setting, []byte(bad.doc), "Content-Type", "application/xml"); r.Code() != bad.code {
			t.Errorf("%s from %s: %d %s, want %s", bad.setting, bad.doc, r.Status, r.Body, bad.code)
		}
	}
	pab := c.Must(200, "GET", "/buckets/photos/settings/public-access-block", nil)
	if !strings.Contains(string(pab.Body), `"block_public_acls":true`) {
		t.Fatalf("a new bucket's public access block: %s", pab.Body)
	}
	policy := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::photos/*"}]}`
	c.Must(200, "POST", "/buckets/photos/policy/validate", []byte(policy))
	if r := c.Do("POST", "/buckets/photos/policy/validate", []byte(`{"Statement":[{"Effect":"Maybe"}]}`)); r.Status != 400 || r.Code() != "MalformedPolicy" {
		t.Errorf("validate a bad policy: %d %s", r.Status, r.Body)
	}
	// A public policy under the block: 403, as S3 answers.
	if r := c.Do("PUT", "/buckets/photos/settings/policy", []byte(policy)); r.Status != 403 {
		t.Errorf("public policy under BlockPublicPolicy: %d %s", r.Status, r.Body)
	}
	c.Must(204, "DELETE", "/buckets/photos/settings/public-access-block", nil)
	c.Must(200, "PUT", "/buckets/photos/settings/policy", []byte(policy))
	if r := c.Must(200, "GET", "/buckets/photos/settings/policy", nil); !strings.Contains(string(r.Body), "s3:GetObject") {
		t.Fatalf("policy: %s", r.Body)
	}
	c.Must(200, "GET", "/buckets/photos/settings/acl", nil)
	c.Must(200, "GET", "/buckets/photos", nil)
	// ACL documents are checked as PutBucketAcl checks them.
	c.Must(200, "PUT", "/buckets/photos/settings/ownership", map[string]string{"ownership": "BucketOwnerPreferred"})
	for _, bad := range []struct {
		grant map[string]string
		code  string
	}{
		{map[string]string{"type": "CanonicalUser", "id": "abc", "perm": "EVERYTHING"}, "MalformedACLError"},
		{map[string]string{"type": "Robot", "id": "abc", "perm": "READ"}, "MalformedACLError"},
		{map[string]string{"type": "Group", "uri": "http://example.com/all", "perm": "READ"}, "InvalidArgument"},
		{map[string]string{"type": "CanonicalUser", "perm": "READ"}, "InvalidArgument"},
	} {
		if r := c.Do("PUT", "/buckets/photos/settings/acl", map[string]any{"grants": []any{bad.grant}}); r.Status != 400 || r.Code() != bad.code {
			t.Errorf("grant %v: %d %s, want 400 %s", bad.grant, r.Status, r.Body, bad.code)
		}
	}
	// Access settings changed through the console are audited as
	// through S3, refused changes too.
	var page admin.AuditPage
	if err := admin.NewClient(srv.URL, nodetest.AccessKey, nodetest.SecretKey, srv.Client()).Do(context.Background(), "GET", "/audit?limit=1000", nil, &page); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, e := range page.Entries {
		seen[e.Action+" "+e.Target+" "+e.Outcome+" "+e.User] = true
	}
	for _, want := range []string{"s3:PutBucketPolicy bucket/photos AccessDenied ann", "s3:PutBucketPolicy bucket/photos ok ann",
		"s3:DeletePublicAccessBlock bucket/photos ok ann", "s3:PutBucketVersioning bucket/photos ok ann"} {
		if !seen[want] {
			t.Errorf("audit log lacks %q: %v", want, seen)
		}
	}
	if r := c.Do("GET", "/buckets/photos/settings/nonsense", nil); r.Status != 404 {
		t.Errorf("unknown setting: %d", r.Status)
	}

	// Delete: not while it holds an object.
	c.Must(200, "PUT", "/buckets/photos/object?key=a", []byte("x"))
	if r := c.Do("DELETE", "/buckets/photos", nil); r.Status != 409 || r.Code() != "BucketNotEmpty" {
		t.Fatalf("delete a full bucket: %d %s", r.Status, r.Body)
	}
	c.Must(204, "DELETE", "/buckets/ledger", nil)
	if r := c.Do("GET", "/buckets/ledger", nil); r.Status != 404 || r.Code() != "NoSuchBucket" {
		t.Fatalf("a deleted bucket: %d %s", r.Status, r.Body)
	}
}

type listing struct {
	Objects []struct {
		Key          string `json:"key"`
		VersionID    string `json:"version_id"`
		IsLatest     bool   `json:"is_latest"`
		DeleteMarker bool   `json:"delete_marker"`
		Size         int64  `json:"size"`
	} `json:"objects"`
	Prefixes  []string `json:"prefixes"`
	NextToken string   `json:"next_token"`
}

// TestObjects: upload, browse by folder with paging, download (ranges
// too), metadata and tags, copy and move, versions with delete markers
// and restore of an earlier version, batch delete.
func TestObjects(t *testing.T) {
	srv := nodetest.Start(t, nodetest.Options{})
	c := tenantAdmin(t, srv)
	c.Must(201, "POST", "/buckets", map[string]any{"name": "docs", "versioning": true})
	for i := 0; i < 5; i++ {
		c.Must(200, "PUT", fmt.Sprintf("/buckets/docs/object?key=dir/f%d.txt", i), []byte(fmt.Sprintf("file %d", i)), "Content-Type", "text/plain")
	}
	c.Must(200, "PUT", "/buckets/docs/object?key="+url.QueryEscape("top level é.txt"), []byte("top"), "X-Meta-Author", "ann")
	c.Must(200, "PUT", "/buckets/docs/object?key=other/x", []byte("x"))

	var l listing
	c.Must(200, "GET", "/buckets/docs/objects?delimiter=/", nil).JSON(t, &l)
	if len(l.Objects) != 1 || l.Objects[0].Key != "top level é.txt" || strings.Join(l.Prefixes, ",") != "dir/,other/" || l.NextToken != "" {
		t.Fatalf("root folder: %+v", l)
	}
	// Paging through a folder, two at a time.
	var keys []string
	token := ""
	for pages := 0; ; pages++ {
		var p listing
		c.Must(200, "GET", "/buckets/docs/objects?prefix=dir/&delimiter=/&max=2&token="+url.QueryEscape(token), nil).JSON(t, &p)
		for _, o := range p.Objects {
			keys = append(keys, o.Key)
		}
		if token = p.NextToken; token == "" {
			break
		}
		if pages > 5 {
			t.Fatal("paging does not end")
		}
	}
	if strings.Join(keys, ",") != "dir/f0.txt,dir/f1.txt,dir/f2.txt,dir/f3.txt,dir/f4.txt" {
		t.Fatalf("paged keys: %v", keys)
	}
	if r := c.Do("GET", "/buckets/docs/objects?token=garbage!", nil); r.Status != 400 {
		t.Errorf("a bad token: %d", r.Status)
	}

	// Download, whole and ranged; HTML goes as an attachment, sandboxed.
	r := c.Must(200, "GET", "/buckets/docs/object?key=dir/f1.txt", nil)
	if string(r.Body) != "file 1" || r.Header.Get("Content-Type") != "text/plain" || !strings.HasPrefix(r.Header.Get("Content-Disposition"), "inline") {
		t.Fatalf("download: %q %v", r.Body, r.Header)
	}
	r = c.Must(206, "GET", "/buckets/docs/object?key=dir/f1.txt", nil, "Range", "bytes=2-3")
	if string(r.Body) != "le" || r.Header.Get("Content-Range") != "bytes 2-3/6" {
		t.Fatalf("range: %q %v", r.Body, r.Header)
	}
	r = c.Must(200, "HEAD", "/buckets/docs/object?key=dir/f1.txt", nil)
	if len(r.Body) != 0 || r.Header.Get("Content-Length") != "6" || r.Header.Get("ETag") == "" {
		t.Fatalf("HEAD: %q %v", r.Body, r.Header)
	}
	if r := c.Do("GET", "/buckets/docs/object?key=dir/f1.txt", nil, "Range", "bytes=100-"); r.Status != 416 || r.Code() != "InvalidRange" {
		t.Fatalf("a range past the end: %d %s", r.Status, r.Body)
	}
	c.Must(200, "PUT", "/buckets/docs/object?key=page.html", []byte("<script>alert(1)</script>"), "Content-Type", "text/html")
	r = c.Must(200, "GET", "/buckets/docs/object?key=page.html", nil)
	if !strings.HasPrefix(r.Header.Get("Content-Disposition"), "attachment") || !strings.Contains(r.Header.Get("Content-Security-Policy"), "sandbox") {
		t.Fatalf("an HTML object is served as a page of the console: %v", r.Header)
	}
	if r := c.Do("GET", "/buckets/docs/object?key=nope", nil); r.Status != 404 || r.Code() != "NoSuchKey" {
		t.Fatalf("missing key: %d %s", r.Status, r.Body)
	}

	// Metadata and tags.
	var meta struct {
		ContentType string            `json:"content_type"`
		Metadata    map[string]string `json:"metadata"`
	}
	c.Must(200, "GET", "/buckets/docs/metadata?key="+url.QueryEscape("top level é.txt"), nil).JSON(t, &meta)
	if meta.Metadata["author"] != "ann" {
		t.Fatalf("metadata: %+v", meta)
	}
	c.Must(200, "PUT", "/buckets/docs/metadata?key=dir/f0.txt", map[string]any{"content_type": "text/markdown", "metadata": map[string]string{"reviewed": "yes"}})
	c.Must(200, "GET", "/buckets/docs/metadata?key=dir/f0.txt", nil).JSON(t, &meta)
	if meta.ContentType != "text/markdown" || meta.Metadata["reviewed"] != "yes" {
		t.Fatalf("metadata after replace: %+v", meta)
	}
	c.Must(200, "PUT", "/buckets/docs/tags?key=dir/f0.txt", map[string]any{"tags": []map[string]string{{"key": "k", "value": "v"}}})
	if r := c.Must(200, "GET", "/buckets/docs/tags?key=dir/f0.txt", nil); !strings.Contains(string(r.Body), `"key":"k","value":"v"`) {
		t.Fatalf("tags: %s", r.Body)
	}
	if r := c.Do("PUT", "/buckets/docs/tags?key=dir/f0.txt", map[string]any{"tags": []map[string]string{{"key": "bad\x00", "value": "v"}}}); r.Status != 400 {
		t.Errorf("a bad tag: %d %s", r.Status, r.Body)
	}
	c.Must(204, "DELETE", "/buckets/docs/tags?key=dir/f0.txt", nil)

	// Copy and move.
	c.Must(200, "POST", "/buckets/docs/copy", map[string]any{"key": "copy.txt", "source_key": "dir/f2.txt"})
	c.Must(200, "POST", "/buckets/docs/copy", map[string]any{"key": "moved.txt", "source_key": "dir/f3.txt", "move": true})
	if r := c.Must(200, "GET", "/buckets/docs/object?key=moved.txt", nil); string(r.Body) != "file 3" {
		t.Fatalf("moved: %q", r.Body)
	}
	if r := c.Do("GET", "/buckets/docs/object?key=dir/f3.txt", nil); r.Status != 404 {
		t.Fatalf("a moved object's source is still there: %d", r.Status)
	}

	// Versions: overwrite, delete (a marker), restore the first.
	c.Must(200, "PUT", "/buckets/docs/object?key=v.txt", []byte("one"))
	c.Must(200, "PUT", "/buckets/docs/object?key=v.txt", []byte("two"))
	var del struct {
		DeleteMarker bool `json:"delete_marker"`
	}
	c.Must(200, "DELETE", "/buckets/docs/object?key=v.txt", nil).JSON(t, &del)
	if !del.DeleteMarker {
		t.Fatal("deleting in a versioned bucket wrote no delete marker")
	}
	var vs listing
	c.Must(200, "GET", "/buckets/docs/versions?prefix=v.txt", nil).JSON(t, &vs)
	if len(vs.Objects) != 3 || !vs.Objects[0].DeleteMarker || !vs.Objects[0].IsLatest || vs.Objects[2].Size != 3 {
		t.Fatalf("versions: %+v", vs)
	}
	first := vs.Objects[2].VersionID
	if r := c.Must(200, "GET", "/buckets/docs/object?key=v.txt&version="+first, nil); string(r.Body) != "one" {
		t.Fatalf("first version: %q", r.Body)
	}
	c.Must(200, "POST", "/buckets/docs/restore?key=v.txt&version="+first, nil)
	if r := c.Must(200, "GET", "/buckets/docs/object?key=v.txt", nil); string(r.Body) != "one" {
		t.Fatalf("after restore: %q", r.Body)
	}
	// Removing a version for good.
	c.Must(200, "DELETE", "/buckets/docs/object?key=v.txt&version="+first, nil)
	if r := c.Do("GET", "/buckets/docs/object?key=v.txt&version="+first, nil); r.Status != 404 {
		t.Fatalf("a deleted version: %d", r.Status)
	}

	// Batch delete reports each key.
	var batch struct {
		Deleted []struct{ Key string } `json:"deleted"`
		Errors  []struct{ Key string } `json:"errors"`
	}
	c.Must(200, "POST", "/buckets/docs/delete", map[string]any{"objects": []map[string]string{{"key": "dir/f0.txt"}, {"key": "dir/f1.txt"}}}).JSON(t, &batch)
	if len(batch.Deleted) != 2 || len(batch.Errors) != 0 {
		t.Fatalf("batch delete: %+v", batch)
	}
}

// TestMultipartUpload: create, parts streamed, complete; an aborted
// upload is gone.
func TestMultipartUpload(t *testing.T) {
	srv := nodetest.Start(t, nodetest.Options{})
	c := tenantAdmin(t, srv)
	c.Must(201, "POST", "/buckets", map[string]any{"name": "big"})
	var up struct {
		UploadID string `json:"upload_id"`
	}
	c.Must(201, "POST", "/buckets/big/uploads?key=movie.bin", map[string]string{"content_type": "video/mp4"}).JSON(t, &up)
	part1 := bytes.Repeat([]byte("a"), 5<<20)
	part2 := []byte("tail")
	var p1, p2 struct {
		ETag string `json:"etag"`
	}
	c.Must(200, "PUT", "/buckets/big/uploads/"+up.UploadID+"?key=movie.bin&part=1", part1).JSON(t, &p1)
	c.Must(200, "PUT", "/buckets/big/uploads/"+up.UploadID+"?key=movie.bin&part=2", part2).JSON(t, &p2)
	if r := c.Do("PUT", "/buckets/big/uploads/"+up.UploadID+"?key=movie.bin&part=0", []byte("x")); r.Status != 400 {
		t.Errorf("part 0: %d", r.Status)
	}
	var ups struct {
		Uploads []struct{ Key string } `json:"uploads"`
	}
	c.Must(200, "GET", "/buckets/big/uploads", nil).JSON(t, &ups)
	if len(ups.Uploads) != 1 {
		t.Fatalf("uploads: %+v", ups)
	}
	c.Must(200, "POST", "/buckets/big/uploads/"+up.UploadID+"/complete?key=movie.bin",
		map[string]any{"parts": []map[string]any{{"part": 1, "etag": p1.ETag}, {"part": 2, "etag": p2.ETag}}})
	r := c.Must(200, "GET", "/buckets/big/object?key=movie.bin", nil)
	if len(r.Body) != len(part1)+len(part2) || r.Header.Get("Content-Type") != "video/mp4" || !bytes.HasSuffix(r.Body, part2) {
		t.Fatalf("completed object: %d bytes, %v", len(r.Body), r.Header.Get("Content-Type"))
	}
	c.Must(201, "POST", "/buckets/big/uploads?key=gone", nil).JSON(t, &up)
	c.Must(204, "DELETE", "/buckets/big/uploads/"+up.UploadID+"?key=gone", nil)
	if r := c.Do("PUT", "/buckets/big/uploads/"+up.UploadID+"?key=gone&part=1", []byte("x")); r.Status != 404 || r.Code() != "NoSuchUpload" {
		t.Fatalf("a part of an aborted upload: %d %s", r.Status, r.Body)
	}
}

// TestShareLink: a share link is fetched by anyone, with no session and
// no signature of their own, until it expires; it reads that object's
// bucket only, and cannot write.
func TestShareLink(t *testing.T) {
	srv := nodetest.Start(t, nodetest.Options{})
	c := tenantAdmin(t, srv)
	c.Must(201, "POST", "/buckets", map[string]any{"name": "pub"})
	c.Must(201, "POST", "/buckets", map[string]any{"name": "private"})
	c.Must(200, "PUT", "/buckets/pub/object?key="+url.QueryEscape("a dir/the file+1.txt"), []byte("shared bytes"))
	var link struct {
		URL       string `json:"url"`
		AccessKey string `json:"access_key"`
	}
	c.Must(201, "POST", "/buckets/pub/share", map[string]any{"key": "a dir/the file+1.txt", "expires_seconds": 3600}).JSON(t, &link)
	resp, err := http.Get(link.URL)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(body) != "shared bytes" {
		t.Fatalf("share link %s: %d %s", link.URL, resp.StatusCode, body)
	}
	// The credential behind it is read-only, on that bucket only.
	u, _ := url.Parse(link.URL)
	u.Path, u.RawPath = "/private/x", ""
	resp, err = http.Get(u.String())
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 403 {
		t.Fatalf("the link's signature reaches another bucket: %d", resp.StatusCode)
	}
	var keys []struct {
		AccessKey string   `json:"access_key"`
		Kind      string   `json:"kind"`
		Buckets   []string `json:"buckets"`
		ReadOnly  bool     `json:"read_only"`
		Expires   string   `json:"expires"`
	}
	c.Must(200, "GET", "/tenants/acme/users/ann/keys", nil).JSON(t, &keys)
	found := false
	for _, k := range keys {
		if k.AccessKey == link.AccessKey {
			found = k.Kind == "appcred" && k.ReadOnly && len(k.Buckets) == 1 && k.Buckets[0] == "pub" && k.Expires != ""
		}
	}
	if !found {
		t.Fatalf("the share credential is not a read-only, expiring app credential on pub: %+v", keys)
	}
	for _, tc := range []map[string]any{{"key": "a dir/the file+1.txt", "expires_seconds": 8 * 24 * 3600}, {"key": "nope", "expires_seconds": 600}} {
		if r := c.Do("POST", "/buckets/pub/share", tc); r.Status < 400 {
			t.Errorf("share %v: %d", tc, r.Status)
		}
	}
	// The provider's root is no tenant user.
	if r := root(t, srv).Do("POST", "/buckets/pub/share", map[string]any{"key": "a dir/the file+1.txt", "expires_seconds": 600}); r.Status != 403 {
		t.Errorf("root shares: %d %s", r.Status, r.Body)
	}
}

// TestAccessAndProvider: a tenant admin manages users and keys (secret
// shown once, rotate with grace, disable, delete) and application
// credentials; the provider onboards, sets quotas, suspends and resumes,
// sees health and exports usage.
func TestAccessAndProvider(t *testing.T) {
	srv := nodetest.Start(t, nodetest.Options{})
	c := tenantAdmin(t, srv)
	c.Must(201, "POST", "/tenants/acme/users", map[string]any{"name": "cy", "role": "user"})
	var k struct {
		AccessKey string `json:"access_key"`
		SecretKey string `json:"secret_key"`
	}
	c.Must(201, "POST", "/tenants/acme/users/cy/keys", nil).JSON(t, &k)
	if k.SecretKey == "" {
		t.Fatal("a new key's secret is not shown")
	}
	if r := c.Must(200, "GET", "/tenants/acme/users/cy/keys", nil); strings.Contains(string(r.Body), k.SecretKey) || !strings.Contains(string(r.Body), k.AccessKey) {
		t.Fatalf("key list shows the secret or lacks the key: %s", r.Body)
	}
	var rotated struct {
		AccessKey string `json:"access_key"`
		SecretKey string `json:"secret_key"`
	}
	c.Must(201, "POST", "/tenants/acme/users/cy/keys/"+k.AccessKey+"/rotate", map[string]int{"grace_seconds": 60}).JSON(t, &rotated)
	if rotated.SecretKey == "" || rotated.AccessKey == k.AccessKey {
		t.Fatalf("rotate: %+v", rotated)
	}
	c.Must(200, "POST", "/tenants/acme/users/cy/keys/"+rotated.AccessKey+"/disable", nil)
	kc := consoletest.New(t, srv.Console.URL, srv.Console.Client())
	if r := kc.SignIn(map[string]string{"access_key": rotated.AccessKey, "secret_key": rotated.SecretKey}); r.Status != 401 {
		t.Fatalf("a disabled key signs in: %d", r.Status)
	}
	c.Must(200, "POST", "/tenants/acme/users/cy/keys/"+rotated.AccessKey+"/enable", nil)
	kc.MustSignIn(map[string]string{"access_key": rotated.AccessKey, "secret_key": rotated.SecretKey})
	c.Must(204, "DELETE", "/tenants/acme/users/cy/keys/"+rotated.AccessKey, nil)
	if r := kc.Do("GET", "/session", nil); r.Status != 401 {
		t.Fatalf("a session of a deleted key lives on: %d", r.Status)
	}
	var app struct {
		Expires  string `json:"expires"`
		ReadOnly bool   `json:"read_only"`
	}
	// Only the tenant's own buckets, as in the API (one check in admin).
	if r := c.Do("POST", "/tenants/acme/users/cy/appcreds", map[string]any{"buckets": []string{"bkt1"}}); r.Status != 404 || r.Code() != "NoSuchBucket" {
		t.Errorf("an application credential for a bucket that does not exist: %d %s", r.Status, r.Body)
	}
	c.Must(201, "POST", "/buckets", map[string]any{"name": "bkt1"})
	c.Must(201, "POST", "/tenants/acme/users/cy/appcreds", map[string]any{"buckets": []string{"bkt1"}, "read_only": true, "expires_seconds": 3600}).JSON(t, &app)
	if app.Expires == "" || !app.ReadOnly {
		t.Fatalf("an expiring application credential: %+v", app)
	}
	c.Must(200, "GET", "/tenants/acme/users", nil)
	c.Must(200, "GET", "/tenants/acme/quotas", nil)
	c.Must(200, "GET", "/tenants/acme/usage", nil)
	c.Must(204, "DELETE", "/tenants/acme/users/cy", nil)

	// The provider.
	rc := root(t, srv)
	rc.Must(201, "POST", "/tenants", map[string]any{"name": "beta", "display_name": "Beta"})
	rc.Must(200, "PUT", "/tenants/beta/quotas", map[string]any{"max_bytes": 1000, "max_objects": 10})
	if r := rc.Must(200, "GET", "/tenants/beta/quotas", nil); !strings.Contains(string(r.Body), `"max_bytes": 1000`) && !strings.Contains(string(r.Body), `"max_bytes":1000`) {
		t.Fatalf("quotas: %s", r.Body)
	}
	rc.Must(200, "POST", "/tenants/acme/suspend", nil)
	if r := c.Do("GET", "/buckets", nil); r.Status != 403 {
		t.Fatalf("a suspended tenant's admin lists buckets: %d %s", r.Status, r.Body)
	}
	if r := consoletest.New(t, srv.Console.URL, srv.Console.Client()).SignIn(map[string]string{"tenant": "acme", "user": "ann", "password": "ann-pass-2"}); r.Status != 403 || r.Code() != "TenantSuspended" {
		t.Fatalf("a suspended tenant's admin signs in: %d %s", r.Status, r.Body)
	}
	rc.Must(200, "POST", "/tenants/acme/resume", nil)
	c.Must(200, "GET", "/buckets", nil)
	var h struct {
		Catalog   string            `json:"catalog"`
		Platforms map[string]string `json:"platforms"`
	}
	rc.Must(200, "GET", "/health", nil).JSON(t, &h)
	if h.Catalog != "ok" || h.Platforms["local"] != "ok" {
		t.Fatalf("health: %+v", h)
	}
	r := rc.Must(200, "GET", "/usage?format=csv", nil)
	if !strings.HasPrefix(string(r.Body), "tenant,bucket,hour,byte_hours") || !strings.HasPrefix(r.Header.Get("Content-Type"), "text/csv") {
		t.Fatalf("billing export: %v %q", r.Header, r.Body)
	}
	rc.Must(200, "GET", "/usage", nil)
	rc.Must(204, "DELETE", "/tenants/beta", nil)
	// The control calls are in the audit log, as the admin API's are,
	// refused ones too.
	if r := c.Do("POST", "/tenants/acme/suspend", nil); r.Status != 403 {
		t.Fatalf("tenant admin suspends: %d", r.Status)
	}
	var page admin.AuditPage
	if err := admin.NewClient(srv.URL, nodetest.AccessKey, nodetest.SecretKey, srv.Client()).Do(context.Background(), "GET", "/audit?limit=1000", nil, &page); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, e := range page.Entries {
		seen[e.Action+" "+e.Target+" "+e.Outcome] = true
	}
	for _, want := range []string{"admin:CreateTenant tenants ok", "admin:SetQuota tenants/beta/quotas ok", "admin:DeleteTenant tenants/beta ok",
		"admin:SuspendTenant tenants/acme/suspend AccessDenied", "admin:CreateKey tenants/acme/users/cy/keys ok", "console:SignIn password ok",
		"console:SignIn access_key InvalidCredentials"} {
		if !seen[want] {
			t.Errorf("audit log lacks %q: %v", want, seen)
		}
	}
	// A tenant admin is no provider.
	for _, p := range [][2]string{{"GET", "/tenants"}, {"GET", "/health"}, {"GET", "/usage"}, {"POST", "/tenants/acme/suspend"}, {"PUT", "/tenants/acme/quotas"}} {
		if r := c.Do(p[0], p[1], map[string]any{}); r.Status != 403 {
			t.Errorf("tenant admin %s %s: %d %s", p[0], p[1], r.Status, r.Body)
		}
	}
}

// TestConsolePages: /console/ serves the pages (or, before they are in
// the build, a placeholder) with a strict content security policy;
// unknown API calls get the API's 404.
func TestConsolePages(t *testing.T) {
	srv := nodetest.Start(t, nodetest.Options{})
	for _, p := range []string{"/console/", "/console/buckets/x"} {
		resp, err := srv.Console.Client().Get(srv.Console.URL + p)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.Contains(strings.ToLower(string(body)), "<html") ||
			!strings.Contains(resp.Header.Get("Content-Security-Policy"), "default-src 'self'") || resp.Header.Get("X-Frame-Options") != "DENY" {
			t.Fatalf("GET %s: %d %v", p, resp.StatusCode, resp.Header)
		}
	}
	c := consoletest.New(t, srv.Console.URL, srv.Console.Client())
	if r := c.Do("GET", "/nonsense", nil); r.Status != 404 || r.Code() != "NoSuchRoute" {
		t.Fatalf("unknown call: %d %s", r.Status, r.Body)
	}
}

// TestObjectLock: a bucket's default retention protects a new version;
// only a governance bypass removes it, and a legal hold not even that,
// as through S3.
func TestObjectLock(t *testing.T) {
	srv := nodetest.Start(t, nodetest.Options{})
	c := tenantAdmin(t, srv)
	c.Must(201, "POST", "/buckets", map[string]any{"name": "vault", "object_lock": map[string]any{"mode": "GOVERNANCE", "days": 1}})
	var o struct {
		VersionID string `json:"version_id"`
	}
	c.Must(200, "PUT", "/buckets/vault/object?key=doc", []byte("keep me")).JSON(t, &o)
	var l struct {
		Mode        string `json:"mode"`
		RetainUntil string `json:"retain_until"`
		LegalHold   bool   `json:"legal_hold"`
	}
	c.Must(200, "GET", "/buckets/vault/lock?key=doc&version="+o.VersionID, nil).JSON(t, &l)
	if l.Mode != "GOVERNANCE" || l.RetainUntil == "" || l.LegalHold {
		t.Fatalf("lock of a new version: %+v", l)
	}
	del := "/buckets/vault/object?key=doc&version=" + o.VersionID
	if r := c.Do("DELETE", del, nil); r.Status != 403 || r.Code() != "AccessDenied" {
		t.Fatalf("deleting a retained version: %d %s", r.Status, r.Body)
	}
	c.Must(200, "PUT", "/buckets/vault/lock?key=doc&version="+o.VersionID, map[string]any{"legal_hold": true}).JSON(t, &l)
	if !l.LegalHold {
		t.Fatalf("legal hold: %+v", l)
	}
	if r := c.Do("DELETE", del, nil, "X-Bypass-Governance", "true"); r.Status != 403 {
		t.Fatalf("deleting a version under legal hold with a bypass: %d %s", r.Status, r.Body)
	}
	c.Must(200, "PUT", "/buckets/vault/lock?key=doc&version="+o.VersionID, map[string]any{"legal_hold": false})
	c.Must(200, "DELETE", del, nil, "X-Bypass-Governance", "true")
}

// TestSettingXMLShape: a setting sent as S3's XML is held to the shape
// S3's own PUT holds it to (no run of more than 64 KiB without a tag, at
// most 32 levels), so a signed-in user cannot make the decoder hold many
// times a 1 MiB document (a tag of empty attributes costs some 50 bytes
// of decoder memory per byte sent) outside the node's document budget.
// Both documents are well formed and would be taken unchecked.
func TestSettingXMLShape(t *testing.T) {
	srv := nodetest.Start(t, nodetest.Options{})
	c := tenantAdmin(t, srv)
	c.Must(201, "POST", "/buckets", map[string]any{"name": "photos"})
	attrs := `<VersioningConfiguration ` + strings.Repeat(`a="" `, 20<<10) + `><Status>Enabled</Status></VersioningConfiguration>`
	deep := `<VersioningConfiguration><Status>Enabled</Status>` + strings.Repeat("<x>", 40) + strings.Repeat("</x>", 40) + `</VersioningConfiguration>`
	for name, doc := range map[string]string{"attributes": attrs, "depth": deep} {
		if r := c.Do("PUT", "/buckets/photos/settings/versioning", []byte(doc), "Content-Type", "application/xml"); r.Status != 400 || r.Code() != "MalformedXML" {
			t.Errorf("%s: %d %.200s, want 400 MalformedXML as S3's PutBucketVersioning answers", name, r.Status, r.Body)
		}
	}
	// The same setting of an ordinary shape is taken.
	c.Must(200, "PUT", "/buckets/photos/settings/versioning", []byte(`<VersioningConfiguration><Status>Enabled</Status></VersioningConfiguration>`), "Content-Type", "application/xml")
}
