package notify_test

import (
	"reflect"
	"testing"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/notify"
)

// A Kafka endpoint names its brokers, TLS and SASL; what could not work
// or would leak the password is refused when the target is registered.
func TestKafkaEndpoint(t *testing.T) {
	for in, want := range map[string]notify.KafkaEndpoint{
		"kafka://k1:9092":                             {Brokers: []string{"k1:9092"}},
		"kafka://k1:9092,k2:9093":                     {Brokers: []string{"k1:9092", "k2:9093"}},
		"kafka://[::1]:9094":                          {Brokers: []string{"[::1]:9094"}},
		"kafka://k1:9093?tls=true":                    {Brokers: []string{"k1:9093"}, TLS: true},
		"kafka://ostium@k1:9093?sasl=scram-sha-512":   {Brokers: []string{"k1:9093"}, SASL: "SCRAM-SHA-512", User: "ostium"},
		"kafka://o@k1:9093,k2:9093/?tls=1&sasl=PLAIN": {Brokers: []string{"k1:9093", "k2:9093"}, TLS: true, SASL: "PLAIN", User: "o"},
	} {
		got, err := notify.ParseKafkaEndpoint(in)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %+v %v, want %+v", in, got, err, want)
		}
	}
	for _, bad := range []string{
		"k1:9092",               // no scheme
		"nats://k1:9092",        // another kind's
		"kafka://k1",            // no port
		"kafka://k1:0",          // no port either
		"kafka://k1:9092,",      // an empty broker
		"kafka://k1:9092/topic", // the topic is not a path
		"kafka://u:pw@k1:9092?sasl=SCRAM-SHA-256", // a password in the URL
		"kafka://k1:9092?sasl=SCRAM-SHA-256",      // SASL without a user
		"kafka://u@k1:9092",                       // a user without SASL
		"kafka://u@k1:9092?sasl=PLAIN",            // PLAIN in clear
		"kafka://u@k1:9092?sasl=GSSAPI&tls=true",
		"kafka://k1:9092?tls=maybe",
		"kafka://k1:9092?tls=true&tls=false",
		"kafka://k1:9092?acks=1",
	} {
		if e, err := notify.ParseKafkaEndpoint(bad); err == nil {
			t.Errorf("%s accepted: %+v", bad, e)
		}
	}
	target := func(topic string) catalog.NotifyTarget {
		return catalog.NotifyTarget{ARN: "arn:ostium:sns:us-east-1:provider:k", Kind: notify.KindKafka,
			Endpoint: "kafka://k1:9092", Subject: topic, Tenants: []string{"*"}}
	}
	if err := notify.ValidTarget(target("s3-events.v1_x")); err != nil {
		t.Errorf("a valid Kafka target: %v", err)
	}
	for _, topic := range []string{"", ".", "..", "s3 events", "s3/events", string(make([]byte, 250))} {
		if err := notify.ValidTarget(target(topic)); err == nil {
			t.Errorf("topic %q accepted", topic)
		}
	}
}
