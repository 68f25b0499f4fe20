package iamapi

import (
	"encoding/base64"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/iam/iamcheck"
)

// formValues are a call's parameters.
type formValues url.Values

func (f formValues) get(name string) string { return url.Values(f).Get(name) }

func (f formValues) has(name string) bool { _, ok := f[name]; return ok }

// name reads a required name parameter of at most max characters.
func (c *call) name(param string, max int) (string, error) {
	v := c.form.get(param)
	if v == "" {
		return "", validation("1 validation error detected: Value at '%s' failed to satisfy constraint: Member must not be null", lowerFirst(param))
	}
	return v, checkName(param, v, max)
}

func checkName(param, v string, max int) error {
	return checked(iamcheck.Name(lowerFirst(param), v, max))
}

// checked is a refusal of the checks every surface shares, as IAM's
// error.
func checked(err error) error {
	var ce *iamcheck.Error
	if !errors.As(err, &ce) {
		return err
	}
	status := http.StatusBadRequest
	if ce.Code == iamcheck.CodeLimitExceeded {
		status = http.StatusConflict
	}
	return errf(status, ce.Code, "%s", ce.Message)
}

// optionalName reads a name parameter that may be absent ("").
func (c *call) optionalName(param string, max int) (string, error) {
	v := c.form.get(param)
	if v == "" {
		return "", nil
	}
	return v, checkName(param, v, max)
}

// path reads a path parameter ("/" when absent).
func (c *call) path(param string) (string, error) {
	if !c.form.has(param) {
		return "/", nil
	}
	v := c.form.get(param)
	return v, checked(iamcheck.Path(lowerFirst(param), v))
}

func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}

// list reads a list parameter (Name.member.1, Name.member.2, ...).
func (c *call) list(param string) []string {
	var out []string
	for i := 1; ; i++ {
		k := param + ".member." + strconv.Itoa(i)
		if !c.form.has(k) {
			return out
		}
		out = append(out, c.form.get(k))
	}
}

// tags reads Tags.member.N.Key / .Value, as AWS checks them.
func (c *call) tags() ([]catalog.Tag, error) {
	var out []catalog.Tag
	seen := map[string]bool{}
	for i := 1; ; i++ {
		p := "Tags.member." + strconv.Itoa(i)
		if !c.form.has(p+".Key") && !c.form.has(p+".Value") {
			break
		}
		k, v := c.form.get(p+".Key"), c.form.get(p+".Value")
		if k == "" || len(k) > 128 || len(v) > 256 || strings.HasPrefix(strings.ToLower(k), "aws:") {
			return nil, validation("1 validation error detected: Value '%s' at 'tags.%d.member.key' failed to satisfy constraint: a tag key is 1 to 128 characters not starting with aws:, its value at most 256", k, i)
		}
		if seen[strings.ToLower(k)] {
			return nil, errf(http.StatusBadRequest, "InvalidInput", "Duplicate tag keys found. Please note that Tag keys are case insensitive.")
		}
		seen[strings.ToLower(k)] = true
		out = append(out, catalog.Tag{Key: k, Value: v})
	}
	if len(out) > catalog.MaxTags {
		return nil, errf(http.StatusConflict, "LimitExceeded", "The number of tags has reached the maximum limit.")
	}
	return out, nil
}

// document reads a policy document parameter (required) of kind, of at
// most max bytes, as the evaluation's parser reads it.
func (c *call) document(param string, max int, kind iamcheck.Kind) (string, error) {
	doc := c.form.get(param)
	return doc, checked(iamcheck.Document(lowerFirst(param), kind, doc, max))
}

// Sizes of policy documents, as AWS's quotas.
const (
	userPolicySize    = iamcheck.UserPolicySize
	groupPolicySize   = iamcheck.GroupPolicySize
	rolePolicySize    = iamcheck.RolePolicySize
	managedPolicySize = iamcheck.ManagedPolicySize
	trustPolicySize   = iamcheck.TrustPolicySize
)

// encodeDoc is a policy document as IAM's answers carry it: URL-encoded
// (RFC 3986), which the aws cli and boto3's resources decode.
func encodeDoc(doc string) string {
	return strings.ReplaceAll(url.QueryEscape(doc), "+", "%20")
}

// page is the slice of a listing a call asked for: Marker (where the
// previous page ended) and MaxItems (1-1000, default 100).
type page struct {
	IsTruncated bool
	Marker      string `xml:",omitempty"`
}

// paginate picks the page of items (sorted by key) the call asked for.
func paginate[T any](c *call, items []T, key func(T) string) ([]T, page, error) {
	max := 100
	if c.form.has("MaxItems") {
		n, err := strconv.Atoi(c.form.get("MaxItems"))
		if err != nil || n < 1 || n > 1000 {
			return nil, page{}, validation("1 validation error detected: Value '%s' at 'maxItems' failed to satisfy constraint: Member must have value between 1 and 1000", c.form.get("MaxItems"))
		}
		max = n
	}
	start := 0
	if m := c.form.get("Marker"); m != "" {
		from, err := base64.RawURLEncoding.DecodeString(m)
		if err != nil {
			return nil, page{}, validation("Invalid Marker")
		}
		for start < len(items) && key(items[start]) < string(from) {
			start++
		}
	}
	items = items[start:]
	if len(items) <= max {
		return items, page{}, nil
	}
	return items[:max], page{IsTruncated: true, Marker: base64.RawURLEncoding.EncodeToString([]byte(key(items[max])))}, nil
}

// pathPrefix keeps the entities whose path starts with PathPrefix.
func pathPrefix[T any](c *call, items []T, path func(T) string) ([]T, error) {
	prefix := c.form.get("PathPrefix")
	if prefix == "" {
		return items, nil
	}
	if len(prefix) > 512 || !strings.HasPrefix(prefix, "/") {
		return nil, validation("1 validation error detected: Value '%s' at 'pathPrefix' failed to satisfy constraint: Member must satisfy regular expression pattern: \\u002F[\\u0021-\\u007F]*", prefix)
	}
	out := items[:0:0]
	for _, it := range items {
		if strings.HasPrefix(path(it), prefix) {
			out = append(out, it)
		}
	}
	return out, nil
}

// ARNs name the tenant as the account.
func userARN(tenant, path, name string) string {
	return "arn:aws:iam::" + tenant + ":user" + orSlash(path) + name
}

func entityARN(tenant, kind, path, name string) string {
	return "arn:aws:iam::" + tenant + ":" + kind + orSlash(path) + name
}

func orSlash(path string) string {
	if path == "" {
		return "/"
	}
	return path
}

// parseARN reads arn:aws:iam::TENANT:KIND/PATH/NAME of the caller's
// tenant; any other (another tenant's, AWS's own managed policies) names
// nothing here.
func (c *call) parseARN(param, kind string) (path, name string, err error) {
	arn := c.form.get(param)
	if arn == "" {
		return "", "", validation("1 validation error detected: Value at '%s' failed to satisfy constraint: Member must not be null", lowerFirst(param))
	}
	if len(arn) < 20 || len(arn) > 2048 || !strings.HasPrefix(arn, "arn:") {
		return "", "", validation("ARN %s is not valid.", arn)
	}
	rest, ok := strings.CutPrefix(arn, "arn:aws:iam::"+c.tenant+":"+kind+"/")
	if !ok {
		return "", "", noSuch("%s %s does not exist or is not attachable.", strings.ToUpper(kind[:1])+kind[1:], arn)
	}
	i := strings.LastIndex(rest, "/")
	return "/" + rest[:i+1], rest[i+1:], nil
}

// newID returns a unique id of IAM's form.
func newID(prefix string) string { return iamcheck.NewID(prefix) }

// userID is a user's unique id (AIDA...), derived from its random
// canonical id: a user made again under a name has another.
func userID(canonicalID string) string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	b := make([]byte, 17)
	for i := range b {
		var v byte
		if 2*i+1 < len(canonicalID) {
			n, _ := strconv.ParseUint(canonicalID[2*i:2*i+2], 16, 8)
			v = byte(n)
		}
		b[i] = alphabet[int(v)%len(alphabet)]
	}
	return "AIDA" + string(b)
}

// isoTime is how IAM's answers write times.
func isoTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05Z") }
