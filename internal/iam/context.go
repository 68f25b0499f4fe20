package iam

import (
	"strconv"
	"strings"
	"time"

	"github.com/ostiumio/ostium/internal/iam/bucketpolicy"
)

// requestKeys are the global condition keys of one request: who asks
// (aws:username, aws:userid, aws:PrincipalArn, aws:PrincipalAccount,
// aws:PrincipalType, aws:PrincipalTag/<key>), on what (aws:ResourceAccount,
// ostium:BucketOwner), and in what circumstances (aws:SourceIp,
// aws:SecureTransport, aws:CurrentTime, aws:EpochTime). A decision
// needs a few of them at most, so each is computed only when a policy
// asks for it (bucketpolicy.Keys).
type requestKeys struct {
	id       *Identity
	origin   Origin
	now      time.Time
	account  string // the resource's tenant; "" for none
	owner    string // the bucket owner's canonical id
	hasOwner bool   // whether the request is on a bucket
}

var _ bucketpolicy.Keys = (*requestKeys)(nil)

// Lookup returns the value of key (lower case) for this request; ok is
// false if the request has none.
func (k *requestKeys) Lookup(key string) (string, bool) {
	id := k.id
	user := id != nil && !id.Root && id.Tenant != "" // a tenant's user or role session
	switch key {
	case "aws:username":
		if !user || id.AssumedRole != "" {
			return "", false
		}
		return id.User, true
	case "aws:userid":
		switch {
		case id == nil:
			return "", false
		case user && id.AssumedRole != "" && id.RoleID != "":
			return id.RoleID + ":" + id.SessionName, true
		case user && id.AssumedRole != "":
			return id.CanonicalID + ":" + id.SessionName, true
		}
		return id.CanonicalID, true
	case "aws:principalarn":
		switch {
		case !user:
			return "", false
		case id.AssumedRole != "":
			return "arn:aws:iam::" + id.Tenant + ":role/" + id.AssumedRole, true
		}
		return "arn:aws:iam::" + id.Tenant + ":user/" + id.User, true
	case "aws:principalaccount":
		if !user {
			return "", false
		}
		return id.Tenant, true
	case "aws:principaltype":
		switch {
		case id == nil:
			return "Anonymous", true
		case !user:
			return "Account", true
		case id.AssumedRole != "":
			return "AssumedRole", true
		}
		return "User", true
	case keyResourceAccount:
		return k.account, k.account != ""
	case keyBucketOwner:
		return k.owner, k.hasOwner
	case "aws:sourceip":
		return k.origin.SourceIP, k.origin.SourceIP != ""
	case "aws:securetransport":
		return strconv.FormatBool(k.origin.Secure), true
	case "aws:currenttime":
		return k.time().UTC().Format(time.RFC3339), true
	case "aws:epochtime":
		return strconv.FormatInt(k.time().Unix(), 10), true
	}
	if tag, ok := strings.CutPrefix(key, "aws:principaltag/"); ok && id != nil {
		// Tag keys compare without regard to case, as the rest of a
		// condition key.
		for name, v := range id.Tags {
			if strings.EqualFold(name, tag) {
				return v, true
			}
		}
	}
	return "", false
}

func (k *requestKeys) time() time.Time {
	if k.now.IsZero() {
		k.now = time.Now()
	}
	return k.now
}
