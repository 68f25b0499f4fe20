package iam

import (
	"slices"
	"strings"

	"github.com/ostiumio/ostium/internal/iam/bucketpolicy"
)

// Condition keys on object tags, as bucket policies name them (lower
// case, as the policy parser keeps every key).
const (
	keyExistingObjectTag  = "s3:existingobjecttag/"
	keyRequestObjectTag   = "s3:requestobjecttag/"
	keyRequestObjectTagKs = "s3:requestobjecttagkeys"
)

// existingTagActions are the actions AWS gives s3:ExistingObjectTag/<key>
// for: those on an object that is there. Writing and deleting an object
// are not among them, so no policy can protect or expose an object by
// the tags it is about to lose.
var existingTagActions = map[Action]bool{
	"s3:GetObject": true, "s3:GetObjectVersion": true,
	"s3:GetObjectAcl": true, "s3:GetObjectVersionAcl": true,
	"s3:PutObjectAcl": true, "s3:PutObjectVersionAcl": true,
	"s3:GetObjectTagging": true, "s3:GetObjectVersionTagging": true,
	"s3:PutObjectTagging": true, "s3:PutObjectVersionTagging": true,
	"s3:DeleteObjectTagging": true, "s3:DeleteObjectVersionTagging": true,
	"s3:GetObjectAttributes": true, "s3:GetObjectVersionAttributes": true,
	"s3:GetObjectRetention": true, "s3:PutObjectRetention": true,
	"s3:GetObjectLegalHold": true, "s3:PutObjectLegalHold": true,
}

// requestTagActions are the actions that set tags, for
// s3:RequestObjectTag/<key> and s3:RequestObjectTagKeys: a write with
// x-amz-tagging (PutObject, CopyObject, CreateMultipartUpload) and
// PutObjectTagging.
var requestTagActions = map[Action]bool{
	"s3:PutObject": true, "s3:PutObjectTagging": true, "s3:PutObjectVersionTagging": true,
}

// tagConditions adds the object tag keys r defines to a policy's
// context. The tag key part of a condition key is matched without
// regard to case, as the rest of a condition key is: an object with
// tags "Env" and "env" answers both values to s3:ExistingObjectTag/env.
func tagConditions(r Request, ctx map[string][]string) {
	if existingTagActions[r.Action] {
		for k, v := range r.ObjectTags {
			name := keyExistingObjectTag + strings.ToLower(k)
			ctx[name] = append(ctx[name], v)
		}
	}
	if requestTagActions[r.Action] && len(r.RequestTags) > 0 {
		keys := make([]string, 0, len(r.RequestTags))
		for k, v := range r.RequestTags {
			keys = append(keys, k)
			name := keyRequestObjectTag + strings.ToLower(k)
			ctx[name] = append(ctx[name], v)
		}
		slices.Sort(keys)
		ctx[keyRequestObjectTagKs] = keys
	}
}

// ReadsObjectTags reports whether deciding action on this bucket may
// depend on the tags of the object acted on (its policy tests
// s3:ExistingObjectTag/<key> and the action is one AWS gives the key
// for), so that the caller reads them before it asks Authorize.
func (a *BucketAccess) ReadsObjectTags(action Action) bool {
	return a != nil && a.tags.existing && existingTagActions[action]
}

// ReadsObjectTags reports whether id's own policies (its identity-based
// ones and its session's) test s3:ExistingObjectTag/<key> for action,
// as BucketAccess.ReadsObjectTags for the bucket's.
func (id *Identity) ReadsObjectTags(action Action) bool {
	if id == nil || !existingTagActions[action] {
		return false
	}
	for _, ps := range [][]*bucketpolicy.Policy{id.Policies, id.SessionPolicies} {
		for _, p := range ps {
			if mentions(p, keyExistingObjectTag, true) {
				return true
			}
		}
	}
	return false
}

// TestsRequestTags reports whether the bucket's policy tests the tags a
// request sets, so that a decision taken before they are known (of a
// PutObjectTagging whose document is unread) is not final.
func (a *BucketAccess) TestsRequestTags() bool {
	return a != nil && a.tags.request
}

// policyTags is what a policy's conditions test of object tags, found
// once as the policy is parsed (ParseAccess).
type policyTags struct{ existing, request bool }

func tagsTested(p *bucketpolicy.Policy) policyTags {
	return policyTags{
		existing: mentions(p, keyExistingObjectTag, true),
		request:  mentions(p, keyRequestObjectTag, true) || mentions(p, keyRequestObjectTagKs, false),
	}
}

// mentions reports whether a condition of p tests key (or, with prefix,
// a key that starts with it).
func mentions(p *bucketpolicy.Policy, key string, prefix bool) bool {
	for _, st := range p.Statements {
		for _, c := range st.Conditions {
			if c.Key == key || prefix && strings.HasPrefix(c.Key, key) {
				return true
			}
		}
	}
	return false
}
