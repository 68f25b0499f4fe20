package node

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// CertPollInterval is how often a node looks at its certificate files for
// a change (besides SIGHUP): renewals by certbot or a secret mount are
// picked up within it.
const CertPollInterval = 5 * time.Second

// cipherSuites are TLS 1.2's suites a node offers: forward secret (ECDHE)
// and authenticated encryption (AEAD) only, the set Mozilla's
// "intermediate" profile keeps. TLS 1.3's suites are all AEAD and not
// configurable.
var cipherSuites = []uint16{
	tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,
	tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,
	tls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,
	tls.TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,
	tls.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256,
	tls.TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256,
}

// TLSConfig is the server side of a node's TLS: 1.2 or later, the suites
// above, the certificate from get (nil: the caller sets Certificates).
// It offers HTTP/1.1 only, as S3 does.
func TLSConfig(get func(*tls.ClientHelloInfo) (*tls.Certificate, error)) *tls.Config {
	return &tls.Config{
		MinVersion:     tls.VersionTLS12,
		CipherSuites:   cipherSuites,
		GetCertificate: get,
		NextProtos:     []string{"http/1.1"},
	}
}

// CertReloader holds a node's certificate and replaces it when its files
// change or on SIGHUP. Handshakes read the current one through an atomic
// pointer, so a reload never waits for nor disturbs an open connection;
// a reload that fails keeps the certificate in use.
type CertReloader struct {
	certFile, keyFile string
	cert              atomic.Pointer[tls.Certificate]
	mu                sync.Mutex // one reload at a time
	seen              [2]fileStamp
}

// fileStamp is what tells that a file changed: a rename (a new inode), a
// write (modification time, size).
type fileStamp struct {
	ino, size int64
	mtime     time.Time
}

func stamp(path string) fileStamp {
	fi, err := os.Stat(path)
	if err != nil {
		return fileStamp{}
	}
	s := fileStamp{size: fi.Size(), mtime: fi.ModTime()}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		s.ino = int64(st.Ino)
	}
	return s
}

// NewCertReloader loads the PEM certificate chain and key of a node.
func NewCertReloader(certFile, keyFile string) (*CertReloader, error) {
	c := &CertReloader{certFile: certFile, keyFile: keyFile}
	if err := c.Reload(); err != nil {
		return nil, err
	}
	return c, nil
}

// Reload reads the files again. On failure the certificate in use stays
// and the error says why.
func (c *CertReloader) Reload() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.reload()
}

func (c *CertReloader) reload() error {
	// Stamped before reading: a write that lands during the read is seen
	// as a change at the next poll.
	c.seen = [2]fileStamp{stamp(c.certFile), stamp(c.keyFile)}
	cert, err := loadCertPair(c.certFile, c.keyFile)
	if err != nil {
		return err
	}
	leaf := cert.Leaf
	c.cert.Store(&cert)
	if fi, err := os.Stat(c.keyFile); err == nil && fi.Mode().Perm()&0o004 != 0 {
		slog.Warn("TLS key is readable by every user: chmod 0600 (or 0640 to a group) it", "file", c.keyFile, "mode", fi.Mode().Perm().String())
	}
	slog.Info("TLS certificate loaded", "file", c.certFile, "subject", leaf.Subject.String(),
		"dns", leaf.DNSNames, "ips", leaf.IPAddresses, "not_after", leaf.NotAfter.UTC().Format(time.RFC3339))
	if time.Now().After(leaf.NotAfter) {
		slog.Warn("TLS certificate has expired", "file", c.certFile, "not_after", leaf.NotAfter)
	}
	return nil
}

// loadCertPair reads a certificate chain and its key, which must match,
// with the leaf parsed: what a start (and `ostium config validate`) and
// each reload read.
func loadCertPair(certFile, keyFile string) (tls.Certificate, error) {
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return cert, fmt.Errorf("tls_cert, tls_key: load %s and %s: %w", certFile, keyFile, err)
	}
	if cert.Leaf == nil {
		if cert.Leaf, err = x509.ParseCertificate(cert.Certificate[0]); err != nil {
			return cert, fmt.Errorf("tls_cert: parse %s: %w", certFile, err)
		}
	}
	return cert, nil
}

// GetCertificate is tls.Config.GetCertificate: the current certificate.
func (c *CertReloader) GetCertificate(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	return c.cert.Load(), nil
}

// Certificate is the certificate handshakes get now.
func (c *CertReloader) Certificate() *tls.Certificate { return c.cert.Load() }

// TLSConfig is TLSConfig serving c's certificate.
func (c *CertReloader) TLSConfig() *tls.Config { return TLSConfig(c.GetCertificate) }

// Run reloads the certificate on each value from hup (SIGHUP, as serve
// passes it) and when either file changes, looking every poll, until ctx
// ends. Failures are logged and the old certificate kept.
func (c *CertReloader) Run(ctx context.Context, poll time.Duration, hup <-chan os.Signal) {
	t := time.NewTicker(poll)
	defer t.Stop()
	for {
		var why string
		select {
		case <-ctx.Done():
			return
		case <-hup:
			why = "SIGHUP"
		case <-t.C:
			if !c.changed() {
				continue
			}
			why = "file changed"
		}
		if err := c.Reload(); err != nil {
			slog.Error("TLS certificate reload failed; keeping the certificate in use", "trigger", why, "err", err)
		}
	}
}

func (c *CertReloader) changed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.seen != [2]fileStamp{stamp(c.certFile), stamp(c.keyFile)}
}

// Listeners are the sockets a node serves on, as its Config says: plain
// HTTP on Listen, HTTPS on TLSListen (each nil when not configured), and
// the console's own on ConsoleListen (nil when off).
type Listeners struct {
	HTTP  net.Listener
	HTTPS net.Listener
	// Console serves the console alone (Node.ConsoleServer): over HTTPS
	// with Certs when the node serves HTTPS (ConsoleTLS), else HTTP.
	Console    net.Listener
	ConsoleTLS bool
	// Certs is the HTTPS listeners' certificate; serve runs its Run.
	Certs *CertReloader
}

// Listen opens cfg's listeners: at least one of S3's must be configured.
func Listen(ctx context.Context, cfg Config) (*Listeners, error) {
	if cfg.Listen == "" && cfg.TLSListen == "" {
		return nil, errors.New("listen: neither listen nor tls_listen is set")
	}
	l := &Listeners{}
	var lc net.ListenConfig
	if cfg.TLSListen != "" {
		certs, err := NewCertReloader(cfg.TLSCert, cfg.TLSKey)
		if err != nil {
			return nil, err
		}
		ln, err := lc.Listen(ctx, "tcp", cfg.TLSListen)
		if err != nil {
			return nil, fmt.Errorf("tls_listen: %w", err)
		}
		l.Certs, l.HTTPS = certs, tls.NewListener(ln, certs.TLSConfig())
	}
	if cfg.Listen != "" {
		ln, err := lc.Listen(ctx, "tcp", cfg.Listen)
		if err != nil {
			l.Close()
			return nil, fmt.Errorf("listen: %w", err)
		}
		l.HTTP = ln
	}
	if cfg.ConsoleListen != "" && cfg.ConsoleListen != ConsoleOff {
		ln, err := lc.Listen(ctx, "tcp", cfg.ConsoleListen)
		if err != nil {
			l.Close()
			return nil, fmt.Errorf("console_listen: %w", err)
		}
		// The same certificate as S3's HTTPS: one reload serves both.
		if l.Certs != nil {
			ln, l.ConsoleTLS = tls.NewListener(ln, l.Certs.TLSConfig()), true
		}
		l.Console = ln
	}
	return l, nil
}

// All is the open listeners of S3 (Node.HTTPServer).
func (l *Listeners) All() []net.Listener {
	var out []net.Listener
	for _, ln := range []net.Listener{l.HTTP, l.HTTPS} {
		if ln != nil {
			out = append(out, ln)
		}
	}
	return out
}

// Close closes every listener.
func (l *Listeners) Close() error {
	var errs []error
	for _, ln := range append(l.All(), l.Console) {
		if ln != nil {
			errs = append(errs, ln.Close())
		}
	}
	return errors.Join(errs...)
}

func (c *Config) validateTLSAndKey() error {
	switch {
	case c.NodeKey != "" && c.NodeKeyFile != "":
		return errors.New("node_key_file: give node_key or node_key_file, not both")
	case c.TLSListen != "" && (c.TLSCert == "" || c.TLSKey == ""):
		return errors.New("tls_cert: tls_listen needs tls_cert and tls_key")
	case c.TLSListen == "" && (c.TLSCert != "" || c.TLSKey != ""):
		return errors.New("tls_listen: tls_cert and tls_key are set but tls_listen is not")
	}
	return nil
}
