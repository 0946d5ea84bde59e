package main

import (
	"log"
	"os"
	"strings"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sluicehq/sluice/apps/gateway/kafkaenv"
)

// newKafkaClient is every Kafka client of the benchmark (the producer, the
// Kafka-only probe, the offset reader): brokers (comma-separated), then the gateway's own
// security settings from KAFKA_SECURITY_PROTOCOL, KAFKA_TLS_* and
// KAFKA_SASL_* (the gateway the benchmark starts inherits the same
// environment), then opts.
func newKafkaClient(brokers string, opts ...kgo.Opt) (*kgo.Client, error) {
	security, err := kafkaenv.Load(os.Getenv)
	if err != nil {
		log.Fatalf("Kafka settings: %v", err)
	}
	base := append([]kgo.Opt{kgo.SeedBrokers(strings.Split(brokers, ",")...)}, security.Opts...)
	if lvl := os.Getenv("FANOUT_KAFKA_LOG"); lvl != "" {
		// The clients' own log on stderr (debug, info or warn), to see
		// what a client waits for.
		l := map[string]kgo.LogLevel{"debug": kgo.LogLevelDebug, "info": kgo.LogLevelInfo}[lvl]
		if l == 0 {
			l = kgo.LogLevelWarn
		}
		base = append(base, kgo.WithLogger(kgo.BasicLogger(os.Stderr, l, nil)))
	}
	cl, err := kgo.NewClient(append(base, opts...)...)
	if err != nil {
		return nil, security.Explain(err)
	}
	return cl, nil
}
