// Package why tells where the statements that decided a request came
// from: it names each policy a principal holds (a user's inline policy,
// a managed policy's version, a group's policy, a role's, the built-in
// role policy, the bucket's policy) and cuts the statements the
// evaluation traced (iam.Explain) out of their documents, placed by
// line and column. It never decides anything itself: the decision and
// the list of statements that applied are the evaluation's own.
package why

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/iam"
)

// Source is where one policy came from.
type Source struct {
	// Type is IAM's SourcePolicyType: "user", "group" or "role" for an
	// inline policy, "user-managed" for a managed policy, "resource"
	// for a bucket's policy, "none" for what no document holds.
	Type string `json:"type"`
	// ID names the policy: an inline policy's name, a managed policy's
	// ARN, the built-in policy's name, the bucket's name.
	ID      string `json:"id,omitempty"`
	Version string `json:"version,omitempty"` // a managed policy's version in force
	Group   string `json:"group,omitempty"`   // the group it reaches the user through
	// Label says it for people: "inline policy home of user cy".
	Label    string `json:"label"`
	Document string `json:"-"`
}

// Position is a place in a document, from 1.
type Position struct {
	Line   int `json:"line"`
	Column int `json:"column"`
}

// Statement is one statement (or grant that is no statement) that
// applied, with where it came from.
type Statement struct {
	Effect string `json:"effect"` // Allow or Deny
	Sid    string `json:"sid,omitempty"`
	// Index is the statement's place in its policy (from 0; -1 for a
	// grant or refusal that is no statement: an ACL's, the root's).
	Index int    `json:"index"`
	From  Source `json:"from"`
	// Text is the statement as written, Start and End where it is.
	Text  string   `json:"text,omitempty"`
	Start Position `json:"start"`
	End   Position `json:"end"`
}

// Principal is what explaining a principal's decisions needs: its
// identity-based policies as the catalog holds them now, each with its
// source, in the order the evaluation is given them.
type Principal struct {
	Docs    []string
	Sources []Source
}

// Load reads the identity-based policies of a user or role (kind
// catalog.PrincipalUser or PrincipalRole) of tenant, as
// catalog.IdentityPolicies gives them to the keyring, and names each.
func Load(ctx context.Context, store catalog.IAM, tenant, kind, name string) (Principal, error) {
	var p Principal
	var err error
	if kind == catalog.PrincipalRole {
		p.Docs, err = store.RolePolicies(ctx, tenant, name)
	} else {
		p.Docs, err = store.UserPolicies(ctx, tenant, name)
	}
	if err != nil {
		return p, fmt.Errorf("why: policies of %s %s: %w", kind, name, err)
	}
	var named []Source
	add := func(ofKind, of, group string) error {
		names, err := store.ListInlinePolicies(ctx, tenant, ofKind, of)
		if err != nil {
			return err
		}
		for _, n := range names {
			doc, err := store.GetInlinePolicy(ctx, tenant, ofKind, of, n)
			if err != nil {
				return err
			}
			named = append(named, Source{Type: ofKind, ID: n, Group: group, Label: fmt.Sprintf("inline policy %s of %s %s", n, ofKind, of), Document: doc})
		}
		ms, err := store.AttachedPolicies(ctx, tenant, ofKind, of)
		if err != nil {
			return err
		}
		for _, m := range ms {
			v, err := store.GetPolicyVersion(ctx, tenant, m.Name, m.DefaultVersion)
			if err != nil {
				return err
			}
			arn := PolicyARN(m)
			named = append(named, Source{Type: "user-managed", ID: arn, Version: v.ID, Group: group,
				Label: fmt.Sprintf("managed policy %s (%s) attached to %s %s", arn, v.ID, ofKind, of), Document: v.Document})
		}
		return nil
	}
	if err := add(kind, name, ""); err != nil {
		return p, fmt.Errorf("why: policies of %s %s: %w", kind, name, err)
	}
	if kind == catalog.PrincipalUser {
		gs, err := store.UserGroups(ctx, tenant, name)
		if err != nil {
			return p, fmt.Errorf("why: groups of %s: %w", name, err)
		}
		for _, g := range gs {
			if err := add(catalog.PrincipalGroup, g.Name, g.Name); err != nil {
				return p, fmt.Errorf("why: policies of group %s: %w", g.Name, err)
			}
		}
	}
	// Each document the evaluation gets is named by the first source of
	// the same text not named yet; one changed between the reads is
	// told as what it is, an identity-based policy.
	used := make([]bool, len(named))
	p.Sources = make([]Source, len(p.Docs))
	for i, d := range p.Docs {
		p.Sources[i] = Source{Type: "none", Label: fmt.Sprintf("identity-based policy %d", i+1), Document: d}
		for j, s := range named {
			if !used[j] && s.Document == d {
				used[j], p.Sources[i] = true, s
				break
			}
		}
	}
	return p, nil
}

// PolicyARN is a managed policy's ARN, its tenant as the account.
func PolicyARN(m catalog.ManagedPolicy) string {
	path := m.Path
	if path == "" {
		path = "/"
	}
	return "arn:aws:iam::" + m.Tenant + ":policy" + path + m.Name
}

// Context is what else a decision may have drawn on.
type Context struct {
	// Principal's policies, as given to the evaluation (Identity.Policies).
	Principal Principal
	// Bucket and BucketPolicy: the bucket acted on and its policy's
	// document ("" for none).
	Bucket, BucketPolicy string
	// Sessions are a session's policy documents.
	Sessions []string
}

// Describe turns the evaluation's trace into statements with their
// sources and text.
func Describe(e iam.Explanation, id *iam.Identity, c Context) []Statement {
	out := make([]Statement, 0, len(e.Matches))
	for _, m := range e.Matches {
		st := Statement{Effect: "Allow", Sid: m.Sid, Index: m.Statement}
		if !m.Allow {
			st.Effect = "Deny"
		}
		var doc string
		switch m.Source {
		case iam.SourceIdentity:
			if m.Index < len(c.Principal.Sources) {
				st.From = c.Principal.Sources[m.Index]
				doc = st.From.Document
			} else {
				st.From = Source{Type: "none", Label: fmt.Sprintf("identity-based policy %d", m.Index+1)}
			}
		case iam.SourceRole:
			name, text := "TenantAdministrator", iam.TenantAdministratorPolicy
			if id != nil && id.Role != catalog.RoleAdmin {
				name, text = "Member", iam.MemberPolicy
			}
			st.From = Source{Type: "none", ID: name, Label: "built-in policy " + name + " of the user's role"}
			doc = text
		case iam.SourceSession:
			st.From = Source{Type: "none", Label: fmt.Sprintf("session policy %d", m.Index+1)}
			if m.Index < len(c.Sessions) {
				doc = c.Sessions[m.Index]
			}
		case iam.SourceBucketPolicy:
			st.From = Source{Type: "resource", ID: c.Bucket, Label: "bucket policy of " + c.Bucket}
			doc = c.BucketPolicy
			if doc == "" {
				// Withheld: another tenant's policy is named, not
				// shown, and its Sids are part of its text.
				st.Sid = ""
			}
		case iam.SourceAppCredential:
			st.From = Source{Type: "none", Label: "limits of the application credential"}
		case iam.SourceACL:
			st.From = Source{Type: "none", Label: "a grant of the ACL of the bucket or the object"}
		case iam.SourceRoot:
			st.From = Source{Type: "none", Label: "the provider's root, which may do anything"}
		case iam.SourceSuspended:
			st.From = Source{Type: "none", Label: "the tenant or the principal is suspended"}
		case iam.SourceOwnerManagesPolicy:
			st.From = Source{Type: "none", Label: "a tenant admin may always manage its buckets' policies"}
		case iam.SourceOtherTenant:
			st.From = Source{Type: "none", Label: "another tenant's IAM entity, which no policy can grant"}
		case iam.SourceRestrictPublic:
			st.From = Source{Type: "none", Label: "RestrictPublicBuckets sets aside the bucket policy's public grant"}
		default:
			st.From = Source{Type: "none", Label: m.Source}
		}
		st.From.Document = ""
		if doc != "" && m.Statement >= 0 {
			st.Text, st.Start, st.End = cut(doc, m.Statement)
		}
		out = append(out, st)
	}
	return out
}

// cut returns statement i of doc as written, and where it starts and
// ends.
func cut(doc string, i int) (string, Position, Position) {
	b := []byte(doc)
	dec := json.NewDecoder(bytes.NewReader(b))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return "", Position{}, Position{}
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			break
		}
		if k != "Statement" {
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				break
			}
			continue
		}
		start := skipSpace(b, int(dec.InputOffset()))
		if start < len(b) && b[start] == '[' {
			dec.Token()
			for n := 0; dec.More(); n++ {
				from := skipSpace(b, int(dec.InputOffset()))
				var raw json.RawMessage
				if dec.Decode(&raw) != nil {
					break
				}
				if n == i {
					end := int(dec.InputOffset())
					return string(b[from:end]), position(b, from), position(b, end-1)
				}
			}
			break
		}
		var raw json.RawMessage
		if i != 0 || dec.Decode(&raw) != nil {
			break
		}
		end := int(dec.InputOffset())
		return string(b[start:end]), position(b, start), position(b, end-1)
	}
	return "", Position{}, Position{}
}

// skipSpace skips white space and the commas between values.
func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r' || b[i] == ',' || b[i] == ':') {
		i++
	}
	return i
}

func position(b []byte, off int) Position {
	off = min(max(off, 0), len(b))
	line := 1 + bytes.Count(b[:off], []byte("\n"))
	return Position{Line: line, Column: off - bytes.LastIndexByte(b[:off], '\n')}
}
