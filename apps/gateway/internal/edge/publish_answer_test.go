package edge

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/sluicehq/sluice/apps/gateway/internal/auth"
	"github.com/sluicehq/sluice/apps/gateway/internal/catalog"
	"github.com/sluicehq/sluice/apps/gateway/internal/hub"
	"github.com/sluicehq/sluice/apps/gateway/internal/metrics"
	"github.com/sluicehq/sluice/apps/gateway/internal/protocol"
)

// heldKafka keeps every produced record's callback until the test answers it,
// as an idempotent producer does while a request carrying the record is
// unanswered (a broker outage).
type heldKafka struct {
	mu   sync.Mutex
	held []func(int32, int64, error)
}

func (k *heldKafka) Produce(_ context.Context, _ string, _, _ []byte, _ []hub.Header, done func(int32, int64, error)) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.held = append(k.held, done)
}

func (k *heldKafka) Meta(context.Context, string) (hub.TopicMeta, error) {
	return hub.TopicMeta{Epoch: "e1", Partitions: 1}, nil
}

func (k *heldKafka) answer(partition int32, offset int64, err error) {
	k.mu.Lock()
	done := k.held[0]
	k.held = k.held[1:]
	k.mu.Unlock()
	done(partition, offset, err)
}

type publishAnswer struct {
	ack protocol.Published
	err *protocol.Error
}

func publishOnce(t *testing.T, s *Edge) <-chan publishAnswer {
	t.Helper()
	answers := make(chan publishAnswer, 2) // room for a second answer, which must not come
	p, perr := protocol.ParsePath("/orders/A-1")
	if perr != nil {
		t.Fatal(perr)
	}
	s.publish(context.Background(), &auth.Claims{App: "app-1"}, p, &catalog.Endpoint{ID: "ep-1", Path: "/orders/{id}"}, []byte("A-1"), []byte(`{}`),
		func(ack protocol.Published, err *protocol.Error) { answers <- publishAnswer{ack, err} })
	return answers
}

func newPublishEdge(t *testing.T, k Kafka, timeout time.Duration) *Edge {
	t.Helper()
	s := New(Options{Kafka: k, Metrics: metrics.New(), PublishTimeout: timeout})
	t.Cleanup(func() { s.cancel() })
	return s
}

func TestPublishIsAnsweredAtTheTimeoutWhenKafkaHoldsTheRecord(t *testing.T) {
	k := &heldKafka{}
	s := newPublishEdge(t, k, 50*time.Millisecond)
	answers := publishOnce(t, s)
	select {
	case a := <-answers:
		if a.err == nil || a.err.Code != protocol.CodePublishUnconfirmed {
			t.Fatalf("answer at the timeout: %+v, want error %d", a, protocol.CodePublishUnconfirmed)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no answer 5 s after a 50 ms publish timeout")
	}
	// Kafka's acknowledgement arrives later: counted, but not answered twice.
	k.answer(0, 7, nil)
	select {
	case a := <-answers:
		t.Fatalf("a second answer: %+v", a)
	case <-time.After(50 * time.Millisecond):
	}
	var m dto.Metric
	if err := s.opt.Metrics.MessagesIn.Write(&m); err != nil {
		t.Fatal(err)
	}
	if n := m.GetCounter().GetValue(); n != 1 {
		t.Fatalf("messages_in %v after the late acknowledgement, want 1: the message is in Kafka", n)
	}
}

func TestPublishAnswersKafkaBeforeTheTimeoutOnce(t *testing.T) {
	k := &heldKafka{}
	s := newPublishEdge(t, k, 200*time.Millisecond)
	answers := publishOnce(t, s)
	k.answer(0, 42, nil)
	a := <-answers
	if a.err != nil || a.ack.Seq != 42 || a.ack.Epoch != "e1" {
		t.Fatalf("answer %+v, want published at seq 42 of epoch e1", a)
	}
	select {
	case a := <-answers:
		t.Fatalf("the timeout answered too: %+v", a)
	case <-time.After(400 * time.Millisecond):
	}
}

func TestPublishFailureSaysWhetherTheMessageCanBeWritten(t *testing.T) {
	cases := []struct {
		name string
		err  error
		code protocol.Code
	}{
		{"a refusal of the record is not written", fmtWrap(hub.ErrNotWritten, kerr.MessageTooLarge), protocol.CodeUnavailable},
		{"the topic's ACL", fmtWrap(hub.ErrTopicAccessDenied, kerr.TopicAuthorizationFailed), protocol.CodeTopicAccessDenied},
		{"a timeout after sending is unknown", context.DeadlineExceeded, protocol.CodePublishUnconfirmed},
		{"a lost connection is unknown", errors.New("broker closed the connection"), protocol.CodePublishUnconfirmed},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			k := &heldKafka{}
			s := newPublishEdge(t, k, time.Minute)
			answers := publishOnce(t, s)
			k.answer(-1, -1, tc.err)
			if a := <-answers; a.err == nil || a.err.Code != tc.code {
				t.Fatalf("answer %+v, want error %d", a, tc.code)
			}
		})
	}
	if got := protocol.CodePublishUnconfirmed.HTTPStatus(); got != 504 {
		t.Fatalf("HTTP status of 5004: %d, want 504", got)
	}
}

func fmtWrap(outer, inner error) error { return errors.Join(outer, inner) }
