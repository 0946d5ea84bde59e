package kafka

import (
	"context"
	"log/slog"
	"math/rand/v2"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// ClientOptions are what every Kafka client of a node is built from: the live
// consumers, the catch-up readers, the shared producer and metadata client,
// and the catalog reader. A setting that applies to every connection (TLS,
// SASL) belongs here and in clientOpts, nowhere else.
type ClientOptions struct {
	// Brokers are the bootstrap brokers.
	Brokers []string
	// Security secures every connection (TLS, SASL); the zero value is
	// plaintext.
	Security Security
	// Logger receives the Cluster's warnings and, for the clients that log
	// them (the catalog reader), franz-go's; nil discards.
	Logger *slog.Logger
}

func (o ClientOptions) logger() *slog.Logger {
	if o.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return o.Logger
}

// clientOpts are the options every client starts from: where the brokers are,
// how to connect to them (dialBroker, in TLS when o.Security says so), how to
// authenticate (SASL) and the client id brokers see.
func (o ClientOptions) clientOpts(clientID string) []kgo.Opt {
	return append([]kgo.Opt{kgo.SeedBrokers(o.Brokers...), kgo.ClientID(clientID)}, o.Security.Opts()...)
}

// newClient builds a client from clientOpts and the options of its job.
func (o ClientOptions) newClient(clientID string, job ...kgo.Opt) (*kgo.Client, error) {
	return kgo.NewClient(append(o.clientOpts(clientID), job...)...)
}

// brokerDialTimeout is franz-go's default, which our dialer (dialBroker)
// replaces.
const brokerDialTimeout = 10 * time.Second

// NewCatalogReader returns a client that reads every partition of topic from
// its beginning with a direct consumer (no consumer group, no committed
// offsets: every node reads the whole log). It reads committed records only
// (those of aborted transactions are not catalog state) but keeps control
// records, so that the reader can track its position past transaction markers
// (a log ending in one is still read "to the end").
// franz-go's warnings and errors go to o.Logger, prefixed "catalog: kafka
// client: ".
func NewCatalogReader(o ClientOptions, topic string) (*kgo.Client, error) {
	return o.newClient("sluice-gateway-catalog",
		kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()),
		kgo.KeepControlRecords(),
		// A missing topic is looked up again this often.
		kgo.MetadataMinAge(time.Second),
		kgo.WithLogger(kgoLogger{log: o.logger(), prefix: "catalog: kafka client: "}),
	)
}

// NewUsageReader returns a client that reads every partition of the usage
// topic from the records written since (a direct consumer: every node reads
// the other nodes' latest usage records). franz-go's warnings and errors go to
// o.Logger, prefixed "usage: kafka client: ".
func NewUsageReader(o ClientOptions, topic string, since time.Time) (*kgo.Client, error) {
	return o.newClient("sluice-gateway-usage",
		kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AfterMilli(since.UnixMilli())),
		kgo.MetadataMinAge(5*time.Second),
		kgo.WithLogger(kgoLogger{log: o.logger(), prefix: "usage: kafka client: "}),
	)
}

// NewUsageWriter returns the client a node writes its usage records with:
// uncompressed, because the bridge reads them with kafkajs, which has no
// Snappy (franz-go's default), and a record is small and written every few
// seconds.
func NewUsageWriter(o ClientOptions) (*kgo.Client, error) {
	return o.newClient("sluice-gateway-usage-writer",
		kgo.ProducerBatchCompression(kgo.NoCompression()),
		kgo.MetadataMinAge(5*time.Second),
		kgo.WithLogger(kgoLogger{log: o.logger(), prefix: "usage: kafka client: "}),
	)
}

// kgoLogger passes franz-go's warnings and errors to slog.
type kgoLogger struct {
	log    *slog.Logger
	prefix string
}

func (kgoLogger) Level() kgo.LogLevel { return kgo.LogLevelWarn }

func (l kgoLogger) Log(level kgo.LogLevel, msg string, keyvals ...any) {
	lv := slog.LevelWarn
	if level == kgo.LogLevelError {
		lv = slog.LevelError
	}
	l.log.Log(context.Background(), lv, l.prefix+msg, keyvals...)
}

// Backoff is the wait between retries of a Kafka request that failed:
// exponential from First, doubling up to Max, with jitter (each wait is
// between half and all of the step), so a fleet of gateways does not retry
// in step. The zero value is not usable; set First and Max.
type Backoff struct {
	First, Max time.Duration
	n          int
}

// Next returns the wait before the next retry.
func (b *Backoff) Next() time.Duration {
	d := b.First
	for i := 0; i < b.n && d < b.Max; i++ {
		d *= 2
	}
	d = min(d, b.Max)
	b.n++
	return d/2 + rand.N(d/2+1)
}

// Reset starts again from First (the request succeeded).
func (b *Backoff) Reset() { b.n = 0 }

// Sleep waits d, or less if ctx ends first; it reports whether it waited d.
func Sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
