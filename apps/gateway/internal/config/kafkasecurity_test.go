package config

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The test secrets: none may appear in checkconfig's output or an error.
const (
	testPassword = "pa55-W0rd-never-printed"
	testSecret   = "client-secret-never-printed"
)

// pemFiles writes a certificate (valid from notBefore to notAfter) and its
// key to dir and returns their paths and the key's PEM.
func pemFiles(t *testing.T, dir, name string, notBefore, notAfter time.Time) (certFile, keyFile string, keyPEM []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: name},
		NotBefore: notBefore, NotAfter: notAfter,
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	keyPEM = pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER})
	certFile, keyFile = filepath.Join(dir, name+".crt"), filepath.Join(dir, name+".key")
	write(t, certFile, string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})))
	write(t, keyFile, string(keyPEM))
	return certFile, keyFile, keyPEM
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// secFixture is a directory of files the rules' cases name.
type secFixture struct {
	ca, cert, key, otherKey, expired, expiredKey, garbage, missing, password, secret, empty string
	keyPEM                                                                                  []byte
}

func newSecFixture(t *testing.T) secFixture {
	dir := t.TempDir()
	now := time.Now()
	var f secFixture
	f.ca, _, _ = pemFiles(t, dir, "ca", now.Add(-time.Hour), now.Add(time.Hour))
	f.cert, f.key, f.keyPEM = pemFiles(t, dir, "client", now.Add(-time.Hour), now.Add(time.Hour))
	_, f.otherKey, _ = pemFiles(t, dir, "other", now.Add(-time.Hour), now.Add(time.Hour))
	f.expired, f.expiredKey, _ = pemFiles(t, dir, "expired", now.Add(-2*time.Hour), now.Add(-time.Hour))
	f.garbage = filepath.Join(dir, "garbage.pem")
	write(t, f.garbage, "not pem\n")
	f.missing = filepath.Join(dir, "missing.pem")
	f.password = filepath.Join(dir, "password")
	write(t, f.password, testPassword+"\n")
	f.secret = filepath.Join(dir, "secret")
	write(t, f.secret, testSecret)
	f.empty = filepath.Join(dir, "empty")
	write(t, f.empty, "\n")
	return f
}

func TestKafkaSecurityRules(t *testing.T) {
	f := newSecFixture(t)
	scram := map[string]string{"KAFKA_SECURITY_PROTOCOL": "SASL_SSL", "KAFKA_SASL_MECHANISM": "SCRAM-SHA-512", "KAFKA_SASL_USERNAME": "gw", "KAFKA_SASL_PASSWORD": testPassword}
	oauth := map[string]string{"KAFKA_SECURITY_PROTOCOL": "SASL_SSL", "KAFKA_SASL_MECHANISM": "OAUTHBEARER",
		"KAFKA_SASL_OAUTHBEARER_TOKEN_ENDPOINT_URL": "https://idp.example/token", "KAFKA_SASL_OAUTHBEARER_CLIENT_ID": "gw", "KAFKA_SASL_OAUTHBEARER_CLIENT_SECRET": testSecret}
	with := func(base map[string]string, kv ...string) map[string]string {
		m := map[string]string{}
		for k, v := range base {
			m[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			if kv[i+1] == "" {
				delete(m, kv[i])
			} else {
				m[kv[i]] = kv[i+1]
			}
		}
		return m
	}
	cases := []struct {
		name string
		env  map[string]string
		want []string // substrings of the error, in order; none: valid
	}{
		{"plaintext default", nil, nil},
		{"ssl, system roots", map[string]string{"KAFKA_SECURITY_PROTOCOL": "ssl"}, nil},
		{"ssl with CA, mutual TLS, server name", map[string]string{"KAFKA_SECURITY_PROTOCOL": "SSL", "KAFKA_TLS_CA_FILE": f.ca, "KAFKA_TLS_CERT_FILE": f.cert, "KAFKA_TLS_KEY_FILE": f.key, "KAFKA_TLS_SERVER_NAME": "kafka.internal"}, nil},
		{"ssl insecure", map[string]string{"KAFKA_SECURITY_PROTOCOL": "SSL", "KAFKA_TLS_INSECURE_SKIP_VERIFY": "TRUE"}, nil},
		{"plaintext insecure false", map[string]string{"KAFKA_TLS_INSECURE_SKIP_VERIFY": "false"}, nil},
		{"sasl plain", with(scram, "KAFKA_SECURITY_PROTOCOL", "SASL_PLAINTEXT", "KAFKA_SASL_MECHANISM", "plain"), nil},
		{"scram-sha-256", with(scram, "KAFKA_SASL_MECHANISM", "scram-sha-256"), nil},
		{"scram-sha-512, password file", with(scram, "KAFKA_SASL_PASSWORD", "", "KAFKA_SASL_PASSWORD_FILE", f.password), nil},
		{"oauthbearer", oauth, nil},
		{"oauthbearer, loopback http, secret file, scope", with(oauth, "KAFKA_SASL_OAUTHBEARER_TOKEN_ENDPOINT_URL", "http://127.0.0.1:8080/token", "KAFKA_SASL_OAUTHBEARER_CLIENT_SECRET", "", "KAFKA_SASL_OAUTHBEARER_CLIENT_SECRET_FILE", f.secret, "KAFKA_SASL_OAUTHBEARER_SCOPE", "a b"), nil},
		{"oauthbearer, http on ::1", with(oauth, "KAFKA_SASL_OAUTHBEARER_TOKEN_ENDPOINT_URL", "http://[::1]:8080/token"), nil},

		{"unknown protocol", map[string]string{"KAFKA_SECURITY_PROTOCOL": "TLS"}, []string{"KAFKA_SECURITY_PROTOCOL", `"TLS"`, "PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL"}},
		{"bad insecure value", map[string]string{"KAFKA_TLS_INSECURE_SKIP_VERIFY": "yes"}, []string{"KAFKA_TLS_INSECURE_SKIP_VERIFY", "true or false"}},
		{"CA with plaintext", map[string]string{"KAFKA_TLS_CA_FILE": f.ca}, []string{"KAFKA_SECURITY_PROTOCOL", "SSL or SASL_SSL", "KAFKA_TLS_CA_FILE"}},
		{"server name with SASL_PLAINTEXT", with(scram, "KAFKA_SECURITY_PROTOCOL", "SASL_PLAINTEXT", "KAFKA_TLS_SERVER_NAME", "x"), []string{"KAFKA_SECURITY_PROTOCOL: is SASL_PLAINTEXT", "KAFKA_TLS_SERVER_NAME"}},
		{"insecure with plaintext", map[string]string{"KAFKA_TLS_INSECURE_SKIP_VERIFY": "true"}, []string{"KAFKA_SECURITY_PROTOCOL", "KAFKA_TLS_INSECURE_SKIP_VERIFY"}},
		{"cert without key", map[string]string{"KAFKA_SECURITY_PROTOCOL": "SSL", "KAFKA_TLS_CERT_FILE": f.cert}, []string{"KAFKA_TLS_KEY_FILE: required with KAFKA_TLS_CERT_FILE"}},
		{"key without cert", map[string]string{"KAFKA_SECURITY_PROTOCOL": "SSL", "KAFKA_TLS_KEY_FILE": f.key}, []string{"KAFKA_TLS_CERT_FILE: required with KAFKA_TLS_KEY_FILE"}},
		{"mechanism with plaintext", map[string]string{"KAFKA_SASL_MECHANISM": "PLAIN"}, []string{"KAFKA_SASL_MECHANISM", "SASL_PLAINTEXT or SASL_SSL"}},
		{"mechanism with ssl", map[string]string{"KAFKA_SECURITY_PROTOCOL": "SSL", "KAFKA_SASL_MECHANISM": "PLAIN"}, []string{"KAFKA_SASL_MECHANISM: set while KAFKA_SECURITY_PROTOCOL is SSL"}},
		{"user without sasl", map[string]string{"KAFKA_SASL_USERNAME": "gw", "KAFKA_SASL_PASSWORD": testPassword}, []string{"KAFKA_SECURITY_PROTOCOL", "KAFKA_SASL_USERNAME, KAFKA_SASL_PASSWORD"}},
		{"oauth without sasl", map[string]string{"KAFKA_SECURITY_PROTOCOL": "SSL", "KAFKA_SASL_OAUTHBEARER_CLIENT_ID": "gw"}, []string{"KAFKA_SECURITY_PROTOCOL: is SSL", "KAFKA_SASL_OAUTHBEARER_CLIENT_ID"}},
		{"sasl without mechanism", with(scram, "KAFKA_SASL_MECHANISM", ""), []string{"KAFKA_SASL_MECHANISM: required", "PLAIN, SCRAM-SHA-256, SCRAM-SHA-512, OAUTHBEARER"}},
		{"unknown mechanism", with(scram, "KAFKA_SASL_MECHANISM", "GSSAPI"), []string{"KAFKA_SASL_MECHANISM", `"GSSAPI"`, "PLAIN, SCRAM-SHA-256, SCRAM-SHA-512, OAUTHBEARER"}},
		{"scram without user", with(scram, "KAFKA_SASL_USERNAME", ""), []string{"KAFKA_SASL_USERNAME: required"}},
		{"scram without password", with(scram, "KAFKA_SASL_PASSWORD", ""), []string{"KAFKA_SASL_PASSWORD (or KAFKA_SASL_PASSWORD_FILE): required"}},
		{"both password and file", with(scram, "KAFKA_SASL_PASSWORD_FILE", f.password), []string{"KAFKA_SASL_PASSWORD and KAFKA_SASL_PASSWORD_FILE: both set"}},
		{"oauth settings with scram", with(scram, "KAFKA_SASL_OAUTHBEARER_SCOPE", "x"), []string{"KAFKA_SASL_OAUTHBEARER_SCOPE: only used with KAFKA_SASL_MECHANISM=OAUTHBEARER"}},
		{"user settings with oauth", with(oauth, "KAFKA_SASL_USERNAME", "gw"), []string{"KAFKA_SASL_USERNAME: not used with KAFKA_SASL_MECHANISM=OAUTHBEARER"}},
		{"oauth without url", with(oauth, "KAFKA_SASL_OAUTHBEARER_TOKEN_ENDPOINT_URL", ""), []string{"KAFKA_SASL_OAUTHBEARER_TOKEN_ENDPOINT_URL: required"}},
		{"oauth non-url", with(oauth, "KAFKA_SASL_OAUTHBEARER_TOKEN_ENDPOINT_URL", "idp.example/token"), []string{"KAFKA_SASL_OAUTHBEARER_TOKEN_ENDPOINT_URL: not an https:// URL"}},
		{"oauth http remote", with(oauth, "KAFKA_SASL_OAUTHBEARER_TOKEN_ENDPOINT_URL", "http://idp.example/token"), []string{"KAFKA_SASL_OAUTHBEARER_TOKEN_ENDPOINT_URL: must be https://", "idp.example"}},
		{"oauth without client id", with(oauth, "KAFKA_SASL_OAUTHBEARER_CLIENT_ID", ""), []string{"KAFKA_SASL_OAUTHBEARER_CLIENT_ID: required"}},
		{"oauth without secret", with(oauth, "KAFKA_SASL_OAUTHBEARER_CLIENT_SECRET", ""), []string{"KAFKA_SASL_OAUTHBEARER_CLIENT_SECRET (or KAFKA_SASL_OAUTHBEARER_CLIENT_SECRET_FILE): required"}},
		{"oauth both secrets", with(oauth, "KAFKA_SASL_OAUTHBEARER_CLIENT_SECRET_FILE", f.secret), []string{"KAFKA_SASL_OAUTHBEARER_CLIENT_SECRET and KAFKA_SASL_OAUTHBEARER_CLIENT_SECRET_FILE: both set"}},

		// Files, read and parsed at start.
		{"missing CA", map[string]string{"KAFKA_SECURITY_PROTOCOL": "SSL", "KAFKA_TLS_CA_FILE": f.missing}, []string{"KAFKA_TLS_CA_FILE", f.missing}},
		{"CA not PEM", map[string]string{"KAFKA_SECURITY_PROTOCOL": "SSL", "KAFKA_TLS_CA_FILE": f.garbage}, []string{"KAFKA_TLS_CA_FILE", f.garbage, "no PEM certificate"}},
		{"cert not PEM", map[string]string{"KAFKA_SECURITY_PROTOCOL": "SSL", "KAFKA_TLS_CERT_FILE": f.garbage, "KAFKA_TLS_KEY_FILE": f.key}, []string{"KAFKA_TLS_CERT_FILE", f.garbage, "no PEM certificate"}},
		{"missing key", map[string]string{"KAFKA_SECURITY_PROTOCOL": "SSL", "KAFKA_TLS_CERT_FILE": f.cert, "KAFKA_TLS_KEY_FILE": f.missing}, []string{"KAFKA_TLS_KEY_FILE", f.missing}},
		{"key not PEM", map[string]string{"KAFKA_SECURITY_PROTOCOL": "SSL", "KAFKA_TLS_CERT_FILE": f.cert, "KAFKA_TLS_KEY_FILE": f.garbage}, []string{"KAFKA_TLS_KEY_FILE", f.garbage}},
		{"key of another cert", map[string]string{"KAFKA_SECURITY_PROTOCOL": "SSL", "KAFKA_TLS_CERT_FILE": f.cert, "KAFKA_TLS_KEY_FILE": f.otherKey}, []string{"KAFKA_TLS_KEY_FILE", f.otherKey, "not the PEM private key"}},
		{"expired cert", map[string]string{"KAFKA_SECURITY_PROTOCOL": "SSL", "KAFKA_TLS_CERT_FILE": f.expired, "KAFKA_TLS_KEY_FILE": f.expiredKey}, []string{"KAFKA_TLS_CERT_FILE", f.expired, "valid from"}},
		{"missing password file", with(scram, "KAFKA_SASL_PASSWORD", "", "KAFKA_SASL_PASSWORD_FILE", f.missing), []string{"KAFKA_SASL_PASSWORD_FILE", f.missing}},
		{"empty password file", with(scram, "KAFKA_SASL_PASSWORD", "", "KAFKA_SASL_PASSWORD_FILE", f.empty), []string{"KAFKA_SASL_PASSWORD_FILE", f.empty, "empty"}},
		{"missing secret file", with(oauth, "KAFKA_SASL_OAUTHBEARER_CLIENT_SECRET", "", "KAFKA_SASL_OAUTHBEARER_CLIENT_SECRET_FILE", f.missing), []string{"KAFKA_SASL_OAUTHBEARER_CLIENT_SECRET_FILE", f.missing}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := Load(nil, env(tc.env))
			if tc.want == nil {
				if err != nil {
					t.Fatalf("want valid, got %v", err)
				}
				if _, err := cfg.KafkaSecurity(); err != nil {
					t.Fatalf("KafkaSecurity: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("want an error with %q", tc.want)
			}
			msg := err.Error()
			rest := msg
			for _, w := range tc.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("error %q lacks %q (in order)", msg, w)
				}
				rest = rest[i+len(w):]
			}
			for _, secret := range []string{testPassword, testSecret, string(f.keyPEM), "PRIVATE KEY"} {
				if strings.Contains(msg, secret) {
					t.Fatalf("error %q contains a secret", msg)
				}
			}
		})
	}
}

func TestKafkaSecurityBuilds(t *testing.T) {
	f := newSecFixture(t)
	cfg, err := Load([]string{"-kafka-tls-server-name", "kafka.internal"}, env(map[string]string{
		"KAFKA_SECURITY_PROTOCOL": "sasl_ssl", "KAFKA_TLS_CA_FILE": f.ca, "KAFKA_TLS_CERT_FILE": f.cert, "KAFKA_TLS_KEY_FILE": f.key,
		"KAFKA_SASL_MECHANISM": "scram-sha-512", "KAFKA_SASL_USERNAME": "gw", "KAFKA_SASL_PASSWORD_FILE": f.password,
	}))
	if err != nil {
		t.Fatal(err)
	}
	sec, err := cfg.KafkaSecurity()
	if err != nil {
		t.Fatal(err)
	}
	tc := sec.TLS
	if tc == nil || tc.MinVersion != tls.VersionTLS12 || tc.ServerName != "kafka.internal" || tc.InsecureSkipVerify || tc.RootCAs == nil || len(tc.Certificates) != 1 {
		t.Fatalf("tls config %+v", tc)
	}
	if sec.SASL == nil || sec.SASL.Name() != "SCRAM-SHA-512" {
		t.Fatalf("sasl %v", sec.SASL)
	}
	// The password file's trailing newline is not part of the password: the
	// SCRAM client's first message carries only the user, so check the
	// value the mechanism is made from.
	if pass, err := secretValue("KAFKA_SASL_PASSWORD", "", f.password); err != nil || pass != testPassword {
		t.Fatalf("password from file %q, %v", pass, err)
	}
	for mech, want := range map[string]string{"plain": "PLAIN", "SCRAM-SHA-256": "SCRAM-SHA-256"} {
		cfg.KafkaSASLMechanism = mech
		if sec, err := cfg.KafkaSecurity(); err != nil || sec.SASL.Name() != want {
			t.Fatalf("%s: %v %v", mech, sec.SASL, err)
		}
	}

	// PLAINTEXT, the default, is the zero Security: nothing changes.
	cfg, _ = Load(nil, env(nil))
	if sec, err := cfg.KafkaSecurity(); err != nil || sec.TLS != nil || sec.SASL != nil {
		t.Fatalf("default: %+v %v", sec, err)
	}
	if cfg.InsecureWarning() != "" {
		t.Fatal("a warning without TLS")
	}
}

func TestSecretFileTrimsOneNewline(t *testing.T) {
	dir := t.TempDir()
	for content, want := range map[string]string{"abc\n": "abc", "abc\r\n": "abc", "abc": "abc", "abc\n\n": "abc\n", " abc ": " abc "} {
		p := filepath.Join(dir, "s")
		write(t, p, content)
		if got, err := secretValue("KAFKA_SASL_PASSWORD", "", p); err != nil || got != want {
			t.Errorf("%q: got %q, %v; want %q", content, got, err, want)
		}
	}
	if got, _ := secretValue("KAFKA_SASL_PASSWORD", Secret(testPassword), ""); got != testPassword {
		t.Errorf("from the variable: %q", got)
	}
}

func TestCheckconfigRedactsSecrets(t *testing.T) {
	f := newSecFixture(t)
	scram, err := Load(nil, env(map[string]string{"KAFKA_SECURITY_PROTOCOL": "SASL_SSL", "KAFKA_TLS_INSECURE_SKIP_VERIFY": "true",
		"KAFKA_SASL_MECHANISM": "PLAIN", "KAFKA_SASL_USERNAME": "gw", "KAFKA_SASL_PASSWORD": testPassword}))
	if err != nil {
		t.Fatal(err)
	}
	oauth, err := Load(nil, env(map[string]string{"KAFKA_SECURITY_PROTOCOL": "SASL_PLAINTEXT", "KAFKA_SASL_MECHANISM": "OAUTHBEARER",
		"KAFKA_SASL_OAUTHBEARER_TOKEN_ENDPOINT_URL": "https://idp.example/token", "KAFKA_SASL_OAUTHBEARER_CLIENT_ID": "gw", "KAFKA_SASL_OAUTHBEARER_CLIENT_SECRET_FILE": f.secret}))
	if err != nil {
		t.Fatal(err)
	}
	oauthEnv, err := Load(nil, env(map[string]string{"KAFKA_SECURITY_PROTOCOL": "SASL_PLAINTEXT", "KAFKA_SASL_MECHANISM": "OAUTHBEARER",
		"KAFKA_SASL_OAUTHBEARER_TOKEN_ENDPOINT_URL": "https://idp.example/token", "KAFKA_SASL_OAUTHBEARER_CLIENT_ID": "gw", "KAFKA_SASL_OAUTHBEARER_CLIENT_SECRET": testSecret}))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		cfg  Config
		want []string
	}{
		{scram, []string{"kafka-sasl-password=[redacted]\n", "kafka-sasl-username=gw\n", "WARNING: KAFKA_TLS_INSECURE_SKIP_VERIFY=true"}},
		{oauth, []string{"kafka-sasl-oauthbearer-client-secret=[from file " + f.secret + "]\n", "kafka-sasl-password=\n"}},
		{oauthEnv, []string{"kafka-sasl-oauthbearer-client-secret=[redacted]\n"}},
	} {
		out := c.cfg.Describe()
		for _, w := range c.want {
			if !strings.Contains(out, w) {
				t.Errorf("checkconfig output lacks %q:\n%s", w, out)
			}
		}
		// Nor may the Config printed any way show them.
		for _, s := range []string{out, fmt.Sprint(c.cfg), fmt.Sprintf("%+v", c.cfg), fmt.Sprintf("%#v", c.cfg)} {
			if strings.Contains(s, testPassword) || strings.Contains(s, testSecret) {
				t.Errorf("a secret is printed: %s", s)
			}
		}
	}
	if scram.InsecureWarning() == "" {
		t.Error("no warning for KAFKA_TLS_INSECURE_SKIP_VERIFY=true")
	}
}

func TestKafkaSecurityFlags(t *testing.T) {
	f := newSecFixture(t)
	cfg, err := Load([]string{"-kafka-security-protocol", "SASL_SSL", "-kafka-sasl-mechanism", "OAUTHBEARER",
		"-kafka-sasl-oauthbearer-token-endpoint-url", "https://idp.example/token", "-kafka-sasl-oauthbearer-client-id", "gw",
		"-kafka-sasl-oauthbearer-client-secret-file", f.secret, "-kafka-sasl-oauthbearer-scope", "kafka"}, env(map[string]string{"KAFKA_SECURITY_PROTOCOL": "SSL"}))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.KafkaSecurityProtocol != "SASL_SSL" || cfg.KafkaOAuthScope != "kafka" {
		t.Fatalf("%+v", cfg)
	}
	if sec, err := cfg.KafkaSecurity(); err != nil || sec.SASL.Name() != "OAUTHBEARER" || sec.TLS == nil {
		t.Fatalf("%+v %v", sec, err)
	}
}
