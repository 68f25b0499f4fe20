package directory

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"

	"github.com/go-ldap/ldap/v3"
)

// ErrTooMany: the directory holds more users (or groups) than a sync may
// take; the sync changes nothing.
var ErrTooMany = errors.New("directory: more entries than max_users")

// conn is a connection to a directory, bound as the service account,
// and closed when the context that opened it ends.
type conn struct {
	*ldap.Conn
	cfg  Config
	stop func() bool
}

// dial connects and binds as the configured account. Every step is
// bounded by the config's timeout, and ctx ending closes the connection
// (so that no operation outlives its caller).
func dial(ctx context.Context, cfg Config, password string) (*conn, error) {
	u, err := url.Parse(cfg.URL)
	if err != nil {
		return nil, fmt.Errorf("directory: url: %w", err)
	}
	host, port, err := net.SplitHostPort(u.Host)
	if err != nil {
		host, port = u.Host, "389"
		if u.Scheme == "ldaps" {
			port = "636"
		}
	}
	tc := &tls.Config{ServerName: host, MinVersion: tls.VersionTLS12}
	if cfg.CA != "" {
		tc.RootCAs = x509.NewCertPool()
		tc.RootCAs.AppendCertsFromPEM([]byte(cfg.CA))
	}
	dctx, cancel := context.WithTimeout(ctx, cfg.timeout())
	defer cancel()
	d := net.Dialer{}
	nc, err := d.DialContext(dctx, "tcp", net.JoinHostPort(host, port))
	if err != nil {
		return nil, fmt.Errorf("directory: connect to %s: %w", cfg.URL, err)
	}
	isTLS := u.Scheme == "ldaps"
	if isTLS {
		tlsc := tls.Client(nc, tc)
		if err := tlsc.HandshakeContext(dctx); err != nil {
			nc.Close()
			return nil, fmt.Errorf("directory: TLS with %s: %w", cfg.URL, err)
		}
		nc = tlsc
	}
	lc := ldap.NewConn(nc, isTLS)
	lc.SetTimeout(cfg.timeout())
	lc.Start()
	c := &conn{Conn: lc, cfg: cfg, stop: context.AfterFunc(ctx, func() { lc.Close() })}
	if u.Scheme == "ldap" && cfg.StartTLS {
		if err := lc.StartTLS(tc); err != nil {
			c.Close()
			return nil, fmt.Errorf("directory: StartTLS with %s: %w", cfg.URL, err)
		}
	}
	if err := lc.Bind(cfg.BindDN, password); err != nil {
		c.Close()
		return nil, fmt.Errorf("directory: bind as %s: %w", cfg.BindDN, err)
	}
	return c, nil
}

func (c *conn) Close() {
	c.stop()
	c.Conn.Close()
}

// search runs a paged search (the paged results control, page by page),
// calling fn for each entry, and fails with ErrTooMany past max
// entries, abandoning the rest.
func (c *conn) search(base, filter string, attrs []string, max int, fn func(*ldap.Entry) error) error {
	paging := ldap.NewControlPaging(uint32(c.cfg.PageSize))
	req := ldap.NewSearchRequest(base, ldap.ScopeWholeSubtree, ldap.NeverDerefAliases, 0, c.cfg.TimeoutSeconds, false,
		filter, attrs, []ldap.Control{paging})
	n := 0
	for {
		res, err := c.Search(req)
		if err != nil {
			return fmt.Errorf("directory: search %s: %w", base, err)
		}
		for _, e := range res.Entries {
			if n++; n > max {
				paging.PagingSize = 0 // abandons the paged search
				c.Search(req)
				return ErrTooMany
			}
			if err := fn(e); err != nil {
				return err
			}
		}
		ctl, _ := ldap.FindControl(res.Controls, ldap.ControlTypePaging).(*ldap.ControlPaging)
		if ctl == nil || len(ctl.Cookie) == 0 {
			return nil
		}
		paging.SetCookie(ctl.Cookie)
	}
}

// entry is what a directory entry says of a user.
type entry struct {
	DN, ExternalID, Login, Email, Display string
	Disabled                              bool
	MemberOf                              []string // DNs, when the directory lists them on the user
}

func (c *conn) userAttrs() []string {
	cfg := c.cfg
	attrs := []string{cfg.LoginAttribute, cfg.IDAttribute, cfg.EmailAttribute, cfg.DisplayAttribute}
	for _, a := range []string{cfg.MemberOfAttribute, cfg.DisabledAttribute} {
		if a != "" {
			attrs = append(attrs, a)
		}
	}
	return attrs
}

func (c *conn) entryOf(e *ldap.Entry) entry {
	cfg := c.cfg
	out := entry{DN: e.DN, ExternalID: clean(externalID(e, cfg.IDAttribute)), Login: e.GetEqualFoldAttributeValue(cfg.LoginAttribute),
		Email: clean(strings.ToLower(e.GetEqualFoldAttributeValue(cfg.EmailAttribute))), Display: clean(e.GetEqualFoldAttributeValue(cfg.DisplayAttribute))}
	if cfg.MemberOfAttribute != "" {
		out.MemberOf = e.GetEqualFoldAttributeValues(cfg.MemberOfAttribute)
	}
	out.Disabled = disabled(cfg, e.GetEqualFoldAttributeValues(cfg.DisabledAttribute))
	return out
}

// disabled reads the configured disabled attribute's values.
func disabled(cfg Config, vals []string) bool {
	if cfg.DisabledAttribute == "" || len(vals) == 0 {
		return false
	}
	if strings.EqualFold(cfg.DisabledAttribute, "userAccountControl") && cfg.DisabledValue == "" {
		n, err := strconv.ParseUint(vals[0], 10, 32)
		return err == nil && n&2 != 0 // ACCOUNTDISABLE
	}
	if cfg.DisabledValue == "" {
		return true
	}
	for _, v := range vals {
		if strings.EqualFold(v, cfg.DisabledValue) {
			return true
		}
	}
	return false
}

// externalID is an entry's stable id as text: objectGUID (16 bytes) in
// the form Active Directory shows it, anything else as it is.
func externalID(e *ldap.Entry, attr string) string {
	if strings.EqualFold(attr, "objectGUID") {
		if b := e.GetEqualFoldRawAttributeValue(attr); len(b) == 16 {
			return formatGUID(b)
		}
		return ""
	}
	return e.GetEqualFoldAttributeValue(attr)
}

// formatGUID writes a GUID's 16 bytes as Windows does: the first three
// fields little-endian.
func formatGUID(b []byte) string {
	return fmt.Sprintf("%02x%02x%02x%02x-%02x%02x-%02x%02x-%s-%s",
		b[3], b[2], b[1], b[0], b[5], b[4], b[7], b[6], hex.EncodeToString(b[8:10]), hex.EncodeToString(b[10:16]))
}

// idFilter is an equality filter on the id attribute for an external
// id, escaped (objectGUID as its bytes).
func idFilter(cfg Config, id string) string {
	if strings.EqualFold(cfg.IDAttribute, "objectGUID") {
		h := strings.ReplaceAll(id, "-", "")
		b, err := hex.DecodeString(h)
		if err != nil || len(b) != 16 {
			return "(!(objectClass=*))" // matches nothing
		}
		raw := []byte{b[3], b[2], b[1], b[0], b[5], b[4], b[7], b[6]}
		raw = append(raw, b[8:]...)
		var sb strings.Builder
		for _, c := range raw {
			fmt.Fprintf(&sb, "\\%02x", c)
		}
		return "(" + cfg.IDAttribute + "=" + sb.String() + ")"
	}
	return "(" + cfg.IDAttribute + "=" + ldap.EscapeFilter(id) + ")"
}

// and joins filters; each is a whole filter already.
func and(filters ...string) string { return "(&" + strings.Join(filters, "") + ")" }

// group is a group entry.
type group struct {
	DN, ExternalID, Name string
	Members              []string // DNs
}

func (c *conn) groupOf(e *ldap.Entry) group {
	cfg := c.cfg
	g := group{DN: e.DN, ExternalID: clean(externalID(e, cfg.IDAttribute)), Name: clean(e.GetEqualFoldAttributeValue(cfg.GroupNameAttribute)),
		Members: e.GetEqualFoldAttributeValues(cfg.MemberAttribute)}
	if g.ExternalID == "" {
		g.ExternalID = "dn:" + strings.ToLower(e.DN)
	}
	return g
}

func (c *conn) groupAttrs() []string {
	return []string{c.cfg.IDAttribute, c.cfg.GroupNameAttribute, c.cfg.MemberAttribute}
}

// normDN is a DN's comparable form: parsed and folded; the text folded
// when it does not parse.
func normDN(dn string) string {
	if p, err := ldap.ParseDN(dn); err == nil {
		var parts []string
		for _, r := range p.RDNs {
			var as []string
			for _, a := range r.Attributes {
				as = append(as, strings.ToLower(a.Type)+"="+strings.ToLower(a.Value))
			}
			parts = append(parts, strings.Join(as, "+"))
		}
		return strings.Join(parts, ",")
	}
	return strings.ToLower(strings.TrimSpace(dn))
}

// clean makes a value the directory gave fit to keep: valid UTF-8, no
// NUL (which PostgreSQL's text refuses), at most 1 KiB. The directory is
// the tenant's: what it sends is not trusted to be well formed.
func clean(v string) string {
	v = strings.ReplaceAll(strings.ToValidUTF8(v, "\uFFFD"), "\x00", "")
	if len(v) > 1024 {
		v = strings.ToValidUTF8(v[:1024], "")
	}
	return v
}
