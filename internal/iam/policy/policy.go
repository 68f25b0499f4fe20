// Package policy parses and evaluates S3 bucket policies: the subset of the
// AWS IAM policy language that a bucket policy may use (principals, s3:
// actions, resources inside the bucket and condition blocks).
//
// Everything here is a pure function of its inputs so that the gateway can
// validate a document once at PutBucketPolicy time, store it, and evaluate the
// parsed form on every request without I/O or locking. Reasons in *Error are
// worded like AWS's MalformedPolicy messages, because S3 clients and their
// users match on them. A parsed Policy is never modified by evaluation and
// may be shared between goroutines.
package policy

import "fmt"

// Versions of the policy language a document may declare. Only 2012-10-17
// knows policy variables; AWS reads ${...} literally under the older version
// (and when Version is absent), and so do we.
const (
	Version2012 = "2012-10-17"
	Version2008 = "2008-10-17"
)

// MaxSize is the largest bucket policy AWS accepts, in bytes.
const MaxSize = 20 * 1024

// Policy is a parsed bucket policy.
type Policy struct {
	Version    string
	ID         string
	Statements []Statement
}

// Effect is what a statement does when it applies.
type Effect string

// The two effects a statement may have.
const (
	EffectAllow Effect = "Allow"
	EffectDeny  Effect = "Deny"
)

// Statement is one entry of a policy's Statement list. Exactly one of
// Principal and NotPrincipal, of Action and NotAction, and of Resource and
// NotResource is set.
type Statement struct {
	Sid          string
	Effect       Effect
	Principal    *Principal
	NotPrincipal *Principal
	Action       []string
	NotAction    []string
	Resource     []string
	NotResource  []string
	Condition    []Condition

	// c is the matching form built by Parse, so editing a parsed
	// statement's fields has no effect; statements built by hand are
	// compiled on each evaluation instead.
	c *compiled
}

// Principal is a Principal or NotPrincipal element. The JSON form "*" is
// Wildcard with no lists.
type Principal struct {
	Wildcard      bool     // "*" or {"AWS": "*"}: everyone, anonymous included
	AWS           []string // account ids, account root ARNs, user/role ARNs
	CanonicalUser []string // 64-hex canonical user ids
	// Service principals are accepted so that policies written for AWS
	// (log delivery and the like) load, but no caller of the gateway is an
	// AWS service, so they never match.
	Service []string
}

// Condition is one key of one operator of a statement's Condition block,
// e.g. Operator "ForAnyValue:StringLike", Key "s3:prefix".
type Condition struct {
	Operator string
	Key      string // lower-cased, as condition keys are case-insensitive
	Values   []string
}

// Error is a refused policy document. Reason is the text for S3's
// MalformedPolicy error.
type Error struct{ Reason string }

func (e *Error) Error() string { return "malformed policy: " + e.Reason }

func errorf(format string, args ...any) *Error {
	return &Error{Reason: fmt.Sprintf(format, args...)}
}

// Request is what one S3 request brings to evaluation.
type Request struct {
	// Principals are the identifiers the caller answers to: user ARNs,
	// account ids, account root ARNs, canonical ids. Empty for anonymous.
	// A user's ARN also counts as its account's.
	Principals []string
	Anonymous  bool
	Action     string // "s3:GetObject"
	Resource   string // "arn:aws:s3:::bucket" or "arn:aws:s3:::bucket/key"
	// Context maps lower-cased condition key names to their values; a key
	// the request does not carry is absent (an empty slice counts as absent).
	Context map[string][]string
}

// Decision is the outcome of evaluating a policy against a request.
type Decision int

// Decisions, in increasing precedence.
const (
	NoMatch Decision = iota // no statement applies: fall back to ACLs/ownership
	Allow
	Deny
)

func (d Decision) String() string {
	switch d {
	case NoMatch:
		return "NoMatch"
	case Allow:
		return "Allow"
	case Deny:
		return "Deny"
	}
	return fmt.Sprintf("Decision(%d)", int(d))
}
