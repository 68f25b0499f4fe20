package vcsp_test

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/ostiumio/ostium/internal/admin"
	"github.com/ostiumio/ostium/internal/node"
	"github.com/ostiumio/ostium/internal/node/nodetest"
	"github.com/ostiumio/ostium/internal/vcsp"
)

var ctx = context.Background()

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// env is a node with tenants whose admins hold S3 and admin API clients.
type env struct {
	t   *testing.T
	srv *nodetest.Server
	ix  *vcsp.Indexer
}

type tenant struct {
	name string
	s3   *s3.Client
	adm  *admin.Client
}

// start runs a node whose own indexer waits interval between runs (the
// tests run the indexer themselves, ix, when they want it to have run).
func start(t *testing.T, interval time.Duration) *env {
	t.Helper()
	return startWith(t, interval, nil)
}

func startWith(t *testing.T, interval time.Duration, cfg func(*node.Config)) *env {
	t.Helper()
	srv := nodetest.Start(t, nodetest.Options{Config: func(c *node.Config) {
		c.CatalogIndexInterval = interval
		if cfg != nil {
			cfg(c)
		}
	}})
	return &env{t: t, srv: srv, ix: vcsp.NewIndexer(srv.Node.Catalog.(vcsp.Catalog), time.Hour)}
}

// tenant onboards a tenant with an admin user and returns its clients.
func (e *env) tenant(name string) tenant {
	t := e.t
	t.Helper()
	root := admin.NewClient(e.srv.URL, nodetest.AccessKey, nodetest.SecretKey, e.srv.Client())
	must(t, root.Do(ctx, "POST", "/tenants", map[string]string{"name": name}, nil))
	must(t, root.Do(ctx, "POST", "/tenants/"+name+"/users", map[string]string{"name": "boss", "role": "admin"}, nil))
	var k admin.Key
	must(t, root.Do(ctx, "POST", "/tenants/"+name+"/users/boss/keys", nil, &k))
	c := s3.New(s3.Options{Region: "us-east-1", BaseEndpoint: aws.String(e.srv.URL), UsePathStyle: true,
		Credentials: credentials.NewStaticCredentialsProvider(k.AccessKey, k.SecretKey, ""), HTTPClient: e.srv.Client()})
	return tenant{name: name, s3: c, adm: admin.NewClient(e.srv.URL, k.AccessKey, k.SecretKey, e.srv.Client())}
}

func (tn tenant) bucket(t *testing.T, b string) {
	t.Helper()
	_, err := tn.s3.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(b)})
	must(t, err)
}

func (tn tenant) put(t *testing.T, b, key string, body []byte) {
	t.Helper()
	_, err := tn.s3.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(b), Key: aws.String(key), Body: bytes.NewReader(body)})
	must(t, err)
}

func (tn tenant) del(t *testing.T, b, key string) {
	t.Helper()
	_, err := tn.s3.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(b), Key: aws.String(key)})
	must(t, err)
}

func (tn tenant) publish(t *testing.T, name string, in admin.CatalogInput) admin.Catalog {
	t.Helper()
	var c admin.Catalog
	must(t, tn.adm.Do(ctx, "PUT", "/tenants/"+tn.name+"/catalogs/"+name, in, &c))
	return c
}

func (e *env) index() int {
	e.t.Helper()
	n, err := e.ix.RunOnce(ctx)
	must(e.t, err)
	return n
}

// get is a subscriber's plain GET (no S3 signature), with basic auth
// when user is set.
func (e *env) get(path string, user, password string, hdr ...string) (*http.Response, []byte) {
	e.t.Helper()
	req, err := http.NewRequest("GET", e.srv.URL+path, nil)
	must(e.t, err)
	if user != "" {
		req.SetBasicAuth(user, password)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := e.srv.Client().Do(req)
	must(e.t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	must(e.t, err)
	return resp, body
}

func (e *env) status(path string, want int, auth ...string) []byte {
	e.t.Helper()
	var u, p string
	if len(auth) == 2 {
		u, p = auth[0], auth[1]
	}
	resp, body := e.get(path, u, p)
	if resp.StatusCode != want {
		e.t.Fatalf("GET %s: %d %s, want %d", path, resp.StatusCode, body, want)
	}
	return body
}

var (
	urnUUID = regexp.MustCompile(`^urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	stamp   = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\dZ$`)
)

// Field by field, the documents as VMware's make_vcsp writes them: every
// field present, with its type, strict (an unknown field fails).
type libJSON struct {
	VcspVersion    string `json:"vcspVersion"`
	Version        string `json:"version"`
	ContentVersion string `json:"contentVersion"`
	Name           string `json:"name"`
	ID             string `json:"id"`
	Created        string `json:"created"`
	Capabilities   struct {
		TransferIn  []string `json:"transferIn"`
		TransferOut []string `json:"transferOut"`
	} `json:"capabilities"`
	ItemsHref string `json:"itemsHref"`
}

type itemJSON struct {
	Created     string  `json:"created"`
	Description *string `json:"description"`
	Version     string  `json:"version"`
	ID          string  `json:"id"`
	Name        string  `json:"name"`
	Metadata    []struct {
		Key        string `json:"key"`
		Value      string `json:"value"`
		Type       string `json:"type"`
		Domain     string `json:"domain"`
		Visibility string `json:"visibility"`
	} `json:"metadata"`
	Properties     map[string]string `json:"properties"`
	SelfHref       string            `json:"selfHref"`
	Type           string            `json:"type"`
	ContentVersion string            `json:"contentVersion"`
	Files          []struct {
		Name  string   `json:"name"`
		Size  *int64   `json:"size"`
		Etag  string   `json:"etag"`
		Hrefs []string `json:"hrefs"`
	} `json:"files"`
}

func strict(t *testing.T, what string, body []byte, v any) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("%s is not the VCSP document: %v\n%s", what, err, body)
	}
	// Every field present: a missing one decodes as zero, so the raw
	// document must name each.
	var raw map[string]any
	must(t, json.Unmarshal(body, &raw))
	var want []string
	switch v.(type) {
	case *libJSON:
		want = []string{"vcspVersion", "version", "contentVersion", "name", "id", "created", "capabilities", "itemsHref"}
	case *itemJSON:
		want = []string{"created", "description", "version", "files", "id", "name", "metadata", "properties", "selfHref", "type", "contentVersion"}
	}
	for _, f := range want {
		if _, ok := raw[f]; !ok {
			t.Fatalf("%s lacks %q:\n%s", what, f, body)
		}
	}
}

func checkItem(t *testing.T, it itemJSON, libID string) {
	t.Helper()
	// An OVF template's type-metadata names it, its version and its
	// library, as make_vcsp writes it; other items have none.
	if it.Type == vcsp.TypeOVF {
		if len(it.Metadata) != 1 || it.Metadata[0].Key != "type-metadata" || it.Metadata[0].Type != "String" ||
			it.Metadata[0].Domain != "SYSTEM" || it.Metadata[0].Visibility != "READONLY" {
			t.Fatalf("OVF item %s metadata %+v", it.Name, it.Metadata)
		}
		var tm map[string]any
		if err := json.Unmarshal([]byte(it.Metadata[0].Value), &tm); err != nil || tm["id"] != it.ID || tm["version"] != it.Version ||
			tm["libraryIdParent"] != libID || tm["isVappTemplate"] != "false" {
			t.Fatalf("OVF item %s type-metadata %s (%v)", it.Name, it.Metadata[0].Value, err)
		}
	} else if len(it.Metadata) != 0 {
		t.Fatalf("item %s (%s) metadata %+v", it.Name, it.Type, it.Metadata)
	}
	if !urnUUID.MatchString(it.ID) || !stamp.MatchString(it.Created) || it.ContentVersion != "1" || it.SelfHref != url.PathEscape(it.Name)+"/item.json" ||
		it.Metadata == nil || it.Properties == nil || it.Description == nil || len(it.Files) == 0 {
		t.Fatalf("item %+v is not as the format has it", it)
	}
	if !slices.Contains([]string{vcsp.TypeOVF, vcsp.TypeISO, vcsp.TypeOther}, it.Type) {
		t.Fatalf("item %s type %q", it.Name, it.Type)
	}
	for _, f := range it.Files {
		if f.Size == nil || len(f.Hrefs) != 1 || f.Hrefs[0] != url.PathEscape(it.Name)+"/"+url.PathEscape(f.Name) || f.Etag == "" {
			t.Fatalf("item %s file %+v", it.Name, f)
		}
	}
}

// subscriber is what vSphere does with a library's URL: read lib.json,
// items.json and each item.json, download every file and check its size
// and etag (the MD5 of a single-part object). It returns the items by
// name and each file's bytes by href.
func (e *env) subscribe(libURL string, auth ...string) (libJSON, map[string]itemJSON, map[string][]byte) {
	t := e.t
	t.Helper()
	var lib libJSON
	strict(t, "lib.json", e.status(libURL, 200, auth...), &lib)
	if lib.VcspVersion != "2" || lib.ContentVersion != "1" || !urnUUID.MatchString(lib.ID) || !stamp.MatchString(lib.Created) ||
		!slices.Equal(lib.Capabilities.TransferIn, []string{"httpGet"}) || !slices.Equal(lib.Capabilities.TransferOut, []string{"httpGet"}) ||
		lib.ItemsHref != "items.json" || lib.Version == "" {
		t.Fatalf("lib.json = %+v", lib)
	}
	base, _ := url.Parse(libURL)
	resolve := func(href string) string {
		u, err := url.Parse(href)
		must(t, err)
		return base.ResolveReference(u).EscapedPath()
	}
	var raw struct {
		Items []json.RawMessage `json:"items"`
	}
	must(t, json.Unmarshal(e.status(resolve(lib.ItemsHref), 200, auth...), &raw))
	items := map[string]itemJSON{}
	files := map[string][]byte{}
	for _, r := range raw.Items {
		var it itemJSON
		strict(t, "an items.json entry", r, &it)
		checkItem(t, it, lib.ID)
		// item.json is the items.json entry.
		var self itemJSON
		body := e.status(resolve(it.SelfHref), 200, auth...)
		strict(t, it.SelfHref, body, &self)
		a, _ := json.Marshal(it)
		b, _ := json.Marshal(self)
		if !bytes.Equal(a, b) {
			t.Fatalf("%s differs from its items.json entry:\n%s\n%s", it.SelfHref, b, a)
		}
		for _, f := range it.Files {
			data := e.status(resolve(f.Hrefs[0]), 200, auth...)
			sum := md5.Sum(data)
			if int64(len(data)) != *f.Size || (!strings.Contains(f.Etag, "-") && hex.EncodeToString(sum[:]) != f.Etag) {
				t.Fatalf("%s: %d bytes of MD5 %x; the index says %d bytes, etag %s", f.Hrefs[0], len(data), sum, *f.Size, f.Etag)
			}
			files[f.Hrefs[0]] = data
		}
		if _, dup := items[it.Name]; dup {
			t.Fatalf("item %s twice", it.Name)
		}
		items[it.Name] = it
	}
	return lib, items, files
}

// index0 reads lib.json and items.json only: what a subscriber polls.
func (e *env) index0(libURL string) (libJSON, map[string]itemJSON) {
	var lib libJSON
	strict(e.t, "lib.json", e.status(libURL, 200), &lib)
	var items struct{ Items []itemJSON }
	must(e.t, json.Unmarshal(e.status(strings.TrimSuffix(libURL, "lib.json")+lib.ItemsHref, 200), &items))
	m := map[string]itemJSON{}
	for _, it := range items.Items {
		m[it.Name] = it
	}
	return lib, m
}

func random(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(rand.UintN(256))
	}
	return b
}

// A published prefix is walked as a subscriber walks it: every document
// parses as the format, every file href resolves to the object's bytes
// with its size and etag, and a range is served as a subscriber resumes
// a large VMDK. Keys at the root, deeper than an item's folder or
// outside the prefix are no item and are never served; nor is the
// tenant's own item.json object in place of the generated one.
func TestSubscriberWalk(t *testing.T) {
	e := startWith(t, time.Hour, func(c *node.Config) { c.SSE.COverHTTP = true })
	acme := e.tenant("acme")
	acme.bucket(t, "media")
	vmdk := random(3<<20 + 17)
	objs := map[string][]byte{
		"lib/photon/photon.ovf":        []byte(`<?xml version="1.0"?><Envelope/>`),
		"lib/photon/photon-disk1.vmdk": vmdk,
		"lib/photon/photon.mf":         []byte("SHA256(photon.ovf)= 00\n"),
		"lib/photon/item.json":         []byte(`{"forged":true}`),
		"lib/tools 2/tools.iso":        random(1000),
		"lib/misc/notes.txt":           []byte("notes"),
		"lib/readme.txt":               []byte("root file"),
		"lib/deep/a/b.bin":             []byte("too deep"),
		"secret/passwords.txt":         []byte("hunter2"),
	}
	for k, v := range objs {
		acme.put(t, "media", k, v)
	}
	// Encrypted at rest (SSE-S3): served decrypted, as S3 serves it.
	sealed := random(2000)
	_, err := acme.s3.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("media"), Key: aws.String("lib/misc/sealed.bin"),
		Body: bytes.NewReader(sealed), ServerSideEncryption: "AES256"})
	must(t, err)
	// SSE-C: only its writer has the key, so it is in no item.
	ck := bytes.Repeat([]byte{7}, 32)
	ckMD5 := md5.Sum(ck)
	_, err = acme.s3.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("media"), Key: aws.String("lib/misc/customer.bin"),
		Body: bytes.NewReader([]byte("customer-keyed")), SSECustomerAlgorithm: aws.String("AES256"),
		SSECustomerKey: aws.String(base64.StdEncoding.EncodeToString(ck)), SSECustomerKeyMD5: aws.String(base64.StdEncoding.EncodeToString(ckMD5[:]))})
	must(t, err)
	c := acme.publish(t, "isos", admin.CatalogInput{Bucket: "media", Prefix: "lib/", Description: "golden images"})
	if c.URL != "/catalogs/acme/isos/lib.json" || c.Protected || c.Version != 0 || c.Indexed != nil || !urnUUID.MatchString(c.LibraryID) {
		t.Fatalf("published %+v", c)
	}
	// Not indexed yet: nothing to subscribe to.
	e.status(c.URL, 404)
	if n := e.index(); n != 1 {
		t.Fatalf("indexer regenerated %d libraries, want 1", n)
	}
	lib, items, files := e.subscribe(c.URL)
	if lib.ID != c.LibraryID || lib.Name != "isos" || lib.Version != "1" {
		t.Fatalf("lib.json %+v for %+v", lib, c)
	}
	want := map[string]string{"photon": vcsp.TypeOVF, "tools 2": vcsp.TypeISO, "misc": vcsp.TypeOther}
	if len(items) != len(want) {
		t.Fatalf("items %v, want %v", slices.Collect(mapsKeys(items)), want)
	}
	for name, typ := range want {
		if items[name].Type != typ {
			t.Errorf("item %q type %q, want %q", name, items[name].Type, typ)
		}
	}
	for _, f := range items["misc"].Files {
		if f.Name == "customer.bin" {
			t.Fatal("an SSE-C object is listed")
		}
	}
	if n := len(items["photon"].Files); n != 3 {
		t.Fatalf("photon has %d files, want its .ovf, .vmdk and .mf", n)
	}
	if !bytes.Equal(files["tools%202/tools.iso"], objs["lib/tools 2/tools.iso"]) || !bytes.Equal(files["misc/sealed.bin"], sealed) {
		t.Fatal("a file's bytes are not the object's")
	}
	var got admin.Catalog
	must(t, acme.adm.Do(ctx, "GET", "/tenants/acme/catalogs/isos", nil, &got))
	if got.Version != 1 || got.Indexed == nil || got.Description != "golden images" {
		t.Fatalf("after indexing: %+v", got)
	}

	// A range of a large file, as a subscriber resumes a download.
	resp, body := e.get("/catalogs/acme/isos/photon/photon-disk1.vmdk", "", "", "Range", "bytes=1048576-1049599")
	if resp.StatusCode != 206 || !bytes.Equal(body, vmdk[1048576:1049600]) ||
		resp.Header.Get("Content-Range") != fmt.Sprintf("bytes 1048576-1049599/%d", len(vmdk)) {
		t.Fatalf("range: %d %q, %d bytes", resp.StatusCode, resp.Header.Get("Content-Range"), len(body))
	}
	resp, _ = e.get("/catalogs/acme/isos/photon/photon-disk1.vmdk", "", "", "Range", fmt.Sprintf("bytes=%d-", len(vmdk)+10))
	if resp.StatusCode != 416 {
		t.Fatalf("range past the end: %d, want 416", resp.StatusCode)
	}
	etag := items["photon"].Files[0].Etag
	resp, _ = e.get("/catalogs/acme/isos/photon/"+items["photon"].Files[0].Name, "", "", "If-None-Match", `"`+etag+`"`)
	if resp.StatusCode != 304 {
		t.Fatalf("If-None-Match of the etag: %d, want 304", resp.StatusCode)
	}

	// Nothing else of the bucket.
	for _, p := range []string{"readme.txt", "deep/a/b.bin", "deep/a", "%2e%2e/secret/passwords.txt", "photon/..%2f..%2fsecret/passwords.txt",
		"photon%2f..%2f..%2fsecret%2fpasswords.txt", "../secret/passwords.txt", "photon/", "photon", "nothing/here.iso", ""} {
		req, _ := http.NewRequest("GET", e.srv.URL+"/catalogs/acme/isos/x", nil)
		req.URL.RawPath, req.URL.Path = "/catalogs/acme/isos/"+p, mustUnescape(t, "/catalogs/acme/isos/"+p)
		resp, err := e.srv.Client().Do(req)
		must(t, err)
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode == 200 || bytes.Contains(b, []byte("hunter2")) || bytes.Contains(b, []byte("too deep")) || bytes.Contains(b, []byte("root file")) {
			t.Errorf("GET %s: %d %q: outside the library", p, resp.StatusCode, b)
		}
	}
	// The generated item.json, never the tenant's object of that name.
	if b := e.status("/catalogs/acme/isos/photon/item.json", 200); bytes.Contains(b, []byte("forged")) {
		t.Fatalf("the tenant's item.json object was served: %s", b)
	}
	// Writes are refused; the bucket stays private to S3's anonymous callers.
	req, _ := http.NewRequest("PUT", e.srv.URL+"/catalogs/acme/isos/photon/x.iso", strings.NewReader("x"))
	resp, err = e.srv.Client().Do(req)
	must(t, err)
	resp.Body.Close()
	if resp.StatusCode != 405 {
		t.Fatalf("PUT into a library: %d, want 405", resp.StatusCode)
	}
	if resp, _ := e.get("/media/lib/photon/photon.ovf", "", ""); resp.StatusCode != 403 {
		t.Fatalf("anonymous S3 GET of a published object: %d, want 403 (publishing opens the library only)", resp.StatusCode)
	}
}

func mustUnescape(t *testing.T, p string) string {
	u, err := url.PathUnescape(p)
	must(t, err)
	return u
}

func mapsKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// The index follows PUTs and DELETEs when the indexer runs, not before
// (nothing is regenerated per write): a new item appears, a changed item
// counts a version more while an untouched one keeps its version and
// creation time, a deleted one goes, and a run that finds nothing
// changed writes nothing.
func TestIndexFollowsChangesWhenTheJobRuns(t *testing.T) {
	e := start(t, time.Hour)
	acme := e.tenant("acme")
	acme.bucket(t, "media")
	acme.put(t, "media", "photon/photon.ovf", []byte("<Envelope/>"))
	acme.put(t, "media", "tools/tools.iso", random(500))
	c := acme.publish(t, "lib", admin.CatalogInput{Bucket: "media"})
	e.index()
	lib, items, _ := e.subscribe(c.URL)
	if lib.Version != "1" || len(items) != 2 {
		t.Fatalf("first index: version %s, %d items", lib.Version, len(items))
	}
	before := items["photon"]

	// A PUT and an overwrite: the index is as it was until the job runs.
	acme.put(t, "media", "new item/disk.iso", random(300))
	acme.put(t, "media", "tools/tools.iso", random(600))
	lib2, items2 := e.index0(c.URL)
	if lib2.Version != "1" || len(items2) != 2 || items2["tools"].Version != "1" || *items2["tools"].Files[0].Size != 500 {
		t.Fatalf("the index changed before the job ran: version %s, items %d", lib2.Version, len(items2))
	}
	if n := e.index(); n != 1 {
		t.Fatalf("indexer regenerated %d, want 1", n)
	}
	lib, items, _ = e.subscribe(c.URL)
	if lib.Version != "2" || len(items) != 3 || items["new item"].Version != "1" || items["new item"].Type != vcsp.TypeISO {
		t.Fatalf("after PUT: version %s, items %+v", lib.Version, items)
	}
	if *items["tools"].Files[0].Size != 600 || items["tools"].Version != "2" {
		t.Fatalf("overwritten tools: %+v (want 600 bytes, version 2)", items["tools"])
	}
	if p := items["photon"]; p.Version != before.Version || p.Created != before.Created || p.ID != before.ID {
		t.Fatalf("untouched photon changed: %+v, was %+v", p, before)
	}

	// A DELETE.
	acme.del(t, "media", "new item/disk.iso")
	if _, items := e.index0(c.URL); len(items) != 3 {
		t.Fatal("the index changed on DELETE before the job ran")
	}
	e.index()
	lib, items, _ = e.subscribe(c.URL)
	if _, ok := items["new item"]; ok || lib.Version != "3" {
		t.Fatalf("after DELETE: version %s, items %v", lib.Version, slices.Collect(mapsKeys(items)))
	}
	e.status("/catalogs/acme/lib/new%20item/item.json", 404)

	// Nothing changed: nothing is written, the version stays.
	if n := e.index(); n != 0 {
		t.Fatalf("a run with nothing changed regenerated %d libraries", n)
	}
	if lib, _, _ := e.subscribe(c.URL); lib.Version != "3" {
		t.Fatalf("version %s after an idle run, want 3", lib.Version)
	}
}

// The node's own leased indexer runs on its interval.
func TestNodeIndexesOnItsInterval(t *testing.T) {
	e := start(t, 200*time.Millisecond)
	acme := e.tenant("acme")
	acme.bucket(t, "media")
	acme.put(t, "media", "photon/photon.ovf", []byte("<Envelope/>"))
	c := acme.publish(t, "lib", admin.CatalogInput{Bucket: "media"})
	deadline := time.Now().Add(60 * time.Second)
	for {
		resp, _ := e.get(c.URL, "", "")
		if resp.StatusCode == 200 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("lib.json still %d a minute after publishing (interval 200ms)", resp.StatusCode)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if _, items, _ := e.subscribe(c.URL); len(items) != 1 {
		t.Fatalf("items %v", items)
	}
}

// A protected library answers 401 without its user and password, or
// with wrong ones, and serves everything with them; an address that
// fails too often is held off even with the right ones; publishing again
// without protection opens it.
func TestBasicAuth(t *testing.T) {
	e := start(t, time.Hour)
	acme := e.tenant("acme")
	acme.bucket(t, "media")
	acme.put(t, "media", "photon/photon.ovf", []byte("<Envelope/>"))
	const user, pw = "subscriber", "correct horse battery"
	c := acme.publish(t, "lib", admin.CatalogInput{Bucket: "media", User: user, Password: pw})
	if !c.Protected || c.User != user {
		t.Fatalf("published %+v", c)
	}
	var raw map[string]any
	must(t, acme.adm.Do(ctx, "GET", "/tenants/acme/catalogs/lib", nil, &raw))
	if b, _ := json.Marshal(raw); bytes.Contains(b, []byte(pw)) || bytes.Contains(b, []byte("argon2")) {
		t.Fatalf("the API tells the password or its hash: %s", b)
	}
	e.index()
	resp, _ := e.get(c.URL, "", "")
	if resp.StatusCode != 401 || !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Basic ") {
		t.Fatalf("no credentials: %d %q, want 401 with a Basic challenge", resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
	}
	e.status(c.URL, 401, user, "wrong password!")
	e.status(c.URL, 401, "someone", pw)
	e.status("/catalogs/acme/lib/photon/photon.ovf", 401)
	e.subscribe(c.URL, user, pw)
	e.status("/catalogs/acme/lib/photon/photon.ovf", 200, user, pw)

	// Bad input from the tenant is refused as such.
	for _, in := range []admin.CatalogInput{{Bucket: "media", User: user}, {Bucket: "media", User: user, Password: "short"},
		{Bucket: "media", User: "a:b", Password: pw}, {Bucket: "media", Prefix: "no-slash"}} {
		err := acme.adm.Do(ctx, "PUT", "/tenants/acme/catalogs/lib", in, nil)
		var ae *admin.Error
		if !errors.As(err, &ae) || ae.Status != 400 {
			t.Errorf("publish %+v: %v, want 400", in, err)
		}
	}

	// Failed attempts from one address are bounded: after MaxFailures
	// (two already), even the right password waits.
	for i := 2; i < vcsp.MaxFailures; i++ {
		e.status(c.URL, 401, user, fmt.Sprintf("wrong %d", i))
	}
	resp, _ = e.get(c.URL, user, pw)
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("after %d failures: %d, want 429 with Retry-After", vcsp.MaxFailures, resp.StatusCode)
	}

	// Unprotected again: anyone reads it (the failures were with the
	// password, not with the library).
	acme.publish(t, "lib", admin.CatalogInput{Bucket: "media"})
	e.status(c.URL, 200)

	// A password alone protects it for the user name the vSphere Client
	// sends, vcsp. From another address (this one is held off, that one
	// is not: failures are counted per address).
	if c := acme.publish(t, "lib", admin.CatalogInput{Bucket: "media", Password: pw}); !c.Protected || c.User != "vcsp" {
		t.Fatalf("published with a password alone: %+v, want user vcsp", c)
	}
	tr := e.srv.Client().Transport.(*http.Transport).Clone()
	tr.DialContext = (&net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 2)}}).DialContext
	other := &http.Client{Transport: tr}
	for _, tc := range []struct {
		user string
		want int
	}{{"", 401}, {user, 401}, {"vcsp", 200}} {
		req, _ := http.NewRequest("GET", e.srv.URL+c.URL, nil)
		if tc.user != "" {
			req.SetBasicAuth(tc.user, pw)
		}
		resp, err := other.Do(req)
		must(t, err)
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Fatalf("from 127.0.0.2 as %q: %d, want %d", tc.user, resp.StatusCode, tc.want)
		}
	}
	if resp, _ := e.get(c.URL, "vcsp", pw); resp.StatusCode != 429 {
		t.Fatalf("the failing address with the right credentials: %d, want 429 still", resp.StatusCode)
	}
}

// Tenants' libraries are apart: the same name in two tenants serves
// each its own, a tenant publishes only its own buckets and administers
// only its own libraries; unpublishing ends access; a bucket deleted and
// made again by another tenant is not served as the library.
func TestTenantsApartAndUnpublish(t *testing.T) {
	e := start(t, time.Hour)
	acme, globex := e.tenant("acme"), e.tenant("globex")
	acme.bucket(t, "acme-media")
	globex.bucket(t, "globex-media")
	acme.put(t, "acme-media", "item/a.iso", []byte("acme's"))
	globex.put(t, "globex-media", "item/a.iso", []byte("globex's"))
	ca := acme.publish(t, "lib", admin.CatalogInput{Bucket: "acme-media"})
	cg := globex.publish(t, "lib", admin.CatalogInput{Bucket: "globex-media"})
	if ca.LibraryID == cg.LibraryID {
		t.Fatal("two libraries share an id")
	}
	e.index()
	if b := e.status("/catalogs/acme/lib/item/a.iso", 200); string(b) != "acme's" {
		t.Fatalf("acme's library serves %q", b)
	}
	if b := e.status("/catalogs/globex/lib/item/a.iso", 200); string(b) != "globex's" {
		t.Fatalf("globex's library serves %q", b)
	}

	// globex may not publish acme's bucket, nor see or change acme's libraries.
	var ae *admin.Error
	err := globex.adm.Do(ctx, "PUT", "/tenants/globex/catalogs/stolen", admin.CatalogInput{Bucket: "acme-media"}, nil)
	if !errors.As(err, &ae) || ae.Status != 404 || ae.Code != "NoSuchBucket" {
		t.Fatalf("publishing another tenant's bucket: %v, want 404 NoSuchBucket", err)
	}
	for _, m := range []string{"GET", "PUT", "DELETE"} {
		err := globex.adm.Do(ctx, m, "/tenants/acme/catalogs/lib", admin.CatalogInput{Bucket: "globex-media"}, nil)
		if !errors.As(err, &ae) || ae.Status != 403 {
			t.Fatalf("%s of another tenant's library: %v, want 403", m, err)
		}
	}
	err = globex.adm.Do(ctx, "GET", "/tenants/acme/catalogs", nil, nil)
	if !errors.As(err, &ae) || ae.Status != 403 {
		t.Fatalf("listing another tenant's libraries: %v, want 403", err)
	}
	var list []admin.Catalog
	must(t, globex.adm.Do(ctx, "GET", "/tenants/globex/catalogs", nil, &list))
	if len(list) != 1 || list[0].Bucket != "globex-media" {
		t.Fatalf("globex's libraries: %+v", list)
	}
	// A tenant's libraries are bounded (the indexer walks each).
	for i := 1; i < admin.MaxCatalogs; i++ {
		must(t, globex.adm.Do(ctx, "PUT", fmt.Sprintf("/tenants/globex/catalogs/more-%d", i), admin.CatalogInput{Bucket: "globex-media"}, nil))
	}
	err = globex.adm.Do(ctx, "PUT", "/tenants/globex/catalogs/one-too-many", admin.CatalogInput{Bucket: "globex-media"}, nil)
	if !errors.As(err, &ae) || ae.Status != 400 || ae.Code != "TooManyCatalogs" {
		t.Fatalf("library %d: %v, want 400 TooManyCatalogs", admin.MaxCatalogs+1, err)
	}
	must(t, globex.adm.Do(ctx, "PUT", "/tenants/globex/catalogs/lib", admin.CatalogInput{Bucket: "globex-media", Description: "changed"}, nil))
	for i := 1; i < admin.MaxCatalogs; i++ {
		must(t, globex.adm.Do(ctx, "DELETE", fmt.Sprintf("/tenants/globex/catalogs/more-%d", i), nil, nil))
	}

	// A suspended tenant publishes nothing until resumed.
	root := admin.NewClient(e.srv.URL, nodetest.AccessKey, nodetest.SecretKey, e.srv.Client())
	must(t, root.Do(ctx, "POST", "/tenants/globex/suspend", nil, nil))
	e.status("/catalogs/globex/lib/lib.json", 404)
	e.status("/catalogs/globex/lib/item/a.iso", 404)
	e.status("/catalogs/acme/lib/item/a.iso", 200)
	must(t, root.Do(ctx, "POST", "/tenants/globex/resume", nil, nil))
	e.status("/catalogs/globex/lib/item/a.iso", 200)

	// Unpublishing ends access to the documents and the files.
	must(t, acme.adm.Do(ctx, "DELETE", "/tenants/acme/catalogs/lib", nil, nil))
	e.status(ca.URL, 404)
	e.status("/catalogs/acme/lib/item/a.iso", 404)
	e.status("/catalogs/globex/lib/item/a.iso", 200)
	err = acme.adm.Do(ctx, "GET", "/tenants/acme/catalogs/lib", nil, nil)
	if !errors.As(err, &ae) || ae.Code != "NoSuchCatalog" {
		t.Fatalf("an unpublished library: %v, want NoSuchCatalog", err)
	}

	// globex's bucket deleted and made again by acme: globex's library
	// serves none of acme's objects, and its index empties.
	globex.del(t, "globex-media", "item/a.iso")
	_, err = globex.s3.DeleteBucket(ctx, &s3.DeleteBucketInput{Bucket: aws.String("globex-media")})
	must(t, err)
	acme.bucket(t, "globex-media")
	acme.put(t, "globex-media", "item/a.iso", []byte("acme's again"))
	e.status("/catalogs/globex/lib/item/a.iso", 404)
	e.index()
	var items struct {
		Items []any `json:"items"`
	}
	must(t, json.Unmarshal(e.status("/catalogs/globex/lib/items.json", 200), &items))
	if len(items.Items) != 0 {
		t.Fatalf("globex's library lists acme's bucket: %v", items.Items)
	}
}
