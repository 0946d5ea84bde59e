package main

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
)

// capture runs run(args) and returns its exit code, stdout and stderr.
func capture(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, stderr := os.Stdout, os.Stderr
	os.Stdout, os.Stderr = outW, errW
	code := run(args)
	os.Stdout, os.Stderr = stdout, stderr
	outW.Close()
	errW.Close()
	out, _ := io.ReadAll(outR)
	errOut, _ := io.ReadAll(errR)
	return code, string(out), string(errOut)
}

const secret = "checkconfig-test-password"

func TestCheckconfigRedactsTheKafkaPassword(t *testing.T) {
	t.Setenv("KAFKA_SECURITY_PROTOCOL", "SASL_PLAINTEXT")
	t.Setenv("KAFKA_SASL_MECHANISM", "SCRAM-SHA-512")
	t.Setenv("KAFKA_SASL_USERNAME", "gw")
	t.Setenv("KAFKA_SASL_PASSWORD", secret)
	code, out, errOut := capture(t, "checkconfig")
	if code != 0 || !strings.Contains(out, "configuration OK") || !strings.Contains(out, "kafka-sasl-password=[redacted]") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if strings.Contains(out+errOut, secret) {
		t.Fatalf("the password is printed: %s", out)
	}
}

func TestInvalidKafkaSecurityNamesTheVariable(t *testing.T) {
	t.Setenv("KAFKA_SECURITY_PROTOCOL", "SASL_SSL")
	t.Setenv("KAFKA_SASL_MECHANISM", "SCRAM-SHA-512")
	t.Setenv("KAFKA_SASL_PASSWORD", secret)
	code, out, errOut := capture(t, "checkconfig")
	if code != 2 || !strings.Contains(errOut, "KAFKA_SASL_USERNAME: required") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if strings.Contains(out+errOut, secret) {
		t.Fatalf("the password is printed: %s", errOut)
	}
}

func TestHealthcheckFollowsTheConfiguredPort(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/healthz" {
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	if code, _, errOut := capture(t, "healthcheck", "-addr", "0.0.0.0:"+port); code != 0 {
		t.Fatalf("healthcheck against a healthy node: exit %d, %s", code, errOut)
	}
	srv.Close()
	if code, _, _ := capture(t, "healthcheck", "-addr", "0.0.0.0:"+port); code != 1 {
		t.Fatalf("healthcheck against a stopped node: exit %d, want 1", code)
	}
}

func TestHealthcheckSpeaksTLSWhenTheNodeServesIt(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/healthz" {
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	// The files are not read by the probe: they only say the node serves TLS.
	if code, _, errOut := capture(t, "healthcheck", "-addr", "0.0.0.0:"+port, "-tls-cert-file", "gateway.crt", "-tls-key-file", "gateway.key"); code != 0 {
		t.Fatalf("healthcheck of a TLS node: exit %d, %s", code, errOut)
	}
	if code, _, _ := capture(t, "healthcheck", "-addr", "0.0.0.0:"+port); code != 1 {
		t.Fatalf("plain HTTP to a TLS node: exit %d, want 1", code)
	}
}
