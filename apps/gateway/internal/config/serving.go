package config

import (
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"net/netip"
	"strconv"
)

// The settings of how clients reach this node: TLS served by the gateway
// itself, the proxies whose X-Forwarded-For is believed, and how many
// connections one client address may hold.

// Serving is the part of Config about the client-facing listener.
type Serving struct {
	// TLSCertFile and TLSKeyFile, both or neither, make the listener serve
	// wss:// and https:// with this PEM certificate chain and key. Both files
	// are watched: a renewed pair is used without a restart. Env
	// SLUICE_GATEWAY_TLS_CERT_FILE and SLUICE_GATEWAY_TLS_KEY_FILE, flags
	// -tls-cert-file and -tls-key-file. Default off (plain ws://, for a node
	// behind a TLS-terminating load balancer or on loopback).
	TLSCertFile, TLSKeyFile string
	// TLSMinVersion is the oldest TLS version accepted: 1.2 or 1.3. Env
	// SLUICE_GATEWAY_TLS_MIN_VERSION, flag -tls-min-version. Default 1.2.
	TLSMinVersion string
	// TrustedProxies are the addresses (IPs or CIDR prefixes) of proxies in
	// front of the node whose X-Forwarded-For header is believed; a request
	// from anywhere else is from its peer address, whatever it claims. Env
	// SLUICE_TRUSTED_PROXIES (comma-separated), flag -trusted-proxies.
	// Default none.
	TrustedProxies string
	// MaxConnectionsPerAddress bounds the WebSocket and SSE connections one
	// client address holds on this node (the address behind trusted
	// proxies); 0 is no bound. Env SLUICE_MAX_CONNECTIONS_PER_ADDRESS, flag
	// -max-connections-per-address. Default 0.
	MaxConnectionsPerAddress int
}

func (s *Serving) flags(fs *flag.FlagSet) {
	fs.StringVar(&s.TLSCertFile, "tls-cert-file", s.TLSCertFile, "PEM certificate chain to serve wss:// and https:// with, reloaded when it changes (env SLUICE_GATEWAY_TLS_CERT_FILE)")
	fs.StringVar(&s.TLSKeyFile, "tls-key-file", s.TLSKeyFile, "PEM key of that certificate (env SLUICE_GATEWAY_TLS_KEY_FILE)")
	fs.StringVar(&s.TLSMinVersion, "tls-min-version", s.TLSMinVersion, "oldest TLS version accepted: 1.2 or 1.3 (env SLUICE_GATEWAY_TLS_MIN_VERSION)")
	fs.StringVar(&s.TrustedProxies, "trusted-proxies", s.TrustedProxies, "proxies whose X-Forwarded-For is believed: IPs or CIDRs, comma-separated (env SLUICE_TRUSTED_PROXIES)")
	fs.IntVar(&s.MaxConnectionsPerAddress, "max-connections-per-address", s.MaxConnectionsPerAddress, "WebSocket and SSE connections one client address may hold, 0 for no bound (env SLUICE_MAX_CONNECTIONS_PER_ADDRESS)")
}

func (s *Serving) applyEnv(getenv func(string) string) error {
	for name, dst := range map[string]*string{"SLUICE_GATEWAY_TLS_CERT_FILE": &s.TLSCertFile, "SLUICE_GATEWAY_TLS_KEY_FILE": &s.TLSKeyFile,
		"SLUICE_GATEWAY_TLS_MIN_VERSION": &s.TLSMinVersion, "SLUICE_TRUSTED_PROXIES": &s.TrustedProxies} {
		if v := getenv(name); v != "" {
			*dst = v
		}
	}
	if v := getenv("SLUICE_MAX_CONNECTIONS_PER_ADDRESS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			return fmt.Errorf("SLUICE_MAX_CONNECTIONS_PER_ADDRESS: %q is not a whole number", v)
		}
		s.MaxConnectionsPerAddress = n
	}
	return nil
}

func (s Serving) describe() string {
	return fmt.Sprintf("tls-cert-file=%s\ntls-key-file=%s\ntls-min-version=%s\ntrusted-proxies=%s\nmax-connections-per-address=%d\n",
		s.TLSCertFile, s.TLSKeyFile, s.TLSMinVersion, s.TrustedProxies, s.MaxConnectionsPerAddress)
}

func (s Serving) validate() []error {
	var errs []error
	if (s.TLSCertFile == "") != (s.TLSKeyFile == "") {
		errs = append(errs, errors.New("tls-cert-file, tls-key-file (SLUICE_GATEWAY_TLS_CERT_FILE, SLUICE_GATEWAY_TLS_KEY_FILE): set both to serve TLS, or neither"))
	}
	if _, err := s.MinTLSVersion(); err != nil {
		errs = append(errs, err)
	}
	if _, err := s.ProxyPrefixes(); err != nil {
		errs = append(errs, err)
	}
	if s.MaxConnectionsPerAddress < 0 {
		errs = append(errs, errors.New("max-connections-per-address (SLUICE_MAX_CONNECTIONS_PER_ADDRESS): must not be negative"))
	}
	return errs
}

// ServesTLS says the listener serves TLS itself.
func (s Serving) ServesTLS() bool { return s.TLSCertFile != "" }

// MinTLSVersion is TLSMinVersion as a crypto/tls constant.
func (s Serving) MinTLSVersion() (uint16, error) {
	switch s.TLSMinVersion {
	case "1.2":
		return tls.VersionTLS12, nil
	case "1.3":
		return tls.VersionTLS13, nil
	}
	return 0, fmt.Errorf("tls-min-version (SLUICE_GATEWAY_TLS_MIN_VERSION): %q is not 1.2 or 1.3", s.TLSMinVersion)
}

// ProxyPrefixes parses TrustedProxies; a bare IP is a prefix of its full length.
func (s Serving) ProxyPrefixes() ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, item := range splitList(s.TrustedProxies) {
		if p, err := netip.ParsePrefix(item); err == nil {
			out = append(out, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(item)
		if err != nil {
			return nil, fmt.Errorf("trusted-proxies (SLUICE_TRUSTED_PROXIES): %q is not an IP address or a CIDR prefix such as 10.0.0.0/8", item)
		}
		a = a.Unmap()
		out = append(out, netip.PrefixFrom(a, a.BitLen()))
	}
	return out, nil
}
