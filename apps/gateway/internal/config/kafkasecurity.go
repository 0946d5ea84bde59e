package config

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"

	"github.com/sluicehq/sluice/apps/gateway/internal/kafka"
)

// The allowed values of KAFKA_SECURITY_PROTOCOL and KAFKA_SASL_MECHANISM.
var (
	securityProtocols = []string{"PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL"}
	saslMechanisms    = []string{"PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512", "OAUTHBEARER"}
)

// kafkaProtocol is KAFKA_SECURITY_PROTOCOL normalised, and whether it uses
// TLS and SASL.
func (c Config) kafkaProtocol() (protocol string, useTLS, useSASL bool) {
	p := strings.ToUpper(strings.TrimSpace(c.KafkaSecurityProtocol))
	return p, p == "SSL" || p == "SASL_SSL", strings.HasPrefix(p, "SASL_")
}

func (c Config) kafkaMechanism() string {
	return strings.ToUpper(strings.TrimSpace(c.KafkaSASLMechanism))
}

// setting is one contract variable and whether it is set.
type setting struct {
	name string
	set  bool
}

func (c Config) tlsSettings() []setting {
	return []setting{
		{"KAFKA_TLS_CA_FILE", c.KafkaTLSCAFile != ""},
		{"KAFKA_TLS_CERT_FILE", c.KafkaTLSCertFile != ""},
		{"KAFKA_TLS_KEY_FILE", c.KafkaTLSKeyFile != ""},
		{"KAFKA_TLS_SERVER_NAME", c.KafkaTLSServerName != ""},
		{"KAFKA_TLS_INSECURE_SKIP_VERIFY", c.KafkaTLSInsecureSkipVerify},
	}
}

func (c Config) userSettings() []setting {
	return []setting{
		{"KAFKA_SASL_USERNAME", c.KafkaSASLUsername != ""},
		{"KAFKA_SASL_PASSWORD", c.KafkaSASLPassword != ""},
		{"KAFKA_SASL_PASSWORD_FILE", c.KafkaSASLPasswordFile != ""},
	}
}

func (c Config) oauthSettings() []setting {
	return []setting{
		{"KAFKA_SASL_OAUTHBEARER_TOKEN_ENDPOINT_URL", c.KafkaOAuthTokenURL != ""},
		{"KAFKA_SASL_OAUTHBEARER_CLIENT_ID", c.KafkaOAuthClientID != ""},
		{"KAFKA_SASL_OAUTHBEARER_CLIENT_SECRET", c.KafkaOAuthClientSecret != ""},
		{"KAFKA_SASL_OAUTHBEARER_CLIENT_SECRET_FILE", c.KafkaOAuthClientSecretFile != ""},
		{"KAFKA_SASL_OAUTHBEARER_SCOPE", c.KafkaOAuthScope != ""},
	}
}

func setNames(ss []setting) []string {
	var out []string
	for _, s := range ss {
		if s.set {
			out = append(out, s.name)
		}
	}
	return out
}

// validateKafkaSecurity enforces the contract's rules, each error naming the
// variable to fix (never a secret's value); when they hold, it loads the files
// (CA, certificate, key, secrets) so that a bad one stops the start too.
func (c Config) validateKafkaSecurity() []error {
	var errs []error
	add := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	protocol, useTLS, useSASL := c.kafkaProtocol()
	if !contains(securityProtocols, protocol) {
		add("KAFKA_SECURITY_PROTOCOL: %q is not one of %s", c.KafkaSecurityProtocol, strings.Join(securityProtocols, ", "))
		return errs
	}
	if set := setNames(c.tlsSettings()); !useTLS && len(set) > 0 {
		add("KAFKA_SECURITY_PROTOCOL: is %s; set it to SSL or SASL_SSL to use %s", protocol, strings.Join(set, ", "))
	}
	if (c.KafkaTLSCertFile == "") != (c.KafkaTLSKeyFile == "") {
		if c.KafkaTLSKeyFile == "" {
			add("KAFKA_TLS_KEY_FILE: required with KAFKA_TLS_CERT_FILE (mutual TLS needs the certificate and its key)")
		} else {
			add("KAFKA_TLS_CERT_FILE: required with KAFKA_TLS_KEY_FILE (mutual TLS needs the certificate and its key)")
		}
	}
	mechanism := c.kafkaMechanism()
	users, oauths := setNames(c.userSettings()), setNames(c.oauthSettings())
	switch {
	case !useSASL && mechanism != "":
		add("KAFKA_SASL_MECHANISM: set while KAFKA_SECURITY_PROTOCOL is %s; set KAFKA_SECURITY_PROTOCOL to SASL_PLAINTEXT or SASL_SSL to use SASL", protocol)
	case !useSASL && len(users)+len(oauths) > 0:
		add("KAFKA_SECURITY_PROTOCOL: is %s; set it to SASL_PLAINTEXT or SASL_SSL to use %s", protocol, strings.Join(append(users, oauths...), ", "))
	case useSASL && mechanism == "":
		add("KAFKA_SASL_MECHANISM: required when KAFKA_SECURITY_PROTOCOL is %s (one of %s)", protocol, strings.Join(saslMechanisms, ", "))
	case useSASL && !contains(saslMechanisms, mechanism):
		add("KAFKA_SASL_MECHANISM: %q is not one of %s", c.KafkaSASLMechanism, strings.Join(saslMechanisms, ", "))
	case mechanism == "OAUTHBEARER":
		if len(users) > 0 {
			add("%s: not used with KAFKA_SASL_MECHANISM=OAUTHBEARER; unset it", strings.Join(users, ", "))
		}
		errs = append(errs, c.validateOAuth()...)
	case useSASL: // PLAIN, SCRAM-SHA-256, SCRAM-SHA-512
		if len(oauths) > 0 {
			add("%s: only used with KAFKA_SASL_MECHANISM=OAUTHBEARER, not %s; unset it", strings.Join(oauths, ", "), mechanism)
		}
		if c.KafkaSASLUsername == "" {
			add("KAFKA_SASL_USERNAME: required with KAFKA_SASL_MECHANISM=%s", mechanism)
		}
		errs = append(errs, exactlyOne("KAFKA_SASL_PASSWORD", c.KafkaSASLPassword, c.KafkaSASLPasswordFile, "KAFKA_SASL_MECHANISM="+mechanism)...)
	}
	if len(errs) == 0 {
		if _, err := c.KafkaSecurity(); err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

func (c Config) validateOAuth() []error {
	var errs []error
	switch u, err := url.Parse(c.KafkaOAuthTokenURL); {
	case c.KafkaOAuthTokenURL == "":
		errs = append(errs, errors.New("KAFKA_SASL_OAUTHBEARER_TOKEN_ENDPOINT_URL: required with KAFKA_SASL_MECHANISM=OAUTHBEARER"))
	case err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http"):
		errs = append(errs, errors.New("KAFKA_SASL_OAUTHBEARER_TOKEN_ENDPOINT_URL: not an https:// URL"))
	case u.Scheme == "http" && !isLoopback(u.Hostname()):
		errs = append(errs, fmt.Errorf("KAFKA_SASL_OAUTHBEARER_TOKEN_ENDPOINT_URL: must be https:// (http:// only for 127.0.0.1, localhost or ::1), not on %s", u.Hostname()))
	}
	if c.KafkaOAuthClientID == "" {
		errs = append(errs, errors.New("KAFKA_SASL_OAUTHBEARER_CLIENT_ID: required with KAFKA_SASL_MECHANISM=OAUTHBEARER"))
	}
	return append(errs, exactlyOne("KAFKA_SASL_OAUTHBEARER_CLIENT_SECRET", c.KafkaOAuthClientSecret, c.KafkaOAuthClientSecretFile, "KAFKA_SASL_MECHANISM=OAUTHBEARER")...)
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && (ip.Equal(net.IPv4(127, 0, 0, 1)) || ip.Equal(net.IPv6loopback))
}

// exactlyOne checks that a secret comes from name or name_FILE, not both.
func exactlyOne(name string, value Secret, file, with string) []error {
	switch {
	case value != "" && file != "":
		return []error{fmt.Errorf("%s and %s_FILE: both set; set only one", name, name)}
	case value == "" && file == "":
		return []error{fmt.Errorf("%s (or %s_FILE): required with %s", name, name, with)}
	}
	return nil
}

func contains(list []string, v string) bool {
	for _, s := range list {
		if s == v {
			return true
		}
	}
	return false
}

// KafkaSecurity builds the kafka.Security every Kafka client is made with:
// the TLS configuration (CA bundle, client certificate, server name) and the
// SASL mechanism with its credentials, reading the files the settings name.
// Validate has checked the rules; the errors here are files that cannot be
// read or parsed, each naming its variable and path, never a secret.
func (c Config) KafkaSecurity() (kafka.Security, error) {
	var sec kafka.Security
	_, useTLS, useSASL := c.kafkaProtocol()
	if useTLS {
		tc, err := c.tlsConfig()
		if err != nil {
			return sec, err
		}
		sec.TLS = tc
	}
	if useSASL {
		m, err := c.saslMechanism()
		if err != nil {
			return sec, err
		}
		sec.SASL = m
	}
	return sec, nil
}

func (c Config) tlsConfig() (*tls.Config, error) {
	tc := &tls.Config{
		MinVersion:         tls.VersionTLS12,
		ServerName:         c.KafkaTLSServerName,
		InsecureSkipVerify: c.KafkaTLSInsecureSkipVerify,
	}
	err := loadTLSFiles(tc, tlsFiles{
		ca: c.KafkaTLSCAFile, cert: c.KafkaTLSCertFile, key: c.KafkaTLSKeyFile,
		caVar: "KAFKA_TLS_CA_FILE", certVar: "KAFKA_TLS_CERT_FILE", keyVar: "KAFKA_TLS_KEY_FILE",
	})
	return tc, err
}

// tlsFiles are the PEM files of a TLS client (a CA bundle, a client
// certificate and its key; each may be empty) and the variables that name them.
type tlsFiles struct {
	ca, cert, key          string
	caVar, certVar, keyVar string
}

// loadTLSFiles reads f into tc: the CA bundle as its roots, the certificate
// (which must be valid now) and key as its client certificate. Errors name
// the variable and the path, never a key's content.
func loadTLSFiles(tc *tls.Config, f tlsFiles) error {
	if f.ca != "" {
		raw, err := os.ReadFile(f.ca)
		if err != nil {
			return fmt.Errorf("%s: %w", f.caVar, err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(raw) {
			return fmt.Errorf("%s: %s holds no PEM certificate", f.caVar, f.ca)
		}
		tc.RootCAs = pool
	}
	if f.cert == "" {
		return nil
	}
	certPEM, err := os.ReadFile(f.cert)
	if err != nil {
		return fmt.Errorf("%s: %w", f.certVar, err)
	}
	keyPEM, err := os.ReadFile(f.key)
	if err != nil {
		return fmt.Errorf("%s: %w", f.keyVar, err)
	}
	leaf, err := firstCertificate(certPEM)
	if err != nil {
		return fmt.Errorf("%s: %s: %v", f.certVar, f.cert, err)
	}
	if now := time.Now(); now.After(leaf.NotAfter) || now.Before(leaf.NotBefore) {
		return fmt.Errorf("%s: %s: the certificate is valid from %s to %s only", f.certVar, f.cert, leaf.NotBefore.Format(time.RFC3339), leaf.NotAfter.Format(time.RFC3339))
	}
	// The key's parse errors are fixed texts, never the key's content.
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return fmt.Errorf("%s: %s is not the PEM private key of the certificate in %s (%v)", f.keyVar, f.key, f.certVar, err)
	}
	tc.Certificates = []tls.Certificate{pair}
	return nil
}

// firstCertificate parses the first CERTIFICATE block of a PEM file.
func firstCertificate(raw []byte) (*x509.Certificate, error) {
	for {
		var block *pem.Block
		block, raw = pem.Decode(raw)
		if block == nil {
			return nil, errors.New("holds no PEM certificate")
		}
		if block.Type == "CERTIFICATE" {
			cert, err := x509.ParseCertificate(block.Bytes)
			if err != nil {
				return nil, fmt.Errorf("the certificate does not parse: %v", err)
			}
			return cert, nil
		}
	}
}

func (c Config) saslMechanism() (sasl.Mechanism, error) {
	if c.kafkaMechanism() == "OAUTHBEARER" {
		secret, err := secretValue("KAFKA_SASL_OAUTHBEARER_CLIENT_SECRET", c.KafkaOAuthClientSecret, c.KafkaOAuthClientSecretFile)
		if err != nil {
			return nil, err
		}
		return kafka.NewTokenSource(c.KafkaOAuthTokenURL, c.KafkaOAuthClientID, secret, c.KafkaOAuthScope).Mechanism(), nil
	}
	pass, err := secretValue("KAFKA_SASL_PASSWORD", c.KafkaSASLPassword, c.KafkaSASLPasswordFile)
	if err != nil {
		return nil, err
	}
	switch c.kafkaMechanism() {
	case "PLAIN":
		return plain.Auth{User: c.KafkaSASLUsername, Pass: pass}.AsMechanism(), nil
	case "SCRAM-SHA-256":
		return scram.Auth{User: c.KafkaSASLUsername, Pass: pass}.AsSha256Mechanism(), nil
	case "SCRAM-SHA-512":
		return scram.Auth{User: c.KafkaSASLUsername, Pass: pass}.AsSha512Mechanism(), nil
	}
	return nil, fmt.Errorf("KAFKA_SASL_MECHANISM: %q is not one of %s", c.KafkaSASLMechanism, strings.Join(saslMechanisms, ", "))
}

// secretValue is a secret from its variable, or read from the file its _FILE
// variable names (trimmed of one trailing newline).
func secretValue(name string, value Secret, file string) (string, error) {
	if file == "" {
		return value.Reveal(), nil
	}
	raw, err := os.ReadFile(file)
	if err != nil {
		return "", fmt.Errorf("%s_FILE: %w", name, err)
	}
	s := strings.TrimSuffix(strings.TrimSuffix(string(raw), "\n"), "\r")
	if s == "" {
		return "", fmt.Errorf("%s_FILE: %s is empty", name, file)
	}
	return s, nil
}

// describeKafkaSecurity is Describe's part for the security settings, the
// secrets masked.
func (c Config) describeKafkaSecurity() string {
	secret := func(v Secret, file string) string {
		if file != "" {
			return "[from file " + file + "]"
		}
		return v.String()
	}
	out := fmt.Sprintf("kafka-security-protocol=%s\nkafka-tls-ca-file=%s\nkafka-tls-cert-file=%s\nkafka-tls-key-file=%s\n"+
		"kafka-tls-server-name=%s\nkafka-tls-insecure-skip-verify=%t\nkafka-sasl-mechanism=%s\nkafka-sasl-username=%s\nkafka-sasl-password=%s\n"+
		"kafka-sasl-oauthbearer-token-endpoint-url=%s\nkafka-sasl-oauthbearer-client-id=%s\nkafka-sasl-oauthbearer-client-secret=%s\nkafka-sasl-oauthbearer-scope=%s\n",
		c.KafkaSecurityProtocol, c.KafkaTLSCAFile, c.KafkaTLSCertFile, c.KafkaTLSKeyFile,
		c.KafkaTLSServerName, c.KafkaTLSInsecureSkipVerify, c.KafkaSASLMechanism, c.KafkaSASLUsername, secret(c.KafkaSASLPassword, c.KafkaSASLPasswordFile),
		c.KafkaOAuthTokenURL, c.KafkaOAuthClientID, secret(c.KafkaOAuthClientSecret, c.KafkaOAuthClientSecretFile), c.KafkaOAuthScope)
	if warning := c.InsecureWarning(); warning != "" {
		out += "WARNING: " + warning + "\n"
	}
	return out
}

// InsecureWarning is the warning logged at start when brokers' certificates
// are not verified; empty when they are (or TLS is off).
func (c Config) InsecureWarning() string {
	if _, useTLS, _ := c.kafkaProtocol(); !useTLS || !c.KafkaTLSInsecureSkipVerify {
		return ""
	}
	return "KAFKA_TLS_INSECURE_SKIP_VERIFY=true: Kafka brokers' TLS certificates are NOT verified; anyone on the path can impersonate them. Use it for testing only; set KAFKA_TLS_CA_FILE instead."
}
