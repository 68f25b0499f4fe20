package iam

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"strings"
	"time"
)

// Session is what temporary credentials add to their principal; the
// role, session name, session policy and tags they carry are on the
// Identity (AssumedRole, SessionName, SessionPolicies, Tags).
type Session struct {
	tokenHash [32]byte
	Expires   time.Time
}

// TempKeyPrefix starts every temporary access key id, as AWS's ASIA:
// the keyring looks such keys up among temporary credentials first.
const TempKeyPrefix = "ASIA"

// NewTempCredentials returns a fresh temporary access key id, secret
// and session token.
func NewTempCredentials() (accessKey, secret, token string) {
	ak, sk := NewAccessKey()
	var b [48]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("iam: crypto/rand failed: " + err.Error())
	}
	return TempKeyPrefix + ak[4:], sk, base64.RawURLEncoding.EncodeToString(b[:])
}

// TokenHash is what the catalog keeps of a session token.
func TokenHash(token string) []byte {
	h := sha256.Sum256([]byte(token))
	return h[:]
}

// Errors of a request's session token, as S3 answers them (package s3
// maps them; the query services map them to their own codes).
var (
	// ErrNoToken: temporary credentials used without their token. AWS
	// answers as for a key it does not know.
	ErrNoToken = errors.New("iam: temporary credentials without their session token")
	// ErrInvalidToken: a token that is not the credentials' own, or a
	// token sent with a permanent key.
	ErrInvalidToken = errors.New("iam: invalid session token")
	// ErrExpiredToken: the credentials' token, past their expiry.
	ErrExpiredToken = errors.New("iam: session token expired")
)

// CheckToken checks the session token a request carried (X-Amz-Security-Token
// in a header or the query, x-amz-security-token in a form) against the
// credentials that signed it, at now. The token is compared before the
// expiry, so only its holder learns that credentials expired.
func CheckToken(id *Identity, token string, now time.Time) error {
	switch {
	case id == nil:
		return nil
	case id.Session == nil:
		if strings.TrimSpace(token) != "" {
			return ErrInvalidToken
		}
		return nil
	case token == "":
		return ErrNoToken
	}
	h := sha256.Sum256([]byte(token))
	if subtle.ConstantTimeCompare(h[:], id.Session.tokenHash[:]) != 1 {
		return ErrInvalidToken
	}
	if !now.Before(id.Session.Expires) {
		return ErrExpiredToken
	}
	return nil
}
