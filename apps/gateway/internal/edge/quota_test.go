package edge

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/sluicehq/sluice/apps/gateway/internal/catalog"
	"github.com/sluicehq/sluice/apps/gateway/internal/metrics"
	"github.com/sluicehq/sluice/apps/gateway/internal/protocol"
	"github.com/sluicehq/sluice/apps/gateway/internal/quota"
)

type appLimits map[string][]catalog.Limit

func (l appLimits) AppLimits(app string) []catalog.Limit { return l[app] }

type noEndpoints struct{}

func (noEndpoints) Resolve(protocol.Path) *catalog.Endpoint { return nil }

// Messages over the app's delivery rate are not queued: a gap with reason
// quota takes the first one's place and grows over the refused ones of its
// endpoint and place until one of them is delivered again; once the writer
// took it, a new refusal starts a new gap. Other endpoints' messages (not
// under the plan) pass.
func TestDeliveriesOverTheRateBecomeAQuotaGap(t *testing.T) {
	limits := appLimits{"a": {{Plan: "p", Patterns: []string{"/prices/*"}, DeliveredPerSecond: 2}}}
	s := &Edge{opt: Options{Metrics: metrics.New(), Catalog: noEndpoints{}, Quota: quota.New(limits, nil)}}
	q := &outQueue{capacity: 100, policy: PolicyDrop, notice: func(g protocol.Gap) []byte { return protocol.Encode(g) }}
	s.limitDeliveries(q, "a")
	for seq := int64(10); seq < 15; seq++ {
		q.push(frame("/prices/A", seq))
		q.push(frame("/news/B", seq)) // not under the plan
	}
	var got []string
	for _, it := range q.take() {
		if it.frame != nil {
			got = append(got, fmt.Sprintf("%s %d", it.frame.Endpoint, it.frame.Seq))
			continue
		}
		var g protocol.Gap
		if err := json.Unmarshal(it.raw, &g); err != nil || g.Reason != "quota" {
			t.Fatalf("not a quota gap: %s", it.raw)
		}
		got = append(got, fmt.Sprintf("%s gap %d-%d", g.Endpoint, g.FromSeq, g.ToSeq))
	}
	want := []string{"/prices/A 10", "/news/B 10", "/prices/A 11", "/news/B 11", "/prices/A gap 12-15", "/news/B 12", "/news/B 13", "/news/B 14"}
	if len(got) != len(want) {
		t.Fatalf("queued %v\nwant   %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("queued %v\nwant   %v", got, want)
		}
	}
	// The gap went to the writer: the next refusal is a gap of its own.
	q.push(frame("/prices/A", 20))
	batch := q.take()
	if len(batch) != 1 || batch[0].frame != nil || len(batch[0].raw) == 0 {
		t.Fatalf("after the writer took the gap: %+v", batch)
	}
}

// An app without plans costs its sessions nothing per message.
func TestNoPlansNoDeliveryQuota(t *testing.T) {
	s := &Edge{opt: Options{Metrics: metrics.New(), Catalog: noEndpoints{}, Quota: quota.New(appLimits{}, nil)}}
	q := &outQueue{capacity: 10, policy: PolicyDrop}
	s.limitDeliveries(q, "a")
	if q.quota != nil {
		t.Fatal("a delivery quota for an app without plans")
	}
}
