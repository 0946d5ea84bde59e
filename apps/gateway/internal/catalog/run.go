package catalog

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sluicehq/sluice/apps/gateway/internal/kafka"
	"github.com/sluicehq/sluice/apps/gateway/internal/protocol"
)

// errResync ends a session whose log was recreated or rewound: the next session
// re-reads the topic from the beginning and sweeps what the new log lacks.
var errResync = errors.New("the catalog topic was recreated or rewound")

// permanentError is an error retrying cannot fix (a bad client configuration).
type permanentError struct{ err error }

func (e permanentError) Error() string { return e.err.Error() }

// listTimeout bounds one listing of the topic's offsets.
const listTimeout = 15 * time.Second

// Run reads topic from the beginning with a client built by
// kafka.NewCatalogReader from kc (a direct consumer, no consumer group, no
// committed offsets: every node reads the whole log), closes Ready once it
// has read up to the end offsets it saw at start, then tails the topic until ctx
// is done. A topic that does not exist yet is an empty catalog: Run is ready at
// once and picks the topic up when the bridge creates it. Kafka errors are
// logged and retried with backoff; Run returns nil when ctx is cancelled and an
// error only for a configuration that cannot work.
//
// The client's own warnings go to the catalog's logger, not kc.Logger.
//
// Run makes the state that of the topic: once a session has caught up, entries
// the log does not hold (applied by hand before Run, or left from a topic that
// was deleted and recreated) are removed as if tombstoned.
func (c *Catalog) Run(ctx context.Context, kc kafka.ClientOptions, topic string) error {
	if len(kc.Brokers) == 0 {
		return errors.New("catalog: no Kafka brokers given")
	}
	if perr := protocol.ValidTopic(topic); perr != nil {
		return fmt.Errorf("catalog: topic: %s", strings.TrimPrefix(perr.Message, "endpoint: "))
	}
	kc.Logger = c.log
	bo := kafka.Backoff{First: 250 * time.Millisecond, Max: 10 * time.Second}
	resync := false
	for {
		err := c.session(ctx, kc, topic, resync, &bo)
		if ctx.Err() != nil {
			return nil
		}
		var perm permanentError
		if errors.As(err, &perm) {
			return fmt.Errorf("catalog: %w", perm.err)
		}
		wait := bo.Next()
		if errors.Is(err, errResync) {
			resync = true
			c.log.Warn("catalog: the topic was recreated or rewound; re-reading it from the beginning", "topic", topic, "retry_in", wait.String())
		} else {
			// Explain names the setting to fix when TLS or SASL failed.
			c.log.Warn("catalog: Kafka error, retrying", "topic", topic, "err", kc.Security.Explain(err), "retry_in", wait.String())
		}
		if !kafka.Sleep(ctx, wait) {
			return nil
		}
	}
}

// session is one client's read of the topic: list the offsets to catch up to,
// consume from the beginning, sweep and become ready on catching up, then tail.
// It returns on ctx cancellation, on a listing error, or with errResync.
func (c *Catalog) session(ctx context.Context, kc kafka.ClientOptions, topic string, resync bool, bo *kafka.Backoff) error {
	cl, err := kafka.NewCatalogReader(kc, topic)
	if err != nil {
		return permanentError{err}
	}
	defer cl.Close()

	targets, exists, err := listTargets(ctx, kadm.NewClient(cl), topic)
	if err != nil {
		return err
	}
	if !exists {
		if resync {
			// Keep serving the last state rather than sweeping it away
			// while the topic is being recreated.
			return fmt.Errorf("topic %q does not exist", topic)
		}
		c.log.Warn("catalog: the catalog topic does not exist yet: serving an EMPTY catalog (no endpoints, no keys) until the bridge creates it",
			"topic", topic)
	}
	bo.Reset()
	prog := progress{targets: targets, next: map[int32]int64{}, highWater: map[int32]int64{}}
	seen := map[string]struct{}{} // record keys read before catching up; nil after
	if prog.done() {
		c.caughtUp(topic, seen)
		seen = nil
	}

	var errs errorLog
	for {
		fetches := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if fetches.IsClientClosed() {
			return errors.New("kafka client closed")
		}
		var fetchErr error
		recreated := false
		fetches.EachError(func(t string, p int32, err error) {
			switch {
			case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
			case errors.Is(err, kerr.UnknownTopicID):
				recreated = true
			default:
				fetchErr = fmt.Errorf("fetching %s[%d]: %w", t, p, err)
			}
		})
		if recreated {
			return errResync
		}
		for it := fetches.RecordIter(); !it.Done(); {
			r := it.Next()
			if r.Topic != topic {
				continue
			}
			if prog.rewound(r.Partition, r.Offset) {
				return errResync
			}
			prog.advance(r.Partition, r.Offset)
			if r.Attrs.IsControl() {
				continue
			}
			key := string(r.Key)
			if seen != nil {
				seen[key] = struct{}{}
			}
			c.Apply(key, r.Value)
		}
		fetches.EachPartition(func(p kgo.FetchTopicPartition) {
			if p.Topic == topic && p.HighWatermark >= 0 {
				prog.highWater[p.Partition] = p.HighWatermark
			}
		})
		c.offsetLag.Store(prog.lag())
		if seen != nil && prog.done() {
			c.caughtUp(topic, seen)
			seen = nil
		}
		if fetchErr != nil {
			errs.log(c.log, kc.Security.Explain(fetchErr))
			if fetches.NumRecords() == 0 && !kafka.Sleep(ctx, bo.Next()) {
				return ctx.Err()
			}
		} else if fetches.NumRecords() > 0 {
			bo.Reset()
		}
	}
}

// caughtUp removes the entries the log did not hold (see Run) and marks the
// catalog ready.
func (c *Catalog) caughtUp(topic string, seen map[string]struct{}) {
	swept := 0
	for _, key := range c.recordKeys() {
		if _, ok := seen[key]; !ok {
			c.apply(key, nil)
			swept++
		}
	}
	s := c.Stats()
	c.log.Info("catalog: caught up with the topic", "topic", topic, "endpoints", s.Endpoints, "keys", s.Keys,
		"apps", s.Apps, "revocations", s.Revocations, "records", s.Records, "bad_records", s.BadRecords, "swept", swept)
	c.markReady()
}

// listTargets returns, per partition holding records, the end offset to read up
// to before being ready, and whether the topic exists. The end is the last
// stable offset (what a read_committed consumer can reach).
func listTargets(ctx context.Context, adm *kadm.Client, topic string) (targets map[int32]int64, exists bool, err error) {
	ctx, cancel := context.WithTimeout(ctx, listTimeout)
	defer cancel()
	starts, err := adm.ListStartOffsets(ctx, topic)
	if err != nil {
		return nil, false, fmt.Errorf("listing start offsets: %w", err)
	}
	ends, err := adm.ListCommittedOffsets(ctx, topic)
	if err != nil {
		return nil, false, fmt.Errorf("listing end offsets: %w", err)
	}
	parts, ok := ends[topic]
	if !ok {
		return nil, false, nil
	}
	if missing, ok := parts[-1]; ok && errors.Is(missing.Err, kerr.UnknownTopicOrPartition) {
		return nil, false, nil
	}
	targets = map[int32]int64{}
	for p, end := range parts {
		if end.Err != nil {
			return nil, false, fmt.Errorf("listing the end offset of partition %d: %w", p, end.Err)
		}
		start, ok := starts[topic][p]
		if !ok {
			return nil, false, fmt.Errorf("listing the start offset of partition %d: not listed", p)
		}
		if start.Err != nil {
			return nil, false, fmt.Errorf("listing the start offset of partition %d: %w", p, start.Err)
		}
		if end.Offset > start.Offset {
			targets[p] = end.Offset
		}
	}
	return targets, true, nil
}

// progress tracks how far each partition has been read against the targets.
type progress struct {
	targets map[int32]int64 // partition → end offset to reach
	next    map[int32]int64 // partition → offset after the last record read
	// highWater is the partitions' end as the latest fetch reported it.
	highWater map[int32]int64
}

// lag is how many records of the topic are not applied yet: to the targets
// before catching up, to the high water marks fetches report after.
func (p *progress) lag() int64 {
	var n int64
	for part, end := range p.targets {
		if hw := p.highWater[part]; hw > end {
			end = hw
		}
		if d := end - p.next[part]; d > 0 {
			n += d
		}
	}
	for part, hw := range p.highWater {
		if _, ok := p.targets[part]; !ok {
			if d := hw - p.next[part]; d > 0 {
				n += d
			}
		}
	}
	return n
}

// rewound reports a record before the position: the log was reset (recreated
// topic, or an out-of-range reset to the start).
func (p *progress) rewound(partition int32, offset int64) bool {
	n, ok := p.next[partition]
	return ok && offset < n
}

func (p *progress) advance(partition int32, offset int64) { p.next[partition] = offset + 1 }

func (p *progress) done() bool {
	for part, end := range p.targets {
		if p.next[part] < end {
			return false
		}
	}
	return true
}

// errorLog logs a repeating fetch error once, then again only when it changes
// or every 30 seconds, so a broker outage does not flood the log.
type errorLog struct {
	last       string
	at         time.Time
	suppressed int
}

func (l *errorLog) log(log *slog.Logger, err error) {
	msg := err.Error()
	if msg == l.last && time.Since(l.at) < 30*time.Second {
		l.suppressed++
		return
	}
	log.Warn("catalog: Kafka fetch error, retrying", "err", msg, "repeats_suppressed", l.suppressed)
	l.last, l.at, l.suppressed = msg, time.Now(), 0
}
