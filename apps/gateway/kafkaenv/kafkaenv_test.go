package kafkaenv

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestPlaintextByDefaultWhateverElseIsSet(t *testing.T) {
	// A gateway setting with a bad value is not this package's business.
	s, err := Load(env(map[string]string{"SLUICE_QUEUE_SIZE": "not a number"}))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Opts) != 1 {
		t.Fatalf("plaintext: only the dialer option, got %d", len(s.Opts))
	}
}

func TestSASLAddsTheMechanism(t *testing.T) {
	s, err := Load(env(map[string]string{
		"KAFKA_SECURITY_PROTOCOL": "SASL_PLAINTEXT", "KAFKA_SASL_MECHANISM": "SCRAM-SHA-512",
		"KAFKA_SASL_USERNAME": "bench", "KAFKA_SASL_PASSWORD": "pw",
	}))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Opts) != 2 {
		t.Fatalf("dialer and SASL, got %d options", len(s.Opts))
	}
	if err := s.Explain(errors.New("x")); err.Error() != "x" {
		t.Fatalf("an unexplained error passes through: %v", err)
	}
}

func TestAWrongSettingNamesItsVariableNotTheSecret(t *testing.T) {
	_, err := Load(env(map[string]string{"KAFKA_SECURITY_PROTOCOL": "SASL_SSL", "KAFKA_SASL_PASSWORD": "s3cret"}))
	if err == nil || !strings.Contains(err.Error(), "KAFKA_SASL_MECHANISM") || strings.Contains(err.Error(), "s3cret") {
		t.Fatalf("got %v", err)
	}
	missing := filepath.Join(t.TempDir(), "ca.pem")
	_, err = Load(env(map[string]string{"KAFKA_SECURITY_PROTOCOL": "SSL", "KAFKA_TLS_CA_FILE": missing}))
	if err == nil || !strings.Contains(err.Error(), "KAFKA_TLS_CA_FILE") {
		t.Fatalf("got %v", err)
	}
}
