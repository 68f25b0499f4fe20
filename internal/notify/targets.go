package notify

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/ostiumio/ostium/internal/catalog"
)

// Target kinds.
const (
	KindWebhook = "webhook"
	KindNATS    = "nats"
	KindKafka   = "kafka"
)

// arnForm is a target's ARN: arn:ostium:SERVICE:REGION:ACCOUNT:NAME,
// SERVICE being sns, sqs or lambda (which configuration element may name
// it), ACCOUNT the tenant it is for or "provider".
var arnForm = regexp.MustCompile(`^arn:ostium:(sns|sqs|lambda):([a-z0-9-]*):([A-Za-z0-9_.-]+):([A-Za-z0-9_.-]{1,256})$`)

// ValidTarget checks a target the provider registers: its ARN's form,
// its kind and where it sends.
func ValidTarget(t catalog.NotifyTarget) error {
	if !arnForm.MatchString(t.ARN) {
		return fmt.Errorf("ARN %q is not of the form arn:ostium:sns|sqs|lambda:REGION:ACCOUNT:NAME", t.ARN)
	}
	u, err := url.Parse(t.Endpoint)
	if err != nil || u.Host == "" {
		return fmt.Errorf("endpoint %q is not a URL", t.Endpoint)
	}
	switch t.Kind {
	case KindWebhook:
		if u.Scheme != "https" {
			return fmt.Errorf("a webhook's endpoint must be an https URL, not %q", t.Endpoint)
		}
		if t.Subject != "" {
			return errors.New("a webhook has no subject")
		}
	case KindNATS:
		if u.Scheme != "nats" && u.Scheme != "tls" {
			return fmt.Errorf("a NATS endpoint must be a nats:// or tls:// URL, not %q", t.Endpoint)
		}
		if t.Subject == "" || strings.ContainsAny(t.Subject, " \t\r\n*>") {
			return fmt.Errorf("a NATS target needs a subject without spaces or wildcards, not %q", t.Subject)
		}
	case KindKafka:
		if err := validKafka(t.Endpoint, t.Subject); err != nil {
			return err
		}
	default:
		return fmt.Errorf("kind %q is none of %s, %s and %s", t.Kind, KindWebhook, KindNATS, KindKafka)
	}
	if len(t.Tenants) == 0 {
		return errors.New("a target names the tenants that may use it (or * for all)")
	}
	return nil
}

// Allowed tells whether a bucket of tenant ("" = the provider's) may
// name target t.
func Allowed(t catalog.NotifyTarget, tenant string) bool {
	return tenant == "" || slices.Contains(t.Tenants, "*") || slices.Contains(t.Tenants, tenant)
}

// Lookup finds a registered target (catalog.ErrNoSuchNotifyTarget).
type Lookup func(ctx context.Context, arn string) (catalog.NotifyTarget, error)

// CheckTargets checks that every destination names a target the
// provider registered for the element naming it and allowed to the
// bucket's tenant. AWS answers a destination it cannot validate (absent,
// or not open to the bucket) with InvalidArgument, naming none of the
// others; an unknown target and a forbidden one look alike, so that a
// tenant learns nothing of targets it may not use.
func CheckTargets(ctx context.Context, c *Configuration, tenant string, find Lookup) error {
	for _, d := range c.Destinations() {
		m := arnForm.FindStringSubmatch(d.ARN)
		if m == nil || m[1] != d.Service {
			return unableToValidate(d.ARN)
		}
		t, err := find(ctx, d.ARN)
		switch {
		case errors.Is(err, catalog.ErrNoSuchNotifyTarget):
			return unableToValidate(d.ARN)
		case err != nil:
			return err
		case !Allowed(t, tenant):
			return unableToValidate(d.ARN)
		}
	}
	return nil
}

func unableToValidate(arn string) error {
	return invalidArg("Unable to validate the following destination configurations: " + arn)
}
