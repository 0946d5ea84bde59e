package config

import (
	"crypto/tls"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/sluicehq/sluice/apps/gateway/internal/registry"
)

// registryURL is SCHEMA_REGISTRY_URL trimmed, without its trailing slashes.
func (c Config) registryURL() string {
	return strings.TrimRight(strings.TrimSpace(c.RegistryURL), "/")
}

// validateRegistry enforces the schema registry contract
// (packages/protocol/vectors/registry-settings.json), each error naming the
// variable to fix and never a secret; when the rules hold, it reads the files
// so that a bad one stops the start.
func (c Config) validateRegistry() []error {
	var errs []error
	add := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	raw := c.registryURL()
	basic := c.RegistryUsername != "" || c.RegistryPassword != "" || c.RegistryPasswordFile != ""
	bearer := c.RegistryBearerToken != "" || c.RegistryBearerTokenFile != ""
	tlsSet := c.RegistryTLSCAFile != "" || c.RegistryTLSCertFile != "" || c.RegistryTLSKeyFile != ""
	if raw == "" {
		if basic || bearer || tlsSet {
			add("SCHEMA_REGISTRY_URL: required with the other SCHEMA_REGISTRY_* settings")
		}
		return errs
	}
	u, err := url.Parse(raw)
	switch {
	case err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https"):
		add("SCHEMA_REGISTRY_URL: not an http:// or https:// URL")
		return errs
	case u.User != nil:
		add("SCHEMA_REGISTRY_URL: holds credentials; put them in SCHEMA_REGISTRY_BASIC_AUTH_USERNAME and SCHEMA_REGISTRY_BASIC_AUTH_PASSWORD (a URL gets printed)")
		return errs
	case u.Scheme == "http" && (basic || bearer) && !isLoopback(u.Hostname()):
		add("SCHEMA_REGISTRY_URL: must be https:// to send credentials (http:// only for 127.0.0.1, localhost or ::1), not to %s", u.Hostname())
	}
	if u.Scheme == "http" && tlsSet {
		for _, s := range []setting{{"SCHEMA_REGISTRY_TLS_CA_FILE", c.RegistryTLSCAFile != ""}, {"SCHEMA_REGISTRY_TLS_CERT_FILE", c.RegistryTLSCertFile != ""}, {"SCHEMA_REGISTRY_TLS_KEY_FILE", c.RegistryTLSKeyFile != ""}} {
			if s.set {
				add("%s: only for an https:// SCHEMA_REGISTRY_URL", s.name)
				break
			}
		}
	}
	if (c.RegistryTLSCertFile == "") != (c.RegistryTLSKeyFile == "") {
		if c.RegistryTLSKeyFile == "" {
			add("SCHEMA_REGISTRY_TLS_KEY_FILE: required with SCHEMA_REGISTRY_TLS_CERT_FILE")
		} else {
			add("SCHEMA_REGISTRY_TLS_CERT_FILE: required with SCHEMA_REGISTRY_TLS_KEY_FILE")
		}
	}
	switch {
	case basic && bearer:
		add("SCHEMA_REGISTRY_BEARER_TOKEN: set together with Basic credentials; use one of them")
	case basic && c.RegistryUsername == "":
		add("SCHEMA_REGISTRY_BASIC_AUTH_USERNAME: required with the Basic password")
	case basic && c.RegistryPassword != "" && c.RegistryPasswordFile != "":
		add("SCHEMA_REGISTRY_BASIC_AUTH_PASSWORD: set together with SCHEMA_REGISTRY_BASIC_AUTH_PASSWORD_FILE; set only one")
	case basic && c.RegistryPassword == "" && c.RegistryPasswordFile == "":
		add("SCHEMA_REGISTRY_BASIC_AUTH_PASSWORD: required with SCHEMA_REGISTRY_BASIC_AUTH_USERNAME (or SCHEMA_REGISTRY_BASIC_AUTH_PASSWORD_FILE)")
	case bearer && c.RegistryBearerToken != "" && c.RegistryBearerTokenFile != "":
		add("SCHEMA_REGISTRY_BEARER_TOKEN: set together with SCHEMA_REGISTRY_BEARER_TOKEN_FILE; set only one")
	}
	if len(errs) == 0 {
		if _, err := c.RegistryOptions(); err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

// RegistryOptions builds the registry client's options from the settings,
// reading the files they name; zero Options (empty URL) when no registry is
// configured.
func (c Config) RegistryOptions() (registry.Options, error) {
	raw := c.registryURL()
	if raw == "" {
		return registry.Options{}, nil
	}
	o := registry.Options{URL: raw, Username: c.RegistryUsername}
	var err error
	if c.RegistryUsername != "" {
		if o.Password, err = secretValue("SCHEMA_REGISTRY_BASIC_AUTH_PASSWORD", c.RegistryPassword, c.RegistryPasswordFile); err != nil {
			return o, err
		}
	}
	if c.RegistryBearerToken != "" || c.RegistryBearerTokenFile != "" {
		if o.BearerToken, err = secretValue("SCHEMA_REGISTRY_BEARER_TOKEN", c.RegistryBearerToken, c.RegistryBearerTokenFile); err != nil {
			return o, err
		}
	}
	if strings.HasPrefix(raw, "https://") {
		tc := &tls.Config{MinVersion: tls.VersionTLS12}
		if err := loadTLSFiles(tc, tlsFiles{
			ca: c.RegistryTLSCAFile, cert: c.RegistryTLSCertFile, key: c.RegistryTLSKeyFile,
			caVar: "SCHEMA_REGISTRY_TLS_CA_FILE", certVar: "SCHEMA_REGISTRY_TLS_CERT_FILE", keyVar: "SCHEMA_REGISTRY_TLS_KEY_FILE",
		}); err != nil {
			return o, err
		}
		transport := http.DefaultTransport.(*http.Transport).Clone()
		transport.TLSClientConfig = tc
		o.HTTPClient = &http.Client{Transport: transport, Timeout: registry.RequestTimeout}
	}
	return o, nil
}

// RegistryConfigured says whether SCHEMA_REGISTRY_URL is set.
func (c Config) RegistryConfigured() bool { return c.registryURL() != "" }

// describeRegistry is Describe's part for the registry settings, secrets masked.
func (c Config) describeRegistry() string {
	secret := func(v Secret, file string) string {
		if file != "" {
			return "[from file " + file + "]"
		}
		return v.String()
	}
	return fmt.Sprintf("schema-registry-url=%s\nschema-registry-basic-auth-username=%s\nschema-registry-basic-auth-password=%s\n"+
		"schema-registry-bearer-token=%s\nschema-registry-tls-ca-file=%s\nschema-registry-tls-cert-file=%s\nschema-registry-tls-key-file=%s\n",
		c.registryURL(), c.RegistryUsername, secret(c.RegistryPassword, c.RegistryPasswordFile),
		secret(c.RegistryBearerToken, c.RegistryBearerTokenFile), c.RegistryTLSCAFile, c.RegistryTLSCertFile, c.RegistryTLSKeyFile)
}
