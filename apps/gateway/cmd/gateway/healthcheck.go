package main

import (
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/sluicehq/sluice/apps/gateway/internal/config"
)

// healthcheck asks this node's own /healthz, on loopback at the configured
// port, and returns 0 on a 200. It reads the same settings as serve, so the
// image's HEALTHCHECK follows SLUICE_GATEWAY_ADDR without repeating the port.
func healthcheck(cfg config.Config) int {
	_, port, err := net.SplitHostPort(cfg.Addr)
	if err != nil {
		fmt.Fprintf(os.Stderr, "healthcheck: addr %q: %v\n", cfg.Addr, err)
		return 1
	}
	client := http.Client{Timeout: 3 * time.Second}
	scheme := "http"
	if cfg.ServesTLS() {
		// The node's own listener on loopback: its certificate names the
		// public host, not 127.0.0.1, and this asks whether the process
		// answers, not who it is.
		scheme = "https"
		client.Transport = &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}} //nolint:gosec // loopback liveness probe
	}
	resp, err := client.Get(scheme + "://" + net.JoinHostPort("127.0.0.1", port) + "/healthz")
	if err != nil {
		fmt.Fprintf(os.Stderr, "healthcheck: %v\n", err)
		return 1
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		fmt.Fprintf(os.Stderr, "healthcheck: /healthz answered %s\n", resp.Status)
		return 1
	}
	return 0
}
