// Package iamapi serves AWS's IAM query API on the S3 endpoint (the
// handler package s3 hands calls signed for "iam"): a tenant is an AWS
// account, whose admins manage its users, groups, access keys, policies,
// roles and OpenID Connect providers. It is a front end over the catalog
// (catalog.Identities and catalog.IAM), never a second store: an IAM
// user is a tenant's user, an IAM access key its access key.
package iamapi

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/xml"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"

	"github.com/ostiumio/ostium/internal/audit"
	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/iam"
)

// Namespace is the XML namespace of IAM's answers.
const Namespace = "https://iam.amazonaws.com/doc/2010-05-08/"

// Store is what the API needs of the catalog.
type Store interface {
	catalog.Identities
	catalog.IAM
}

// Handler serves the IAM query API.
type Handler struct {
	store  Store
	sealer *iam.Sealer
	keys   *iam.Keyring // flushed after each change made here; nil: none
	audit  *audit.Log   // records every change, refused ones too; nil: none
}

// New returns the API over store; it fails for a catalog without IAM
// entities. sealer seals the secrets of access keys it creates; every
// call that changes something (all but Get and List calls) is recorded
// in log.
func New(store catalog.Store, sealer *iam.Sealer, keys *iam.Keyring, log *audit.Log) (*Handler, error) {
	st, ok := store.(Store)
	if !ok {
		return nil, fmt.Errorf("iamapi: catalog %T holds no IAM entities", store)
	}
	return &Handler{store: st, sealer: sealer, keys: keys, audit: log}, nil
}

// call is one request being served.
type call struct {
	ctx    context.Context
	h      *Handler
	id     *iam.Identity
	tenant string
	form   formValues
	// keys are the call's own condition keys (lower case): iam:PolicyARN
	// for the calls that attach or detach a managed policy.
	keys map[string][]string
}

// action serves one IAM action: it returns the content of the
// <ActionResult> element (nil: none, as AWS's answers to deletions).
type action func(c *call) (any, error)

var actions map[string]action

func init() {
	actions = map[string]action{}
	ms := []map[string]action{userActions, groupActions, keyActions, policyActions, roleActions, simulateActions}
	for kind, p := range map[string]principal{"User": userPrincipal, "Group": groupPrincipal, "Role": rolePrincipal} {
		ms = append(ms, inline(p, kind))
	}
	for _, m := range ms {
		for name, a := range m {
			actions[name] = a
		}
	}
}

// Actions lists the IAM actions served, for the docs and tests.
func Actions() []string {
	out := make([]string, 0, len(actions))
	for name := range actions {
		out = append(out, name)
	}
	return out
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	reqID := w.Header().Get("x-amz-request-id")
	if reqID == "" {
		var b [8]byte
		_, _ = rand.Read(b[:])
		reqID = strings.ToUpper(hex.EncodeToString(b[:]))
	}
	name := ""
	res, err := func() (any, error) {
		if r.Method != http.MethodPost {
			return nil, errf(http.StatusBadRequest, "InvalidAction", "IAM calls are POSTed forms")
		}
		if err := r.ParseForm(); err != nil {
			var tooBig *http.MaxBytesError
			if errors.As(err, &tooBig) {
				return nil, errf(http.StatusRequestEntityTooLarge, "RequestEntityTooLarge", "The request body is too large")
			}
			return nil, errf(http.StatusBadRequest, "MalformedQueryString", "The request is not a valid form")
		}
		name = r.PostForm.Get("Action")
		a := actions[name]
		if a == nil {
			if name == "" {
				return nil, errf(http.StatusBadRequest, "MissingAction", "Missing Action")
			}
			return nil, errf(http.StatusNotImplemented, "NotImplemented", "The action %s is not implemented", name)
		}
		c := &call{ctx: r.Context(), h: h, id: iam.IdentityOf(r.Context()), form: formValues(r.PostForm)}
		if err := c.account(); err != nil {
			return nil, err
		}
		return a(c)
	}()
	if actions[name] != nil && !strings.HasPrefix(name, "Get") && !strings.HasPrefix(name, "List") {
		defer func() { h.record(r, name, reqID, err) }()
	}
	if err != nil {
		err = writeError(w, reqID, err)
		return
	}
	var buf bytes.Buffer
	buf.WriteString(xml.Header)
	enc := xml.NewEncoder(&buf)
	start := xml.StartElement{Name: xml.Name{Local: name + "Response"}, Attr: []xml.Attr{{Name: xml.Name{Local: "xmlns"}, Value: Namespace}}}
	err = enc.EncodeToken(start)
	if err == nil && res != nil {
		err = enc.EncodeElement(res, xml.StartElement{Name: xml.Name{Local: name + "Result"}})
	}
	if err == nil {
		err = enc.EncodeElement(struct {
			RequestID string `xml:"RequestId"`
		}{reqID}, xml.StartElement{Name: xml.Name{Local: "ResponseMetadata"}})
	}
	if err == nil {
		err = enc.EncodeToken(start.End())
	}
	if err == nil {
		err = enc.Flush()
	}
	if err != nil {
		err = writeError(w, reqID, fmt.Errorf("iamapi: encode %s: %w", name, err))
		return
	}
	w.Header().Set("Content-Type", "text/xml")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(buf.Bytes())
}

// account sets the tenant the call acts in: the caller's. The provider's
// root is no account: it manages tenants through the admin API, and an
// IAM call from it is refused rather than aimed at some tenant.
func (c *call) account() error {
	switch id := c.id; {
	case id == nil:
		return errf(http.StatusForbidden, "MissingAuthenticationToken", "Request is missing Authentication Token")
	case id.Root || id.Tenant == "":
		return errf(http.StatusForbidden, "AccessDenied", "The provider's root credentials are not an IAM account: tenants, their users and keys are managed through the admin API")
	case id.Suspended:
		return errf(http.StatusForbidden, "AccessDenied", "The account %s is suspended", id.Tenant)
	}
	c.tenant = c.id.Tenant
	return nil
}

// authorize decides whether the caller may do action (an "iam:" action)
// on the resource named by arn, by the one evaluation (iam.AuthorizeService):
// a tenant's admin may do anything in its tenant, a member read itself and
// manage its own access keys, and anyone what its identity policies allow.
// An application credential, limited to buckets, does nothing here. Nobody
// reaches another tenant's entities: arn names the caller's tenant, as
// every call builds it from the caller's.
func authorize(id *iam.Identity, action, arn string, keys map[string][]string) error {
	deny := errf(http.StatusForbidden, "AccessDenied", "User: %s is not authorized to perform: %s on resource: %s", callerARN(id), action, arn)
	// The provider's root is no tenant's account: it manages tenants'
	// identities through the admin API.
	if id == nil || id.Root || id.Tenant == "" {
		return deny
	}
	if err := iam.AuthorizeServiceWith(id, action, arn, keys); err != nil {
		return deny
	}
	return nil
}

// allowed authorizes the call's action on arn.
func (c *call) allowed(action, arn string) error { return authorize(c.id, "iam:"+action, arn, c.keys) }

func callerARN(id *iam.Identity) string {
	if id == nil {
		return "anonymous"
	}
	if id.Tenant == "" {
		return "arn:aws:iam::provider:root"
	}
	return userARN(id.Tenant, "/", id.User)
}

// apiError is an answer in IAM's error format.
type apiError struct {
	status        int
	code, message string
}

func (e *apiError) Error() string { return e.code + ": " + e.message }

func errf(status int, code, format string, args ...any) *apiError {
	return &apiError{status: status, code: code, message: fmt.Sprintf(format, args...)}
}

func validation(format string, args ...any) *apiError {
	return errf(http.StatusBadRequest, "ValidationError", format, args...)
}

func noSuch(format string, args ...any) *apiError {
	return errf(http.StatusNotFound, "NoSuchEntity", format, args...)
}

// catalogErr turns the catalog's answers into IAM's; what names the
// entity for the message.
func catalogErr(err error, what string) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, catalog.ErrNoSuchEntity), errors.Is(err, catalog.ErrNoSuchUser), errors.Is(err, catalog.ErrNoSuchAccessKey):
		return noSuch("The %s cannot be found.", what)
	case errors.Is(err, catalog.ErrEntityExists), errors.Is(err, catalog.ErrUserExists):
		return errf(http.StatusConflict, "EntityAlreadyExists", "The %s already exists.", what)
	case errors.Is(err, catalog.ErrDeleteConflict):
		return errf(http.StatusConflict, "DeleteConflict", "Cannot delete the %s: it must first be emptied of what it holds (policies, members, keys, versions or attachments).", what)
	case errors.Is(err, catalog.ErrLimitExceeded):
		return errf(http.StatusConflict, "LimitExceeded", "Cannot exceed a quota for the %s.", what)
	case errors.Is(err, catalog.ErrNoSuchTenant):
		return errf(http.StatusForbidden, "AccessDenied", "The account no longer exists")
	}
	return err
}

// writeError answers err in IAM's format and returns the answer given.
func writeError(w http.ResponseWriter, reqID string, err error) *apiError {
	var e *apiError
	if !errors.As(err, &e) {
		if catalog.Unavailable(err) {
			w.Header().Set("Retry-After", "1")
			e = errf(http.StatusServiceUnavailable, "ServiceUnavailable", "The service is unavailable; retry")
		} else {
			slog.Error("iam call failed", "err", err, "request_id", reqID)
			e = errf(http.StatusInternalServerError, "ServiceFailure", "The request processing has failed because of an unknown error.")
		}
	}
	typ := "Sender"
	if e.status >= 500 {
		typ = "Receiver"
	}
	body, _ := xml.Marshal(struct {
		XMLName xml.Name `xml:"ErrorResponse"`
		Xmlns   string   `xml:"xmlns,attr"`
		Type    string   `xml:"Error>Type"`
		Code    string   `xml:"Error>Code"`
		Message string   `xml:"Error>Message"`
		ReqID   string   `xml:"RequestId"`
	}{Xmlns: Namespace, Type: typ, Code: e.code, Message: e.message, ReqID: reqID})
	w.Header().Set("Content-Type", "text/xml")
	w.WriteHeader(e.status)
	_, _ = w.Write(append([]byte(xml.Header), body...))
	return e
}

// record writes a change (or a refused one) to the audit log: the
// action, the entity it named, and its outcome. Never a secret: the
// answer is not recorded.
func (h *Handler) record(r *http.Request, action, reqID string, err error) {
	e := catalog.AuditEntry{Action: "iam:" + action, Status: http.StatusOK, RequestID: reqID, Target: auditTarget(r.PostForm)}
	var ae *apiError
	if errors.As(err, &ae) {
		e.Status, e.Outcome = ae.status, ae.code
	}
	h.audit.Record(r.Context(), iam.IdentityOf(r.Context()), e)
}

// auditTarget names the entity a call's parameters name.
func auditTarget(f url.Values) string {
	for _, p := range []struct{ param, kind string }{{"PolicyArn", ""}, {"OpenIDConnectProviderArn", ""}, {"RoleName", "role/"},
		{"GroupName", "group/"}, {"UserName", "user/"}, {"PolicyName", "policy/"}, {"Url", "oidc-provider/"}} {
		if v := f.Get(p.param); v != "" {
			if p.kind == "" {
				return v
			}
			return "iam/" + p.kind + v
		}
	}
	return ""
}

// changed drops this node's cached identities after a change (other
// nodes follow the identity generation the change advanced).
func (c *call) changed(err error) error {
	if err == nil && c.h.keys != nil {
		c.h.keys.Flush()
	}
	return err
}
