package kms

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"os"
	"time"

	"github.com/ovh/kmip-go"
	"github.com/ovh/kmip-go/kmipclient"
	"github.com/ovh/kmip-go/payloads"
	"github.com/ovh/kmip-go/ttlv"

	"github.com/ostiumio/ostium/internal/catalog"
)

// KMIPConfig is how a node reaches a KMIP server (OASIS KMIP 1.2 or
// later over mutual TLS: PyKMIP, and the KMS of the usual HSM and
// storage vendors).
type KMIPConfig struct {
	Address string `yaml:"address"` // host:port (KMIP's port is 5696)
	// CAFile verifies the server ("" = the system's roots); CertFile and
	// KeyFile are this node's client certificate, the identity the server
	// knows Ostium by: every node of a site uses the same, as the keys
	// are owned by it.
	CAFile     string `yaml:"ca_file,omitempty"`
	CertFile   string `yaml:"cert_file"`
	KeyFile    string `yaml:"key_file"`
	ServerName string `yaml:"server_name,omitempty"` // "" = Address's host
	// Timeout bounds each call (connecting included): past it the call
	// fails with ErrUnavailable (0 = DefaultKMIPTimeout).
	Timeout time.Duration `yaml:"timeout,omitempty"`
	// Connections is how many calls run at once (0 = 4).
	Connections int `yaml:"connections,omitempty"`
}

// DefaultKMIPTimeout bounds a KMIP call when the configuration does not:
// well under the S3 request deadline, so a request the KMS cannot serve
// gets its 503 while the client still waits.
const DefaultKMIPTimeout = 5 * time.Second

// Validate says what is wrong with c, naming the key.
func (c KMIPConfig) Validate() error {
	var errs []error
	if _, _, err := net.SplitHostPort(c.Address); err != nil {
		errs = append(errs, fmt.Errorf("kms.address: %q is not host:port", c.Address))
	}
	if c.CertFile == "" || c.KeyFile == "" {
		errs = append(errs, errors.New("kms.cert_file and kms.key_file: a KMIP server knows its clients by their certificate; both are required"))
	}
	if c.Timeout < 0 {
		errs = append(errs, errors.New("kms.timeout: must not be negative"))
	}
	if c.Connections < 0 {
		errs = append(errs, errors.New("kms.connections: must not be negative"))
	}
	return errors.Join(errs...)
}

// CheckFiles reads the client certificate, its key and the CA file, as a
// start does (and `ostium config validate`), naming the key of the one
// that fails.
func (c KMIPConfig) CheckFiles() error {
	if _, err := tls.LoadX509KeyPair(c.CertFile, c.KeyFile); err != nil {
		return fmt.Errorf("kms.cert_file, kms.key_file: %w", err)
	}
	if c.CAFile != "" {
		if _, err := os.ReadFile(c.CAFile); err != nil {
			return fmt.Errorf("kms.ca_file: %w", err)
		}
	}
	return nil
}

// NewKMIP returns the key service over a KMIP server: tenant keys are
// AES-256 keys made on the server, which never hands them out; data keys
// are wrapped and unwrapped by the server (AES-GCM, the context as
// associated data). The catalog keeps each key's tenant, alias, state
// and the server's name of each version. The server is dialled on first
// use: a node starts, and serves what needs no key, while it is down.
func NewKMIP(store catalog.KeyStore, c KMIPConfig, o KeyringOptions) (*Keyring, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	// Options fill in the TLS configuration they are given: each dial
	// gets its own.
	opts := func() []kmipclient.Option {
		opts := []kmipclient.Option{kmipclient.WithTlsConfig(&tls.Config{MinVersion: tls.VersionTLS12}),
			kmipclient.WithClientCertFiles(c.CertFile, c.KeyFile),
			kmipclient.WithKmipVersions(kmip.V1_4, kmip.V1_3, kmip.V1_2)}
		if c.CAFile != "" {
			opts = append(opts, kmipclient.WithRootCAFile(c.CAFile))
		}
		if c.ServerName != "" {
			opts = append(opts, kmipclient.WithServerName(c.ServerName))
		}
		return opts
	}
	// The files are read now: a wrong path stops the start, not the
	// first PUT.
	if err := c.CheckFiles(); err != nil {
		return nil, err
	}
	b := &kmipBackend{addr: c.Address, opts: opts, timeout: c.Timeout, pool: make(chan *kmipclient.Client, max(c.Connections, 1))}
	if b.timeout == 0 {
		b.timeout = DefaultKMIPTimeout
	}
	if c.Connections == 0 {
		b.pool = make(chan *kmipclient.Client, 4)
	}
	for range cap(b.pool) {
		b.pool <- nil // dialled when first taken
	}
	k := newKeyring(store, o)
	k.be = b
	return k, nil
}

type kmipBackend struct {
	addr    string
	opts    func() []kmipclient.Option
	timeout time.Duration
	// pool holds the connections, nil for one not dialled (or dropped
	// after a failure): a call takes one for itself, so that a hung
	// server holds up calls only until their deadline.
	pool chan *kmipclient.Client
}

func (b *kmipBackend) format() byte { return formatKMIP }
func (b *kmipBackend) flush()       {}

// opError is a KMIP operation the server refused (not a failure to reach
// it).
type opError struct {
	op     string
	reason kmip.ResultReason
	msg    string
}

func (e *opError) Error() string {
	return fmt.Sprintf("kms: KMIP %s refused: %s %s", e.op, ttlv.EnumStr(e.reason), e.msg)
}

// call runs one operation within the timeout. Failing to reach the
// server, or to hear from it in time, is ErrUnavailable; a refusal is an
// *opError.
func (b *kmipBackend) call(ctx context.Context, req kmip.OperationPayload) (kmip.OperationPayload, error) {
	ctx, cancel := context.WithTimeout(ctx, b.timeout)
	defer cancel()
	var c *kmipclient.Client
	select {
	case c = <-b.pool:
	case <-ctx.Done():
		return nil, fmt.Errorf("%w: KMIP server %s: no connection free in %v", ErrUnavailable, b.addr, b.timeout)
	}
	if c == nil {
		var err error
		if c, err = kmipclient.DialContext(ctx, b.addr, b.opts()...); err != nil {
			b.pool <- nil
			return nil, fmt.Errorf("%w: KMIP server %s: %v", ErrUnavailable, b.addr, err)
		}
	}
	res, err := c.Batch(ctx, req)
	if err != nil {
		// The connection may be mid-message: never reuse it.
		closeClient(c)
		b.pool <- nil
		return nil, fmt.Errorf("%w: KMIP server %s: %v", ErrUnavailable, b.addr, err)
	}
	b.pool <- c
	item := res[0]
	if item.ResultStatus != kmip.ResultStatusSuccess {
		return nil, &opError{op: ttlv.EnumStr(req.Operation()), reason: item.ResultReason, msg: item.ResultMessage}
	}
	return item.ResponsePayload, nil
}

// closeClient closes c, whose connection a failed reconnection may have
// left nil (kmipclient's Close does not expect that).
func closeClient(c *kmipclient.Client) {
	defer func() { recover() }()
	c.Close()
}

// kmipName names a key version on the server, for its operators.
func kmipName(tenant, id string, version int) string {
	return fmt.Sprintf("ostium/%s/%s/v%d", tenant, id, version)
}

func (b *kmipBackend) newVersion(ctx context.Context, tenant, id string, version int) (catalog.KeyVersion, error) {
	create, err := (&kmipclient.Client{}).Create().
		AES(256, kmip.CryptographicUsageEncrypt|kmip.CryptographicUsageDecrypt).
		WithName(kmipName(tenant, id, version)).Build()
	if err != nil {
		return catalog.KeyVersion{}, fmt.Errorf("kms: KMIP create request: %w", err)
	}
	resp, err := b.call(ctx, create)
	if err != nil {
		return catalog.KeyVersion{}, fmt.Errorf("kms: create key on the KMIP server: %w", err)
	}
	uid := resp.(*payloads.CreateResponsePayload).UniqueIdentifier
	if _, err := b.call(ctx, &payloads.ActivateRequestPayload{UniqueIdentifier: uid}); err != nil {
		return catalog.KeyVersion{}, fmt.Errorf("kms: activate key %s on the KMIP server: %w", uid, err)
	}
	return catalog.KeyVersion{Version: version, Sealed: []byte(uid), Created: time.Now().UTC()}, nil
}

func (b *kmipBackend) open(_ context.Context, _ catalog.TenantKey, v catalog.KeyVersion) (wrapper, error) {
	if v.MasterVersion != 0 || len(v.Sealed) == 0 {
		return nil, errors.New("kms: a key of the built-in keyring, where the KMIP server was expected")
	}
	return kmipWrapper{b, string(v.Sealed)}, nil
}

// destroy revokes and destroys every version on the server; one already
// gone is no error, so a destroy cut short is finished by another.
func (b *kmipBackend) destroy(ctx context.Context, ck catalog.TenantKey) error {
	for _, v := range ck.Versions {
		uid := string(v.Sealed)
		_, err := b.call(ctx, &payloads.RevokeRequestPayload{UniqueIdentifier: uid,
			RevocationReason: kmip.RevocationReason{RevocationReasonCode: kmip.RevocationReasonCodeCessationOfOperation, RevocationMessage: "destroyed by Ostium"}})
		if err != nil && !notFound(err) {
			return fmt.Errorf("kms: revoke key %s on the KMIP server: %w", uid, err)
		}
		if _, err := b.call(ctx, &payloads.DestroyRequestPayload{UniqueIdentifier: uid}); err != nil && !notFound(err) {
			return fmt.Errorf("kms: destroy key %s on the KMIP server: %w", uid, err)
		}
	}
	return nil
}

func notFound(err error) bool {
	var oe *opError
	return errors.As(err, &oe) && oe.reason == kmip.ResultReasonItemNotFound
}

type kmipWrapper struct {
	b   *kmipBackend
	uid string
}

const (
	gcmNonce = 12
	gcmTag   = 16
)

func (w kmipWrapper) wrap(ctx context.Context, header, plain, ad []byte) ([]byte, error) {
	nonce := make([]byte, gcmNonce)
	if _, err := rand.Read(nonce); err != nil {
		panic("kms: crypto/rand failed: " + err.Error())
	}
	params := kmip.AES_GCM
	resp, err := w.b.call(ctx, &payloads.EncryptRequestPayload{UniqueIdentifier: w.uid, CryptographicParameters: &params,
		Data: plain, IVCounterNonce: nonce, AuthenticatedEncryptionAdditionalData: ad})
	if err != nil {
		return nil, w.refused("wrap", err)
	}
	enc := resp.(*payloads.EncryptResponsePayload)
	if len(enc.Data) != len(plain) || len(enc.AuthenticatedEncryptionTag) != gcmTag {
		return nil, fmt.Errorf("kms: the KMIP server's AES-GCM gave %d bytes and a tag of %d", len(enc.Data), len(enc.AuthenticatedEncryptionTag))
	}
	out := make([]byte, 0, len(header)+gcmNonce+len(enc.Data)+gcmTag)
	out = append(append(append(append(out, header...), nonce...), enc.Data...), enc.AuthenticatedEncryptionTag...)
	return out, nil
}

func (w kmipWrapper) unwrap(ctx context.Context, body, ad []byte) ([]byte, error) {
	if len(body) != gcmNonce+DataKeySize+gcmTag {
		return nil, ErrUnwrap
	}
	params := kmip.AES_GCM
	resp, err := w.b.call(ctx, &payloads.DecryptRequestPayload{UniqueIdentifier: w.uid, CryptographicParameters: &params,
		IVCounterNonce: body[:gcmNonce], Data: body[gcmNonce : gcmNonce+DataKeySize], AuthenticatedEncryptionTag: body[gcmNonce+DataKeySize:],
		AuthenticatedEncryptionAdditionalData: ad})
	if err != nil {
		var oe *opError
		if errors.As(err, &oe) && oe.reason != kmip.ResultReasonItemNotFound && oe.reason != kmip.ResultReasonPermissionDenied {
			// The server's AES-GCM refused the tag: altered, or bound
			// to another context.
			return nil, fmt.Errorf("%w: %v", ErrUnwrap, err)
		}
		return nil, w.refused("unwrap", err)
	}
	plain := resp.(*payloads.DecryptResponsePayload).Data
	if len(plain) != DataKeySize {
		return nil, ErrUnwrap
	}
	return plain, nil
}

// refused maps what the server said of a key: gone (ErrDestroyed), not
// active (ErrKeyDisabled), or the error as it is (ErrUnavailable among
// them).
func (w kmipWrapper) refused(what string, err error) error {
	var oe *opError
	if errors.As(err, &oe) {
		switch oe.reason {
		case kmip.ResultReasonItemNotFound:
			return fmt.Errorf("%w: key %s is gone from the KMIP server", ErrDestroyed, w.uid)
		case kmip.ResultReasonPermissionDenied:
			return fmt.Errorf("%w: the KMIP server refuses key %s: %s", ErrKeyDisabled, w.uid, oe.msg)
		}
	}
	return fmt.Errorf("kms: %s with KMIP key %s: %w", what, w.uid, err)
}
