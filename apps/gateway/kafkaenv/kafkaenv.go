// Package kafkaenv gives Go programs outside the gateway (the benchmarks in
// bench/) the gateway's own Kafka connection settings: the KAFKA_SECURITY_PROTOCOL,
// KAFKA_TLS_* and KAFKA_SASL_* variables, checked by the gateway's rules and
// turned into franz-go options by the code the gateway's clients use, so a
// benchmark reaches a secured cluster exactly as the gateway does.
package kafkaenv

import (
	"strings"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sluicehq/sluice/apps/gateway/internal/config"
)

// Settings are what a client needs to connect securely.
type Settings struct {
	// Opts secure a client's connections (TLS dialer, SASL); add them to
	// kgo.NewClient's options.
	Opts []kgo.Opt
	// Explain prefixes a connection error with the setting to fix when one
	// explains it, like the gateway's own log lines.
	Explain func(error) error
}

// Load reads the settings from getenv (os.Getenv in a program). A wrong one
// is an error naming its variable, never a secret. Only the Kafka security
// variables are read: the rest of the gateway's configuration stays at its
// defaults, whatever else the environment holds.
func Load(getenv func(string) string) (Settings, error) {
	security := func(name string) string {
		if name == "KAFKA_SECURITY_PROTOCOL" || strings.HasPrefix(name, "KAFKA_TLS_") || strings.HasPrefix(name, "KAFKA_SASL_") {
			return getenv(name)
		}
		return ""
	}
	cfg, err := config.Load(nil, security)
	if err != nil {
		return Settings{}, err
	}
	sec, err := cfg.KafkaSecurity()
	if err != nil {
		return Settings{}, err
	}
	return Settings{Opts: sec.Opts(), Explain: sec.Explain}, nil
}
