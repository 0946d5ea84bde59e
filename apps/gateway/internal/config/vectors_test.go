package config

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// settingsVectors is packages/protocol/vectors/kafka-settings.json: the Kafka
// client settings as every component must read them (the TypeScript side
// tests against the same file).
type settingsVectors struct {
	Cases []struct {
		Name string            `json:"name"`
		Env  map[string]string `json:"env"`
		OK   *struct {
			Protocol  string  `json:"protocol"`
			Mechanism *string `json:"mechanism"`
			TLS       bool    `json:"tls"`
		} `json:"ok"`
		Error string `json:"error"`
	} `json:"cases"`
}

// loadVectors reads packages/protocol/vectors/<name> into v, whose Cases must
// number at least 20.
func loadVectors[V any](t *testing.T, name string, v *V, cases func(*V) int) {
	t.Helper()
	raw, err := os.ReadFile("../../../../packages/protocol/vectors/" + name)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatal(err)
	}
	if n := cases(v); n < 20 {
		t.Fatalf("%s: only %d cases", name, n)
	}
}

// wantError checks that err names variable first and holds no s3cret.
func wantError(t *testing.T, err error, variable string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error; want one naming %s", variable)
	}
	// "VARIABLE: why", or "VARIABLE (or VARIABLE_FILE): why".
	if msg := err.Error(); !strings.HasPrefix(msg, variable+":") && !strings.HasPrefix(msg, variable+" (") {
		t.Fatalf("error %q does not start with %s", msg, variable)
	}
	if strings.Contains(err.Error(), "s3cret") {
		t.Fatal("the error holds a secret")
	}
}

func TestKafkaSettingsVectors(t *testing.T) {
	var v settingsVectors
	loadVectors(t, "kafka-settings.json", &v, func(v *settingsVectors) int { return len(v.Cases) })
	for _, tc := range v.Cases {
		t.Run(tc.Name, func(t *testing.T) {
			cfg, err := Load(nil, func(name string) string { return tc.Env[name] })
			if tc.Error != "" {
				wantError(t, err, tc.Error)
				return
			}
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			protocol, useTLS, _ := cfg.kafkaProtocol()
			mechanism := cfg.kafkaMechanism()
			want := ""
			if tc.OK.Mechanism != nil {
				want = *tc.OK.Mechanism
			}
			if protocol != tc.OK.Protocol || mechanism != want || useTLS != tc.OK.TLS {
				t.Fatalf("got protocol %s, mechanism %q, tls %v; want %s, %q, %v", protocol, mechanism, useTLS, tc.OK.Protocol, want, tc.OK.TLS)
			}
		})
	}
}

// registryVectors is packages/protocol/vectors/registry-settings.json: the
// schema registry settings as every component must read them.
type registryVectors struct {
	Cases []struct {
		Name string            `json:"name"`
		Env  map[string]string `json:"env"`
		OK   *struct {
			Configured bool    `json:"configured"`
			URL        *string `json:"url"`
			Auth       string  `json:"auth"`
			TLS        bool    `json:"tls"`
		} `json:"ok"`
		Error string `json:"error"`
	} `json:"cases"`
}

func TestRegistrySettingsVectors(t *testing.T) {
	var v registryVectors
	loadVectors(t, "registry-settings.json", &v, func(v *registryVectors) int { return len(v.Cases) })
	for _, tc := range v.Cases {
		t.Run(tc.Name, func(t *testing.T) {
			cfg, err := Load(nil, func(name string) string { return tc.Env[name] })
			if tc.Error != "" {
				wantError(t, err, tc.Error)
				return
			}
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			o, err := cfg.RegistryOptions()
			if err != nil {
				t.Fatal(err)
			}
			auth := "none"
			switch {
			case o.BearerToken != "":
				auth = "bearer"
			case o.Username != "":
				auth = "basic"
			}
			url := ""
			if tc.OK.URL != nil {
				url = *tc.OK.URL
			}
			customTLS := cfg.RegistryTLSCAFile != "" || cfg.RegistryTLSCertFile != ""
			if cfg.RegistryConfigured() != tc.OK.Configured || o.URL != url || auth != tc.OK.Auth || customTLS != tc.OK.TLS {
				t.Fatalf("got configured %v, url %q, auth %s, tls %v; want %+v", cfg.RegistryConfigured(), o.URL, auth, customTLS, *tc.OK)
			}
		})
	}
}
