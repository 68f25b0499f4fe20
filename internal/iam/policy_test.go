package iam_test

import (
	"crypto/sha256"
	"encoding/hex"
	"testing"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/iam"
)

// A policy's principals count by the ids they were bound to when it was
// stored, never by name: a user or tenant created again under an old
// name matches none of the old one's statements, as on AWS (which turns
// a user's ARN into its unique id). A policy stored before binding
// existed binds names to the ids derived from them then.
func TestPolicyPrincipalsBindToIDs(t *testing.T) {
	const doc = `{"Statement":[
		{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::acme:user/cy"},"Action":"s3:GetObject","Resource":"arn:aws:s3:::b/cy/*"},
		{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::beta:root"},"Action":"s3:GetObject","Resource":"arn:aws:s3:::b/beta/*"}]}`
	cy := &iam.Identity{Tenant: "acme", User: "cy", Role: catalog.RoleUser, CanonicalID: "id-cy", TenantID: "id-acme"}
	cyAgain := &iam.Identity{Tenant: "acme", User: "cy", Role: catalog.RoleUser, CanonicalID: "id-cy2", TenantID: "id-acme"}
	carl := &iam.Identity{Tenant: "beta", User: "carl", Role: catalog.RoleUser, CanonicalID: "id-carl", TenantID: "id-beta"}
	carlNewBeta := &iam.Identity{Tenant: "beta", User: "carl", Role: catalog.RoleUser, CanonicalID: "id-carl2", TenantID: "id-beta2"}
	b := catalog.Bucket{Name: "b", Owner: "id-owner", Tenant: "owner", Settings: catalog.Settings{Ownership: iam.OwnerEnforced,
		Policy: iam.EncodePolicy([]byte(doc), map[string]string{"arn:aws:iam::acme:user/cy": "id-cy", "beta": "id-beta"})}}
	decide := func(b catalog.Bucket, id *iam.Identity, key string) bool {
		t.Helper()
		a, err := iam.ParseAccess(b, iam.PublicAccessBlock{})
		if err != nil {
			t.Fatal(err)
		}
		return iam.Authorize(iam.Request{ID: id, Action: "s3:GetObject", Bucket: &b, Key: key, Access: a}) == nil
	}
	for _, c := range []struct {
		who   string
		id    *iam.Identity
		key   string
		allow bool
	}{
		{"cy", cy, "cy/k", true}, {"cy recreated", cyAgain, "cy/k", false},
		{"beta's carl", carl, "beta/k", true}, {"carl of a recreated beta", carlNewBeta, "beta/k", false},
		{"cy outside its prefix", cy, "beta/k", false},
	} {
		if got := decide(b, c.id, c.key); got != c.allow {
			t.Errorf("%s reads %s: %v, want %v", c.who, c.key, got, c.allow)
		}
	}
	if doc2, _ := iam.DecodePolicy(b.Policy); string(doc2) != doc {
		t.Errorf("stored document %q, want it as given", doc2)
	}

	// Stored before binding: a bare document, names bound to the ids
	// derived from them then (sha256 of "ostium:user:acme/cy").
	legacy := b
	legacy.Policy = doc
	sum := sha256.Sum256([]byte("ostium:user:acme/cy"))
	oldCy := *cy
	oldCy.CanonicalID = hex.EncodeToString(sum[:])
	if !decide(legacy, &oldCy, "cy/k") {
		t.Error("a legacy policy does not match the user it named")
	}
	if decide(legacy, cyAgain, "cy/k") {
		t.Error("a legacy policy matched a user created since, by name")
	}
}
