package iam_test

import (
	"errors"
	"testing"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/iam"
)

// The object tag condition keys: s3:ExistingObjectTag/<key> counts the
// tags of the object acted on, for the actions AWS gives it (reads, ACL
// and tag changes; never a write or a delete of the object);
// s3:RequestObjectTag/<key> and s3:RequestObjectTagKeys count the tags a
// write or PutObjectTagging sets. The tag key is matched without regard
// to case, as every condition key is.
func TestObjectTagConditions(t *testing.T) {
	const doc = `{"Statement":[
		{"Effect":"Allow","Principal":"*","Action":["s3:GetObject","s3:DeleteObject"],"Resource":"arn:aws:s3:::b/*",
		 "Condition":{"StringEquals":{"s3:ExistingObjectTag/Class":"public"}}},
		{"Effect":"Allow","Principal":"*","Action":["s3:PutObject","s3:PutObjectTagging"],"Resource":"arn:aws:s3:::b/*",
		 "Condition":{"StringEquals":{"s3:RequestObjectTag/Project":"blue"},"ForAllValues:StringEquals":{"s3:RequestObjectTagKeys":["Project","Owner"]}}},
		{"Effect":"Deny","Principal":"*","Action":"s3:GetObjectTagging","Resource":"arn:aws:s3:::b/*",
		 "Condition":{"StringEquals":{"s3:ExistingObjectTag/secret":"yes"}}}]}`
	b := catalog.Bucket{Name: "b", Owner: "id-owner", Tenant: "owner", Settings: catalog.Settings{Ownership: iam.OwnerEnforced,
		Policy: iam.EncodePolicy([]byte(doc), nil)}}
	a, err := iam.ParseAccess(b, iam.PublicAccessBlock{})
	if err != nil {
		t.Fatal(err)
	}
	carl := &iam.Identity{Tenant: "beta", User: "carl", Role: catalog.RoleUser, CanonicalID: "id-carl", TenantID: "id-beta"}
	owner := &iam.Identity{Tenant: "owner", User: "o", Role: catalog.RoleUser, CanonicalID: "id-owner", TenantID: "id-o"}
	for _, c := range []struct {
		name     string
		id       *iam.Identity
		action   iam.Action
		existing map[string]string
		request  map[string]string
		want     error
	}{
		{"tagged object read", carl, "s3:GetObject", map[string]string{"Class": "public"}, nil, nil},
		{"tag key of other case", carl, "s3:GetObject", map[string]string{"class": "public"}, nil, nil},
		{"other value", carl, "s3:GetObject", map[string]string{"Class": "private"}, nil, iam.ErrAccessDenied},
		{"untagged object", carl, "s3:GetObject", nil, nil, iam.ErrAccessDenied},
		{"no existing tags for a delete", carl, "s3:DeleteObject", map[string]string{"Class": "public"}, nil, iam.ErrAccessDenied},
		{"write with the tags asked", carl, "s3:PutObject", nil, map[string]string{"Project": "blue", "Owner": "carl"}, nil},
		{"write with another value", carl, "s3:PutObject", nil, map[string]string{"Project": "red"}, iam.ErrAccessDenied},
		{"write with a key not allowed", carl, "s3:PutObject", nil, map[string]string{"Project": "blue", "Cost": "1"}, iam.ErrAccessDenied},
		{"write without tags", carl, "s3:PutObject", nil, nil, iam.ErrAccessDenied},
		{"PutObjectTagging with the tags asked", carl, "s3:PutObjectTagging", nil, map[string]string{"Project": "blue"}, nil},
		{"request tags count for writes only", carl, "s3:GetObject", nil, map[string]string{"Class": "public"}, iam.ErrAccessDenied},
		{"deny by existing tag beats the owner", owner, "s3:GetObjectTagging", map[string]string{"secret": "yes"}, nil, iam.ErrAccessDenied},
		{"owner without the tag", owner, "s3:GetObjectTagging", map[string]string{"secret": "no"}, nil, nil},
	} {
		err := iam.Authorize(iam.Request{ID: c.id, Action: c.action, Bucket: &b, Key: "k", Access: a, ObjectTags: c.existing, RequestTags: c.request})
		if !errors.Is(err, c.want) || c.want == nil && err != nil {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
	if !a.ReadsObjectTags("s3:GetObject") || a.ReadsObjectTags("s3:PutObject") || a.ReadsObjectTags("s3:DeleteObject") || !a.TestsRequestTags() {
		t.Error("the policy's tag keys are not seen")
	}
	plain, _ := iam.ParseAccess(catalog.Bucket{Name: "b", Owner: "o", Settings: catalog.Settings{
		Policy: iam.EncodePolicy([]byte(`{"Statement":[{"Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::b/*"}]}`), nil)}}, iam.PublicAccessBlock{})
	if plain.ReadsObjectTags("s3:GetObject") || plain.TestsRequestTags() {
		t.Error("a policy without tag keys asks for tags")
	}
}
