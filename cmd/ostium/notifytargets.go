package main

import (
	"context"
	"strings"

	"github.com/spf13/pflag"

	"github.com/ostiumio/ostium/internal/admin"
	"github.com/ostiumio/ostium/internal/notify"
)

// The event notification target commands.
func init() {
	adminGroups["notify-target"] = "targets of event notifications (webhooks, NATS, Kafka) and the tenants that may use them"
	adminCmds["notify-target put"] = adminCmd{args: []string{"ARN"},
		short: "register a target (or replace the one of that ARN); a webhook given no --secret gets one, shown once; a Kafka SASL password is read from stdin",
		example: "  ostium admin notify-target put arn:ostium:sns:us-east-1:acme:orders --kind webhook --endpoint https://hooks.acme.example/s3 --tenants acme\n" +
			"  ostium admin notify-target put arn:ostium:sns:us-east-1:provider:events --kind nats --endpoint nats://nats.internal:4222 --subject s3.events --tenants '*'\n" +
			"  ostium admin notify-target put arn:ostium:sns:us-east-1:provider:kafka --kind kafka --endpoint 'kafka://ostium@k1:9093,k2:9093?tls=true&sasl=SCRAM-SHA-512' --topic s3-events --tenants '*' <kafka-password",
		flags: func(fs *pflag.FlagSet, f *adminFlags) {
			fs.StringVar(&f.kind, "kind", "webhook", "webhook, nats or kafka")
			fs.StringVar(&f.endpoint, "endpoint", "", "a webhook's https URL, a NATS server's nats:// URL, or Kafka's kafka://[USER@]HOST:PORT[,HOST:PORT...][?tls=true&sasl=PLAIN|SCRAM-SHA-256|SCRAM-SHA-512]")
			fs.StringVar(&f.subject, "subject", "", "the NATS subject events are published on")
			fs.StringVar(&f.topic, "topic", "", "the Kafka topic events are produced to")
			fs.StringVar(&f.secret, "secret", "", "the webhook's signing secret (default: a fresh one, shown once)")
			fs.Var(&f.tenants, "tenants", "tenants that may name the target, comma-separated; * for all")
		},
		run: func(c *admin.Client, a []string, f *adminFlags) (any, error) {
			var tenants []string
			for _, t := range f.tenants {
				for _, n := range strings.Split(t, ",") {
					if n = strings.TrimSpace(n); n != "" {
						tenants = append(tenants, n)
					}
				}
			}
			in := admin.NotifyTarget{ARN: a[0], Kind: f.kind, Endpoint: f.endpoint, Subject: f.subject, Topic: f.topic, Secret: f.secret, Tenants: tenants}
			if e, err := notify.ParseKafkaEndpoint(f.endpoint); f.kind == notify.KindKafka && err == nil && e.SASL != "" && f.secret == "" {
				// A password is no argument, which others could read in
				// the process list: it is read as `admin user password`
				// reads one.
				if in.Secret, err = readPassword(); err != nil {
					return nil, err
				}
			}
			return call[admin.NotifyTarget](c, "PUT", "/notify-targets", in)
		}}
	adminCmds["notify-target list"] = adminCmd{short: "list the targets (a tenant's admin: those open to its tenant)",
		example: "  ostium admin notify-target list",
		run: func(c *admin.Client, a []string, f *adminFlags) (any, error) {
			return call[[]admin.NotifyTarget](c, "GET", "/notify-targets", nil)
		}}
	adminCmds["notify-target delete"] = adminCmd{args: []string{"ARN"}, short: "remove a target (events for it are then dropped, and counted)",
		example: "  ostium admin notify-target delete arn:ostium:sns:us-east-1:acme:orders",
		run: func(c *admin.Client, a []string, f *adminFlags) (any, error) {
			return deleted(c.Do(context.Background(), "DELETE", path("notify-targets", a[0]), nil, nil))
		}}
}
