package node_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/ostiumio/ostium/internal/kms"
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
