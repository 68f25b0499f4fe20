package support

import (
	"bytes"
	"net/url"
	"regexp"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/ostiumio/ostium/internal/node"
	"github.com/ostiumio/ostium/internal/redact"
)

// Redacted stands where a secret was.
const Redacted = "[REDACTED]"

// secretKey reports whether a configuration key names a secret: the
// denylist is by name, so that a key added later (or misspelt in the
// file) with such a name is hidden too.
func secretKey(name string) bool {
	n := strings.ToLower(name)
	for _, w := range []string{"secret", "password", "passwd", "token", "credential", "private"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	switch n {
	case "access_key", "root_access_key", "node_key", "key", "accesskey", "secretkey":
		return true
	}
	return false
}

// Secrets is the set of secret values a bundle must not hold; every
// part is scrubbed of them before it is written.
type Secrets struct{ vals map[string]bool }

// minSecret is the shortest value scrubbed: a shorter one is no secret
// worth the name, and replacing it everywhere would garble every part.
const minSecret = 4

// Add records a secret value.
func (s *Secrets) Add(v string) {
	v = strings.TrimSpace(v)
	if len(v) < minSecret {
		return
	}
	if s.vals == nil {
		s.vals = map[string]bool{}
	}
	s.vals[v] = true
}

// Scrub replaces every recorded secret in b, the longest first (one may
// hold another).
func (s *Secrets) Scrub(b []byte) []byte {
	vals := make([]string, 0, len(s.vals))
	for v := range s.vals {
		vals = append(vals, v)
	}
	sort.Slice(vals, func(i, j int) bool { return len(vals[i]) > len(vals[j]) })
	for _, v := range vals {
		b = bytes.ReplaceAll(b, []byte(v), []byte(Redacted))
	}
	return b
}

// ScrubLog is Scrub and more for free text (logs) that may hold secrets
// the bundle was never told of, such as the root credentials a first
// start prints: what looks like a secret's assignment, a URL's password,
// and the request credentials redact.String masks (a log written by an
// older node, or by a proxy in front).
func (s *Secrets) ScrubLog(b []byte) []byte {
	b = []byte(redact.String(string(s.Scrub(b))))
	b = assignment.ReplaceAll(b, []byte("${1}"+Redacted))
	return urlPassword.ReplaceAll(b, []byte("${1}"+Redacted+"@"))
}

var (
	// assignment is a secret given by name in a log line or a dump:
	// OSTIUM_ROOT_SECRET_KEY=..., secret_key: ..., "password":"...".
	assignment = regexp.MustCompile(`(?i)((?:secret|password|passwd|token|node_key)[a-z_]*"?\s*[=:]\s*)("[^"]*"|[^\s,}]+)`)
	// urlPassword is the password of a URL's user information.
	urlPassword = regexp.MustCompile(`([a-zA-Z][a-zA-Z0-9+.-]*://[^:/@\s]*:)[^@/\s]+@`)
)

// RedactConfig returns the configuration document data with every secret
// replaced, and records the secrets it found in s. It works on the YAML
// tree rather than on node.Config, so that keys the node does not know
// (a misspelt one) are redacted too and comments, which may quote a
// secret, are dropped. The typed configuration then names by structure
// the secrets it holds wherever they stand, and those are scrubbed too.
func RedactConfig(data []byte, s *Secrets) ([]byte, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	redactNode(&doc, s)
	if c, err := node.DecodeConfig(data); err == nil {
		ConfigSecrets(c, s)
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return s.Scrub(buf.Bytes()), nil
}

func redactNode(n *yaml.Node, s *Secrets) {
	n.HeadComment, n.LineComment, n.FootComment = "", "", ""
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			k.HeadComment, k.LineComment, k.FootComment = "", "", ""
			if secretKey(k.Value) {
				hideAll(v, s)
				continue
			}
			redactNode(v, s)
		}
	case yaml.ScalarNode:
		if pw := urlSecret(n.Value); pw != "" {
			s.Add(pw)
		}
	default:
		for _, c := range n.Content {
			redactNode(c, s)
		}
	}
}

// hideAll replaces every scalar under n (a secret's value, or a map of
// them) with Redacted, recording what it was.
func hideAll(n *yaml.Node, s *Secrets) {
	n.HeadComment, n.LineComment, n.FootComment = "", "", ""
	if n.Kind == yaml.ScalarNode {
		if n.Value != "" {
			s.Add(n.Value)
			n.Value, n.Tag, n.Style = Redacted, "!!str", 0
		}
		return
	}
	for _, c := range n.Content {
		hideAll(c, s)
	}
}

// urlSecret returns the password in a URL's user information, if any.
func urlSecret(v string) string {
	if !strings.Contains(v, "://") {
		return ""
	}
	u, err := url.Parse(v)
	if err != nil || u.User == nil {
		return ""
	}
	pw, _ := u.User.Password()
	return pw
}

// ConfigSecrets records in s the secrets a node's configuration holds,
// by their place in it: the root keys, the node key, each platform's
// keys, the catalog URL's password.
func ConfigSecrets(c node.Config, s *Secrets) {
	s.Add(c.RootAccessKey)
	s.Add(c.RootSecretKey)
	s.Add(c.NodeKey)
	s.Add(urlSecret(c.Catalog))
	for _, p := range c.Platforms {
		s.Add(p.S3.AccessKey)
		s.Add(p.S3.SecretKey)
		s.Add(urlSecret(p.S3.Proxy))
		s.Add(urlSecret(p.S3.Endpoint))
	}
}
