package iam_test

import (
	"testing"

	"github.com/ostiumio/ostium/internal/iam"
)

func TestCannedACLsGrantWhatAWSDocuments(t *testing.T) {
	owner := &iam.Identity{CanonicalID: "owner"}
	bucketOwner := &iam.Identity{CanonicalID: "bucket-owner"}
	other := &iam.Identity{CanonicalID: "other"}
	cases := []struct {
		canned string
		id     *iam.Identity
		perm   string
		want   bool
	}{
		{"private", owner, iam.PermRead, true}, {"private", other, iam.PermRead, false}, {"private", nil, iam.PermRead, false},
		{"public-read", nil, iam.PermRead, true}, {"public-read", nil, iam.PermWrite, false},
		{"public-read-write", nil, iam.PermWrite, true},
		{"authenticated-read", other, iam.PermRead, true}, {"authenticated-read", nil, iam.PermRead, false},
		{"bucket-owner-read", bucketOwner, iam.PermRead, true}, {"bucket-owner-read", bucketOwner, iam.PermWrite, false},
		{"bucket-owner-full-control", bucketOwner, iam.PermWriteACP, true},
		{"private", owner, iam.PermWriteACP, true}, // the owner always may change the ACL
	}
	for _, c := range cases {
		acl, err := iam.CannedACL(c.canned, "owner", "bucket-owner")
		if err != nil {
			t.Fatal(err)
		}
		if got := acl.Allows(c.id, c.perm, false); got != c.want {
			t.Errorf("%s: Allows(%v, %s) = %v, want %v", c.canned, c.id, c.perm, got, c.want)
		}
	}
	pub, _ := iam.CannedACL("public-read", "owner", "")
	if !pub.Public() || pub.Allows(nil, iam.PermRead, true) {
		t.Error("public grants must count as public and be ignored under IgnorePublicAcls")
	}
	if _, err := iam.CannedACL("everyone-everything", "owner", ""); err == nil {
		t.Error("an unknown canned ACL was accepted")
	}
	back, err := iam.DecodeACL(iam.EncodeACL(pub), "x")
	if err != nil || !back.Public() || back.Owner != "owner" {
		t.Fatalf("round trip: %+v %v", back, err)
	}
}

func TestGrantHeaders(t *testing.T) {
	gs, err := iam.ParseGrantHeader(`id="abc", uri="`+iam.AllUsers+`"`, iam.PermRead)
	if err != nil || len(gs) != 2 || gs[0].ID != "abc" || gs[1].URI != iam.AllUsers {
		t.Fatalf("ParseGrantHeader = %+v, %v", gs, err)
	}
	if gs, err := iam.ParseGrantHeader(`emailAddress="a@b.c"`, iam.PermRead); err != nil || len(gs) != 1 || gs[0].Type != iam.GranteeEmail || gs[0].Email != "a@b.c" {
		t.Fatalf("e-mail grant: %+v, %v", gs, err)
	}
	if _, err := iam.ParseGrantHeader(`nonsense`, iam.PermRead); err == nil {
		t.Fatal("a malformed grant was accepted")
	}
}
