//go:build integration

// A whole node over the test stack's secured listeners (SASL_SSL with
// SCRAM-SHA-512, mutual TLS, SASL_SSL with OAUTHBEARER tokens from the stack's
// client-credentials issuer, which Kafka's own JWT validator checks): the same
// subscribe, publish, resume, revocation and catalog-change tests as over
// plaintext, with every Kafka client of the node (live consumers, catch-up
// reads, producer, catalog reader) secured from the settings. The fixture's
// own helper client stays on the plaintext listener. Then what the node's log
// says when a setting is wrong (a password, a CA, an expired client
// certificate, an OAuth client secret or client, a token endpoint, …): the
// setting to fix, and no secret. And error 5030 for a topic Kafka's ACLs deny
// the gateway.
package node

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sluicehq/sluice/apps/gateway/internal/config"
)

// securedKafka is the stack's description of its secured listeners
// (stack.json's securedKafka, passed by the test runner).
// packages/kafka-settings/test-support/secured-kafka.ts documents each field.
type securedKafka struct {
	SASLSSLBrokers         []string          `json:"saslSslBrokers"`
	MTLSBrokers            []string          `json:"mtlsBrokers"`
	CAFile                 string            `json:"caFile"`
	ClientCertFile         string            `json:"clientCertFile"`
	ClientKeyFile          string            `json:"clientKeyFile"`
	UntrustedCAFile        string            `json:"untrustedCaFile"`
	UntrustedClientCert    string            `json:"untrustedClientCertFile"`
	UntrustedClientKeyFile string            `json:"untrustedClientKeyFile"`
	ExpiredClientCertFile  string            `json:"expiredClientCertFile"`
	ExpiredClientKeyFile   string            `json:"expiredClientKeyFile"`
	Users                  map[string]string `json:"users"`
	OAuthBrokers           []string          `json:"oauthBrokers"`
	OAuthTokenEndpointURL  string            `json:"oauthTokenEndpointUrl"`
	OAuthClients           map[string]string `json:"oauthClients"` // client id → secret
	OAuthClient            string            `json:"oauthClient"`
	OAuthForeignClient     string            `json:"oauthForeignClient"` // its tokens are for another audience
	ACLDeniedTopic         string            `json:"aclDeniedTopic"`
	DeniedUsers            []string          `json:"deniedUsers"`
}

func loadSecuredKafka(t *testing.T) securedKafka {
	t.Helper()
	if os.Getenv("KAFKA_BROKERS") == "" {
		t.Skip("KAFKA_BROKERS not set")
	}
	raw := os.Getenv("SLUICE_TEST_SECURED_KAFKA")
	if raw == "" {
		t.Fatal("SLUICE_TEST_SECURED_KAFKA is not set: the test stack's secured listeners are part of every run (./sluice test sets it)")
	}
	var s securedKafka
	if err := json.Unmarshal([]byte(raw), &s); err != nil || len(s.SASLSSLBrokers) == 0 || len(s.MTLSBrokers) == 0 || len(s.OAuthBrokers) == 0 {
		t.Fatalf("SLUICE_TEST_SECURED_KAFKA describes no secured listeners (%v): the test stack must start them", err)
	}
	return s
}

func (s securedKafka) scram(user string) func(*config.Config) {
	return func(c *config.Config) {
		c.KafkaBrokers = s.SASLSSLBrokers
		c.KafkaSecurityProtocol = "SASL_SSL"
		c.KafkaTLSCAFile = s.CAFile
		c.KafkaSASLMechanism = "SCRAM-SHA-512"
		c.KafkaSASLUsername = user
		c.KafkaSASLPassword = config.Secret(s.Users[user])
	}
}

func (s securedKafka) mtls(c *config.Config) {
	c.KafkaBrokers = s.MTLSBrokers
	c.KafkaSecurityProtocol = "SSL"
	c.KafkaTLSCAFile = s.CAFile
	c.KafkaTLSCertFile = s.ClientCertFile
	c.KafkaTLSKeyFile = s.ClientKeyFile
}

// oauth is the OAUTHBEARER listener as client, with its secret.
func (s securedKafka) oauth(client string) func(*config.Config) {
	return func(c *config.Config) {
		c.KafkaBrokers = s.OAuthBrokers
		c.KafkaSecurityProtocol = "SASL_SSL"
		c.KafkaTLSCAFile = s.CAFile
		c.KafkaSASLMechanism = "OAUTHBEARER"
		c.KafkaOAuthTokenURL = s.OAuthTokenEndpointURL
		c.KafkaOAuthClientID = client
		c.KafkaOAuthClientSecret = config.Secret(s.OAuthClients[client])
	}
}

// secrets are every password and OAuth client secret of the stack: none may
// reach a log.
func (s securedKafka) secrets() []string {
	var all []string
	for _, m := range []map[string]string{s.Users, s.OAuthClients} {
		for _, secret := range m {
			all = append(all, secret)
		}
	}
	return all
}

func TestNodeOverSecuredListeners(t *testing.T) {
	s := loadSecuredKafka(t)
	for _, listener := range []struct {
		name string
		tune func(*config.Config)
	}{
		{"SASL_SSL SCRAM-SHA-512", s.scram("sluice-gateway")},
		{"mutual TLS", s.mtls},
		{"SASL_SSL OAUTHBEARER", s.oauth(s.OAuthClient)},
	} {
		t.Run(listener.name, func(t *testing.T) {
			t.Run("subscribe, publish and errors", func(t *testing.T) { testSubscribePublishAndErrors(t, listener.tune) })
			t.Run("resume after reconnect", func(t *testing.T) { testResumeAfterReconnectIsExact(t, listener.tune) })
			t.Run("revocation", func(t *testing.T) { testRevocationClosesLiveConnectionsWithinASecond(t, listener.tune) })
			t.Run("catalog changes", func(t *testing.T) { testCatalogChangesReachSubscriptionsPerPath(t, listener.tune) })
		})
	}
}

// A node with a wrong setting cannot read its catalog: it keeps retrying (a
// running gateway never gives up on Kafka) and its log says, within 15 s,
// which setting to fix, without the secret.
func TestWrongSettingsAreNamedInTheNodesLog(t *testing.T) {
	s := loadSecuredKafka(t)
	cases := []struct {
		name    string
		tune    func(*config.Config)
		setting string
	}{
		{"wrong password", func(c *config.Config) {
			s.scram("sluice-gateway")(c)
			c.KafkaSASLPassword = "not-the-password"
		}, "KAFKA_SASL_PASSWORD"},
		{"unknown CA", func(c *config.Config) {
			s.scram("sluice-gateway")(c)
			c.KafkaTLSCAFile = s.UntrustedCAFile
		}, "KAFKA_TLS_CA_FILE"},
		{"mechanism the listener does not offer", func(c *config.Config) {
			s.scram("sluice-gateway")(c)
			c.KafkaSASLMechanism = "SCRAM-SHA-256"
		}, "KAFKA_SASL_MECHANISM"},
		{"server name the certificate does not carry", func(c *config.Config) {
			s.scram("sluice-gateway")(c)
			c.KafkaTLSServerName = "kafka.example.com"
		}, "KAFKA_TLS_SERVER_NAME"},
		{"plaintext to the TLS listener", func(c *config.Config) {
			c.KafkaBrokers = s.SASLSSLBrokers
		}, "KAFKA_SECURITY_PROTOCOL"},
		{"TLS to the plaintext listener", func(c *config.Config) {
			plaintext := c.KafkaBrokers
			s.scram("sluice-gateway")(c)
			c.KafkaBrokers = plaintext
		}, "KAFKA_SECURITY_PROTOCOL"},
		{"client certificate from an untrusted CA", func(c *config.Config) {
			s.mtls(c)
			c.KafkaTLSCertFile, c.KafkaTLSKeyFile = s.UntrustedClientCert, s.UntrustedClientKeyFile
		}, "KAFKA_TLS_CERT_FILE"},
		{"OAuth client secret the token endpoint refuses", func(c *config.Config) {
			s.oauth(s.OAuthClient)(c)
			c.KafkaOAuthClientSecret = "not-the-client-secret"
		}, "KAFKA_SASL_OAUTHBEARER_CLIENT_SECRET"},
		{"OAuth token the broker refuses", s.oauth(s.OAuthForeignClient), "KAFKA_SASL_OAUTHBEARER_CLIENT_ID"},
		{"token endpoint not there", func(c *config.Config) {
			s.oauth(s.OAuthClient)(c)
			c.KafkaOAuthTokenURL = "http://127.0.0.1:9/token"
		}, "KAFKA_SASL_OAUTHBEARER_TOKEN_ENDPOINT_URL"},
		{"OAUTHBEARER to the SCRAM listener", func(c *config.Config) {
			s.oauth(s.OAuthClient)(c)
			c.KafkaBrokers = s.SASLSSLBrokers
		}, "KAFKA_SASL_MECHANISM"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := config.Defaults()
			cfg.Addr = "127.0.0.1:0"
			cfg.KafkaBrokers = strings.Split(os.Getenv("KAFKA_BROKERS"), ",")
			cfg.CatalogTopic = "__sluice_catalog_misconfigured"
			tc.tune(&cfg)
			if err := cfg.Validate(); err != nil {
				t.Fatalf("the settings themselves are valid, only wrong for this broker: %v", err)
			}
			logs := &syncBuffer{}
			_, start, err := Build(cfg, slog.New(slog.NewTextHandler(logs, nil)))
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- start(ctx) }()
			defer func() {
				cancel()
				<-done
			}()
			deadline := time.Now().Add(15 * time.Second)
			for !strings.Contains(logs.String(), tc.setting+":") {
				if time.Now().After(deadline) {
					t.Fatalf("no log line named %s within 15 s; the log:\n%s", tc.setting, logs.String())
				}
				time.Sleep(100 * time.Millisecond)
			}
			for _, secret := range append(s.secrets(), cfg.KafkaSASLPassword.Reveal(), cfg.KafkaOAuthClientSecret.Reveal()) {
				if secret != "" && strings.Contains(logs.String(), secret) {
					t.Fatal("a password or client secret is in the log")
				}
			}
		})
	}
}

// An expired client certificate is wrong on its face: the gateway names
// KAFKA_TLS_CERT_FILE and its dates before it starts, rather than retry a
// broker that will refuse it. (The broker's own refusal, met when the
// certificate expires while the node runs, is explained as KAFKA_TLS_CERT_FILE
// too: package kafka's TestBrokerRefusalsAreExplained.)
func TestExpiredClientCertificateIsNamedAtStart(t *testing.T) {
	s := loadSecuredKafka(t)
	cfg := config.Defaults()
	s.mtls(&cfg)
	cfg.KafkaTLSCertFile, cfg.KafkaTLSKeyFile = s.ExpiredClientCertFile, s.ExpiredClientKeyFile
	err := cfg.Validate()
	if err == nil || !strings.Contains(err.Error(), "KAFKA_TLS_CERT_FILE: "+s.ExpiredClientCertFile+": the certificate is valid from") {
		t.Fatalf("Validate: %v, want KAFKA_TLS_CERT_FILE and the certificate's dates", err)
	}
	if _, _, err := Build(cfg, slog.New(slog.DiscardHandler)); err == nil || !strings.Contains(err.Error(), "KAFKA_TLS_CERT_FILE: ") {
		t.Fatalf("Build: %v, want KAFKA_TLS_CERT_FILE", err)
	}
}

// When Kafka's ACLs deny the gateway's principal a topic, a subscriber and a
// publisher on an endpoint of that topic get error 5030 at once (not a hang,
// and not 5003, which invites retrying), and the connection goes on.
func TestACLDeniedTopicIsAClearError(t *testing.T) {
	s := loadSecuredKafka(t)
	if !slices.Contains(s.DeniedUsers, "sluice-gateway") {
		t.Fatalf("the stack's ACLs deny %s to %v, not to sluice-gateway", s.ACLDeniedTopic, s.DeniedUsers)
	}
	f := newFixture(t, s.scram("sluice-gateway"))
	denied := s.ACLDeniedTopic
	f.putCatalog("endpoint/ep-denied", map[string]any{
		"v": 1, "id": "ep-denied", "path": "/" + denied + "/{k}", "topic": denied, "key": nil, "key_param": "k",
		"operations": []string{"subscribe", "publish"}, "payload_format": "json",
		"api": map[string]any{"id": "api-1", "name": "Market", "version": "1.0.0"},
	})
	c, _ := f.authed(map[string][]string{"all": {"/" + denied + "/*"}})
	ep := "/" + denied + "/x"
	var e map[string]any
	for deadline := time.Now().Add(10 * time.Second); ; {
		c.send(`{"type":"subscribe","id":"s","endpoint":"` + ep + `"}`)
		e = c.next("error")
		if e["code"] != float64(4004) || time.Now().After(deadline) {
			break // 4004 until the node has read the endpoint from the catalog
		}
		time.Sleep(100 * time.Millisecond)
	}
	if e["code"] != float64(5030) || !strings.Contains(e["message"].(string), denied) {
		t.Fatalf("subscribe on the denied topic: %v", e)
	}
	c.send(`{"type":"publish","id":"p","endpoint":"` + ep + `","data":{"a":1}}`)
	if e := c.next("error"); e["code"] != float64(5030) || e["id"] != "p" {
		t.Fatalf("publish on the denied topic: %v", e)
	}
	c.send(`{"type":"ping","id":"still-here"}`)
	c.next("pong")
}

// syncBuffer is a log sink the node writes from several goroutines while the
// test reads it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
