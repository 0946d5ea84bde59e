package main

import (
	"log"
	"os"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sluicehq/sluice/apps/gateway/kafkaenv"
)

// newKafkaClient is every Kafka client of the benchmark (the producer, the
// Kafka-only probe, the offset reader): brokers, then the gateway's own
// security settings from KAFKA_SECURITY_PROTOCOL, KAFKA_TLS_* and
// KAFKA_SASL_* (the gateway the benchmark starts inherits the same
// environment), then opts.
func newKafkaClient(brokers string, opts ...kgo.Opt) (*kgo.Client, error) {
	security, err := kafkaenv.Load(os.Getenv)
	if err != nil {
		log.Fatalf("Kafka settings: %v", err)
	}
	base := append([]kgo.Opt{kgo.SeedBrokers(brokers)}, security.Opts...)
	cl, err := kgo.NewClient(append(base, opts...)...)
	if err != nil {
		return nil, security.Explain(err)
	}
	return cl, nil
}
