package config

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestDefaultsAreValid(t *testing.T) {
	cfg, err := Load(nil, env(nil))
	if err != nil {
		t.Fatalf("defaults do not validate: %v", err)
	}
	if cfg.Addr != "127.0.0.1:8080" || cfg.CatalogTopic != "__sluice_catalog" {
		t.Fatalf("unexpected defaults: %+v", cfg)
	}
}

func TestFlagsOverrideEnv(t *testing.T) {
	cfg, err := Load(
		[]string{"-addr", "127.0.0.1:9999", "-shutdown-grace", "3s"},
		env(map[string]string{"SLUICE_GATEWAY_ADDR": "127.0.0.1:1111", "KAFKA_BROKERS": "a:1, b:2"}),
	)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Addr != "127.0.0.1:9999" {
		t.Errorf("addr = %q, want the flag's value", cfg.Addr)
	}
	if strings.Join(cfg.KafkaBrokers, ",") != "a:1,b:2" {
		t.Errorf("brokers = %v, want [a:1 b:2] from the env", cfg.KafkaBrokers)
	}
	if cfg.ShutdownGrace != 3*time.Second {
		t.Errorf("shutdown grace = %v", cfg.ShutdownGrace)
	}
}

func TestValidateNamesEveryBadField(t *testing.T) {
	_, err := Load(
		[]string{"-addr", "nope", "-kafka-brokers", "x", "-log-format", "xml", "-shutdown-grace", "0s"},
		env(nil),
	)
	if err == nil {
		t.Fatal("want an error")
	}
	for _, field := range []string{"addr:", "kafka-brokers:", "log-format:", "shutdown-grace:"} {
		if !strings.Contains(err.Error(), field) {
			t.Errorf("error %q does not name %s", err, field)
		}
	}
}

func TestBadEnvDurationIsNamed(t *testing.T) {
	_, err := Load(nil, env(map[string]string{"SLUICE_SHUTDOWN_GRACE": "soon"}))
	if err == nil || !strings.Contains(err.Error(), "SLUICE_SHUTDOWN_GRACE") {
		t.Fatalf("err = %v, want one naming SLUICE_SHUTDOWN_GRACE", err)
	}
}

func TestTopicWatchSettings(t *testing.T) {
	cfg, err := Load([]string{"-topic-gone-after", "1m"}, env(map[string]string{"SLUICE_TOPIC_CHECK_INTERVAL": "500ms"}))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.TopicCheckInterval != 500*time.Millisecond || cfg.TopicGoneAfter != time.Minute {
		t.Fatalf("check %v, gone after %v", cfg.TopicCheckInterval, cfg.TopicGoneAfter)
	}
	if _, err := Load([]string{"-topic-check-interval", "1ms"}, env(nil)); err == nil || !strings.Contains(err.Error(), "topic-check-interval:") {
		t.Fatalf("err = %v, want one naming topic-check-interval", err)
	}
	if _, err := Load(nil, env(map[string]string{"SLUICE_TOPIC_GONE_AFTER": "later"})); err == nil || !strings.Contains(err.Error(), "SLUICE_TOPIC_GONE_AFTER") {
		t.Fatalf("err = %v, want one naming SLUICE_TOPIC_GONE_AFTER", err)
	}
}

func TestIOUringSetting(t *testing.T) {
	for _, tc := range []struct {
		args []string
		env  map[string]string
		want bool
	}{
		{nil, nil, true},
		{nil, map[string]string{"SLUICE_IO_URING": "FALSE"}, false},
		{[]string{"-io-uring=true"}, map[string]string{"SLUICE_IO_URING": "false"}, true},
		{[]string{"-io-uring=false"}, nil, false},
	} {
		cfg, err := Load(tc.args, env(tc.env))
		if err != nil {
			t.Fatalf("%v %v: %v", tc.args, tc.env, err)
		}
		if cfg.IOUring != tc.want {
			t.Errorf("%v %v: IOUring = %t, want %t", tc.args, tc.env, cfg.IOUring, tc.want)
		}
		if !strings.Contains(cfg.Describe(), fmt.Sprintf("io-uring=%t\n", tc.want)) {
			t.Errorf("Describe does not say io-uring=%t", tc.want)
		}
	}
	if _, err := Load(nil, env(map[string]string{"SLUICE_IO_URING": "yes"})); err == nil || !strings.Contains(err.Error(), "SLUICE_IO_URING") || !strings.Contains(err.Error(), "true or false") {
		t.Fatalf("err = %v, want one naming SLUICE_IO_URING and its values", err)
	}
}
