package sts

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/console"
	"github.com/ostiumio/ostium/internal/directory"
	"github.com/ostiumio/ostium/internal/iam"
)

// DirectorySignIn signs a tenant's directory user in by binding as it,
// under the console's sign-in limits (console.Handler.DirectoryAttempt):
// failed binds through STS and through the console count alike. It
// returns the user's catalog entry, enabled, or
// directory.ErrInvalidCredentials, directory.ErrBusy,
// console.ErrTooManyAttempts, console.ErrDirectoryUnavailable.
type DirectorySignIn interface {
	DirectoryAttempt(ctx context.Context, addr, action, tenant, login, password string) (catalog.User, error)
}

// AssumeRoleWithLDAPIdentity's bounds on DurationSeconds (MinIO's
// default; AWS's AssumeRole* bounds).
const (
	LDAPMinDuration     = 900
	LDAPMaxDuration     = 43200
	LDAPDefaultDuration = 3600
	// maxSessionPolicy bounds the Policy parameter, as AWS's 2048
	// characters of a plain-text session policy.
	maxSessionPolicy = 2048
)

type ldapIdentity struct {
	XMLName xml.Name `xml:"AssumeRoleWithLDAPIdentityResponse"`
	Xmlns   string   `xml:"xmlns,attr"`
	Result  struct {
		Credentials credentials
	} `xml:"AssumeRoleWithLDAPIdentityResult"`
	Meta responseMetadata `xml:"ResponseMetadata"`
}

// SplitLDAPUsername reads the tenant and the login from LDAPUsername:
// "TENANT\login" (Windows' down-level logon name) or "tenant/login". The
// tenant is the name the console's directory sign-in asks for; tenant
// names hold neither separator, so the first one ends the tenant and
// the login may hold either. Tenant names are lower case, so the tenant
// is read case aside ("ACME\bob", as Windows writes domains). ok is
// false when either part is empty.
func SplitLDAPUsername(name string) (tenant, login string, ok bool) {
	i := strings.IndexAny(name, `\/`)
	if i <= 0 || i == len(name)-1 {
		return "", "", false
	}
	return strings.ToLower(name[:i]), name[i+1:], true
}

var errLDAPCredentials = &Error{http.StatusForbidden, "AccessDenied",
	"Authentication failed: the directory user name or password is not valid."}

// assumeRoleWithLDAPIdentity is MinIO's directory sign-in: an unsigned
// call carrying a tenant's directory user name and password, bound as
// that user by its directory; the credentials act as its catalog user,
// with its policies, narrowed by a session policy if one is given.
func (s *Service) assumeRoleWithLDAPIdentity(ctx context.Context, param func(string) string) (any, error) {
	if s.Directory == nil {
		return nil, notImplemented("AssumeRoleWithLDAPIdentity")
	}
	if v := param("Version"); v != "" && v != "2011-06-15" {
		return nil, &Error{http.StatusBadRequest, "InvalidParameterValue", "Unsupported Version " + v + "."}
	}
	name, password := param("LDAPUsername"), param("LDAPPassword")
	if name == "" || password == "" {
		return nil, &Error{http.StatusBadRequest, "MissingParameter", "LDAPUsername and LDAPPassword are required."}
	}
	tenant, login, ok := SplitLDAPUsername(name)
	if !ok {
		return nil, &Error{http.StatusBadRequest, "InvalidParameterValue",
			`LDAPUsername must name the tenant: TENANT\login or TENANT/login.`}
	}
	dur, err := duration(param("DurationSeconds"), LDAPMinDuration, LDAPMaxDuration, LDAPDefaultDuration)
	if err != nil {
		return nil, err
	}
	policy := param("Policy")
	if len(policy) > maxSessionPolicy {
		return nil, &Error{http.StatusBadRequest, "PackedPolicyTooLarge",
			fmt.Sprintf("The Policy is %d characters; at most %d are allowed.", len(policy), maxSessionPolicy)}
	}
	if policy != "" {
		if _, bad := iam.ParsePolicies([]string{policy}); bad > 0 {
			return nil, &Error{http.StatusBadRequest, "MalformedPolicyDocument", "The session policy is not a valid policy document."}
		}
	}
	addr := iam.OriginOf(ctx).SourceIP
	u, err := s.Directory.DirectoryAttempt(ctx, addr, "sts:AssumeRoleWithLDAPIdentity", tenant, login, password)
	switch {
	case errors.Is(err, directory.ErrInvalidCredentials):
		return nil, errLDAPCredentials
	case errors.Is(err, console.ErrTooManyAttempts):
		return nil, &Error{http.StatusBadRequest, "Throttling", "Too many failed sign-ins; try again later."}
	case errors.Is(err, directory.ErrBusy):
		return nil, &Error{http.StatusServiceUnavailable, "ServiceUnavailable", "Too many sign-ins at once; try again in a moment."}
	case errors.Is(err, console.ErrDirectoryUnavailable):
		return nil, &Error{http.StatusServiceUnavailable, "ServiceUnavailable", "The directory did not answer; try again later."}
	case err != nil:
		return nil, err
	}
	now := s.now().UTC()
	ak, secret, token := iam.NewTempCredentials()
	rec := catalog.TempCred{AccessKey: ak, SecretSealed: s.sealer.Seal(secret, ak), TokenHash: iam.TokenHash(token),
		Tenant: u.Tenant, User: u.Name, Owner: u.CanonicalID, Policy: policy, Created: now,
		Expires: now.Add(time.Duration(dur) * time.Second)}
	if err := s.creds.PutTempCred(ctx, rec); err != nil {
		return nil, fmt.Errorf("sts: store temporary credentials: %w", err)
	}
	s.Audit.Record(ctx, nil, catalog.AuditEntry{Action: "sts:AssumeRoleWithLDAPIdentity", Source: addr, Tenant: u.Tenant,
		User: u.Name, Target: "user/" + u.Name, AccessKey: ak, Outcome: "ok", Status: http.StatusOK})
	out := &ldapIdentity{Xmlns: Namespace}
	out.Result.Credentials = credentials{AccessKeyID: ak, SecretAccessKey: secret, SessionToken: token,
		Expiration: rec.Expires.Format("2006-01-02T15:04:05Z")}
	return out, nil
}
