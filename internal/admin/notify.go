package admin

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/iam"
	"github.com/ostiumio/ostium/internal/notify"
)

// NotifyTarget is a destination of event notifications the provider
// enables: tenants name its ARN in their buckets' configurations. Secret
// is the webhook's signing secret, or a Kafka target's SASL password,
// shown only when the target is put (and then only if it was made).
type NotifyTarget struct {
	ARN      string    `json:"arn"`
	Kind     string    `json:"kind"` // webhook, nats or kafka
	Endpoint string    `json:"endpoint"`
	Subject  string    `json:"subject,omitempty"` // NATS
	Topic    string    `json:"topic,omitempty"`   // Kafka
	Tenants  []string  `json:"tenants"`
	Secret   string    `json:"secret,omitempty"`
	Created  time.Time `json:"created"`
}

func notifyTargetOut(t catalog.NotifyTarget) NotifyTarget {
	out := NotifyTarget{ARN: t.ARN, Kind: t.Kind, Endpoint: t.Endpoint, Subject: t.Subject, Tenants: t.Tenants, Created: t.CreatedAt}
	if t.Kind == notify.KindKafka {
		// The catalog keeps a Kafka topic where a NATS subject goes.
		out.Topic, out.Subject = t.Subject, ""
	}
	return out
}

func (s *Service) notifyTargets() (catalog.NotifyTargets, error) {
	n, ok := s.cat.(catalog.NotifyTargets)
	if !ok {
		return nil, fmt.Errorf("admin: catalog %T keeps no notification targets", s.cat)
	}
	return n, nil
}

// ListNotifyTargets returns the targets: every one to the provider, and
// to a tenant's admin those open to its tenant (so that it knows the ARNs
// it may name).
func (s *Service) ListNotifyTargets(ctx context.Context, id *iam.Identity) ([]NotifyTarget, error) {
	if id == nil {
		return nil, errDenied
	}
	if err := allow(id, id.Tenant); err != nil {
		return nil, err
	}
	nt, err := s.notifyTargets()
	if err != nil {
		return nil, err
	}
	ts, err := nt.ListNotifyTargets(ctx)
	if err != nil {
		return nil, apiErr(err)
	}
	out := []NotifyTarget{}
	for _, t := range ts {
		if id.Tenant == "" || notify.Allowed(t, id.Tenant) {
			o := notifyTargetOut(t)
			if id.Tenant != "" {
				o.Tenants = nil // other tenants' names are not its business
			}
			out = append(out, o)
		}
	}
	return out, nil
}

// PutNotifyTarget registers a target, or replaces the one of its ARN;
// the provider only. A webhook given no secret gets a fresh one, returned
// this once; the secret is kept sealed under the node key.
func (s *Service) PutNotifyTarget(ctx context.Context, id *iam.Identity, in NotifyTarget) (NotifyTarget, error) {
	if err := allow(id, ""); err != nil {
		return NotifyTarget{}, err
	}
	nt, err := s.notifyTargets()
	if err != nil {
		return NotifyTarget{}, err
	}
	t := catalog.NotifyTarget{ARN: in.ARN, Kind: in.Kind, Endpoint: in.Endpoint, Subject: in.Subject, Tenants: in.Tenants,
		CreatedAt: time.Now().UTC()}
	if err := notifyTargetIn(&t, in); err != nil {
		return NotifyTarget{}, newErr(http.StatusBadRequest, "InvalidTarget", "%v", err)
	}
	secret := in.Secret
	made := t.Kind == notify.KindWebhook && secret == ""
	if made {
		var b [32]byte
		rand.Read(b[:])
		secret = base64.RawURLEncoding.EncodeToString(b[:])
	}
	if secret != "" {
		t.SecretSealed = s.sealer.Seal(secret, t.ARN)
	}
	if err := nt.PutNotifyTarget(ctx, t); err != nil {
		return NotifyTarget{}, apiErr(err)
	}
	out := notifyTargetOut(t)
	if t.Kind != notify.KindKafka || made {
		out.Secret = secret // a password the provider chose is not echoed
	}
	return out, nil
}

// notifyTargetIn checks a target to put, and its secret against its
// kind: a Kafka target's is its SASL password, which it has exactly when
// its endpoint names a SASL mechanism.
func notifyTargetIn(t *catalog.NotifyTarget, in NotifyTarget) error {
	switch {
	case t.Kind == notify.KindKafka && in.Subject != "":
		return errors.New("a Kafka target has a topic, not a subject")
	case t.Kind == notify.KindKafka:
		t.Subject = in.Topic
	case in.Topic != "":
		return fmt.Errorf("a %s target has no topic", t.Kind)
	}
	if err := notify.ValidTarget(*t); err != nil {
		return err
	}
	if t.Kind == notify.KindKafka {
		e, _ := notify.ParseKafkaEndpoint(t.Endpoint) // valid, as just checked
		switch {
		case e.SASL != "" && in.Secret == "":
			return fmt.Errorf("SASL %s needs the password as the target's secret", e.SASL)
		case e.SASL == "" && in.Secret != "":
			return errors.New("a Kafka target's secret is its SASL password: the endpoint names no sasl mechanism")
		}
	}
	return nil
}

// DeleteNotifyTarget removes a target; the provider only. Configurations
// naming it stay, and their events are dropped (counted as dead letters)
// until it is registered again.
func (s *Service) DeleteNotifyTarget(ctx context.Context, id *iam.Identity, arn string) error {
	if err := allow(id, ""); err != nil {
		return err
	}
	nt, err := s.notifyTargets()
	if err != nil {
		return err
	}
	err = nt.DeleteNotifyTarget(ctx, arn)
	if errors.Is(err, catalog.ErrNoSuchNotifyTarget) {
		return newErr(http.StatusNotFound, "NoSuchTarget", "No notification target has that ARN")
	}
	return apiErr(err)
}
