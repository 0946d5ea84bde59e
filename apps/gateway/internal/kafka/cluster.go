package kafka

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sluicehq/sluice/apps/gateway/internal/hub"
)

// Cluster holds the shared client (metadata, offsets, produce) of one node,
// and builds its consumers' clients from the same ClientOptions.
type Cluster struct {
	opts    ClientOptions
	log     *slog.Logger
	cl      *kgo.Client
	adm     *kadm.Client
	keyPart kgo.TopicPartitioner

	metaMu sync.Mutex
	meta   map[string]cachedMeta

	// CheckEvery is how often a live consumer asks Kafka for its topic's id and
	// partition count; a fetch error makes it ask at once. GoneAfter is how long
	// the topic may be missing before the consumer reports it gone. Set before
	// the first Consume.
	CheckEvery time.Duration
	GoneAfter  time.Duration

	// checkMeta is what a live consumer's topic check asks: fetchMeta, or in
	// a test one that hangs.
	checkMeta func(ctx context.Context, topic string) (hub.TopicMeta, error)
}

// New connects lazily: nothing is sent until the first request.
func New(opts ClientOptions) (*Cluster, error) {
	cl, err := opts.newClient("sluice-gateway",
		// acks=all with idempotence is franz-go's default; stated here because
		// "acknowledged" in the protocol means exactly this.
		kgo.RequiredAcks(kgo.AllISRAcks()),
		kgo.ProducerLinger(0),
		kgo.RecordDeliveryTimeout(10*time.Second),
		kgo.MetadataMinAge(time.Second),
	)
	if err != nil {
		return nil, err
	}
	c := &Cluster{
		opts:    opts,
		log:     opts.logger(),
		cl:      cl,
		adm:     kadm.NewClient(cl),
		keyPart: kgo.StickyKeyPartitioner(nil).ForTopic(""),
		meta:    map[string]cachedMeta{},

		CheckEvery: 2 * time.Second,
		GoneAfter:  30 * time.Second,
	}
	c.checkMeta = c.fetchMeta
	return c, nil
}

// Close releases the shared client.
func (c *Cluster) Close() { c.cl.Close() }
