package edge

import (
	"bytes"
	"strings"
	"testing"

	"github.com/sluicehq/sluice/apps/gateway/internal/metrics"
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
