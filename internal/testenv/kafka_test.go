package testenv_test

import (
	"testing"
	"time"

	"github.com/ostiumio/ostium/internal/testenv"
)

// The harness starts a broker that serves, and serves again after a
// stop and a start, with its topics kept.
func TestKafkaHarness(t *testing.T) {
	s := time.Now()
	k := testenv.StartKafka(t)
	t.Log("start", time.Since(s))
	s = time.Now()
	k.CreateTopic("harness", 2)
	t.Log("topic", time.Since(s))
	s = time.Now()
	k.Stop()
	t.Log("stop", time.Since(s))
	s = time.Now()
	k.Start()
	t.Log("start", time.Since(s))
	s = time.Now()
	k.CreateTopic("harness-2", 1)
	t.Log("topic", time.Since(s))
	s = time.Now()
	t.Log(k.Log())
}
