package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// With -proxy haproxy the failover scenario's clients reach the gateway nodes
// through HAProxy (Debian's package: apt-get install haproxy) instead of their
// own list of URLs: the protocol, resume after a node's stop and the
// X-Forwarded-For handling are then exercised behind a real reverse proxy.

// startHAProxy writes a configuration balancing WebSockets over nodes and
// runs HAProxy in the foreground on addr; the returned function stops it.
func startHAProxy(addr string, nodes []failoverNode, maxConn int) (stop func(), err error) {
	bin, err := exec.LookPath("haproxy")
	if err != nil {
		return nil, fmt.Errorf("-proxy haproxy: %w (apt-get install haproxy)", err)
	}
	dir, err := os.MkdirTemp("", "fanout-haproxy-")
	if err != nil {
		return nil, err
	}
	var servers strings.Builder
	for _, n := range nodes {
		// Health from /readyz: a node loading its catalog, stopping or gone is
		// taken out within two checks.
		fmt.Fprintf(&servers, "  server %s %s check inter 1s fall 2 rise 2\n", strings.ToLower(n.name), n.addr)
	}
	cfg := fmt.Sprintf(`global
  maxconn %d
defaults
  mode http
  timeout connect 5s
  timeout client 60s
  timeout server 60s
  # an upgraded WebSocket is a tunnel: idle up to this long (the gateway
  # pings idle connections every 25 s, so this is never reached)
  timeout tunnel 1h
  # the client's address for the gateway (-trusted-proxies 127.0.0.1)
  option forwardfor
  # a connection to a node that is gone is retried on another
  option redispatch
  retries 2
frontend clients
  bind %s
  default_backend gateways
backend gateways
  balance leastconn
  option httpchk GET /readyz
  http-check expect status 200
%s`, maxConn, addr, servers.String())
	file := filepath.Join(dir, "haproxy.cfg")
	if err := os.WriteFile(file, []byte(cfg), 0o600); err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, "-f", file, "-db")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	// Ready once the checks have passed: readiness through the proxy.
	waitReady("http://" + addr + "/readyz")
	time.Sleep(2 * time.Second) // rise 2: every node in
	return func() {
		// SIGTERM is HAProxy's immediate stop (SIGINT left it running here).
		_ = cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
		_ = os.RemoveAll(dir)
	}, nil
}
