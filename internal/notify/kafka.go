package notify

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"regexp"
	"strconv"
	"strings"
)

// SASL mechanisms a Kafka target may authenticate with.
const (
	SASLPlain       = "PLAIN"
	SASLScramSHA256 = "SCRAM-SHA-256"
	SASLScramSHA512 = "SCRAM-SHA-512"
)

// KafkaEndpoint is a Kafka target's endpoint, parsed. Its URL form is
//
//	kafka://[USER@]HOST:PORT[,HOST:PORT...][?tls=true][&sasl=MECHANISM]
//
// the bootstrap brokers, whether to speak TLS to them, and the SASL
// mechanism and user to authenticate with; the password is the target's
// secret, kept sealed like a webhook's, never in the URL (which lists
// show).
type KafkaEndpoint struct {
	Brokers []string
	TLS     bool
	SASL    string // "", or one of the SASL constants
	User    string
}

// kafkaTopic is a topic name Kafka accepts.
var kafkaTopic = regexp.MustCompile(`^[A-Za-z0-9._-]{1,249}$`)

// ParseKafkaEndpoint reads a Kafka target's endpoint.
func ParseKafkaEndpoint(s string) (KafkaEndpoint, error) {
	var e KafkaEndpoint
	u, err := url.Parse(s)
	if err != nil || u.Scheme != KindKafka || u.Host == "" {
		return e, fmt.Errorf("a Kafka endpoint must be a kafka://HOST:PORT[,HOST:PORT...] URL, not %q", s)
	}
	if u.Path != "" && u.Path != "/" || u.Fragment != "" {
		return e, fmt.Errorf("a Kafka endpoint has no path: %q", s)
	}
	if u.User != nil {
		if _, has := u.User.Password(); has {
			return e, errors.New("a Kafka endpoint carries no password: it is the target's secret, kept sealed")
		}
		e.User = u.User.Username()
	}
	for _, b := range strings.Split(u.Host, ",") {
		host, port, err := net.SplitHostPort(b)
		if n, perr := strconv.Atoi(port); err != nil || host == "" || perr != nil || n < 1 || n > 65535 {
			return e, fmt.Errorf("broker %q of a Kafka endpoint is not HOST:PORT", b)
		}
		e.Brokers = append(e.Brokers, b)
	}
	q := u.Query()
	for k, v := range q {
		if len(v) != 1 {
			return e, fmt.Errorf("a Kafka endpoint's %s is given %d times", k, len(v))
		}
		switch k {
		case "tls":
			if e.TLS, err = strconv.ParseBool(v[0]); err != nil {
				return e, fmt.Errorf("a Kafka endpoint's tls is true or false, not %q", v[0])
			}
		case "sasl":
			switch m := strings.ToUpper(v[0]); m {
			case SASLPlain, SASLScramSHA256, SASLScramSHA512:
				e.SASL = m
			default:
				return e, fmt.Errorf("a Kafka endpoint's sasl is %s, %s or %s, not %q", SASLPlain, SASLScramSHA256, SASLScramSHA512, v[0])
			}
		default:
			return e, fmt.Errorf("a Kafka endpoint takes tls and sasl, not %q", k)
		}
	}
	switch {
	case e.SASL != "" && e.User == "":
		return e, fmt.Errorf("SASL %s needs a user: kafka://USER@HOST:PORT", e.SASL)
	case e.SASL == "" && e.User != "":
		return e, errors.New("a Kafka endpoint's user is for SASL: add sasl=PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512")
	case e.SASL == SASLPlain && !e.TLS:
		// PLAIN sends the password as it is; SCRAM proves it without.
		return e, errors.New("SASL PLAIN sends the password in clear: add tls=true, or use SCRAM")
	}
	return e, nil
}

// validKafka checks a Kafka target: its endpoint, and its topic (the
// target's subject).
func validKafka(endpoint, topic string) error {
	if _, err := ParseKafkaEndpoint(endpoint); err != nil {
		return err
	}
	if !kafkaTopic.MatchString(topic) || topic == "." || topic == ".." {
		return fmt.Errorf("a Kafka target needs a topic of letters, digits, '.', '_' and '-' (at most 249), not %q", topic)
	}
	return nil
}
