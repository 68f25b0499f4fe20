package admin

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/iam"
	"github.com/ostiumio/ostium/internal/iam/why"
	"github.com/ostiumio/ostium/internal/objects"
)

// ExplainIn is one request to explain: a user or a role of the tenant
// acting (as with its own key; a role as a session with no session
// policy), an action, and what it acts on: a bucket, bucket/key, their
// ARN (arn:aws:s3:::bucket/key), an IAM ARN, or "*" / "" for an action
// on no resource. Context gives condition keys (aws:SourceIp,
// aws:SecureTransport, s3:prefix, ...), as the request would carry them.
type ExplainIn struct {
	User     string              `json:"user,omitempty"`
	Role     string              `json:"role,omitempty"`
	Action   string              `json:"action"`
	Resource string              `json:"resource"`
	Context  map[string][]string `json:"context,omitempty"`
}

// Explanation is the decision on an explained request and every
// statement (or grant that is no statement) that applied, as the
// evaluation reported them, each with where it came from.
type Explanation struct {
	Principal string `json:"principal"`
	Action    string `json:"action"`
	Resource  string `json:"resource"`
	// Decision is allowed, explicitDeny or implicitDeny.
	Decision   string          `json:"decision"`
	Allowed    bool            `json:"allowed"`
	Statements []why.Statement `json:"statements"`
}

// Explain decides a request of a tenant's user or role as the S3
// endpoint would decide it now, by the same evaluation, and tells why.
// A tenant admin may explain its own tenant's principals (the IAM
// action iam:SimulatePrincipalPolicy on the principal); statements of
// another tenant's bucket policy are named but not shown to it.
func (s *Service) Explain(ctx context.Context, id *iam.Identity, tenant string, in ExplainIn) (Explanation, error) {
	kind, name := catalog.PrincipalUser, in.User
	switch {
	case in.User != "" && in.Role != "", in.User == "" && in.Role == "":
		return Explanation{}, newErr(http.StatusBadRequest, "InvalidArgument", "Name a user or a role, not both")
	case in.Role != "":
		kind, name = catalog.PrincipalRole, in.Role
	}
	service, _, ok := strings.Cut(in.Action, ":")
	if !ok || service == "" || strings.ContainsAny(in.Action, "*?") {
		return Explanation{}, newErr(http.StatusBadRequest, "InvalidArgument", "The action is one action of a service, as s3:GetObject")
	}
	st, err := s.iamStore(ctx, id, tenant, "iam:SimulatePrincipalPolicy", entityARN(tenant, kind, "/", name))
	if err != nil {
		return Explanation{}, err
	}
	if s.explainer == nil {
		return Explanation{}, newErr(http.StatusNotImplemented, "NotImplemented", "This node does not explain decisions")
	}
	pid, err := s.keys.PrincipalIdentity(ctx, tenant, kind, name)
	switch {
	case errors.Is(err, catalog.ErrNoSuchUser):
		return Explanation{}, apiErr(err)
	case errors.Is(err, catalog.ErrNoSuchEntity):
		return Explanation{}, iamErr(err, "role "+name)
	case err != nil:
		return Explanation{}, apiErr(err)
	}
	// The policies as the catalog holds them now, each named; parsed as
	// the keyring parses them for requests.
	p, err := why.Load(ctx, st, tenant, kind, name)
	if err != nil {
		return Explanation{}, apiErr(err)
	}
	pid.Policies, _ = iam.ParsePolicies(p.Docs)
	conds := make(map[string][]string, len(in.Context))
	for k, v := range in.Context {
		conds[strings.ToLower(k)] = v
	}
	out := Explanation{Principal: entityARN(tenant, kind, "/", name), Action: in.Action, Resource: in.Resource}
	c := why.Context{Principal: p}
	var e iam.Explanation
	if strings.EqualFold(service, "s3") {
		e, err = s.explainS3(ctx, id, pid, in, conds, &c, &out)
		if err != nil {
			return Explanation{}, err
		}
	} else {
		resource := in.Resource
		if resource == "" {
			resource = "*"
		}
		e = iam.ExplainIdentity(pid, in.Action, resource, conds)
	}
	out.Decision, out.Allowed = e.Decision, e.Decision == iam.DecisionAllowed
	out.Statements = why.Describe(e, pid, c)
	return out, nil
}

// explainS3 explains an S3 action through the object service.
func (s *Service) explainS3(ctx context.Context, caller, pid *iam.Identity, in ExplainIn, conds map[string][]string, c *why.Context, out *Explanation) (iam.Explanation, error) {
	res := strings.TrimPrefix(in.Resource, "arn:aws:s3:::")
	if strings.HasPrefix(res, "arn:") {
		return iam.Explanation{}, newErr(http.StatusBadRequest, "InvalidArgument", "An S3 action acts on a bucket or an object: bucket, bucket/key or arn:aws:s3:::bucket/key")
	}
	bucket, key, _ := strings.Cut(res, "/")
	if bucket == "*" {
		bucket = ""
	}
	out.Resource = "arn:aws:s3:::" + or(res, "*")
	r := iam.Request{ID: pid, Action: iam.Action(in.Action), Key: key, Conditions: conds}
	if v := conds["aws:sourceip"]; len(v) == 1 {
		r.Origin.SourceIP = v[0]
	}
	if v := conds["aws:securetransport"]; len(v) == 1 {
		r.Origin.Secure, _ = strconv.ParseBool(v[0])
	}
	load := bucket
	if iam.Action(in.Action) == iam.ActionCreateBucket {
		r.BucketName, load = bucket, ""
	}
	e, err := s.explainer.Explain(ctx, r, load)
	if errors.Is(err, objects.ErrNoSuchBucket) {
		return e, newErr(http.StatusNotFound, "NoSuchBucket", "The bucket %s does not exist", bucket)
	}
	if err != nil {
		return e, apiErr(err)
	}
	if load != "" {
		b, err := s.cat.GetBucket(ctx, load)
		if err != nil {
			return e, apiErr(err)
		}
		c.Bucket = b.Name
		// Another tenant's bucket policy is its own: named, not shown.
		if b.Policy != "" && (caller.Root || b.Tenant == pid.Tenant) {
			doc, _ := iam.DecodePolicy(b.Policy)
			c.BucketPolicy = string(doc)
		}
	}
	return e, nil
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func itoa(n int) string { return strconv.Itoa(n) }
