package sts

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/iam"
	"github.com/ostiumio/ostium/internal/iam/bucketpolicy"
	"github.com/ostiumio/ostium/internal/oidc"
)

// Roles is what AssumeRole and AssumeRoleWithWebIdentity read of the
// catalog's IAM entities (catalog.IAM has it).
type Roles interface {
	GetRole(ctx context.Context, tenant, name string) (catalog.Role, error)
	GetOIDCProvider(ctx context.Context, tenant, url string) (catalog.OIDCProvider, error)
	GetPolicy(ctx context.Context, tenant, name string) (catalog.ManagedPolicy, error)
	GetPolicyVersion(ctx context.Context, tenant, policy, version string) (catalog.PolicyVersion, error)
}

// Role sessions' bounds, as AWS's.
const (
	DefaultRoleDuration = 3600
	// ChainedMaxDuration bounds a session of a role assumed with another
	// role's session (role chaining).
	ChainedMaxDuration = 3600
	// MaxSessionPolicy bounds the session policies (inline and managed
	// ARNs together), as AWS's packed size, here the plain JSON's.
	MaxSessionPolicy = 2048
	maxPolicyArns    = 10
	maxSessionTags   = 50
)

var (
	sessionNameRE = regexp.MustCompile(`^[\w+=,.@-]{2,64}$`)
	externalIDRE  = regexp.MustCompile(`^[\w+=,.@:/-]+$`)
	tagKeyRE      = regexp.MustCompile(`^[\p{L}\p{Z}\p{N}_.:/=+\-@]{1,128}$`)
	tagValueRE    = regexp.MustCompile(`^[\p{L}\p{Z}\p{N}_.:/=+\-@]{0,256}$`)
)

func validation(format string, args ...any) *Error {
	return &Error{http.StatusBadRequest, "ValidationError", fmt.Sprintf(format, args...)}
}

func missing(field string) *Error {
	return validation("1 validation error detected: Value null at '%s' failed to satisfy constraint: Member must not be null", field)
}

// roleRef is a role ARN taken apart: arn:aws:iam::TENANT:role/PATH/NAME.
type roleRef struct{ arn, tenant, path, name string }

func parseRoleARN(s string) (roleRef, error) {
	parts := strings.SplitN(s, ":", 6)
	if len(s) < 20 || len(s) > 2048 || len(parts) != 6 || parts[0] != "arn" || parts[1] != "aws" || parts[2] != "iam" ||
		parts[3] != "" || parts[4] == "" || !strings.HasPrefix(parts[5], "role/") {
		return roleRef{}, validation("%s is invalid", s)
	}
	rest := strings.TrimPrefix(parts[5], "role")
	i := strings.LastIndexByte(rest, '/')
	r := roleRef{arn: s, tenant: parts[4], path: rest[:i+1], name: rest[i+1:]}
	if r.name == "" {
		return roleRef{}, validation("%s is invalid", s)
	}
	return r, nil
}

// role looks the role up; a role that is not there, or not at the ARN's
// path, is refused as AWS refuses it, without saying which.
func (s *Service) role(ctx context.Context, ref roleRef, deny func() error) (catalog.Role, error) {
	if s.roles == nil {
		return catalog.Role{}, deny()
	}
	role, err := s.roles.GetRole(ctx, ref.tenant, ref.name)
	switch {
	case errors.Is(err, catalog.ErrNoSuchEntity) || errors.Is(err, catalog.ErrNoSuchTenant):
		return role, deny()
	case err != nil:
		return role, fmt.Errorf("sts: look up role %s: %w", ref.arn, err)
	}
	if p := role.Path; (p == "" && ref.path != "/") || (p != "" && p != ref.path) {
		return role, deny()
	}
	return role, nil
}

// sessionParams are what both AssumeRole calls take alike.
type sessionParams struct {
	ref      roleRef
	session  string
	duration int
	policy   string // the session policies as one document, "" = none
}

// readSession reads RoleArn, RoleSessionName, Policy and PolicyArns;
// DurationSeconds is read once the role (its maximum) is known.
func (s *Service) readSession(ctx context.Context, param func(string) string, form map[string][]string) (sessionParams, error) {
	var p sessionParams
	arn := param("RoleArn")
	if arn == "" {
		return p, missing("roleArn")
	}
	var err error
	if p.ref, err = parseRoleARN(arn); err != nil {
		return p, err
	}
	p.session = param("RoleSessionName")
	if p.session == "" {
		return p, missing("roleSessionName")
	}
	if !sessionNameRE.MatchString(p.session) {
		return p, validation("1 validation error detected: Value '%s' at 'roleSessionName' failed to satisfy constraint: Member must satisfy regular expression pattern: [\\w+=,.@-]*", p.session)
	}
	p.policy, err = s.sessionPolicy(ctx, p.ref.tenant, param("Policy"), members(form, "PolicyArns.member", "arn"))
	return p, err
}

// members reads a list parameter: PREFIX.1.FIELD, PREFIX.2.FIELD, ...
// (FIELD "" for a list of strings), up to the first gap, bounded.
func members(form map[string][]string, prefix, field string) []string {
	var out []string
	for i := 1; i <= 1000; i++ {
		k := prefix + "." + strconv.Itoa(i)
		if field != "" {
			k += "." + field
		}
		v, ok := form[k]
		if !ok || len(v) == 0 {
			break
		}
		out = append(out, v[0])
	}
	return out
}

// sessionPolicy joins the inline session policy and the managed ones
// named by ARN into one document whose statements are theirs: a session
// may do what one of them allows (and its role's policies allow too).
func (s *Service) sessionPolicy(ctx context.Context, tenant, inline string, arns []string) (string, error) {
	if inline == "" && len(arns) == 0 {
		return "", nil
	}
	if len(arns) > maxPolicyArns {
		return "", validation("1 validation error detected: Value at 'policyArns' failed to satisfy constraint: Member must have length less than or equal to %d", maxPolicyArns)
	}
	docs := []string{}
	if inline != "" {
		docs = append(docs, inline)
	}
	for _, a := range arns {
		prefix := "arn:aws:iam::" + tenant + ":policy/"
		if !strings.HasPrefix(a, prefix) || s.roles == nil {
			return "", validation("Policy %s does not exist or is not attachable.", a)
		}
		name := a[strings.LastIndexByte(a, '/')+1:]
		mp, err := s.roles.GetPolicy(ctx, tenant, name)
		if errors.Is(err, catalog.ErrNoSuchEntity) || errors.Is(err, catalog.ErrNoSuchTenant) {
			return "", validation("Policy %s does not exist or is not attachable.", a)
		}
		if err != nil {
			return "", fmt.Errorf("sts: look up policy %s: %w", a, err)
		}
		v, err := s.roles.GetPolicyVersion(ctx, tenant, name, mp.DefaultVersion)
		if err != nil {
			return "", fmt.Errorf("sts: look up policy %s: %w", a, err)
		}
		docs = append(docs, v.Document)
	}
	var stmts []json.RawMessage
	for _, d := range docs {
		if _, err := bucketpolicy.ParseIdentity([]byte(d)); err != nil {
			var pe *bucketpolicy.Error
			if errors.As(err, &pe) {
				return "", &Error{http.StatusBadRequest, "MalformedPolicyDocument", pe.Reason}
			}
			return "", &Error{http.StatusBadRequest, "MalformedPolicyDocument", "The policy is not valid."}
		}
		var top struct{ Statement json.RawMessage }
		json.Unmarshal([]byte(d), &top)
		if t := strings.TrimSpace(string(top.Statement)); strings.HasPrefix(t, "{") {
			stmts = append(stmts, top.Statement)
		} else {
			var many []json.RawMessage
			json.Unmarshal(top.Statement, &many)
			stmts = append(stmts, many...)
		}
	}
	joined, err := json.Marshal(map[string]any{"Version": "2012-10-17", "Statement": stmts})
	if err != nil {
		return "", fmt.Errorf("sts: join session policies: %w", err)
	}
	if inline != "" && len(inline) > MaxSessionPolicy || len(joined) > 4*MaxSessionPolicy {
		return "", &Error{http.StatusBadRequest, "PackedPolicyTooLarge", "Packed size of session policies exceeds the limit."}
	}
	return string(joined), nil
}

// sessionTags reads Tags.member.N.Key/Value and TransitiveTagKeys.
func sessionTags(form map[string][]string) (map[string]string, []string, error) {
	keys, values := members(form, "Tags.member", "Key"), members(form, "Tags.member", "Value")
	transitive := members(form, "TransitiveTagKeys.member", "")
	if len(keys) > maxSessionTags {
		return nil, nil, &Error{http.StatusBadRequest, "PackedPolicyTooLarge", "Packed size of session tags exceeds the limit."}
	}
	if len(keys) != len(values) {
		return nil, nil, validation("Each session tag needs a key and a value.")
	}
	tags := map[string]string{}
	lower := map[string]bool{}
	for i, k := range keys {
		if !tagKeyRE.MatchString(k) || !tagValueRE.MatchString(values[i]) || !utf8.ValidString(k+values[i]) {
			return nil, nil, validation("1 validation error detected: Value '%s' at 'tags.%d.member.key' failed to satisfy constraint", k, i+1)
		}
		if lower[strings.ToLower(k)] {
			return nil, nil, &Error{http.StatusBadRequest, "InvalidParameterValue", "Duplicate tag keys found. Please note that Tag keys are case insensitive."}
		}
		lower[strings.ToLower(k)] = true
		tags[k] = values[i]
	}
	for _, k := range transitive {
		if !lower[strings.ToLower(k)] {
			return nil, nil, &Error{http.StatusBadRequest, "InvalidParameterValue", "The specified transitive tag key must be included in the requested tags."}
		}
	}
	if len(tags) == 0 {
		tags = nil
	}
	return tags, transitive, nil
}

// roleDuration reads DurationSeconds for a role's session: 900 up to
// the role's MaxSessionDuration (an hour for a chained session).
func roleDuration(v string, role catalog.Role, chained bool) (int, error) {
	n, err := duration(v, MinDuration, 43200, DefaultRoleDuration)
	if err != nil {
		return 0, err
	}
	max := role.MaxSessionDuration
	if max <= 0 {
		max = 3600
	}
	switch {
	case chained && n > ChainedMaxDuration:
		return 0, validation("The requested DurationSeconds exceeds the 1 hour session limit for roles assumed by role chaining.")
	case n > max:
		return 0, validation("The requested DurationSeconds exceeds the MaxSessionDuration set for this role.")
	}
	return n, nil
}

// trustRequest is a trust policy's evaluation of one caller and action.
func trustRequest(action string, ctxKeys map[string][]string, keys bucketpolicy.Keys) bucketpolicy.Request {
	return bucketpolicy.Request{Action: action, Resource: "*", Context: ctxKeys, Keys: keys}
}

// callerPrincipals are the ARNs a trust policy may name the caller by:
// the user, or the role (and the session) a chained call comes from.
func callerPrincipals(id *iam.Identity) []string {
	if id.AssumedRole != "" {
		return []string{"arn:aws:iam::" + id.Tenant + ":role/" + id.AssumedRole, callerARN(id)}
	}
	return []string{userARN(id)}
}

// trusts decides whether the role's trust policy lets id do action
// (sts:AssumeRole, sts:TagSession): a statement naming the caller (its
// user's or role's ARN) is enough, as on AWS within an account; one
// naming only the account ("arn:aws:iam::TENANT:root") needs the
// caller's identity policies to allow the action on the role too. A
// Deny in either refuses.
func trusts(trust *bucketpolicy.Policy, id *iam.Identity, action, roleARN string, ctxKeys map[string][]string) bool {
	keys := iam.TrustKeys(id, id.Tenant)
	named := trustRequest(action, ctxKeys, keys)
	named.Principals = callerPrincipals(id)
	account := trustRequest(action, ctxKeys, keys)
	account.Principals = []string{id.Tenant}
	dn, da := trust.Evaluate(named), trust.Evaluate(account)
	switch {
	case dn == bucketpolicy.Deny || da == bucketpolicy.Deny:
		return false
	case dn == bucketpolicy.Allow:
		return true
	case da == bucketpolicy.Allow:
		return iam.AuthorizeService(id, action, roleARN) == nil
	}
	return false
}

type assumedRoleUser struct {
	AssumedRoleID string `xml:"AssumedRoleId"`
	Arn           string
}

type assumeRoleResponse struct {
	XMLName xml.Name `xml:"AssumeRoleResponse"`
	Xmlns   string   `xml:"xmlns,attr"`
	Result  struct {
		Credentials      credentials
		AssumedRoleUser  assumedRoleUser
		PackedPolicySize int
	} `xml:"AssumeRoleResult"`
	Meta responseMetadata `xml:"ResponseMetadata"`
}

// assumeRole issues a role's session to a user or another role's
// session of the role's tenant that its trust policy lets in.
func (s *Service) assumeRole(ctx context.Context, id *iam.Identity, param func(string) string, form map[string][]string) (any, error) {
	switch {
	case id.Tenant == "":
		return nil, accessDenied("The provider's root credentials cannot call AssumeRole.")
	case id.App != nil:
		return nil, accessDenied("An application credential cannot call AssumeRole.")
	case param("SerialNumber") != "" || param("TokenCode") != "":
		return nil, notImplemented("Multi-factor authentication (SerialNumber, TokenCode)")
	case param("SourceIdentity") != "":
		return nil, notImplemented("SourceIdentity")
	case param("ProvidedContexts.member.1.ProviderArn") != "":
		return nil, notImplemented("ProvidedContexts")
	}
	p, err := s.readSession(ctx, param, form)
	if err != nil {
		return nil, err
	}
	deny := func() error {
		return accessDenied("User: " + callerARN(id) + " is not authorized to perform: sts:AssumeRole on resource: " + p.ref.arn)
	}
	if p.ref.tenant != id.Tenant {
		// Across tenants, never: a tenant's roles are its own.
		return nil, deny()
	}
	tags, transitive, err := sessionTags(form)
	if err != nil {
		return nil, err
	}
	ext := param("ExternalId")
	if ext != "" && (len(ext) < 2 || len(ext) > 1224 || !externalIDRE.MatchString(ext)) {
		return nil, validation("1 validation error detected: Value '%s' at 'externalId' failed to satisfy constraint: Member must satisfy regular expression pattern: [\\w+=,.@:\\/-]*", ext)
	}
	role, err := s.role(ctx, p.ref, deny)
	if err != nil {
		return nil, err
	}
	trust, err := bucketpolicy.ParseTrust([]byte(role.TrustPolicy))
	if err != nil {
		return nil, deny()
	}
	ck := map[string][]string{"sts:rolesessionname": {p.session}}
	if ext != "" {
		ck["sts:externalid"] = []string{ext}
	}
	if !trusts(trust, id, "sts:AssumeRole", p.ref.arn, ck) {
		return nil, deny()
	}
	if len(tags) > 0 {
		tk := map[string][]string{"sts:rolesessionname": ck["sts:rolesessionname"], "sts:externalid": ck["sts:externalid"]}
		var names []string
		for k, v := range tags {
			tk["aws:requesttag/"+strings.ToLower(k)] = []string{v}
			names = append(names, k)
		}
		sort.Strings(names)
		tk["aws:tagkeys"] = names
		if len(transitive) > 0 {
			tk["sts:transitivetagkeys"] = transitive
		}
		if ext == "" {
			delete(tk, "sts:externalid")
		}
		if !trusts(trust, id, "sts:TagSession", p.ref.arn, tk) {
			return nil, accessDenied("User: " + callerARN(id) + " is not authorized to perform: sts:TagSession on resource: " + p.ref.arn)
		}
	}
	dur, err := roleDuration(param("DurationSeconds"), role, id.AssumedRole != "")
	if err != nil {
		return nil, err
	}
	creds, err := s.issue(ctx, catalog.TempCred{Tenant: role.Tenant, User: id.User, Owner: role.ID, RoleName: role.Name,
		SessionName: p.session, Policy: p.policy, Tags: tags}, dur)
	if err != nil {
		return nil, err
	}
	out := &assumeRoleResponse{Xmlns: Namespace}
	out.Result.Credentials = creds
	out.Result.AssumedRoleUser = assumedRoleUser{AssumedRoleID: role.ID + ":" + p.session,
		Arn: "arn:aws:sts::" + role.Tenant + ":assumed-role/" + role.Name + "/" + p.session}
	out.Result.PackedPolicySize = packedSize(p.policy, tags)
	return out, nil
}

// packedSize is AWS's PackedPolicySize: the percentage of the allowed
// size the session policies and tags use.
func packedSize(policy string, tags map[string]string) int {
	n := len(policy)
	for k, v := range tags {
		n += len(k) + len(v)
	}
	return n * 100 / (4 * MaxSessionPolicy)
}

// issue stores a role session's credentials for dur seconds.
func (s *Service) issue(ctx context.Context, rec catalog.TempCred, dur int) (credentials, error) {
	now := s.now().UTC()
	ak, secret, token := iam.NewTempCredentials()
	rec.AccessKey, rec.SecretSealed, rec.TokenHash = ak, s.sealer.Seal(secret, ak), iam.TokenHash(token)
	rec.Created, rec.Expires = now, now.Add(time.Duration(dur)*time.Second)
	if err := s.creds.PutTempCred(ctx, rec); err != nil {
		return credentials{}, fmt.Errorf("sts: store temporary credentials: %w", err)
	}
	return credentials{AccessKeyID: ak, SecretAccessKey: secret, SessionToken: token,
		Expiration: rec.Expires.Format("2006-01-02T15:04:05Z")}, nil
}

type webIdentityResponse struct {
	XMLName xml.Name `xml:"AssumeRoleWithWebIdentityResponse"`
	Xmlns   string   `xml:"xmlns,attr"`
	Result  struct {
		Credentials                 credentials
		SubjectFromWebIdentityToken string
		AssumedRoleUser             assumedRoleUser
		PackedPolicySize            int
		Provider                    string
		Audience                    string
	} `xml:"AssumeRoleWithWebIdentityResult"`
	Meta responseMetadata `xml:"ResponseMetadata"`
}

func invalidToken(msg string) *Error {
	return &Error{http.StatusBadRequest, "InvalidIdentityToken", msg}
}

// assumeRoleWithWebIdentity issues a role's session to the bearer of an
// identity token of an OpenID Connect provider the role's tenant
// registered, when the role's trust policy names that provider
// (Principal Federated) and its conditions on the token's aud, sub and
// amr hold.
func (s *Service) assumeRoleWithWebIdentity(ctx context.Context, param func(string) string, form map[string][]string) (any, error) {
	switch {
	case param("ProviderId") != "":
		return nil, notImplemented("OAuth 2.0 providers (ProviderId)")
	case param("SourceIdentity") != "":
		return nil, notImplemented("SourceIdentity")
	}
	p, err := s.readSession(ctx, param, form)
	if err != nil {
		return nil, err
	}
	raw := param("WebIdentityToken")
	if raw == "" {
		return nil, missing("webIdentityToken")
	}
	if len(raw) < 4 || len(raw) > 20000 {
		return nil, validation("1 validation error detected: Value at 'webIdentityToken' failed to satisfy constraint: Member must have length less than or equal to 20000")
	}
	deny := func() error {
		return accessDenied("Not authorized to perform sts:AssumeRoleWithWebIdentity")
	}
	iss, err := oidc.UnverifiedIssuer(raw)
	if err != nil || !strings.HasPrefix(iss, "https://") {
		return nil, invalidToken("The web identity token that was passed could not be validated by AWS. Get a new identity token from the identity provider and then retry the request.")
	}
	url := strings.TrimSuffix(strings.TrimPrefix(iss, "https://"), "/")
	if s.roles == nil || s.verifier == nil {
		return nil, deny()
	}
	prov, err := s.roles.GetOIDCProvider(ctx, p.ref.tenant, url)
	if errors.Is(err, catalog.ErrNoSuchEntity) || errors.Is(err, catalog.ErrNoSuchTenant) {
		return nil, invalidToken("No OpenIDConnect provider found in your account for " + iss)
	}
	if err != nil {
		return nil, fmt.Errorf("sts: look up identity provider %s: %w", url, err)
	}
	claims, err := s.verifier.Verify(ctx, oidc.Provider{Issuer: iss, ClientIDs: prov.ClientIDs, Thumbprints: prov.Thumbprints}, raw)
	switch {
	case errors.Is(err, oidc.ErrExpired):
		return nil, &Error{http.StatusBadRequest, "ExpiredTokenException", "Token expired"}
	case errors.Is(err, oidc.ErrFetch):
		return nil, &Error{http.StatusBadRequest, "IDPCommunicationError", "Couldn't retrieve verification key from your identity provider, please reference AssumeRoleWithWebIdentity documentation for requirements"}
	case errors.Is(err, oidc.ErrInvalidToken):
		return nil, invalidToken("Incorrect token audience, signature or claims.")
	case err != nil:
		return nil, fmt.Errorf("sts: verify web identity token: %w", err)
	}
	role, err := s.role(ctx, p.ref, deny)
	if err != nil {
		return nil, err
	}
	trust, err := bucketpolicy.ParseTrust([]byte(role.TrustPolicy))
	if err != nil {
		return nil, deny()
	}
	// AWS's keys: PROVIDER:aud is the azp claim if there is one, else
	// aud; PROVIDER:sub and PROVIDER:amr the claims.
	aud := claims.Audience
	if azp, ok := claims.All["azp"].(string); ok && azp != "" {
		aud = []string{azp}
	}
	k := strings.ToLower(url)
	ck := map[string][]string{k + ":aud": aud, k + ":sub": {claims.Subject}, k + ":oaud": claims.Audience,
		"sts:rolesessionname": {p.session}, "aws:federatedprovider": {providerARN(p.ref.tenant, url)}}
	switch amr := claims.All["amr"].(type) {
	case string:
		ck[k+":amr"] = []string{amr}
	case []any:
		for _, v := range amr {
			if s, ok := v.(string); ok {
				ck[k+":amr"] = append(ck[k+":amr"], s)
			}
		}
	}
	req := trustRequest("sts:AssumeRoleWithWebIdentity", ck, nil)
	req.Federated = providerARN(p.ref.tenant, url)
	if trust.Evaluate(req) != bucketpolicy.Allow {
		return nil, deny()
	}
	dur, err := roleDuration(param("DurationSeconds"), role, false)
	if err != nil {
		return nil, err
	}
	creds, err := s.issue(ctx, catalog.TempCred{Tenant: role.Tenant, Owner: role.ID, RoleName: role.Name,
		SessionName: p.session, Policy: p.policy}, dur)
	if err != nil {
		return nil, err
	}
	out := &webIdentityResponse{Xmlns: Namespace}
	out.Result.Credentials = creds
	out.Result.SubjectFromWebIdentityToken = claims.Subject
	out.Result.AssumedRoleUser = assumedRoleUser{AssumedRoleID: role.ID + ":" + p.session,
		Arn: "arn:aws:sts::" + role.Tenant + ":assumed-role/" + role.Name + "/" + p.session}
	out.Result.PackedPolicySize = packedSize(p.policy, nil)
	out.Result.Provider = url
	if len(aud) > 0 {
		out.Result.Audience = aud[0]
	}
	return out, nil
}

// providerARN is an OIDC provider's ARN, as trust policies name it.
func providerARN(tenant, url string) string {
	return "arn:aws:iam::" + tenant + ":oidc-provider/" + url
}
