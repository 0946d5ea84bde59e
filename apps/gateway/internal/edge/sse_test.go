package edge

import (
	"bytes"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/sluicehq/sluice/apps/gateway/internal/hub"
	"github.com/sluicehq/sluice/apps/gateway/internal/metrics"
	"github.com/sluicehq/sluice/apps/gateway/internal/protocol"
)

func newTestSSEStream(t *testing.T, capacity int, policy SlowPolicy) *sseStream {
	s := New(Options{Metrics: metrics.New(), SlowPolicy: policy, QueueSize: capacity})
	t.Cleanup(s.cancel)
	return &sseStream{srv: s, out: newSSEQueue(s.opt), wake: make(chan struct{}, 1), reason: make(chan struct{})}
}

// Under the disconnect policy an overflowing SSE queue ends the stream with one
// closing event (it used to recurse between push and terminate until the
// goroutine's stack overflowed, which kills the whole gateway).
func TestSSEOverflowUnderDisconnectPolicyEndsWithOneClosingEvent(t *testing.T) {
	st := newTestSSEStream(t, 2, PolicyDisconnect)
	for seq := int64(1); seq <= 4; seq++ {
		st.push(frame("/a/1", seq))
	}
	select {
	case <-st.reason:
	default:
		t.Fatal("the stream was not ended")
	}
	var closings, frames int
	for batch := st.out.take(); batch != nil; batch = st.out.take() {
		for _, it := range batch {
			if it.frame != nil {
				frames++
			} else if bytes.HasPrefix(it.raw, []byte("event: closing\n")) && bytes.Contains(it.raw, []byte(`"code":4029`)) {
				closings++
			}
		}
	}
	if frames != 2 || closings != 1 {
		t.Fatalf("queued %d frames and %d closing events, want 2 and 1", frames, closings)
	}
}

// terminate from several causes (expiry, revocation, slow consumer) queues one
// closing event, and nothing is queued after it.
func TestSSETerminateQueuesOneClosingEventLast(t *testing.T) {
	st := newTestSSEStream(t, 8, PolicyDrop)
	st.push(frame("/a/1", 1))
	st.terminate(4009, "token revoked")
	st.terminate(4008, "token expired")
	st.push(frame("/a/1", 2))
	var got []item
	for batch := st.out.take(); batch != nil; batch = st.out.take() {
		got = append(got, batch...)
	}
	if len(got) != 2 || got[0].frame == nil || !bytes.Contains(got[1].raw, []byte(`"code":4009`)) {
		t.Fatalf("queue = %d items, want the frame then one closing event (4009)", len(got))
	}
}

// Under the drop policy the gap notice replacing a dropped backlog is a whole
// "gap" event (it used to be bare JSON in the event stream).
func TestSSEDroppedBacklogBecomesAGapEvent(t *testing.T) {
	st := newTestSSEStream(t, 2, PolicyDrop)
	for seq := int64(1); seq <= 3; seq++ {
		st.push(frame("/a/1", seq))
	}
	batch := st.out.take()
	if len(batch) != 2 || batch[1].frame == nil || batch[1].frame.Seq != 3 {
		t.Fatalf("queue = %+v, want the gap then message 3", batch)
	}
	if ev := string(batch[0].raw); !strings.HasPrefix(ev, "event: gap\ndata: {") || !strings.HasSuffix(ev, "}\n\n") || !strings.Contains(ev, `"from_seq":1,"to_seq":3`) {
		t.Fatalf("gap event = %q", ev)
	}
}

// The stream opens with the subscribed comment and, as the id of an event
// without data, where delivery starts: an EventSource that reconnects before
// the first message sends it back as Last-Event-ID, which resumes from there
// (-1, before offset 0, included).
func TestSSEStartsWithTheSubscribedPositionAsLastEventID(t *testing.T) {
	got := string(appendSubscribed(nil, "/a/1", &hub.Subscription{Epoch: "E", Partition: 2, Seq: -1}))
	if want := ": subscribed /a/1\nid: E:2:-1\n\n"; got != want {
		t.Fatalf("opening block %q, want %q", got, want)
	}
	r := httptest.NewRequest("GET", "/sse/a/1", nil)
	r.Header.Set("Last-Event-ID", "E:2:-1")
	from, perr := sseFrom(r)
	if perr != nil || from != (protocol.From{Kind: protocol.FromPosition, Epoch: "E", Partition: 2, Seq: -1}) {
		t.Fatalf("Last-Event-ID E:2:-1 -> %+v, %v", from, perr)
	}
	r.Header.Set("Last-Event-ID", "E:2:-2")
	if _, perr := sseFrom(r); perr == nil {
		t.Fatal("E:2:-2 accepted")
	}
}
