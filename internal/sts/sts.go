// Package sts serves AWS's Security Token Service on the S3 endpoint, in
// its query protocol (forms POSTed to "/", signed for "sts"; package s3
// hands them here with the caller in the context): GetSessionToken,
// GetCallerIdentity, AssumeRole and AssumeRoleWithWebIdentity (assume.go). The temporary credentials it issues are kept in the
// catalog (catalog.TempCreds) and resolved by the keyring like keys;
// package s3 checks their session token on every request.
package sts

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/xml"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/ostiumio/ostium/internal/audit"
	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/iam"
	"github.com/ostiumio/ostium/internal/oidc"
)

// Namespace is the XML namespace of STS's answers.
const Namespace = "https://sts.amazonaws.com/doc/2011-06-15/"

// GetSessionToken's bounds on DurationSeconds, as AWS's for an IAM user.
const (
	MinDuration     = 900
	MaxDuration     = 129600
	DefaultDuration = 43200
)

// Service is the STS query API.
type Service struct {
	creds    catalog.TempCreds
	sealer   *iam.Sealer
	roles    Roles
	verifier *oidc.Verifier
	// Now is the clock credentials are issued by (nil: time.Now).
	Now func() time.Time
	// Audit records every issue of credentials, and every refusal of
	// one (nil: none).
	Audit *audit.Log
	// Directory signs tenants' directory users in for
	// AssumeRoleWithLDAPIdentity (nil: NotImplemented).
	Directory DirectorySignIn
}

// New returns the STS service issuing credentials into creds, their
// secrets sealed by sealer.
func New(creds catalog.TempCreds, sealer *iam.Sealer) *Service {
	return &Service{creds: creds, sealer: sealer}
}

// WithRoles lets the service issue roles' sessions (AssumeRole,
// AssumeRoleWithWebIdentity): the tenants' roles, policies and identity
// providers from roles, web identity tokens verified by verifier.
func (s *Service) WithRoles(roles Roles, verifier *oidc.Verifier) *Service {
	s.roles, s.verifier = roles, verifier
	return s
}

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// Error is an STS error answer.
type Error struct {
	Status  int
	Code    string
	Message string
}

func (e *Error) Error() string { return "sts: " + e.Code + ": " + e.Message }

var (
	errMissingAuth = &Error{http.StatusForbidden, "MissingAuthenticationToken",
		"Request is missing Authentication Token"}
	errSessionCaller = &Error{http.StatusForbidden, "AccessDenied",
		"Cannot call GetSessionToken with session credentials"}
)

func notImplemented(action string) *Error {
	return &Error{http.StatusNotImplemented, "NotImplemented", action + " is not implemented."}
}

func accessDenied(msg string) *Error { return &Error{http.StatusForbidden, "AccessDenied", msg} }

// unsigned are the actions AWS takes without a signature: their proof is
// in the call (a web identity token, a SAML assertion, a directory
// password).
var unsigned = map[string]bool{
	"AssumeRoleWithWebIdentity":  true,
	"AssumeRoleWithSAML":         true,
	"AssumeRoleWithLDAPIdentity": true, // MinIO's
}

// ServeHTTP answers one call.
func (s *Service) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	reqID := w.Header().Get("x-amz-request-id")
	if reqID == "" {
		reqID = newRequestID()
	}
	v, err := s.serve(r)
	status := http.StatusOK
	if err != nil {
		status = writeError(w, reqID, err)
	} else {
		writeResult(w, reqID, v)
	}
	s.audit(r, reqID, status, err)
}

// audited are the actions the audit log records: those that issue
// credentials, a sign-in by another name.
var audited = map[string]bool{"GetSessionToken": true, "AssumeRole": true, "AssumeRoleWithWebIdentity": true}

func (s *Service) audit(r *http.Request, reqID string, status int, err error) {
	action := r.PostForm.Get("Action")
	if !audited[action] {
		return
	}
	id := iam.IdentityOf(r.Context())
	e := catalog.AuditEntry{Action: "sts:" + action, Source: iam.OriginOf(r.Context()).SourceIP,
		Outcome: "ok", Status: status, RequestID: reqID}
	if id != nil && id.Tenant != "" {
		e.Target = "user/" + id.User
	}
	if ref, err := parseRoleARN(r.PostForm.Get("RoleArn")); err == nil && action != "GetSessionToken" {
		// The role whose session was asked for, of the tenant the ARN names.
		e.Target = "role/" + ref.name
	}
	var se *Error
	switch {
	case errors.As(err, &se):
		e.Outcome = se.Code
	case err != nil:
		e.Outcome = "InternalFailure"
	}
	s.Audit.Record(r.Context(), id, e)
}

func (s *Service) serve(r *http.Request) (any, error) {
	if err := r.ParseForm(); err != nil {
		return nil, &Error{http.StatusBadRequest, "MalformedQueryString", "The form could not be read."}
	}
	action := r.PostForm.Get("Action")
	id := iam.IdentityOf(r.Context())
	if id == nil && action == "" && r.Form.Get("Action") == "AssumeRoleWithLDAPIdentity" {
		// MinIO's clients (minio-py, minio-go, mc) POST its parameters
		// in the query string with no body, as MinIO's STS takes them.
		action = "AssumeRoleWithLDAPIdentity"
	}
	if action == "AssumeRoleWithWebIdentity" {
		// Its proof is the token, signed or not, as AWS takes it.
		return s.assumeRoleWithWebIdentity(r.Context(), r.PostForm.Get, r.PostForm)
	}
	if id == nil {
		switch {
		case action == "AssumeRoleWithLDAPIdentity":
			return s.assumeRoleWithLDAPIdentity(r.Context(), r.Form.Get)
		case unsigned[action]:
			return nil, notImplemented(action)
		}
		return nil, errMissingAuth
	}
	switch action {
	case "":
		return nil, &Error{http.StatusBadRequest, "MissingAction", "The request must contain the parameter Action."}
	case "GetCallerIdentity":
		return s.getCallerIdentity(id)
	case "GetSessionToken":
		return s.getSessionToken(r.Context(), id, r.PostForm.Get)
	case "AssumeRole":
		return s.assumeRole(r.Context(), id, r.PostForm.Get, r.PostForm)
	case "AssumeRoleWithLDAPIdentity":
		// Its proof is the directory password, signed or not.
		return s.assumeRoleWithLDAPIdentity(r.Context(), r.Form.Get)
	case "AssumeRoleWithSAML",
		"GetFederationToken", "DecodeAuthorizationMessage", "GetAccessKeyInfo", "AssumeRoot", "GetWebIdentityToken":
		return nil, notImplemented(action)
	}
	return nil, &Error{http.StatusBadRequest, "InvalidAction", "Could not find operation " + action + " for version 2011-06-15"}
}

// authorize decides whether id may call action on resource (an ARN), by
// the one evaluation (iam.AuthorizeService); the provider's root, which
// is no tenant's account, and application credentials, limited to
// buckets, are told why they may not.
func authorize(id *iam.Identity, action, resource string) error {
	switch {
	case id.Tenant == "":
		return accessDenied("The provider's root credentials cannot call " + action + ".")
	case id.App != nil:
		return accessDenied("An application credential cannot call " + action + ".")
	case iam.AuthorizeService(id, action, resource) != nil:
		return accessDenied("User: " + callerARN(id) + " is not authorized to perform: " + action + " on resource: " + resource)
	}
	return nil
}

// userARN is the IAM ARN of the user id acts as (the tenant is the
// account).
func userARN(id *iam.Identity) string {
	return "arn:aws:iam::" + id.Tenant + ":user/" + id.User
}

// callerARN is what GetCallerIdentity names: the user, or the assumed
// role's session.
func callerARN(id *iam.Identity) string {
	if id.AssumedRole != "" {
		return "arn:aws:sts::" + id.Tenant + ":assumed-role/" + id.AssumedRole + "/" + id.SessionName
	}
	return userARN(id)
}

type callerIdentity struct {
	XMLName xml.Name `xml:"GetCallerIdentityResponse"`
	Xmlns   string   `xml:"xmlns,attr"`
	Result  struct {
		Arn     string
		UserID  string `xml:"UserId"`
		Account string
	} `xml:"GetCallerIdentityResult"`
	Meta responseMetadata `xml:"ResponseMetadata"`
}

// getCallerIdentity names the caller; AWS lets anyone signed ask it.
func (s *Service) getCallerIdentity(id *iam.Identity) (any, error) {
	out := &callerIdentity{Xmlns: Namespace}
	switch {
	case id.Tenant == "":
		out.Result.Arn, out.Result.UserID = "arn:aws:iam:::root", id.CanonicalID
	case id.AssumedRole != "" && id.RoleID != "":
		out.Result.Arn, out.Result.UserID, out.Result.Account = callerARN(id), id.RoleID+":"+id.SessionName, id.Tenant
	case id.AssumedRole != "":
		out.Result.Arn, out.Result.UserID, out.Result.Account = callerARN(id), id.CanonicalID+":"+id.SessionName, id.Tenant
	default:
		out.Result.Arn, out.Result.UserID, out.Result.Account = userARN(id), id.CanonicalID, id.Tenant
	}
	return out, nil
}

type sessionToken struct {
	XMLName xml.Name `xml:"GetSessionTokenResponse"`
	Xmlns   string   `xml:"xmlns,attr"`
	Result  struct {
		Credentials credentials
	} `xml:"GetSessionTokenResult"`
	Meta responseMetadata `xml:"ResponseMetadata"`
}

type credentials struct {
	AccessKeyID     string `xml:"AccessKeyId"`
	SecretAccessKey string
	SessionToken    string
	Expiration      string
}

// getSessionToken issues temporary credentials acting for the caller
// (a tenant's user, with its permissions) for DurationSeconds.
func (s *Service) getSessionToken(ctx context.Context, id *iam.Identity, param func(string) string) (any, error) {
	if id.Session != nil {
		return nil, errSessionCaller
	}
	if param("SerialNumber") != "" || param("TokenCode") != "" {
		return nil, notImplemented("Multi-factor authentication (SerialNumber, TokenCode)")
	}
	if err := authorize(id, "sts:GetSessionToken", userARN(id)); err != nil {
		return nil, err
	}
	dur, err := duration(param("DurationSeconds"), MinDuration, MaxDuration, DefaultDuration)
	if err != nil {
		return nil, err
	}
	now := s.now().UTC()
	ak, secret, token := iam.NewTempCredentials()
	rec := catalog.TempCred{AccessKey: ak, SecretSealed: s.sealer.Seal(secret, ak), TokenHash: iam.TokenHash(token),
		Tenant: id.Tenant, User: id.User, Owner: id.CanonicalID, Created: now, Expires: now.Add(time.Duration(dur) * time.Second)}
	if err := s.creds.PutTempCred(ctx, rec); err != nil {
		return nil, fmt.Errorf("sts: store temporary credentials: %w", err)
	}
	out := &sessionToken{Xmlns: Namespace}
	out.Result.Credentials = credentials{AccessKeyID: ak, SecretAccessKey: secret, SessionToken: token,
		Expiration: rec.Expires.Format("2006-01-02T15:04:05Z")}
	return out, nil
}

// duration reads DurationSeconds within [lo, hi] (absent: def), with
// AWS's validation error.
func duration(v string, lo, hi, def int) (int, error) {
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, &Error{http.StatusBadRequest, "ValidationError", "Value '" + v + "' at 'durationSeconds' failed to satisfy constraint: Member must be a number"}
	}
	switch {
	case n < lo:
		return 0, &Error{http.StatusBadRequest, "ValidationError",
			fmt.Sprintf("1 validation error detected: Value '%d' at 'durationSeconds' failed to satisfy constraint: Member must have value greater than or equal to %d", n, lo)}
	case n > hi:
		return 0, &Error{http.StatusBadRequest, "ValidationError",
			fmt.Sprintf("1 validation error detected: Value '%d' at 'durationSeconds' failed to satisfy constraint: Member must have value less than or equal to %d", n, hi)}
	}
	return n, nil
}

type responseMetadata struct {
	RequestID string `xml:"RequestId"`
}

// writeResult sends a result document, its request id filled in.
func writeResult(w http.ResponseWriter, reqID string, v any) {
	switch r := v.(type) {
	case *callerIdentity:
		r.Meta.RequestID = reqID
	case *sessionToken:
		r.Meta.RequestID = reqID
	case *ldapIdentity:
		r.Meta.RequestID = reqID
	case *assumeRoleResponse:
		r.Meta.RequestID = reqID
	case *webIdentityResponse:
		r.Meta.RequestID = reqID
	}
	writeXML(w, http.StatusOK, v)
}

type errorResponse struct {
	XMLName xml.Name `xml:"ErrorResponse"`
	Xmlns   string   `xml:"xmlns,attr"`
	Error   struct {
		Type    string
		Code    string
		Message string
	}
	RequestID string `xml:"RequestId"`
}

// writeError sends err in the query protocol's error format; an error
// that is not the caller's is logged and answered as InternalFailure,
// or ServiceUnavailable while the catalog is out of reach.
func writeError(w http.ResponseWriter, reqID string, err error) int {
	var e *Error
	if !errors.As(err, &e) {
		if catalog.Unavailable(err) || errors.Is(err, context.DeadlineExceeded) {
			e = &Error{http.StatusServiceUnavailable, "ServiceUnavailable", "The service is unavailable. Please retry."}
			w.Header().Set("Retry-After", "2")
		} else {
			slog.Error("sts: internal error", "request_id", reqID, "err", err)
			e = &Error{http.StatusInternalServerError, "InternalFailure", "The request processing has failed because of an unknown error."}
		}
	}
	out := errorResponse{Xmlns: Namespace, RequestID: reqID}
	out.Error.Type, out.Error.Code, out.Error.Message = "Sender", e.Code, e.Message
	if e.Status >= 500 {
		out.Error.Type = "Receiver"
	}
	writeXML(w, e.Status, out)
	return e.Status
}

func writeXML(w http.ResponseWriter, status int, v any) {
	b, err := xml.Marshal(v)
	if err != nil {
		status, b = http.StatusInternalServerError, []byte("<ErrorResponse><Error><Code>InternalFailure</Code></Error></ErrorResponse>")
	}
	w.Header().Set("Content-Type", "text/xml")
	w.Header().Set("Content-Length", strconv.Itoa(len(xml.Header)+len(b)))
	w.WriteHeader(status)
	w.Write([]byte(xml.Header))
	w.Write(b)
}

func newRequestID() string {
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
