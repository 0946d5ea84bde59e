package config

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestRegistryOptionsReadTheFilesAndDescribeHidesTheSecrets(t *testing.T) {
	f := newSecFixture(t)
	passwordFile := filepath.Join(t.TempDir(), "registry-password")
	write(t, passwordFile, "pw-from-file\n")
	cfg, err := Load(nil, env(map[string]string{
		"SCHEMA_REGISTRY_URL": "https://registry.internal/apis/ccompat/v7/", "SCHEMA_REGISTRY_BASIC_AUTH_USERNAME": "sluice",
		"SCHEMA_REGISTRY_BASIC_AUTH_PASSWORD_FILE": passwordFile,
		"SCHEMA_REGISTRY_TLS_CA_FILE":              f.ca, "SCHEMA_REGISTRY_TLS_CERT_FILE": f.cert, "SCHEMA_REGISTRY_TLS_KEY_FILE": f.key,
	}))
	if err != nil {
		t.Fatal(err)
	}
	o, err := cfg.RegistryOptions()
	if err != nil {
		t.Fatal(err)
	}
	if o.URL != "https://registry.internal/apis/ccompat/v7" || o.Username != "sluice" || o.Password != "pw-from-file" || o.HTTPClient == nil {
		t.Fatalf("options: %+v", o)
	}
	described := cfg.Describe()
	if strings.Contains(described, "pw-from-file") || !strings.Contains(described, "schema-registry-basic-auth-password=[from file "+passwordFile+"]") {
		t.Fatalf("describe:\n%s", described)
	}

	cfg, err = Load(nil, env(map[string]string{"SCHEMA_REGISTRY_URL": "http://127.0.0.1:8081", "SCHEMA_REGISTRY_BEARER_TOKEN": "tok-secret"}))
	if err != nil {
		t.Fatal(err)
	}
	if o, _ := cfg.RegistryOptions(); o.BearerToken != "tok-secret" || o.HTTPClient != nil {
		t.Fatalf("bearer over loopback http: %+v", o)
	}
	if d := cfg.Describe(); strings.Contains(d, "tok-secret") || !strings.Contains(d, "schema-registry-bearer-token=[redacted]") {
		t.Fatalf("describe:\n%s", d)
	}
}

func TestRegistryFilesThatDoNotParseStopTheStart(t *testing.T) {
	f := newSecFixture(t)
	notPEM := filepath.Join(t.TempDir(), "ca.pem")
	write(t, notPEM, "not a certificate")
	for name, e := range map[string]map[string]string{
		"SCHEMA_REGISTRY_TLS_CA_FILE":  {"SCHEMA_REGISTRY_TLS_CA_FILE": notPEM},
		"SCHEMA_REGISTRY_TLS_KEY_FILE": {"SCHEMA_REGISTRY_TLS_CERT_FILE": f.cert, "SCHEMA_REGISTRY_TLS_KEY_FILE": f.ca},
	} {
		e["SCHEMA_REGISTRY_URL"] = "https://registry.internal"
		if _, err := Load(nil, env(e)); err == nil || !strings.HasPrefix(err.Error(), name+":") {
			t.Errorf("%s: got %v", name, err)
		}
	}
}
