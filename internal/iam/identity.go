// Package iam decides who is asking and whether they may: identities,
// credentials and (as pure functions) authorization.
package iam

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
)

// Identity is an authenticated principal. A nil *Identity is anonymous.
type Identity struct {
	CanonicalID string // 64 hex digits, as S3 canonical user ids
	DisplayName string
	AccessKey   string // the key the request was signed with
	Root        bool   // the provider's root credentials
	Tenant      string // "" for the provider
	User        string
	Role        string // catalog.RoleAdmin or catalog.RoleUser
	// App limits an application credential; nil for a user's own key.
	App *AppLimits
	// Suspended is set while the identity's tenant is suspended.
	Suspended bool
}

// AppLimits is what an application credential may touch.
type AppLimits struct {
	Buckets  []string
	ReadOnly bool
}

// RootCanonicalID is the canonical id of the provider's root identity.
var RootCanonicalID = CanonicalID("root")

// CanonicalID derives a stable canonical user id from a principal name.
func CanonicalID(name string) string {
	sum := sha256.Sum256([]byte("ostium:" + name))
	return hex.EncodeToString(sum[:])
}

// TenantCanonicalID and UserCanonicalID name tenants and users for ACL
// grants and owners; a user's id differs from its tenant's.
func TenantCanonicalID(tenant string) string { return CanonicalID("tenant:" + tenant) }

func UserCanonicalID(tenant, user string) string { return CanonicalID("user:" + tenant + "/" + user) }

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
