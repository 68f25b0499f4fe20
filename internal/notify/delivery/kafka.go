package delivery

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"

	"github.com/ostiumio/ostium/internal/notify"
)

// kafkaBuffered bounds the records one Kafka target's producer holds:
// those waiting for the broker, and those of attempts that timed out
// while in flight (which the producer keeps until the broker answers,
// idempotence forbidding it to forget them). A full buffer makes an
// attempt wait, then fail with its timeout.
const kafkaBuffered = 256

// kafkaProducers keeps one producer per Kafka target, made on first use
// and made again when the target's endpoint or password changes. A
// producer reconnects by itself, so one for a broker that is down is
// kept: an attempt then waits out its timeout and fails.
type kafkaProducers struct {
	rootCAs *x509.CertPool
	timeout time.Duration

	mu    sync.Mutex
	by    map[string]*kafkaProducer // by ARN
	ended bool
}

type kafkaProducer struct {
	conf string // endpoint and password the client was made with
	cl   *kgo.Client
}

func (k *kafkaProducers) get(t *target) (*kgo.Client, error) {
	conf := t.Endpoint + "\x00" + t.secret
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.ended {
		return nil, context.Canceled
	}
	if p := k.by[t.ARN]; p != nil {
		if p.conf == conf {
			return p.cl, nil
		}
		go p.cl.Close() // fails what it still holds: those are retried
		delete(k.by, t.ARN)
	}
	// Making a client dials nothing: it is cheap to do under the lock.
	cl, err := k.client(t)
	if err != nil {
		return nil, err
	}
	if k.by == nil {
		k.by = map[string]*kafkaProducer{}
	}
	k.by[t.ARN] = &kafkaProducer{conf: conf, cl: cl}
	return cl, nil
}

func (k *kafkaProducers) client(t *target) (*kgo.Client, error) {
	e, err := notify.ParseKafkaEndpoint(t.Endpoint)
	if err != nil {
		return nil, err
	}
	opts := []kgo.Opt{
		kgo.SeedBrokers(e.Brokers...),
		kgo.ClientID("ostium-notifications"),
		// Written to every in-sync replica, and idempotently (franz-go's
		// default, stated here because it is the point): a batch the
		// producer sends again after a lost answer is not written twice,
		// and a partition keeps the order records were produced in.
		kgo.RequiredAcks(kgo.AllISRAcks()),
		// An event waits for nothing else: the worker sends each key's
		// oldest, and only the next once the broker has it.
		kgo.ProducerLinger(0),
		kgo.MaxBufferedRecords(kafkaBuffered),
		// A topic the brokers do not know fails the attempt at once,
		// saying so, rather than after the producer's own retries: the
		// worker retries it with its back-off, and counts it.
		kgo.UnknownTopicRetries(0),
		kgo.DialTimeout(k.timeout),
		kgo.ProduceRequestTimeout(k.timeout),
	}
	if e.TLS {
		opts = append(opts, kgo.DialTLSConfig(&tls.Config{RootCAs: k.rootCAs, MinVersion: tls.VersionTLS12}))
	}
	if m := saslMechanism(e, t.secret); m != nil {
		opts = append(opts, kgo.SASL(m))
	}
	return kgo.NewClient(opts...)
}

func saslMechanism(e notify.KafkaEndpoint, password string) sasl.Mechanism {
	switch e.SASL {
	case notify.SASLPlain:
		return plain.Auth{User: e.User, Pass: password}.AsMechanism()
	case notify.SASLScramSHA256:
		return scram.Auth{User: e.User, Pass: password}.AsSha256Mechanism()
	case notify.SASLScramSHA512:
		return scram.Auth{User: e.User, Pass: password}.AsSha512Mechanism()
	}
	return nil
}

// produce sends one event, AWS's document as the value and the object's
// key as the record's key (so that one partition, in order, holds every
// event of a key), and returns once every in-sync replica has it or the
// attempt's time is up. A record still in flight then stays with the
// producer, which may yet deliver it: the event is sent again all the
// same, at least once, and after it on the partition.
func (k *kafkaProducers) produce(ctx context.Context, t *target, id int64, name, key string, body []byte) error {
	cl, err := k.get(t)
	if err != nil {
		return err
	}
	r := &kgo.Record{Topic: t.Subject, Value: body, Headers: []kgo.RecordHeader{
		{Key: HeaderEventID, Value: []byte(strconv.FormatInt(id, 10))},
		{Key: HeaderEventName, Value: []byte(name)},
	}}
	if key != "" { // the test event has none
		r.Key = []byte(key)
	}
	done := make(chan error, 1)
	cl.Produce(ctx, r, func(_ *kgo.Record, err error) { done <- err })
	select {
	case err = <-done:
	case <-ctx.Done():
		err = ctx.Err()
	}
	if err != nil && ctx.Err() != nil {
		// What the log then tells an operator: a broker down, or
		// unreachable, most likely.
		return fmt.Errorf("kafka %s: no acknowledgement within the attempt's time: %w", t.Endpoint, err)
	}
	return err
}

// forget closes the producers of targets no longer registered.
func (k *kafkaProducers) forget(keep map[string]*target) {
	k.mu.Lock()
	defer k.mu.Unlock()
	for arn, p := range k.by {
		if t := keep[arn]; t == nil || t.Kind != notify.KindKafka {
			go p.cl.Close()
			delete(k.by, arn)
		}
	}
}

// close closes every producer, failing what they still hold; no producer
// is made after it.
func (k *kafkaProducers) close() {
	k.mu.Lock()
	by := k.by
	k.by, k.ended = nil, true
	k.mu.Unlock()
	var wg sync.WaitGroup
	for _, p := range by {
		wg.Add(1)
		go func() { defer wg.Done(); p.cl.Close() }()
	}
	wg.Wait()
}
