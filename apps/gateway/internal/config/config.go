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
	// ShutdownGrace is how long a graceful shutdown waits for open requests.
	// Env SLUICE_SHUTDOWN_GRACE, flag -shutdown-grace. Default 10s.
	ShutdownGrace time.Duration
	// LogFormat is "text" or "json". Env SLUICE_LOG_FORMAT, flag -log-format. Default text.
	LogFormat string
}

// Defaults returns the configuration used when nothing is set.
func Defaults() Config {
	return Config{
		Addr:          "127.0.0.1:8080",
		KafkaBrokers:  []string{"127.0.0.1:9092"},
		CatalogTopic:  "__sluice_catalog",
		ShutdownGrace: 10 * time.Second,
		LogFormat:     "text",
	}
}

// Load builds the configuration from defaults, then the environment, then args.
func Load(args []string, getenv func(string) string) (Config, error) {
	cfg := Defaults()
	if err := cfg.applyEnv(getenv); err != nil {
		return cfg, err
	}
	fs := flag.NewFlagSet("gateway", flag.ContinueOnError)
	fs.SetOutput(os.Stderr)
	fs.StringVar(&cfg.Addr, "addr", cfg.Addr, "listen address host:port (env SLUICE_GATEWAY_ADDR)")
	brokers := fs.String("kafka-brokers", strings.Join(cfg.KafkaBrokers, ","), "Kafka bootstrap brokers, comma-separated (env KAFKA_BROKERS)")
	fs.StringVar(&cfg.CatalogTopic, "catalog-topic", cfg.CatalogTopic, "compacted catalog topic (env SLUICE_CATALOG_TOPIC)")
	fs.DurationVar(&cfg.ShutdownGrace, "shutdown-grace", cfg.ShutdownGrace, "graceful shutdown timeout (env SLUICE_SHUTDOWN_GRACE)")
	fs.StringVar(&cfg.LogFormat, "log-format", cfg.LogFormat, "log format: text or json (env SLUICE_LOG_FORMAT)")
	if err := fs.Parse(args); err != nil {
		return cfg, err
	}
	if fs.NArg() > 0 {
		return cfg, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	cfg.KafkaBrokers = splitList(*brokers)
	return cfg, cfg.Validate()
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
	if v := getenv("SLUICE_SHUTDOWN_GRACE"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			return fmt.Errorf("SLUICE_SHUTDOWN_GRACE: %q is not a duration such as 10s", v)
		}
		c.ShutdownGrace = d
	}
	if v := getenv("SLUICE_LOG_FORMAT"); v != "" {
		c.LogFormat = v
	}
	return nil
}

// Describe renders the configuration one field a line, for checkconfig. It holds
// no secrets today; a secret field added later must be masked here.
func (c Config) Describe() string {
	return fmt.Sprintf("addr=%s\nkafka-brokers=%s\ncatalog-topic=%s\nshutdown-grace=%s\nlog-format=%s\n",
		c.Addr, strings.Join(c.KafkaBrokers, ","), c.CatalogTopic, c.ShutdownGrace, c.LogFormat)
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
	if c.ShutdownGrace <= 0 {
		errs = append(errs, errors.New("shutdown-grace: must be positive"))
	}
	if c.LogFormat != "text" && c.LogFormat != "json" {
		errs = append(errs, fmt.Errorf("log-format: %q is not text or json", c.LogFormat))
	}
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
