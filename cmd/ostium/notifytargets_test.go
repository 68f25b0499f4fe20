package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/node/nodetest"
)

// TestAdminKafkaTarget registers a Kafka target from the command line,
// its SASL password piped (never an argument), and lists it with its
// topic and without the password, which the catalog keeps sealed.
func TestAdminKafkaTarget(t *testing.T) {
	clearCredentials(t)
	srv := nodetest.Start(t, nodetest.Options{})
	t.Setenv("OSTIUM_ENDPOINT", srv.URL)
	t.Setenv("OSTIUM_ROOT_ACCESS_KEY", nodetest.AccessKey)
	t.Setenv("OSTIUM_ROOT_SECRET_KEY", nodetest.SecretKey)
	old := passwordInput
	defer func() { passwordInput = old }()
	const arn = "arn:ostium:sns:us-east-1:provider:kafka"
	endpoint := "kafka://ostium@k1.internal:9093,k2.internal:9093?tls=true&sasl=SCRAM-SHA-512"
	passwordInput = strings.NewReader("kafka-password\n")
	out, err := runCLI(t, "admin", "--json", "notify-target", "put", arn, "--kind", "kafka", "--endpoint", endpoint,
		"--topic", "s3-events", "--tenants", "acme,beta")
	if err != nil {
		t.Fatalf("put: %v\n%s", err, out)
	}
	var tg struct {
		Kind, Endpoint, Topic, Subject, Secret string
		Tenants                                []string
	}
	if err := json.Unmarshal([]byte(out), &tg); err != nil || tg.Kind != "kafka" || tg.Endpoint != endpoint || tg.Topic != "s3-events" ||
		tg.Subject != "" || tg.Secret != "" || strings.Join(tg.Tenants, ",") != "acme,beta" {
		t.Fatalf("put printed %s (%v)", out, err)
	}
	targets := srv.Node.Catalog.(catalog.NotifyTargets)
	stored, err := targets.NotifyTarget(context.Background(), arn)
	if err != nil {
		t.Fatal(err)
	}
	if len(stored.SecretSealed) == 0 || strings.Contains(string(stored.SecretSealed), "kafka-password") || stored.Subject != "s3-events" {
		t.Fatalf("stored %+v", stored)
	}
	if out, err := runCLI(t, "admin", "notify-target", "list"); err != nil || !strings.Contains(out, "s3-events") || strings.Contains(out, "kafka-password") {
		t.Fatalf("list: %v\n%s", err, out)
	}
	// No password piped for a SASL endpoint: refused, nothing replaced.
	passwordInput = strings.NewReader("\n")
	if out, err := runCLI(t, "admin", "notify-target", "put", arn, "--kind", "kafka", "--endpoint", endpoint, "--topic", "other", "--tenants", "*"); err == nil {
		t.Fatalf("a SASL target without its password: %s", out)
	}
	// A topic Kafka would refuse is refused here.
	if out, err := runCLI(t, "admin", "notify-target", "put", arn, "--kind", "kafka", "--endpoint", "kafka://k1:9092", "--topic", "s3 events", "--tenants", "*"); err == nil {
		t.Fatalf("a bad topic: %s", out)
	}
	if again, err := targets.NotifyTarget(context.Background(), arn); err != nil || again.Subject != "s3-events" {
		t.Fatalf("after refusals: %+v %v", again, err)
	}
}
