// Package iamcheck holds the checks a tenant's IAM entities pass
// whichever surface makes them (the IAM API, the admin API, the
// console): names, paths, policy documents and their sizes, roles'
// session bounds, OpenID Connect providers. Both APIs call it, so an
// entity one of them accepts the other accepts too. Its refusals are
// IAM's error codes and messages; each API wraps them in its own form.
package iamcheck

import (
	"crypto/rand"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/iam/bucketpolicy"
)

// IAM's error codes for a refused value.
const (
	CodeValidation      = "ValidationError"
	CodeMalformedPolicy = "MalformedPolicyDocument"
	CodeLimitExceeded   = "LimitExceeded"
)

// Error is a refused value: Code is IAM's error code, Message its text.
type Error struct{ Code, Message string }

func (e *Error) Error() string { return "iamcheck: " + e.Message }

func refuse(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Sizes of policy documents, as AWS's quotas.
const (
	UserPolicySize    = 2048
	GroupPolicySize   = 5120
	RolePolicySize    = 10240
	ManagedPolicySize = 6144
	TrustPolicySize   = 2048
)

// Length limits of names, as AWS's.
const (
	UserNameMax   = 64
	GroupNameMax  = 128
	RoleNameMax   = 64
	PolicyNameMax = 128
)

// Bounds of a role's MaxSessionDuration, in seconds.
const (
	MinSessionDuration = 3600
	MaxSessionDuration = 43200
)

// AWS's name rules.
var (
	namePattern  = regexp.MustCompile(`^[\w+=,.@-]+$`)
	pathPattern  = regexp.MustCompile(`^(/|/[\x21-\x7E]*/)$`)
	thumbPattern = regexp.MustCompile(`^[0-9A-Fa-f]{40}$`)
)

// Required refuses an empty value of field.
func Required(field, v string) error {
	if v == "" {
		return refuse(CodeValidation, "1 validation error detected: Value at '%s' failed to satisfy constraint: Member must not be null", field)
	}
	return nil
}

// Name checks a user's, group's, role's or policy's name.
func Name(field, v string, max int) error {
	if err := Required(field, v); err != nil {
		return err
	}
	if len(v) > max || !namePattern.MatchString(v) {
		return refuse(CodeValidation, "1 validation error detected: Value '%s' at '%s' failed to satisfy constraint: Member must satisfy regular expression pattern: [\\w+=,.@-]+ and have length less than or equal to %d", v, field, max)
	}
	return nil
}

// Path checks an entity's path ("/" or "/a/b/").
func Path(field, v string) error {
	if len(v) > 512 || !pathPattern.MatchString(v) {
		return refuse(CodeValidation, "1 validation error detected: Value '%s' at '%s' failed to satisfy constraint: Member must satisfy regular expression pattern: (\\u002F)|(\\u002F[\\u0021-\\u007E]+\\u002F)", v, field)
	}
	return nil
}

// Description checks a role's or policy's description.
func Description(field, v string) error {
	if len(v) > 1000 {
		return refuse(CodeValidation, "1 validation error detected: Value at '%s' failed to satisfy constraint: Member must have length less than or equal to 1000", field)
	}
	return nil
}

// SessionDuration checks a role's MaxSessionDuration (raw: as given).
func SessionDuration(field, raw string, n int) error {
	if n < MinSessionDuration || n > MaxSessionDuration {
		return refuse(CodeValidation, "1 validation error detected: Value '%s' at '%s' failed to satisfy constraint: Member must have value between %d and %d", raw, field, MinSessionDuration, MaxSessionDuration)
	}
	return nil
}

// Kind is what a policy document is for: it decides the grammar.
type Kind string

const (
	// Identity is an identity-based policy: a user's, group's or
	// role's, inline or managed, or a session's.
	Identity Kind = "identity"
	// Trust is a role's trust policy (who may assume it).
	Trust Kind = "trust"
)

// Parser returns the parser of kind's documents: the one the
// evaluation uses.
func (k Kind) Parser() (func([]byte) (*bucketpolicy.Policy, error), error) {
	switch k {
	case Identity, "":
		return bucketpolicy.ParseIdentity, nil
	case Trust:
		return bucketpolicy.ParseTrust, nil
	}
	return nil, fmt.Errorf("iamcheck: no policy kind %q (identity or trust)", k)
}

// Document checks a policy document of kind (required, at most max
// bytes) as the evaluation will parse it.
func Document(field string, kind Kind, doc string, max int) error {
	parse, err := kind.Parser()
	if err != nil {
		return refuse(CodeValidation, "%v", err)
	}
	if err := Required(field, doc); err != nil {
		return err
	}
	if len(doc) > max {
		return refuse(CodeLimitExceeded, "Cannot exceed quota for PolicySize: %d", max)
	}
	if _, err := parse([]byte(doc)); err != nil {
		var perr *bucketpolicy.Error
		if errors.As(err, &perr) {
			return refuse(CodeMalformedPolicy, "%s", perr.Reason)
		}
		return refuse(CodeMalformedPolicy, "%v", err)
	}
	return nil
}

// OIDCProvider checks an OpenID Connect provider as registered (its
// issuer URL https://host[/path], client ids, certificate thumbprints)
// and returns it as the catalog keeps it: the URL without its scheme,
// thumbprints in lower case.
func OIDCProvider(tenant, rawURL string, clientIDs, thumbprints []string, now time.Time) (catalog.OIDCProvider, error) {
	u, err := url.Parse(rawURL)
	if rawURL == "" || len(rawURL) > 255 || err != nil || u.Scheme != "https" || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return catalog.OIDCProvider{}, refuse(CodeValidation, "1 validation error detected: Value '%s' at 'url' failed to satisfy constraint: an OpenID Connect provider's URL is https://host[/path], at most 255 characters", rawURL)
	}
	p := catalog.OIDCProvider{Tenant: tenant, URL: strings.TrimSuffix(u.Host+u.Path, "/"), ClientIDs: clientIDs,
		Thumbprints: thumbprints, Created: now.UTC()}
	if len(clientIDs) > 100 {
		return p, refuse(CodeLimitExceeded, "Cannot exceed quota for ClientIdsPerOpenIdConnectProvider: 100")
	}
	for _, id := range clientIDs {
		if id == "" || len(id) > 255 || strings.ContainsAny(id, "\n") {
			return p, refuse(CodeValidation, "1 validation error detected: a client id is 1 to 255 characters")
		}
	}
	if len(thumbprints) > 5 {
		return p, refuse(CodeLimitExceeded, "Thumbprint list must contain fewer than 5 entries.")
	}
	for i, t := range thumbprints {
		if !thumbPattern.MatchString(t) {
			return p, refuse(CodeValidation, "1 validation error detected: Value '%s' at 'thumbprintList' failed to satisfy constraint: a thumbprint is 40 hexadecimal digits", t)
		}
		p.Thumbprints[i] = strings.ToLower(t)
	}
	return p, nil
}

// NewID returns a unique id of IAM's form: a prefix (AGPA for a group,
// ANPA for a policy, AROA for a role) and 17 random characters.
func NewID(prefix string) string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	b := make([]byte, 17)
	if _, err := rand.Read(b); err != nil {
		panic("iamcheck: crypto/rand failed: " + err.Error())
	}
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return prefix + string(b)
}
