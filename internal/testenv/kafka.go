package testenv

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// KafkaJars is where Apache Kafka's jars are: OSTIUM_TEST_KAFKA when set
// (.ci/run sets it, and a test then fails rather than skips without
// them), else the CI cache's kafka/libs, which .ci/run fills with
//
//	mvn -f internal/testenv/testdata/kafka/pom.xml dependency:copy-dependencies \
//	    -DincludeScope=runtime -DoutputDirectory=$HOME/.cache/ostium-ci/kafka/libs
func KafkaJars() string {
	if d := os.Getenv("OSTIUM_TEST_KAFKA"); d != "" {
		return d
	}
	cache := os.Getenv("XDG_CACHE_HOME")
	if cache == "" {
		home, _ := os.UserHomeDir()
		cache = filepath.Join(home, ".cache")
	}
	return filepath.Join(cache, "ostium-ci", "kafka", "libs")
}

// Kafka is an Apache Kafka broker of a test's own (KRaft, broker and
// controller in one process), on loopback ports that stay its own across
// a Stop and Start. It listens twice: in plain text at Addr, and at
// SecureAddr with TLS (a certificate for 127.0.0.1 from the CA in CAPEM)
// and SASL (PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512, all for User and
// Password). It creates a topic a client asks for, as Kafka does unless
// told otherwise, so that a test can show that a client does not ask.
type Kafka struct {
	Addr, SecureAddr string
	CAPEM            []byte
	User, Password   string

	t    testing.TB
	dir  string
	jars string
	cmd  *exec.Cmd
	exit chan struct{}
}

// StartKafka formats and starts a broker for the test, stopped when it
// ends. It is skipped when Kafka's jars or Java are missing, and fails
// instead where OSTIUM_TEST_KAFKA says they must be there.
func StartKafka(t testing.TB) *Kafka {
	t.Helper()
	var pw [9]byte
	rand.Read(pw[:])
	k := &Kafka{t: t, jars: KafkaJars(), User: "ostium", Password: base64.RawURLEncoding.EncodeToString(pw[:])}
	if m, _ := filepath.Glob(filepath.Join(k.jars, "kafka_2.13-*.jar")); len(m) == 0 {
		k.missing("Kafka's jars are not in " + k.jars + " (.ci/run fetches them with Maven: see testenv.KafkaJars)")
	}
	if _, err := exec.LookPath("java"); err != nil {
		k.missing("java is not installed (Kafka's broker needs Java 17)")
	}
	k.dir = t.TempDir()
	k.Addr = fmt.Sprintf("127.0.0.1:%d", freePort(t))
	k.SecureAddr = fmt.Sprintf("127.0.0.1:%d", freePort(t))
	controller := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	k.CAPEM = k.writeCertificates()
	jaas := func(module, users string) string {
		return "org.apache.kafka.common.security." + module + " required" + users + ";"
	}
	props := strings.Join([]string{
		"process.roles=broker,controller",
		"node.id=1",
		"controller.quorum.voters=1@" + controller,
		"controller.listener.names=CONTROLLER",
		"listeners=PLAINTEXT://" + k.Addr + ",SASL_SSL://" + k.SecureAddr + ",CONTROLLER://" + controller,
		"advertised.listeners=PLAINTEXT://" + k.Addr + ",SASL_SSL://" + k.SecureAddr,
		"listener.security.protocol.map=PLAINTEXT:PLAINTEXT,SASL_SSL:SASL_SSL,CONTROLLER:PLAINTEXT",
		"inter.broker.listener.name=PLAINTEXT",
		"sasl.enabled.mechanisms=PLAIN,SCRAM-SHA-256,SCRAM-SHA-512",
		"listener.name.sasl_ssl.plain.sasl.jaas.config=" + jaas("plain.PlainLoginModule", fmt.Sprintf(" user_%s=%q", k.User, k.Password)),
		"listener.name.sasl_ssl.scram-sha-256.sasl.jaas.config=" + jaas("scram.ScramLoginModule", ""),
		"listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config=" + jaas("scram.ScramLoginModule", ""),
		"ssl.keystore.type=PEM",
		"ssl.keystore.location=" + filepath.Join(k.dir, "broker.pem"),
		"log.dirs=" + filepath.Join(k.dir, "data"),
		"auto.create.topics.enable=true",
		"num.partitions=3",
		"offsets.topic.replication.factor=1",
		"offsets.topic.num.partitions=1",
		"transaction.state.log.replication.factor=1",
		"transaction.state.log.min.isr=1",
		"share.coordinator.state.topic.replication.factor=1",
		"share.coordinator.state.topic.min.isr=1",
		"group.initial.rebalance.delay.ms=0",
	}, "\n") + "\n"
	k.write("server.properties", props)
	// Warnings and errors only, to the log the test prints if the
	// broker fails.
	k.write("log4j2.properties", "rootLogger.level=WARN\nrootLogger.appenderRef.out.ref=out\n"+
		"appender.out.type=Console\nappender.out.name=out\nappender.out.layout.type=PatternLayout\n"+
		"appender.out.layout.pattern=[%d] %p %m (%c)%n\n")
	var id [16]byte
	rand.Read(id[:])
	// An ID whose base64 starts with '-' would read as an option to the
	// tool's argument parser; one in 64 did.
	id[0] &= 0x7f
	scram := func(mech string) string {
		return fmt.Sprintf("%s=[name=%s,password=%s]", mech, k.User, k.Password)
	}
	k.java("kafka.tools.StorageTool", "format", "--cluster-id", base64.RawURLEncoding.EncodeToString(id[:]),
		"--config", filepath.Join(k.dir, "server.properties"),
		"--add-scram", scram("SCRAM-SHA-256"), "--add-scram", scram("SCRAM-SHA-512"))
	k.Start()
	t.Cleanup(k.Stop)
	return k
}

func (k *Kafka) missing(why string) {
	k.t.Helper()
	if os.Getenv("OSTIUM_TEST_KAFKA") != "" {
		k.t.Fatal(why)
	}
	k.t.Skip(why)
}

func (k *Kafka) write(name, content string) {
	k.t.Helper()
	if err := os.WriteFile(filepath.Join(k.dir, name), []byte(content), 0o600); err != nil {
		k.t.Fatal(err)
	}
}

func (k *Kafka) command(class string, args ...string) *exec.Cmd {
	// A small heap and the quick compiler: a test broker starts in
	// seconds and carries little.
	return exec.Command("java", append([]string{"-Xms64m", "-Xmx512m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
		"-Dlog4j2.configurationFile=" + filepath.Join(k.dir, "log4j2.properties"),
		"-cp", filepath.Join(k.jars, "*"), class}, args...)...)
}

// java runs a Kafka tool to its end.
func (k *Kafka) java(class string, args ...string) {
	k.t.Helper()
	if out, err := k.command(class, args...).CombinedOutput(); err != nil {
		k.t.Fatalf("%s %s: %v\n%s", class, args[0], err, out)
	}
}

// Start starts the broker (again, after Stop) and waits until it serves.
func (k *Kafka) Start() {
	k.t.Helper()
	log, err := os.OpenFile(filepath.Join(k.dir, "broker.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		k.t.Fatal(err)
	}
	defer log.Close()
	cmd := k.command("kafka.Kafka", filepath.Join(k.dir, "server.properties"))
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		k.t.Fatal(err)
	}
	k.cmd, k.exit = cmd, make(chan struct{})
	go func(exit chan struct{}) { cmd.Wait(); close(exit) }(k.exit)
	// Serving means answering metadata with itself as a broker: the port
	// opens a little before.
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	for {
		err := k.admin(ctx, func(cl *kgo.Client) error {
			resp, err := kmsg.NewPtrMetadataRequest().RequestWith(ctx, cl)
			if err == nil && len(resp.Brokers) == 0 {
				err = fmt.Errorf("no broker yet")
			}
			return err
		})
		if err == nil {
			return
		}
		select {
		case <-k.exit:
			k.t.Fatalf("the Kafka broker exited: %v\n%s", err, k.Log())
		case <-ctx.Done():
			k.t.Fatalf("the Kafka broker did not start: %v\n%s", err, k.Log())
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// Stop stops the broker as its operator would (SIGTERM: a controlled
// shutdown), and waits for it to exit.
func (k *Kafka) Stop() {
	if k.cmd == nil {
		return
	}
	k.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-k.exit:
	case <-time.After(60 * time.Second):
		k.cmd.Process.Kill()
		<-k.exit
	}
	k.cmd = nil
}

// Log is what the broker wrote (warnings and errors).
func (k *Kafka) Log() string {
	b, _ := os.ReadFile(filepath.Join(k.dir, "broker.log"))
	if len(b) > 8<<10 {
		b = b[len(b)-8<<10:]
	}
	return string(b)
}

// admin calls f with a client of the plain-text listener.
func (k *Kafka) admin(ctx context.Context, f func(*kgo.Client) error) error {
	cl, err := kgo.NewClient(kgo.SeedBrokers(k.Addr), kgo.DialTimeout(2*time.Second), kgo.RequestRetries(0))
	if err != nil {
		return err
	}
	defer cl.Close()
	return f(cl)
}

// CreateTopic creates a topic of that many partitions.
func (k *Kafka) CreateTopic(name string, partitions int) {
	k.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	err := k.admin(ctx, func(cl *kgo.Client) error {
		req := kmsg.NewPtrCreateTopicsRequest()
		tr := kmsg.NewCreateTopicsRequestTopic()
		tr.Topic, tr.NumPartitions, tr.ReplicationFactor = name, int32(partitions), 1
		req.Topics = append(req.Topics, tr)
		req.TimeoutMillis = 30000
		resp, err := req.RequestWith(ctx, cl)
		if err != nil {
			return err
		}
		for _, r := range resp.Topics {
			if err := kerr.ErrorForCode(r.ErrorCode); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		k.t.Fatalf("create topic %s: %v", name, err)
	}
}

// writeCertificates makes a CA and, signed by it, the TLS listener's
// certificate for 127.0.0.1 and localhost; it writes the key (PKCS #8,
// as Kafka reads PEM keys) and the certificate where the broker reads
// them and returns the CA's certificate.
func (k *Kafka) writeCertificates() []byte {
	k.t.Helper()
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	now := time.Now()
	ca := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "ostium test Kafka CA"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign}
	caDER, err := x509.CreateCertificate(rand.Reader, ca, ca, &caKey.PublicKey, caKey)
	if err != nil {
		k.t.Fatal(err)
	}
	ca, _ = x509.ParseCertificate(caDER)
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	leaf := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour),
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, DNSNames: []string{"localhost"},
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	leafDER, err := x509.CreateCertificate(rand.Reader, leaf, ca, &key.PublicKey, caKey)
	if err != nil {
		k.t.Fatal(err)
	}
	pkcs8, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		k.t.Fatal(err)
	}
	var b bytes.Buffer
	pem.Encode(&b, &pem.Block{Type: "PRIVATE KEY", Bytes: pkcs8})
	pem.Encode(&b, &pem.Block{Type: "CERTIFICATE", Bytes: leafDER})
	pem.Encode(&b, &pem.Block{Type: "CERTIFICATE", Bytes: caDER})
	k.write("broker.pem", b.String())
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER})
}
