package main

import (
	"context"
	"flag"
	"log"
	"os"
	"strconv"
	"strings"
	"time"
)

// chaosLoadSettings are the flags that make a fault run's load look like
// production beside the WebSocket subscribers and the direct producer: SSE
// subscribers, and publishers through the gateway whose every
// acknowledgement is checked (issue 18).
type chaosLoadSettings struct {
	sseFraction float64
	// gatewayPublishers: the transports (ws, http) of the publishers
	// through the gateway; each gets pubConns connections sharing pubRate
	// publishes per second.
	gatewayPublishers string
	pubConns          int
	pubRate           float64
	pubInflight       int
}

func (l *chaosLoadSettings) register(fs *flag.FlagSet) {
	fs.Float64Var(&l.sseFraction, "sse-fraction", 0.2, "share of the clients that subscribe with Server-Sent Events (resuming with Last-Event-ID) instead of WebSocket")
	fs.StringVar(&l.gatewayPublishers, "gateway-publishers", "ws,http", "transports of the publishers through the gateway nodes (ws, http; comma-separated; \"\" for none), beside the direct Kafka producer")
	fs.IntVar(&l.pubConns, "gateway-pub-conns", 20, "publisher connections per gateway-publisher transport, each on a key of its own (subscribed to by some clients)")
	fs.Float64Var(&l.pubRate, "gateway-pub-rate", 100, "publishes per second per gateway-publisher transport, all its connections together")
	fs.IntVar(&l.pubInflight, "gateway-pub-inflight", 16, "unacknowledged publishes per WebSocket publisher connection (HTTP: one request at a time)")
}

func (l *chaosLoadSettings) check() {
	if l.sseFraction < 0 || l.sseFraction > 1 {
		log.Fatalf("-sse-fraction %v: want 0..1", l.sseFraction)
	}
	for _, tr := range l.transports() {
		if tr != "ws" && tr != "http" {
			log.Fatalf("-gateway-publishers: unknown %q; want ws, http or both", tr)
		}
	}
	if len(l.transports()) > 0 && (l.pubConns < 1 || l.pubRate <= 0) {
		log.Fatal("-gateway-pub-conns and -gateway-pub-rate must be positive with -gateway-publishers")
	}
}

func (l *chaosLoadSettings) transports() []string {
	var out []string
	for _, tr := range strings.Split(l.gatewayPublishers, ",") {
		if tr = strings.TrimSpace(tr); tr != "" {
			out = append(out, tr)
		}
	}
	return out
}

// operations the run's endpoint allows and its token grants.
func (l *chaosLoadSettings) operations() []string {
	if len(l.transports()) > 0 {
		return []string{"subscribe", "publish"}
	}
	return []string{"subscribe"}
}

// loadPublisher is the run's steady load: the direct Kafka producer on keys
// k0..k<keys-1>, and with -gateway-publishers the publishers through both
// nodes on keys of their own after those.
func (r *chaosRun) loadPublisher(token string, from time.Time) loadPublisher {
	s, l := r.s, r.c.load
	direct := newKafkaPublisher(s.kafka, r.topic, s.keys, s.payload, s.keyPeriod)
	if len(l.transports()) == 0 {
		return direct
	}
	dir, err := os.MkdirTemp("", "sluice-chaos-acks-")
	must(err)
	var nodes []string
	for _, n := range r.nodes {
		nodes = append(nodes, n.addr)
	}
	r.gwPub = newGatewayPublisher(l.transports(), nodes, l.pubConns, l.pubRate, l.pubInflight, s.payload, r.topic, token, dir, 0, from,
		[]string{"-backoff-initial", r.c.backoffInitial.String(), "-backoff-max", r.c.backoffMax.String()})
	return &loadPublishers{parts: []loadPublisher{direct, r.gwPub}}
}

// clientLoadFlags are the load generators' flags for SSE clients and for
// subscribing to the gateway publishers' keys too.
func (r *chaosRun) clientLoadFlags() []string {
	flags := []string{"-sse-fraction", strconv.FormatFloat(r.c.load.sseFraction, 'f', -1, 64)}
	if r.gwPub != nil {
		flags = append(flags, "-extra-keys", strings.Join(r.gwPub.keys, ","))
	}
	return flags
}

// readBack reads the data topic back: the direct producer's keys, then the
// gateway publishers' (in the ledger's order), whose records also go through
// the acknowledgement check.
func (r *chaosRun) readBack(ctx context.Context) *kafkaHolds {
	index := make(map[string]int, r.s.keys)
	for k := range r.s.keys {
		index["k"+strconv.Itoa(k)] = k
	}
	if r.gwPub == nil {
		return readBackKeys(ctx, r.s.kafka, r.topic, index, nil)
	}
	for i, key := range r.gwPub.keys {
		index[key] = r.s.keys + i
	}
	h := readBackKeys(ctx, r.s.kafka, r.topic, index, r.gwPub.checkRecord)
	r.gwPub.finish()
	return h
}
