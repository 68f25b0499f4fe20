package node_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ostiumio/ostium/internal/blob"
	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/kms"
	"github.com/ostiumio/ostium/internal/kms/kmstest"
	"github.com/ostiumio/ostium/internal/node"
	"github.com/ostiumio/ostium/internal/node/nodetest"
	"github.com/ostiumio/ostium/internal/testenv"
)

// A node's key service keeps its keys in the catalog, sealed under the
// node key: two nodes sharing catalog and node key open each other's
// data keys, and a node started again opens what it wrapped before.
func TestNodeKeyServiceSharedAndDurable(t *testing.T) {
	ctx := context.Background()
	cat, key := testenv.CatalogURL(t), newKey(t)
	if cat == "" {
		cat = "sqlite://" + t.TempDir() + "/shared.db"
	}
	start := func() *node.Node {
		n, err := node.Open(ctx, node.Config{DataDir: t.TempDir(), Catalog: cat, NodeKey: key, Region: "eu-west-3",
			RootAccessKey: nodetest.AccessKey, RootSecretKey: nodetest.SecretKey})
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	a := start()
	id, err := a.KMS.DefaultKey(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	dk, err := a.KMS.NewDataKey(ctx, "acme", kms.KeyARN("eu-west-3", "acme", id), []byte("b/k"))
	if err != nil {
		t.Fatal(err)
	}
	b := start()
	if plain, err := b.KMS.Unwrap(ctx, "acme", dk.KeyID, dk.Wrapped, []byte("b/k")); err != nil || !bytes.Equal(plain, dk.Plain) {
		t.Fatalf("the other node: %v", err)
	}
	b.Close()
	a.Close()
	c := start()
	defer c.Close()
	if plain, err := c.KMS.Unwrap(ctx, "acme", dk.KeyID, dk.Wrapped, []byte("b/k")); err != nil || !bytes.Equal(plain, dk.Plain) {
		t.Fatalf("after a restart: %v", err)
	}
	if again, _ := c.KMS.DefaultKey(ctx, "acme"); again != id {
		t.Fatalf("default key after a restart = %s, was %s", again, id)
	}
}

// The kms section is checked as every other: a wrong value is named.
func TestKMSConfigValidate(t *testing.T) {
	for _, c := range []struct{ yaml, want string }{
		{"kms: {type: vault}", "kms.type"},
		{"kms: {type: kmip}", "kms.address"},
		{"kms: {type: kmip, address: kms:5696}", "kms.cert_file"},
		{"kms: {address: kms:5696}", "type: kmip"},
		{"kms: {type: builtin, rewrap_rate: -1}", "kms.rewrap_rate"},
		{"kms: {type: kmip, addres: kms:5696}", "addres"},
	} {
		_, err := node.ParseConfig([]byte("data: /tmp/x\n" + c.yaml + "\n"))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error naming %s", c.yaml, err, c.want)
		}
	}
	if _, err := node.ParseConfig([]byte("data: /tmp/x\nkms:\n  type: kmip\n  address: 127.0.0.1:5696\n  cert_file: c.pem\n  key_file: k.pem\n  timeout: 3s\n")); err != nil {
		t.Fatalf("a valid kms section: %v", err)
	}
}

// kms: {type: kmip} puts tenant keys on the KMIP server: the catalog
// names them there and holds no material.
func TestNodeWithKMIP(t *testing.T) {
	ctx := context.Background()
	srv := kmstest.StartKMIP(t)
	n, err := node.Open(ctx, node.Config{DataDir: t.TempDir(), ConfigDir: t.TempDir(), Catalog: testenv.CatalogURL(t), KMS: node.KMSConfig{Type: "kmip", KMIPConfig: srv.Config},
		RootAccessKey: nodetest.AccessKey, RootSecretKey: nodetest.SecretKey})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	id, err := n.KMS.DefaultKey(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	dk, err := n.KMS.NewDataKey(ctx, "acme", id, []byte("b/k"))
	if err != nil {
		t.Fatal(err)
	}
	if plain, err := n.KMS.Unwrap(ctx, "acme", id, dk.Wrapped, []byte("b/k")); err != nil || !bytes.Equal(plain, dk.Plain) {
		t.Fatalf("Unwrap: %v", err)
	}
	ck, err := n.Catalog.(catalog.KeyStore).GetKey(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if len(ck.Versions) != 1 || ck.Versions[0].MasterVersion != 0 || len(ck.Versions[0].Sealed) > 64 {
		t.Fatalf("catalog row of a KMIP key: %+v", ck.Versions)
	}
	if ms, _ := n.Catalog.(catalog.KeyStore).MasterKeys(ctx); len(ms) != 0 {
		t.Fatalf("a node on KMIP made master keys: %+v", ms)
	}
}

// A node runs the re-wrap job: after a rotation, a stored wrapped key
// moves to the new version by itself, bound to the object as the object
// service binds it, and opens to the same data key.
func TestNodeRewrapsAfterRotation(t *testing.T) {
	ctx := context.Background()
	n, err := node.Open(ctx, node.Config{DataDir: t.TempDir(), ConfigDir: t.TempDir(), Catalog: testenv.CatalogURL(t), KMS: node.KMSConfig{RewrapInterval: 100 * time.Millisecond},
		RootAccessKey: nodetest.AccessKey, RootSecretKey: nodetest.SecretKey})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	if err := n.Catalog.CreateBucket(ctx, catalog.Bucket{Name: "b", Tenant: "acme", CreatedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	id, err := n.KMS.DefaultKey(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	enc := &catalog.Encryption{Kind: "AES256", KeyID: id, Context: "e30="}
	bound := []byte("ostium object\x00b\x00k\x00e30=") // objects.KeyContext
	dk, err := n.KMS.NewDataKey(ctx, "acme", id, bound)
	if err != nil {
		t.Fatal(err)
	}
	enc.WrappedKey = dk.Wrapped
	now := time.Now()
	if err := n.Catalog.PutObject(ctx, catalog.Object{Bucket: "b", Key: "k", VersionID: catalog.NullVersion, Size: 1, ETag: `"e"`, LastModified: now,
		Meta: catalog.Meta{Encryption: enc}, Parts: []catalog.Part{{BlobID: blob.NewID(), Size: 1, ETag: `"e"`, LastModified: now}}}, catalog.PutOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := n.KMS.RotateKey(ctx, "acme", id); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		o, err := n.Catalog.GetObject(ctx, "b", "k", "")
		if err != nil {
			t.Fatal(err)
		}
		if w := o.Meta.Encryption.WrappedKey; !bytes.Equal(w, dk.Wrapped) {
			plain, err := n.KMS.Unwrap(ctx, "acme", id, w, bound)
			if err != nil || !bytes.Equal(plain, dk.Plain) {
				t.Fatalf("the re-wrapped key: %v", err)
			}
			if _, changed, err := n.KMS.(kms.Rewrapper).Rewrap(ctx, "acme", id, w, bound); err != nil || changed {
				t.Fatalf("re-wrapped, but not under the newest version: %v", err)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the node's re-wrap job did not re-wrap the stored key within 20 s")
		}
	}
}
