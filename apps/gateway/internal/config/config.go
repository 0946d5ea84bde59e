// Package config holds the gateway's configuration: one typed struct with
// documented defaults, filled from environment variables and then flags (flags
// win), and validated before anything starts.
package config

import (
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"time"
)

// Config is everything the gateway can be told. Each field names its env variable
// and flag; the default is what Defaults returns.
type Config struct {
	// Addr is the host:port the HTTP/WebSocket listener binds.
	// Env SLUICE_GATEWAY_ADDR, flag -addr. Default 127.0.0.1:8080: a fresh install
	// is reachable only locally until the operator opens it on purpose.
	Addr string
	// KafkaBrokers are the bootstrap brokers. Env KAFKA_BROKERS (comma-separated),
	// flag -kafka-brokers. Default 127.0.0.1:9092.
	KafkaBrokers []string
	// CatalogTopic is the compacted topic the bridge writes the catalog to.
	// Env SLUICE_CATALOG_TOPIC, flag -catalog-topic. Default __sluice_catalog.
	CatalogTopic string
	// UsageTopic is the topic every node writes its usage records to (the
	// bridge sums them). Env SLUICE_USAGE_TOPIC, flag -usage-topic. Default
	// __sluice_usage.
	UsageTopic string
	// UsageInterval is how often a usage record is written; 0 turns metering
	// off. Env SLUICE_USAGE_INTERVAL, flag -usage-interval. Default 5s.
	UsageInterval time.Duration
	// NodeID names this node in its usage records. Env SLUICE_GATEWAY_NODE_ID,
	// flag -node-id. Default: a random id made at start (a restarted node is a
	// new node).
	NodeID string
	// ShutdownGrace is how long a graceful shutdown waits for open requests.
	// Env SLUICE_SHUTDOWN_GRACE, flag -shutdown-grace. Default 10s.
	ShutdownGrace time.Duration
	// LogFormat is "text" or "json". Env SLUICE_LOG_FORMAT, flag -log-format. Default text.
	LogFormat string
	// TokenIssuer must equal the iss of every token. Env SLUICE_TOKEN_ISSUER,
	// flag -token-issuer. Default "sluice".
	TokenIssuer string
	// TokenAudience must be in the aud of every token. Env SLUICE_TOKEN_AUDIENCE,
	// flag -token-audience. Default "sluice-gateway".
	TokenAudience string
	// QueueSize bounds each client's queue of outgoing frames. Env
	// SLUICE_QUEUE_SIZE, flag -queue-size. Default 1024.
	QueueSize int
	// SlowPolicy is what a full queue does: "drop" (flush it, send gap notices) or
	// "disconnect" (close with 4029). Env SLUICE_SLOW_POLICY, flag -slow-policy.
	// Default drop.
	SlowPolicy string
	// CacheSize is how many recent messages each endpoint with subscribers keeps
	// in memory to serve resumes. Env SLUICE_CACHE_SIZE, flag -cache-size. Default 4.
	CacheSize int
	// IOUring batches each routing job's WebSocket writes through io_uring
	// where the kernel allows it (else writev, one system call per socket).
	// Env SLUICE_IO_URING (true or false), flag -io-uring. Default true.
	IOUring bool
	// MaxSubscriptions per connection. Env SLUICE_MAX_SUBSCRIPTIONS, flag
	// -max-subscriptions. Default 1000.
	MaxSubscriptions int
	// DebugAddr, when set, serves Go's pprof profiles on a separate listener (keep
	// it on loopback). Env SLUICE_DEBUG_ADDR, flag -debug-addr. Default off.
	DebugAddr string
	// TopicCheckInterval is how often each topic in use has its metadata checked
	// for a new topic id (deleted and created again) or added partitions; fetch
	// errors trigger a check at once. Env SLUICE_TOPIC_CHECK_INTERVAL, flag
	// -topic-check-interval. Default 2s.
	TopicCheckInterval time.Duration
	// TopicGoneAfter is how long a topic in use may be missing from Kafka before
	// its subscriptions end (code 4004); a topic created again within it keeps
	// them (with an epoch gap). Env SLUICE_TOPIC_GONE_AFTER, flag
	// -topic-gone-after. Default 30s.
	TopicGoneAfter time.Duration

	// The Kafka security settings below are the contract every Sluice component
	// reads the same way (their env names are Kafka's own); KafkaSecurity
	// turns them into the kafka.Security every client is built with. A secret
	// has no flag (a command line is visible to every local user): it comes
	// from its env variable or from a file named by its _FILE variable.

	// KafkaSecurityProtocol is PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL
	// (any case). Env KAFKA_SECURITY_PROTOCOL, flag -kafka-security-protocol.
	// Default PLAINTEXT.
	KafkaSecurityProtocol string
	// KafkaTLSCAFile is a PEM bundle of the CAs brokers are verified with;
	// empty is the system's roots. Env KAFKA_TLS_CA_FILE, flag -kafka-tls-ca-file.
	KafkaTLSCAFile string
	// KafkaTLSCertFile and KafkaTLSKeyFile are the client certificate and its
	// key (PEM) for mutual TLS: both or neither. Env KAFKA_TLS_CERT_FILE and
	// KAFKA_TLS_KEY_FILE, flags -kafka-tls-cert-file and -kafka-tls-key-file.
	KafkaTLSCertFile, KafkaTLSKeyFile string
	// KafkaTLSServerName overrides the name brokers' certificates are
	// verified against (and SNI); empty is each broker's host. Env
	// KAFKA_TLS_SERVER_NAME, flag -kafka-tls-server-name.
	KafkaTLSServerName string
	// KafkaTLSInsecureSkipVerify skips verifying brokers' certificates, with
	// a warning at start. Env KAFKA_TLS_INSECURE_SKIP_VERIFY (true or false),
	// flag -kafka-tls-insecure-skip-verify. Default false.
	KafkaTLSInsecureSkipVerify bool
	// KafkaSASLMechanism is PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 or OAUTHBEARER
	// (any case), required with a SASL_* protocol. Env KAFKA_SASL_MECHANISM,
	// flag -kafka-sasl-mechanism.
	KafkaSASLMechanism string
	// KafkaSASLUsername is the PLAIN or SCRAM user. Env KAFKA_SASL_USERNAME,
	// flag -kafka-sasl-username.
	KafkaSASLUsername string
	// KafkaSASLPassword is the PLAIN or SCRAM password. Env
	// KAFKA_SASL_PASSWORD only.
	KafkaSASLPassword Secret
	// KafkaSASLPasswordFile names a file holding the password instead. Env
	// KAFKA_SASL_PASSWORD_FILE, flag -kafka-sasl-password-file.
	KafkaSASLPasswordFile string
	// KafkaOAuthTokenURL is the OAUTHBEARER client-credentials token endpoint
	// (https; http only on loopback). Env
	// KAFKA_SASL_OAUTHBEARER_TOKEN_ENDPOINT_URL, flag
	// -kafka-sasl-oauthbearer-token-endpoint-url.
	KafkaOAuthTokenURL string
	// KafkaOAuthClientID is the OAUTHBEARER client id. Env
	// KAFKA_SASL_OAUTHBEARER_CLIENT_ID, flag -kafka-sasl-oauthbearer-client-id.
	KafkaOAuthClientID string
	// KafkaOAuthClientSecret is the OAUTHBEARER client secret. Env
	// KAFKA_SASL_OAUTHBEARER_CLIENT_SECRET only.
	KafkaOAuthClientSecret Secret
	// KafkaOAuthClientSecretFile names a file holding the client secret
	// instead. Env KAFKA_SASL_OAUTHBEARER_CLIENT_SECRET_FILE, flag
	// -kafka-sasl-oauthbearer-client-secret-file.
	KafkaOAuthClientSecretFile string
	// KafkaOAuthScope is the optional scope of token requests (space-separated).
	// Env KAFKA_SASL_OAUTHBEARER_SCOPE, flag -kafka-sasl-oauthbearer-scope.
	KafkaOAuthScope string

	// The schema registry settings below are, like the Kafka ones, a contract
	// every Sluice component reads the same way (registry.go); secrets have no
	// flag.

	// RegistryURL is the base URL of the schema registry's Confluent-compatible
	// API; empty means no registry (registry-backed endpoints are refused).
	// Env SCHEMA_REGISTRY_URL, flag -schema-registry-url.
	RegistryURL string
	// RegistryUsername is the HTTP Basic user. Env
	// SCHEMA_REGISTRY_BASIC_AUTH_USERNAME, flag -schema-registry-basic-auth-username.
	RegistryUsername string
	// RegistryPassword is the Basic password. Env
	// SCHEMA_REGISTRY_BASIC_AUTH_PASSWORD only.
	RegistryPassword Secret
	// RegistryPasswordFile names a file holding it instead. Env
	// SCHEMA_REGISTRY_BASIC_AUTH_PASSWORD_FILE, flag -schema-registry-basic-auth-password-file.
	RegistryPasswordFile string
	// RegistryBearerToken is a bearer token instead of Basic. Env
	// SCHEMA_REGISTRY_BEARER_TOKEN only.
	RegistryBearerToken Secret
	// RegistryBearerTokenFile names a file holding it instead. Env
	// SCHEMA_REGISTRY_BEARER_TOKEN_FILE, flag -schema-registry-bearer-token-file.
	RegistryBearerTokenFile string
	// RegistryTLSCAFile, RegistryTLSCertFile and RegistryTLSKeyFile: the CA
	// bundle the registry is verified with (system roots when empty) and a
	// client certificate with its key (both or neither); https only. Env
	// SCHEMA_REGISTRY_TLS_CA_FILE, _CERT_FILE, _KEY_FILE; flags
	// -schema-registry-tls-ca-file, -cert-file, -key-file.
	RegistryTLSCAFile, RegistryTLSCertFile, RegistryTLSKeyFile string

	// Serving is how clients reach the node: TLS, trusted proxies and the
	// bound per client address (serving.go).
	Serving
}

// Secret is a setting never to be printed: fmt shows it as [redacted] (a
// Config printed with %v or %+v included); Reveal gives the value.
type Secret string

// String is [redacted] for a set secret, empty for an unset one.
func (s Secret) String() string {
	if s == "" {
		return ""
	}
	return "[redacted]"
}

// GoString keeps %#v from printing the value.
func (s Secret) GoString() string { return strconv.Quote(s.String()) }

// Reveal is the secret's value, for the code that sends it.
func (s Secret) Reveal() string { return string(s) }

// Defaults returns the configuration used when nothing is set.
func Defaults() Config {
	return Config{
		Addr:             "127.0.0.1:8080",
		KafkaBrokers:     []string{"127.0.0.1:9092"},
		CatalogTopic:     "__sluice_catalog",
		UsageTopic:       "__sluice_usage",
		UsageInterval:    5 * time.Second,
		ShutdownGrace:    10 * time.Second,
		LogFormat:        "text",
		TokenIssuer:      "sluice",
		TokenAudience:    "sluice-gateway",
		QueueSize:        1024,
		SlowPolicy:       "drop",
		CacheSize:        4,
		MaxSubscriptions: 1000,
		IOUring:          true,

		TopicCheckInterval: 2 * time.Second,
		TopicGoneAfter:     30 * time.Second,

		KafkaSecurityProtocol: "PLAINTEXT",

		Serving: Serving{TLSMinVersion: "1.2"},
	}
}

// Load builds the configuration from defaults, then the environment, then args.
func Load(args []string, getenv func(string) string) (Config, error) {
	cfg := Defaults()
	if err := cfg.applyEnv(getenv); err != nil {
		return cfg, err
	}
	fs, brokers := flagSet(&cfg)
	if err := fs.Parse(args); err != nil {
		return cfg, err
	}
	if fs.NArg() > 0 {
		return cfg, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	cfg.KafkaBrokers = splitList(*brokers)
	return cfg, cfg.Validate()
}

// flagSet defines every flag over cfg (their defaults are cfg's values); the
// brokers flag is a list, parsed by the caller from the returned string.
// apps/gateway/README.md lists the same flags (config_test.go checks it).
func flagSet(cfg *Config) (*flag.FlagSet, *string) {
	fs := flag.NewFlagSet("gateway", flag.ContinueOnError)
	fs.SetOutput(os.Stderr)
	fs.StringVar(&cfg.Addr, "addr", cfg.Addr, "listen address host:port (env SLUICE_GATEWAY_ADDR)")
	brokers := fs.String("kafka-brokers", strings.Join(cfg.KafkaBrokers, ","), "Kafka bootstrap brokers, comma-separated (env KAFKA_BROKERS)")
	fs.StringVar(&cfg.CatalogTopic, "catalog-topic", cfg.CatalogTopic, "compacted catalog topic (env SLUICE_CATALOG_TOPIC)")
	fs.StringVar(&cfg.UsageTopic, "usage-topic", cfg.UsageTopic, "topic usage records are written to (env SLUICE_USAGE_TOPIC)")
	fs.DurationVar(&cfg.UsageInterval, "usage-interval", cfg.UsageInterval, "how often a usage record is written, 0 for no metering (env SLUICE_USAGE_INTERVAL)")
	fs.StringVar(&cfg.NodeID, "node-id", cfg.NodeID, "this node's name in usage records; random when empty (env SLUICE_GATEWAY_NODE_ID)")
	fs.DurationVar(&cfg.ShutdownGrace, "shutdown-grace", cfg.ShutdownGrace, "graceful shutdown timeout (env SLUICE_SHUTDOWN_GRACE)")
	fs.StringVar(&cfg.LogFormat, "log-format", cfg.LogFormat, "log format: text or json (env SLUICE_LOG_FORMAT)")
	fs.StringVar(&cfg.TokenIssuer, "token-issuer", cfg.TokenIssuer, "required token iss (env SLUICE_TOKEN_ISSUER)")
	fs.StringVar(&cfg.TokenAudience, "token-audience", cfg.TokenAudience, "required token aud (env SLUICE_TOKEN_AUDIENCE)")
	fs.IntVar(&cfg.QueueSize, "queue-size", cfg.QueueSize, "outgoing frames queued per client (env SLUICE_QUEUE_SIZE)")
	fs.StringVar(&cfg.SlowPolicy, "slow-policy", cfg.SlowPolicy, "full queue: drop or disconnect (env SLUICE_SLOW_POLICY)")
	fs.IntVar(&cfg.CacheSize, "cache-size", cfg.CacheSize, "recent messages kept per endpoint for resume (env SLUICE_CACHE_SIZE)")
	fs.BoolVar(&cfg.IOUring, "io-uring", cfg.IOUring, "batch WebSocket writes through io_uring where the kernel allows it (env SLUICE_IO_URING)")
	fs.StringVar(&cfg.DebugAddr, "debug-addr", cfg.DebugAddr, "pprof listener host:port, off when empty (env SLUICE_DEBUG_ADDR)")
	fs.IntVar(&cfg.MaxSubscriptions, "max-subscriptions", cfg.MaxSubscriptions, "subscriptions per connection (env SLUICE_MAX_SUBSCRIPTIONS)")
	fs.DurationVar(&cfg.TopicCheckInterval, "topic-check-interval", cfg.TopicCheckInterval, "how often topics in use are checked for recreation and added partitions (env SLUICE_TOPIC_CHECK_INTERVAL)")
	fs.DurationVar(&cfg.TopicGoneAfter, "topic-gone-after", cfg.TopicGoneAfter, "how long a deleted topic may stay missing before its subscriptions end (env SLUICE_TOPIC_GONE_AFTER)")
	fs.StringVar(&cfg.KafkaSecurityProtocol, "kafka-security-protocol", cfg.KafkaSecurityProtocol, "Kafka transport: PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL (env KAFKA_SECURITY_PROTOCOL)")
	fs.StringVar(&cfg.KafkaTLSCAFile, "kafka-tls-ca-file", cfg.KafkaTLSCAFile, "PEM CA bundle brokers are verified with; system roots when empty (env KAFKA_TLS_CA_FILE)")
	fs.StringVar(&cfg.KafkaTLSCertFile, "kafka-tls-cert-file", cfg.KafkaTLSCertFile, "PEM client certificate for mutual TLS (env KAFKA_TLS_CERT_FILE)")
	fs.StringVar(&cfg.KafkaTLSKeyFile, "kafka-tls-key-file", cfg.KafkaTLSKeyFile, "PEM key of the client certificate (env KAFKA_TLS_KEY_FILE)")
	fs.StringVar(&cfg.KafkaTLSServerName, "kafka-tls-server-name", cfg.KafkaTLSServerName, "name brokers' certificates are verified against; each broker's host when empty (env KAFKA_TLS_SERVER_NAME)")
	fs.BoolVar(&cfg.KafkaTLSInsecureSkipVerify, "kafka-tls-insecure-skip-verify", cfg.KafkaTLSInsecureSkipVerify, "do not verify brokers' certificates: testing only (env KAFKA_TLS_INSECURE_SKIP_VERIFY)")
	fs.StringVar(&cfg.KafkaSASLMechanism, "kafka-sasl-mechanism", cfg.KafkaSASLMechanism, "PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 or OAUTHBEARER (env KAFKA_SASL_MECHANISM)")
	fs.StringVar(&cfg.KafkaSASLUsername, "kafka-sasl-username", cfg.KafkaSASLUsername, "PLAIN or SCRAM user (env KAFKA_SASL_USERNAME)")
	fs.StringVar(&cfg.KafkaSASLPasswordFile, "kafka-sasl-password-file", cfg.KafkaSASLPasswordFile, "file holding the PLAIN or SCRAM password (env KAFKA_SASL_PASSWORD_FILE)")
	fs.StringVar(&cfg.KafkaOAuthTokenURL, "kafka-sasl-oauthbearer-token-endpoint-url", cfg.KafkaOAuthTokenURL, "OAUTHBEARER client-credentials token endpoint (env KAFKA_SASL_OAUTHBEARER_TOKEN_ENDPOINT_URL)")
	fs.StringVar(&cfg.KafkaOAuthClientID, "kafka-sasl-oauthbearer-client-id", cfg.KafkaOAuthClientID, "OAUTHBEARER client id (env KAFKA_SASL_OAUTHBEARER_CLIENT_ID)")
	fs.StringVar(&cfg.KafkaOAuthClientSecretFile, "kafka-sasl-oauthbearer-client-secret-file", cfg.KafkaOAuthClientSecretFile, "file holding the OAUTHBEARER client secret (env KAFKA_SASL_OAUTHBEARER_CLIENT_SECRET_FILE)")
	fs.StringVar(&cfg.KafkaOAuthScope, "kafka-sasl-oauthbearer-scope", cfg.KafkaOAuthScope, "scope of OAUTHBEARER token requests, space-separated (env KAFKA_SASL_OAUTHBEARER_SCOPE)")
	fs.StringVar(&cfg.RegistryURL, "schema-registry-url", cfg.RegistryURL, "base URL of the schema registry's Confluent-compatible API (env SCHEMA_REGISTRY_URL)")
	fs.StringVar(&cfg.RegistryUsername, "schema-registry-basic-auth-username", cfg.RegistryUsername, "schema registry Basic user (env SCHEMA_REGISTRY_BASIC_AUTH_USERNAME)")
	fs.StringVar(&cfg.RegistryPasswordFile, "schema-registry-basic-auth-password-file", cfg.RegistryPasswordFile, "file holding the schema registry Basic password (env SCHEMA_REGISTRY_BASIC_AUTH_PASSWORD_FILE)")
	fs.StringVar(&cfg.RegistryBearerTokenFile, "schema-registry-bearer-token-file", cfg.RegistryBearerTokenFile, "file holding a schema registry bearer token (env SCHEMA_REGISTRY_BEARER_TOKEN_FILE)")
	fs.StringVar(&cfg.RegistryTLSCAFile, "schema-registry-tls-ca-file", cfg.RegistryTLSCAFile, "PEM CA bundle the schema registry is verified with (env SCHEMA_REGISTRY_TLS_CA_FILE)")
	fs.StringVar(&cfg.RegistryTLSCertFile, "schema-registry-tls-cert-file", cfg.RegistryTLSCertFile, "PEM client certificate for the schema registry (env SCHEMA_REGISTRY_TLS_CERT_FILE)")
	fs.StringVar(&cfg.RegistryTLSKeyFile, "schema-registry-tls-key-file", cfg.RegistryTLSKeyFile, "PEM key of that certificate (env SCHEMA_REGISTRY_TLS_KEY_FILE)")
	cfg.Serving.flags(fs)
	return fs, brokers
}

func (c *Config) applyEnv(getenv func(string) string) error {
	if v := getenv("SLUICE_GATEWAY_ADDR"); v != "" {
		c.Addr = v
	}
	if v := getenv("KAFKA_BROKERS"); v != "" {
		c.KafkaBrokers = splitList(v)
	}
	if v := getenv("SLUICE_CATALOG_TOPIC"); v != "" {
		c.CatalogTopic = v
	}
	if v := getenv("SLUICE_USAGE_TOPIC"); v != "" {
		c.UsageTopic = v
	}
	if v := getenv("SLUICE_GATEWAY_NODE_ID"); v != "" {
		c.NodeID = v
	}
	for name, dst := range map[string]*time.Duration{"SLUICE_SHUTDOWN_GRACE": &c.ShutdownGrace, "SLUICE_USAGE_INTERVAL": &c.UsageInterval, "SLUICE_TOPIC_CHECK_INTERVAL": &c.TopicCheckInterval, "SLUICE_TOPIC_GONE_AFTER": &c.TopicGoneAfter} {
		if v := getenv(name); v != "" {
			d, err := time.ParseDuration(v)
			if err != nil {
				return fmt.Errorf("%s: %q is not a duration such as 10s", name, v)
			}
			*dst = d
		}
	}
	if v := getenv("SLUICE_LOG_FORMAT"); v != "" {
		c.LogFormat = v
	}
	for name, dst := range map[string]*string{"SLUICE_TOKEN_ISSUER": &c.TokenIssuer, "SLUICE_TOKEN_AUDIENCE": &c.TokenAudience, "SLUICE_SLOW_POLICY": &c.SlowPolicy, "SLUICE_DEBUG_ADDR": &c.DebugAddr,
		"KAFKA_SECURITY_PROTOCOL": &c.KafkaSecurityProtocol, "KAFKA_TLS_CA_FILE": &c.KafkaTLSCAFile, "KAFKA_TLS_CERT_FILE": &c.KafkaTLSCertFile, "KAFKA_TLS_KEY_FILE": &c.KafkaTLSKeyFile, "KAFKA_TLS_SERVER_NAME": &c.KafkaTLSServerName,
		"KAFKA_SASL_MECHANISM": &c.KafkaSASLMechanism, "KAFKA_SASL_USERNAME": &c.KafkaSASLUsername, "KAFKA_SASL_PASSWORD_FILE": &c.KafkaSASLPasswordFile,
		"KAFKA_SASL_OAUTHBEARER_TOKEN_ENDPOINT_URL": &c.KafkaOAuthTokenURL, "KAFKA_SASL_OAUTHBEARER_CLIENT_ID": &c.KafkaOAuthClientID, "KAFKA_SASL_OAUTHBEARER_CLIENT_SECRET_FILE": &c.KafkaOAuthClientSecretFile, "KAFKA_SASL_OAUTHBEARER_SCOPE": &c.KafkaOAuthScope,
		"SCHEMA_REGISTRY_URL": &c.RegistryURL, "SCHEMA_REGISTRY_BASIC_AUTH_USERNAME": &c.RegistryUsername, "SCHEMA_REGISTRY_BASIC_AUTH_PASSWORD_FILE": &c.RegistryPasswordFile, "SCHEMA_REGISTRY_BEARER_TOKEN_FILE": &c.RegistryBearerTokenFile,
		"SCHEMA_REGISTRY_TLS_CA_FILE": &c.RegistryTLSCAFile, "SCHEMA_REGISTRY_TLS_CERT_FILE": &c.RegistryTLSCertFile, "SCHEMA_REGISTRY_TLS_KEY_FILE": &c.RegistryTLSKeyFile} {
		if v := getenv(name); v != "" {
			*dst = v
		}
	}
	if err := c.Serving.applyEnv(getenv); err != nil {
		return err
	}
	c.KafkaSASLPassword = Secret(getenv("KAFKA_SASL_PASSWORD"))
	c.KafkaOAuthClientSecret = Secret(getenv("KAFKA_SASL_OAUTHBEARER_CLIENT_SECRET"))
	c.RegistryPassword = Secret(getenv("SCHEMA_REGISTRY_BASIC_AUTH_PASSWORD"))
	c.RegistryBearerToken = Secret(getenv("SCHEMA_REGISTRY_BEARER_TOKEN"))
	for name, dst := range map[string]*bool{"KAFKA_TLS_INSECURE_SKIP_VERIFY": &c.KafkaTLSInsecureSkipVerify, "SLUICE_IO_URING": &c.IOUring} {
		if v := getenv(name); v != "" {
			switch strings.ToLower(v) {
			case "true":
				*dst = true
			case "false":
				*dst = false
			default:
				return fmt.Errorf("%s: %q is not true or false", name, v)
			}
		}
	}
	for name, dst := range map[string]*int{"SLUICE_QUEUE_SIZE": &c.QueueSize, "SLUICE_CACHE_SIZE": &c.CacheSize, "SLUICE_MAX_SUBSCRIPTIONS": &c.MaxSubscriptions} {
		if v := getenv(name); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil {
				return fmt.Errorf("%s: %q is not a whole number", name, v)
			}
			*dst = n
		}
	}
	return nil
}

// Describe renders the configuration one field a line, for checkconfig. Secrets
// show as [redacted], or [from file PATH] when read from a file.
func (c Config) Describe() string {
	return c.describeBase() + c.Serving.describe() + c.describeKafkaSecurity() + c.describeRegistry()
}

func (c Config) describeBase() string {
	return fmt.Sprintf("addr=%s\nkafka-brokers=%s\ncatalog-topic=%s\nusage-topic=%s\nusage-interval=%s\nnode-id=%s\nshutdown-grace=%s\nlog-format=%s\n"+
		"token-issuer=%s\ntoken-audience=%s\nqueue-size=%d\nslow-policy=%s\ncache-size=%d\nmax-subscriptions=%d\nio-uring=%t\ndebug-addr=%s\n"+
		"topic-check-interval=%s\ntopic-gone-after=%s\n",
		c.Addr, strings.Join(c.KafkaBrokers, ","), c.CatalogTopic, c.UsageTopic, c.UsageInterval, c.NodeID, c.ShutdownGrace, c.LogFormat,
		c.TokenIssuer, c.TokenAudience, c.QueueSize, c.SlowPolicy, c.CacheSize, c.MaxSubscriptions, c.IOUring, c.DebugAddr,
		c.TopicCheckInterval, c.TopicGoneAfter)
}

func splitList(s string) []string {
	var out []string
	for _, part := range strings.Split(s, ",") {
		if p := strings.TrimSpace(part); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// Validate reports every invalid field at once, each error naming its field.
func (c Config) Validate() error {
	var errs []error
	if err := validHostPort(c.Addr); err != nil {
		errs = append(errs, fmt.Errorf("addr: %w", err))
	}
	if len(c.KafkaBrokers) == 0 {
		errs = append(errs, errors.New("kafka-brokers: at least one broker is required"))
	}
	for _, b := range c.KafkaBrokers {
		if err := validHostPort(b); err != nil {
			errs = append(errs, fmt.Errorf("kafka-brokers: %q: %w", b, err))
		}
	}
	if c.CatalogTopic == "" {
		errs = append(errs, errors.New("catalog-topic: must not be empty"))
	}
	if c.UsageTopic == "" {
		errs = append(errs, errors.New("usage-topic: must not be empty"))
	}
	if c.UsageInterval != 0 && (c.UsageInterval < time.Second || c.UsageInterval > time.Minute) {
		errs = append(errs, fmt.Errorf("usage-interval: %s is not 0 (off) or between 1s and 1m", c.UsageInterval))
	}
	if len(c.NodeID) > 64 || strings.ContainsFunc(c.NodeID, func(r rune) bool { return r <= ' ' || r == 0x7f }) {
		errs = append(errs, fmt.Errorf("node-id: %q must be at most 64 characters without spaces or control characters", c.NodeID))
	}
	if c.ShutdownGrace <= 0 {
		errs = append(errs, errors.New("shutdown-grace: must be positive"))
	}
	if c.LogFormat != "text" && c.LogFormat != "json" {
		errs = append(errs, fmt.Errorf("log-format: %q is not text or json", c.LogFormat))
	}
	if c.TokenIssuer == "" {
		errs = append(errs, errors.New("token-issuer: must not be empty"))
	}
	if c.TokenAudience == "" {
		errs = append(errs, errors.New("token-audience: must not be empty"))
	}
	if c.QueueSize < 16 || c.QueueSize > 1<<20 {
		errs = append(errs, fmt.Errorf("queue-size: %d is not between 16 and 1048576", c.QueueSize))
	}
	if c.SlowPolicy != "drop" && c.SlowPolicy != "disconnect" {
		errs = append(errs, fmt.Errorf("slow-policy: %q is not drop or disconnect", c.SlowPolicy))
	}
	if c.CacheSize < 0 || c.CacheSize > 1<<16 {
		errs = append(errs, fmt.Errorf("cache-size: %d is not between 0 and 65536", c.CacheSize))
	}
	if c.DebugAddr != "" {
		if err := validHostPort(c.DebugAddr); err != nil {
			errs = append(errs, fmt.Errorf("debug-addr: %w", err))
		}
	}
	if c.MaxSubscriptions < 1 {
		errs = append(errs, fmt.Errorf("max-subscriptions: must be at least 1"))
	}
	if c.TopicCheckInterval < 100*time.Millisecond || c.TopicCheckInterval > time.Hour {
		errs = append(errs, fmt.Errorf("topic-check-interval: %s is not between 100ms and 1h", c.TopicCheckInterval))
	}
	if c.TopicGoneAfter < 0 {
		errs = append(errs, errors.New("topic-gone-after: must not be negative"))
	}
	errs = append(errs, c.Serving.validate()...)
	errs = append(errs, c.validateKafkaSecurity()...)
	errs = append(errs, c.validateRegistry()...)
	return errors.Join(errs...)
}

func validHostPort(s string) error {
	_, port, err := net.SplitHostPort(s)
	if err != nil {
		return fmt.Errorf("%q is not host:port", s)
	}
	n, err := strconv.Atoi(port)
	if err != nil || n < 0 || n > 65535 {
		return fmt.Errorf("%q has an invalid port", s)
	}
	return nil
}
