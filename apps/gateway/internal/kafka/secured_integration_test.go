//go:build integration

// What the test stack's secured listeners (SLUICE_TEST_SECURED_KAFKA) answer
// when they refuse a client, as franz-go and crypto/tls report it, and that
// Explain names the setting to fix. The settings are built here directly, not
// through package config, which refuses some of them (an expired client
// certificate) before any connection: these are what a running gateway meets
// when its certificate expires or its OAuth client is taken off the cluster.
package kafka

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// securedListeners is the part of the stack's description used here
// (packages/kafka-settings/test-support/secured-kafka.ts documents it).
type securedListeners struct {
	MTLSBrokers           []string          `json:"mtlsBrokers"`
	CAFile                string            `json:"caFile"`
	ExpiredClientCertFile string            `json:"expiredClientCertFile"`
	ExpiredClientKeyFile  string            `json:"expiredClientKeyFile"`
	OAuthBrokers          []string          `json:"oauthBrokers"`
	OAuthTokenEndpointURL string            `json:"oauthTokenEndpointUrl"`
	OAuthClients          map[string]string `json:"oauthClients"`
	OAuthClient           string            `json:"oauthClient"`
	OAuthForeignClient    string            `json:"oauthForeignClient"`
}

func TestBrokerRefusalsAreExplained(t *testing.T) {
	if os.Getenv("KAFKA_BROKERS") == "" {
		t.Skip("KAFKA_BROKERS not set")
	}
	var s securedListeners
	if err := json.Unmarshal([]byte(os.Getenv("SLUICE_TEST_SECURED_KAFKA")), &s); err != nil || len(s.MTLSBrokers) == 0 || len(s.OAuthBrokers) == 0 {
		t.Fatalf("SLUICE_TEST_SECURED_KAFKA describes no secured listeners (%v): the test stack must start them", err)
	}
	caPEM, err := os.ReadFile(s.CAFile)
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(caPEM)
	expired, err := tls.LoadX509KeyPair(s.ExpiredClientCertFile, s.ExpiredClientKeyFile)
	if err != nil {
		t.Fatal(err)
	}
	oauth := func(client string) Security {
		return Security{TLS: &tls.Config{RootCAs: roots}, SASL: NewTokenSource(s.OAuthTokenEndpointURL, client, s.OAuthClients[client], "").Mechanism()}
	}
	ping := func(t *testing.T, brokers []string, sec Security) error {
		t.Helper()
		cl, err := ClientOptions{Brokers: brokers, Security: sec}.newClient("sluice-gateway-test", kgo.RequestRetries(0))
		if err != nil {
			t.Fatal(err)
		}
		defer cl.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		return cl.Ping(ctx)
	}

	t.Run("expired client certificate", func(t *testing.T) {
		sec := Security{TLS: &tls.Config{RootCAs: roots, Certificates: []tls.Certificate{expired}}}
		err := ping(t, s.MTLSBrokers, sec)
		// Kafka (JSSE) answers with a certificate_unknown alert.
		if got := sec.Explain(err); err == nil || !strings.HasPrefix(got.Error(), "KAFKA_TLS_CERT_FILE: ") {
			t.Fatalf("%v, want KAFKA_TLS_CERT_FILE", got)
		}
	})
	t.Run("OAuth token for another cluster", func(t *testing.T) {
		sec := oauth(s.OAuthForeignClient)
		err := ping(t, s.OAuthBrokers, sec)
		// bearerSession sent the %x01 after Kafka's error JSON, so the
		// exchange failed with Kafka's error and its status.
		if !errors.Is(err, kerr.SaslAuthenticationFailed) || !strings.Contains(err.Error(), "invalid_token") {
			t.Fatalf("%v, want SASL_AUTHENTICATION_FAILED with the status invalid_token", err)
		}
		if got := sec.Explain(err); !strings.HasPrefix(got.Error(), "KAFKA_SASL_OAUTHBEARER_CLIENT_ID: ") || !strings.Contains(got.Error(), s.OAuthForeignClient) {
			t.Fatalf("%v, want KAFKA_SASL_OAUTHBEARER_CLIENT_ID and the client", got)
		}
	})
	t.Run("OAuth token the broker takes", func(t *testing.T) {
		if err := ping(t, s.OAuthBrokers, oauth(s.OAuthClient)); err != nil {
			t.Fatal(err)
		}
	})
}
