package iamapi

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/iam"
	"github.com/ostiumio/ostium/internal/iam/iamcheck"
	"github.com/ostiumio/ostium/internal/iam/why"
)

// IAM's policy simulator for a principal's own policies, answered from
// the evaluation's trace: each action on each resource is decided by
// the identity-based policies of the user or role (with any policies
// the call adds), as AWS's simulator decides without a resource policy,
// and each statement that applied is told with its policy and place.

type xmlPosition struct {
	Line   int
	Column int
}

type xmlStatement struct {
	SourcePolicyId   string // the element names are AWS's
	SourcePolicyType string
	StartPosition    xmlPosition
	EndPosition      xmlPosition
}

type xmlEvaluation struct {
	EvalActionName       string
	EvalResourceName     string
	EvalDecision         string
	MatchedStatements    []xmlStatement `xml:"MatchedStatements>member"`
	MissingContextValues []string       `xml:"MissingContextValues>member"`
	seq                  int            // its place in the answer, which pages by it
}

// maxSimulations bounds the evaluations of one call (actions times
// resources), as the answer is built in memory.
const maxSimulations = 1000

var simulateActions = map[string]action{
	"SimulatePrincipalPolicy": func(c *call) (any, error) {
		arn := c.form.get("PolicySourceArn")
		if err := checked(iamcheck.Required("policySourceArn", arn)); err != nil {
			return nil, err
		}
		kind := ""
		switch {
		case strings.HasPrefix(arn, "arn:aws:iam::"+c.tenant+":user/"):
			kind = catalog.PrincipalUser
		case strings.HasPrefix(arn, "arn:aws:iam::"+c.tenant+":role/"):
			kind = catalog.PrincipalRole
		case strings.HasPrefix(arn, "arn:aws:iam::"+c.tenant+":group/"):
			return nil, errf(http.StatusNotImplemented, "NotImplemented", "Simulating a group's policies is not implemented; simulate one of its users")
		default:
			return nil, noSuch("The principal %s does not exist.", arn)
		}
		_, name, err := c.parseARN("PolicySourceArn", kind)
		if err != nil {
			return nil, err
		}
		if err := c.allowed("SimulatePrincipalPolicy", arn); err != nil {
			return nil, err
		}
		for _, p := range []string{"ResourcePolicy", "PermissionsBoundaryPolicyInputList.member.1", "ResourceHandlingOption", "CallerArn"} {
			if c.form.has(p) {
				return nil, errf(http.StatusNotImplemented, "NotImplemented", "%s is not implemented", strings.Split(p, ".")[0])
			}
		}
		actionNames := c.list("ActionNames")
		if len(actionNames) == 0 {
			return nil, validation("1 validation error detected: Value at 'actionNames' failed to satisfy constraint: Member must not be null")
		}
		resources := c.list("ResourceArns")
		if len(resources) == 0 {
			resources = []string{"*"}
		}
		if len(actionNames)*len(resources) > maxSimulations {
			return nil, validation("At most %d actions times resources may be simulated in one call", maxSimulations)
		}
		conds, err := c.contextEntries()
		if err != nil {
			return nil, err
		}
		if c.h.keys == nil {
			return nil, errf(http.StatusNotImplemented, "NotImplemented", "This node does not simulate policies")
		}
		id, err := c.h.keys.PrincipalIdentity(c.ctx, c.tenant, kind, name)
		if err != nil {
			return nil, catalogErr(err, kind+" with name "+name)
		}
		p, err := why.Load(c.ctx, c.h.store, c.tenant, kind, name)
		if err != nil {
			return nil, catalogErr(err, kind+" with name "+name)
		}
		// Policies the call adds are evaluated with the principal's.
		for i, doc := range c.list("PolicyInputList") {
			if err := checked(iamcheck.Document("policyInputList", iamcheck.Identity, doc, iamcheck.ManagedPolicySize)); err != nil {
				return nil, err
			}
			p.Docs = append(p.Docs, doc)
			p.Sources = append(p.Sources, why.Source{Type: "none", ID: "PolicyInputList." + strconv.Itoa(i+1), Document: doc})
		}
		id.Policies, _ = iam.ParsePolicies(p.Docs)
		var out []xmlEvaluation
		for _, a := range actionNames {
			if !strings.Contains(a, ":") {
				return nil, validation("Actions must be prefaced by a service, as s3:GetObject: %s", a)
			}
			for _, r := range resources {
				e := iam.ExplainIdentity(id, a, r, conds)
				ev := xmlEvaluation{EvalActionName: a, EvalResourceName: r, EvalDecision: e.Decision, seq: len(out)}
				for _, st := range why.Describe(e, id, why.Context{Principal: p}) {
					if st.Index < 0 {
						continue // a grant that no policy holds
					}
					src := st.From.ID
					if src == "" {
						src = st.From.Label
					}
					ev.MatchedStatements = append(ev.MatchedStatements, xmlStatement{SourcePolicyId: src, SourcePolicyType: st.From.Type,
						StartPosition: xmlPosition(st.Start), EndPosition: xmlPosition(st.End)})
				}
				out = append(out, ev)
			}
		}
		out, pg, err := paginate(c, out, func(e xmlEvaluation) string { return fmt.Sprintf("%08d", e.seq) })
		return struct {
			EvaluationResults []xmlEvaluation `xml:"EvaluationResults>member"`
			page
		}{out, pg}, err
	},
}

// contextEntries reads ContextEntries.member.N (ContextKeyName,
// ContextKeyValues.member.M, ContextKeyType) as condition keys.
func (c *call) contextEntries() (map[string][]string, error) {
	out := map[string][]string{}
	for i := 1; ; i++ {
		p := "ContextEntries.member." + strconv.Itoa(i)
		name := c.form.get(p + ".ContextKeyName")
		if name == "" {
			if c.form.has(p + ".ContextKeyType") {
				return nil, validation("1 validation error detected: Value at 'contextEntries.%d.member.contextKeyName' failed to satisfy constraint: Member must not be null", i)
			}
			return out, nil
		}
		if len(name) > 256 {
			return nil, validation("1 validation error detected: a context key name is at most 256 characters")
		}
		out[strings.ToLower(name)] = c.list(p + ".ContextKeyValues")
		if i > 100 {
			return nil, validation("At most 100 context entries may be given")
		}
	}
}
