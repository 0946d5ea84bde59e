package kafka

import (
	"context"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sluicehq/sluice/apps/gateway/internal/hub"
)

// Read reads records from <= offset < until of one partition with a short-lived
// direct consumer, after checking that the topic is still the incarnation
// epoch. (The reading client learns the topic id itself; a recreation between
// the check and that is not caught here but by the live consumer's next check.)
func (c *Cluster) Read(ctx context.Context, topic, epoch string, partition int32, from, until int64, fn func(hub.Record) bool) error {
	if from >= until {
		return nil
	}
	m, err := c.fetchMeta(ctx, topic)
	if err != nil {
		return err
	}
	if m.Epoch != epoch {
		return hub.ErrEpochChanged
	}
	cl, err := c.opts.newClient("sluice-gateway-catchup",
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: {partition: kgo.NewOffset().At(from)}}),
		kgo.FetchMaxWait(200*time.Millisecond),
	)
	if err != nil {
		return err
	}
	defer cl.Close()
	next, empty := from, 0
	for next < until {
		fetches := cl.PollFetches(ctx)
		if err := ctx.Err(); err != nil {
			return err
		}
		var ferr error
		fetches.EachError(func(_ string, _ int32, err error) { ferr = err })
		if ferr != nil {
			return ferr
		}
		stop, past := false, false
		fetches.EachRecord(func(r *kgo.Record) {
			if r.Offset >= until {
				past = true
			}
			if stop || past {
				return
			}
			next = r.Offset + 1
			if !fn(hub.Record{Partition: r.Partition, Offset: r.Offset, Key: r.Key, Value: r.Value, TS: r.Timestamp.UnixMilli()}) {
				stop = true
			}
		})
		// A record at or past until means every offset below it was passed:
		// those not returned are holes (compacted away, transaction markers).
		// Without this a busy topic, whose fetches never come back empty,
		// kept this loop waiting for a hole forever.
		if stop || past {
			return nil
		}
		// Offsets below until may be holes (compacted away, transaction markers):
		// every record up to until already exists, so a broker that returns
		// nothing twice has nothing more to give.
		if fetches.NumRecords() == 0 {
			empty++
			if empty >= 2 {
				return nil
			}
		} else {
			empty = 0
		}
	}
	return nil
}
