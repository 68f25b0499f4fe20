package oidc

import (
	"context"
	"crypto/sha1"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
)

// Networks never reached, whatever the configuration allows: link-local
// (169.254.169.254 is the metadata service of most clouds) and AWS's IPv6
// metadata address.
var (
	neverNetworks = []netip.Prefix{
		netip.MustParsePrefix("169.254.0.0/16"),
		netip.MustParsePrefix("fe80::/10"),
		netip.MustParsePrefix("fd00:ec2::254/128"),
	}
	cgnat        = netip.MustParsePrefix("100.64.0.0/10")
	benchmarking = netip.MustParsePrefix("198.18.0.0/15")
	nat64        = netip.MustParsePrefix("64:ff9b::/96")
)

// Reachable tells whether an identity provider may be fetched from addr:
// a public address, or one in allow (the node's oidc_allow_networks);
// never a link-local or metadata address, even if allow lists it. An
// issuer URL is given by a tenant, and the node fetches it: without this,
// a tenant could aim the node at the provider's own networks.
func Reachable(addr netip.Addr, allow []netip.Prefix) bool {
	addr = addr.Unmap()
	if nat64.Contains(addr) {
		// An IPv4 address reached through NAT64 is that address.
		b := addr.As16()
		addr = netip.AddrFrom4([4]byte(b[12:]))
	}
	for _, p := range neverNetworks {
		if p.Contains(addr) {
			return false
		}
	}
	if !addr.IsValid() || addr.IsUnspecified() || addr.IsMulticast() || addr.IsLinkLocalUnicast() || addr.IsLinkLocalMulticast() {
		return false
	}
	for _, p := range allow {
		if p.Contains(addr) {
			return true
		}
	}
	return addr.IsGlobalUnicast() && !addr.IsPrivate() && !addr.IsLoopback() && !cgnat.Contains(addr) && !benchmarking.Contains(addr)
}

// errRefused marks a connection the guard refused.
var errRefused = errors.New("oidc: address refused")

// control is the dialer's check of each address it connects to: on the
// address dialled, not on the name, so a name that resolves to a public
// address when checked and to a private one when used (DNS rebinding)
// is refused too, and every redirect's connection is checked again.
func control(allow []netip.Prefix) func(network, address string, _ syscall.RawConn) error {
	return func(network, address string, _ syscall.RawConn) error {
		ap, err := netip.ParseAddrPort(address)
		if err != nil {
			return fmt.Errorf("%w: %s: %v", errRefused, address, err)
		}
		if !Reachable(ap.Addr(), allow) {
			return fmt.Errorf("%w: %s is not a public address (oidc_allow_networks lists the private ones allowed)", errRefused, address)
		}
		return nil
	}
}

// Thumbprint is what a provider's thumbprint is of a served chain: the
// SHA-1 of the last certificate the server sends (the top intermediate
// CA, or the server's own certificate when it sends no other), in hex,
// as IAM takes it.
func Thumbprint(chain []*x509.Certificate) string {
	if len(chain) == 0 {
		return ""
	}
	sum := sha1.Sum(chain[len(chain)-1].Raw)
	return hex.EncodeToString(sum[:])
}

// tlsConfig pins the connection to thumbprints when there are any: the
// served chain must hold together up to its last certificate, that
// certificate's thumbprint be registered, and the server's certificate
// name the host. Without thumbprints the chain is verified against roots
// (nil: the system's).
func tlsConfig(thumbprints []string, roots *x509.CertPool) *tls.Config {
	if len(thumbprints) == 0 {
		return &tls.Config{MinVersion: tls.VersionTLS12, RootCAs: roots}
	}
	want := map[string]bool{}
	for _, t := range thumbprints {
		want[strings.ToLower(t)] = true
	}
	return &tls.Config{
		MinVersion: tls.VersionTLS12,
		// The chain is verified below, against the pinned certificate
		// rather than a root store.
		InsecureSkipVerify: true,
		VerifyConnection: func(cs tls.ConnectionState) error {
			chain := cs.PeerCertificates
			if len(chain) == 0 {
				return errors.New("oidc: the server sent no certificate")
			}
			if !want[Thumbprint(chain)] {
				return fmt.Errorf("oidc: the server's certificate chain (thumbprint %s) is not one of the provider's thumbprints", Thumbprint(chain))
			}
			top := x509.NewCertPool()
			top.AddCert(chain[len(chain)-1])
			mid := x509.NewCertPool()
			for _, c := range chain[1:] {
				mid.AddCert(c)
			}
			_, err := chain[0].Verify(x509.VerifyOptions{DNSName: cs.ServerName, Roots: top, Intermediates: mid})
			if err != nil {
				return fmt.Errorf("oidc: the server's certificate: %w", err)
			}
			return nil
		},
	}
}

// maxRedirects bounds the redirects a fetch follows.
const maxRedirects = 3

// client returns the HTTP client of one provider's fetches: only https,
// only to reachable addresses, no proxy from the environment, bounded in
// time.
func (v *Verifier) client(thumbprints []string) *http.Client {
	d := &net.Dialer{Timeout: v.opt.Timeout, Control: control(v.opt.AllowNetworks)}
	tr := &http.Transport{
		Proxy:                  nil,
		DialContext:            d.DialContext,
		TLSClientConfig:        tlsConfig(thumbprints, v.opt.RootCAs),
		TLSHandshakeTimeout:    v.opt.Timeout,
		ResponseHeaderTimeout:  v.opt.Timeout,
		MaxResponseHeaderBytes: 64 << 10,
		DisableKeepAlives:      true,
	}
	return &http.Client{
		Transport: tr,
		Timeout:   v.opt.Timeout,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) >= maxRedirects {
				return errors.New("oidc: too many redirects")
			}
			if req.URL.Scheme != "https" {
				return errors.New("oidc: redirect away from https")
			}
			return nil
		},
	}
}

// get fetches u (https only) and returns its body, at most MaxBody bytes.
func (v *Verifier) get(ctx context.Context, c *http.Client, u string) ([]byte, error) {
	pu, err := url.Parse(u)
	if err != nil || pu.Scheme != "https" || pu.Host == "" || pu.User != nil {
		return nil, fmt.Errorf("%w: %q is not an https URL", ErrFetch, u)
	}
	ctx, cancel := context.WithTimeout(ctx, v.opt.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrFetch, err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrFetch, u, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%w: %s: HTTP %d", ErrFetch, u, resp.StatusCode)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, v.opt.MaxBody+1))
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrFetch, u, err)
	}
	if int64(len(b)) > v.opt.MaxBody {
		return nil, fmt.Errorf("%w: %s: the document is larger than %d bytes", ErrFetch, u, v.opt.MaxBody)
	}
	return b, nil
}
