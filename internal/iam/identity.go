// Package iam decides who is asking and whether they may: identities,
// credentials and (as pure functions) authorization.
package iam

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"

	"github.com/ostiumio/ostium/internal/iam/bucketpolicy"
)

// Identity is an authenticated principal. A nil *Identity is anonymous.
type Identity struct {
	CanonicalID string // 64 hex digits, as S3 canonical user ids
	DisplayName string
	AccessKey   string // the key the request was signed with
	Root        bool   // the provider's root credentials
	Tenant      string // "" for the provider
	// TenantID is the tenant's canonical id: what a bucket policy naming
	// the tenant (its account) was bound to.
	TenantID string
	User     string
	Role     string // catalog.RoleAdmin or catalog.RoleUser
	// App limits an application credential; nil for a user's own key.
	// Its limits are a boundary: they narrow every other grant.
	App *AppLimits
	// Suspended is set while the identity's tenant is suspended.
	Suspended bool
	// Session is set for temporary credentials (STS): the request must
	// carry their token.
	Session *Session

	// Policies are the identity-based policies of the user or role
	// (its inline and attached policies and its groups'), parsed, as
	// the Keyring loaded them with the key; nil: none beyond its role's
	// (see rolePolicy).
	Policies []*bucketpolicy.Policy
	// SessionPolicies narrow a temporary session (STS): nil for none;
	// otherwise one of them must allow what the request does, whatever
	// else allows it.
	SessionPolicies []*bucketpolicy.Policy
	// Tags are the user's or role's tags, for aws:PrincipalTag/<key>.
	Tags map[string]string
	// AssumedRole and SessionName name the role and session of an
	// assumed-role session (STS); "" for a user. A role session has no
	// built-in role policy: only its role's policies grant it anything.
	AssumedRole, SessionName string
	// RoleID is the assumed role's unique id (AROA...), which AWS names
	// a role session by (aws:userid is RoleID:SessionName).
	RoleID string
}

// AppLimits is what an application credential may touch.
type AppLimits struct {
	Buckets  []string
	ReadOnly bool
}

// RootCanonicalID is the canonical id of the provider's root identity:
// fixed, since the root is never deleted and its keys are known by it.
var RootCanonicalID = legacyCanonicalID("root")

// NewCanonicalID returns a fresh canonical id for a tenant or a user: 64
// random hex digits, as S3's. Never derived from a name: a tenant or user
// deleted and created again under its old name is a new principal, which
// owns nothing of the old one and holds none of its ACL grants.
func NewCanonicalID() string {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("iam: crypto/rand failed: " + err.Error())
	}
	return hex.EncodeToString(b[:])
}

// legacyCanonicalID is how canonical ids were derived from names before
// they were random; policies stored then bind their principals to these.
func legacyCanonicalID(name string) string {
	sum := sha256.Sum256([]byte("ostium:" + name))
	return hex.EncodeToString(sum[:])
}

const keyAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"

// NewAccessKey returns a fresh access key id (20 characters, AWS-like) and
// secret (40 characters).
func NewAccessKey() (accessKey, secret string) {
	b := make([]byte, 18+40)
	if _, err := rand.Read(b); err != nil {
		panic("iam: crypto/rand failed: " + err.Error())
	}
	ak := []byte("OS")
	for _, c := range b[:18] {
		ak = append(ak, keyAlphabet[int(c)%len(keyAlphabet)])
	}
	// Both alphabets divide 256, so every character is uniform.
	const secretAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	sk := make([]byte, 40)
	for i, c := range b[18:] {
		sk[i] = secretAlphabet[int(c)%len(secretAlphabet)]
	}
	return string(ak), string(sk)
}
