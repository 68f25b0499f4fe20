package node

import (
	"crypto/x509"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/ostiumio/ostium/internal/iam"
	"github.com/ostiumio/ostium/internal/metrics"
	"github.com/ostiumio/ostium/internal/notify/delivery"
)

// NotifyConfig tunes the delivery of event notifications (one node
// delivers, under the "notification-delivery" lease).
type NotifyConfig struct {
	// CAFile holds PEM certificates that webhooks' and Kafka brokers'
	// TLS certificates may also chain to, besides the system's ("" = the
	// system's only).
	CAFile string `yaml:"notify_ca_file,omitempty"`
	// MaxAttempts is how many times an event is tried before it is
	// dropped and counted as a dead letter (0 = 8).
	MaxAttempts int `yaml:"notify_max_attempts,omitempty"`
	// RetryBackoff is the wait after a first failed attempt, doubled
	// after each up to 5 minutes (0 = 1 s).
	RetryBackoff time.Duration `yaml:"notify_retry_backoff,omitempty"`
	// Timeout bounds one attempt (0 = 10 s).
	Timeout time.Duration `yaml:"notify_timeout,omitempty"`
	// Concurrency bounds the sends in flight over every target (0 = 16).
	Concurrency int `yaml:"notify_concurrency,omitempty"`
}

func (c NotifyConfig) validate() error {
	var errs []error
	if c.MaxAttempts < 0 || c.Concurrency < 0 {
		errs = append(errs, errors.New("notify_max_attempts, notify_concurrency: must not be negative"))
	}
	if c.RetryBackoff < 0 || c.Timeout < 0 {
		errs = append(errs, errors.New("notify_retry_backoff, notify_timeout: must not be negative"))
	}
	return errors.Join(errs...)
}

// notifyWorker builds the delivery job; sealer opens the targets'
// secrets.
func (n *Node) notifyWorker(sealer *iam.Sealer) (*delivery.Worker, error) {
	c := n.cfg.Notify
	o := delivery.Options{MaxAttempts: c.MaxAttempts, Backoff: c.RetryBackoff, Timeout: c.Timeout, Concurrency: c.Concurrency,
		Metrics: metrics.NewNotify(n.Metrics.Registry())}
	if c.CAFile != "" {
		pem, err := os.ReadFile(c.CAFile)
		if err != nil {
			return nil, fmt.Errorf("notify_ca_file: %w", err)
		}
		pool, err := x509.SystemCertPool()
		if err != nil {
			pool = x509.NewCertPool()
		}
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("notify_ca_file: %s holds no PEM certificate", c.CAFile)
		}
		o.RootCAs = pool
	}
	st, ok := n.Catalog.(delivery.Store)
	if !ok {
		return nil, fmt.Errorf("catalog %T keeps no notification targets", n.Catalog)
	}
	return delivery.NewWorker(st, sealer, o), nil
}
