package main

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// gatewayPublisher is the share of a fault run's load that goes through the
// gateway nodes: `fanout publisher` processes (publisher.go), one load per
// transport (WebSocket publish frames, HTTP POST /pub), each connection
// publishing to a key of its own on the run's data topic, starting at a random
// node of the two and moving to the other after a lost connection with the
// SDK's backoff. Every outcome is logged (acknowledged at a (partition,
// offset), error code, unanswered, never sent) with its send time; after the
// run the data topic's read-back checks every acknowledgement (verifier,
// publishverify.go) and the outcomes are counted per fault window.
//
// A publish without an answer is not sent again: the protocol has no
// idempotency key, so a blind retry could write it twice. The connection goes
// on with its next sequence number, and the read-back says whether the
// unanswered one reached Kafka (subscribers then see it, or a hole in the
// key's n that the report puts down to the publisher, not to the gateway).
//
// As a loadPublisher its ledger holds the connections' keys (key indexes 0..,
// offset by loadPublishers) with what was acknowledged, so the clients that
// subscribe to those keys are checked exactly like those of the direct
// producer's keys.
type gatewayPublisher struct {
	loads []publishLoad
	keys  []string       // every load's keys, in ledger order
	index map[string]int // key -> index in keys
	// transportOf: each publisher process's transport (the loads take
	// disjoint process ranges).
	transportOf map[uint32]string

	acks    *ackLog
	reports map[string]*publisherReport // per transport
	// inKafkaUnacked: the first few publishes answered with an error, or not
	// at all, that the topic holds all the same (the evidence for the report).
	inKafkaUnacked []string
	led            *ackLedger
	verify         *verifier
	checked        verifyResult
}

// newGatewayPublisher prepares one load per transport (ws, http) of conns
// connections sharing rate publishes per second, over every node of nodes
// (listen addresses); firstProc is the first publisher process index.
func newGatewayPublisher(transports []string, nodes []string, conns int, rate float64, inflight, payload int, topic, token, dir string, firstProc int, from time.Time, extra []string) *gatewayPublisher {
	p := &gatewayPublisher{index: map[string]int{}, transportOf: map[uint32]string{}, acks: newAckLog(), reports: map[string]*publisherReport{}}
	proc := firstProc
	for _, tr := range transports {
		var urls []string
		for _, addr := range nodes {
			if tr == "ws" {
				urls = append(urls, "ws://"+addr+"/ws")
			} else {
				urls = append(urls, "http://"+addr)
			}
		}
		l := publishLoad{transport: tr, conns: conns, procs: 1, rate: rate, inflight: inflight, payload: payload, ramp: 200,
			urls: urls, topic: topic, token: token, from: from, to: from.Add(24 * time.Hour), firstProc: proc, dir: dir,
			extra: append([]string{"-spread"}, extra...)}
		p.loads = append(p.loads, l)
		for i := range l.shares() {
			p.transportOf[uint32(proc+i)] = tr
		}
		proc += len(l.shares())
		for _, k := range l.keys() {
			p.index[k] = len(p.keys)
			p.keys = append(p.keys, k)
		}
	}
	p.led = newAckLedger(len(p.keys))
	return p
}

func (p *gatewayPublisher) describe() string {
	var parts []string
	for _, l := range p.loads {
		parts = append(parts, fmt.Sprintf("%d %s connections at %.0f/s in all", l.conns, l.transport, l.rate))
	}
	return "publishers through the gateway (" + strings.Join(parts, ", ") + ", spread over both nodes, every acknowledgement checked)"
}

func (p *gatewayPublisher) ledger() *ackLedger { return p.led }

// run starts every load, and at the stop interrupts them all at once (they
// drain their publishes in flight side by side), then gathers the outcomes.
func (p *gatewayPublisher) run(stop <-chan struct{}) {
	var runs []*publishRun
	for _, l := range p.loads {
		runs = append(runs, startPublishLoad(l))
	}
	<-stop
	for _, r := range runs {
		r.interrupt()
	}
	for i, r := range runs {
		rep := r.stop(p.acks)
		p.reports[p.loads[i].transport] = &rep
	}
	if len(p.loads) > 0 {
		_ = os.RemoveAll(p.loads[0].dir) // the outcomes are in p.acks
	}
	p.fillLedger()
}

// fillLedger turns the outcomes into the ledger: per key, the last n sent
// and which n were acknowledged.
func (p *gatewayPublisher) fillLedger() {
	for id := range p.acks.sent {
		k, ok := p.index[fmt.Sprintf("p%dc%d", id.proc, id.conn)]
		if !ok {
			continue
		}
		p.led.sent.Add(1)
		p.led.lastSent[k] = max(p.led.lastSent[k], id.n)
		if _, acked := p.acks.acked[id]; acked {
			p.led.ack(k, id.n)
		}
	}
}

// checkRecord is the read-back's hook (readBackKeys): the records of the
// gateway publishers (their payload starts with {"p":) go to the verifier.
func (p *gatewayPublisher) checkRecord(r *kgo.Record) {
	if p.verify == nil {
		p.verify = newVerifier(p.acks)
	}
	if !bytes.HasPrefix(r.Value, []byte(`{"p":`)) {
		return
	}
	p.verify.record(r.Key, r.Value, r.Partition, r.Offset)
	id := pubID{uint32(fieldInt(r.Value, `{"p":`)), uint32(fieldInt(r.Value, `"c":`)), fieldInt(r.Value, `"n":`)}
	if _, acked := p.acks.acked[id]; acked || len(p.inKafkaUnacked) >= 10 {
		return
	}
	what := "unanswered"
	if code, ok := p.acks.errored[id]; ok {
		what = "answered " + strconv.FormatInt(code, 10)
	} else if !p.acks.unanswered[id] {
		what = "without an outcome"
	}
	sent, at := p.acks.sent[id], p.acks.settled[id]
	p.inKafkaUnacked = append(p.inKafkaUnacked, fmt.Sprintf("%s n=%d (%s) sent %s, outcome %+.1f s later, appended by Kafka %+.1f s after the send at partition %d offset %d",
		r.Key, id.n, what, time.Unix(0, sent).UTC().Format("15:04:05.000"), float64(at-sent)/1e9, float64(r.Timestamp.UnixNano()-sent)/1e9, r.Partition, r.Offset))
}

// finish ends the check once the read-back is over.
func (p *gatewayPublisher) finish() {
	if p.verify == nil {
		p.verify = newVerifier(p.acks)
	}
	p.checked = p.verify.finish()
}

// pubCount is what became of the publishes of one transport whose outcome
// came in one window.
type pubCount struct {
	sent, acked int64
	// ackedMissing: acknowledged but not in Kafka (must be 0); ackedElsewhere:
	// in Kafka, but not at the acknowledged (partition, offset) or with
	// other content there (must be 0).
	ackedMissing, ackedElsewhere int64
	// ackedTwice: a second acknowledgement of one publish; inKafkaTwice: a
	// publish in Kafka more than once (extra copies; the publisher never
	// sends one twice, so any is the gateway's).
	ackedTwice, inKafkaTwice int64
	errors                   map[int64]int64 // answered with an error, by code
	errorsInKafka            int64           // ... and in Kafka all the same
	// refusedInKafka: answered with an error that says "not written" (any
	// but 5004, PROTOCOL.md "Publishing") and in Kafka all the same (must be 0).
	refusedInKafka int64
	// unanswered: in flight when the connection ended (allowed); how many
	// of them Kafka holds.
	unanswered, unansweredInKafka int64
	notSent, notSentInKafka       int64 // HTTP: the connection could not be made
	// slowAnswers: acknowledgements and error answers that came more than
	// answerBound after the send; slowest: the longest wait for one (ns).
	slowAnswers, slowest int64
}

// answerBound is the gateway's publish timeout (its -publish-timeout
// default, 10 s) plus a second: an answer later than this is one the gateway
// did not bound as it means to.
const answerBound = 11 * time.Second

// codePublishUnconfirmed is the one error answering a publish that leaves its
// outcome open: Kafka did not confirm it (PROTOCOL.md, "Publishing").
const codePublishUnconfirmed = 5004

func (c *pubCount) add(o *pubCount) {
	c.sent += o.sent
	c.acked += o.acked
	c.ackedMissing += o.ackedMissing
	c.ackedElsewhere += o.ackedElsewhere
	c.ackedTwice += o.ackedTwice
	c.inKafkaTwice += o.inKafkaTwice
	for code, n := range o.errors {
		if c.errors == nil {
			c.errors = map[int64]int64{}
		}
		c.errors[code] += n
	}
	c.errorsInKafka += o.errorsInKafka
	c.refusedInKafka += o.refusedInKafka
	c.unanswered += o.unanswered
	c.unansweredInKafka += o.unansweredInKafka
	c.notSent += o.notSent
	c.notSentInKafka += o.notSentInKafka
	c.slowAnswers += o.slowAnswers
	c.slowest = max(c.slowest, o.slowest)
}

// classifyPublishes counts every publish of l, checked by v (after finish),
// by transport and in the window (windows: [from, to) in unix ns) in which its
// outcome came: its acknowledgement, its error answer, or the end of its
// connection. Not its send time: a publish sent just before a gateway node is
// killed and left unanswered by the kill is the kill's.
func classifyPublishes(l *ackLog, v *verifier, transportOf func(proc uint32) string, windows [][2]int64) (per []map[string]*pubCount, total map[string]*pubCount) {
	per = make([]map[string]*pubCount, len(windows))
	for i := range per {
		per[i] = map[string]*pubCount{}
	}
	total = map[string]*pubCount{}
	for id, at := range l.settled {
		var c pubCount
		c.sent = 1
		copies := int64(v.found[id])
		if copies > 1 {
			c.inKafkaTwice = copies - 1
		}
		c.ackedTwice = int64(l.twice[id])
		if a, ok := l.acked[id]; ok {
			c.acked = 1
			switch {
			case a.seen && !a.wrong:
			case copies == 0:
				c.ackedMissing = 1
			default:
				c.ackedElsewhere = 1
			}
		} else if code, ok := l.errored[id]; ok {
			c.errors = map[int64]int64{code: 1}
			c.errorsInKafka = min(copies, 1)
			if code != codePublishUnconfirmed {
				c.refusedInKafka = c.errorsInKafka
			}
		} else if l.unanswered[id] {
			c.unanswered = 1
			c.unansweredInKafka = min(copies, 1)
		} else if l.notSent[id] {
			c.notSent = 1
			c.notSentInKafka = min(copies, 1)
		}
		if c.acked+int64(len(c.errors)) > 0 {
			wait := at - l.sent[id]
			c.slowest = wait
			if wait > int64(answerBound) {
				c.slowAnswers = 1
			}
		}
		tr := transportOf(id.proc)
		if total[tr] == nil {
			total[tr] = &pubCount{}
		}
		total[tr].add(&c)
		for i, w := range windows {
			if at >= w[0] && at < w[1] {
				if per[i][tr] == nil {
					per[i][tr] = &pubCount{}
				}
				per[i][tr].add(&c)
				break
			}
		}
	}
	return per, total
}

// counts is classifyPublishes over the run's windows.
func (p *gatewayPublisher) counts(windows [][2]int64) (per []map[string]*pubCount, total map[string]*pubCount) {
	return classifyPublishes(p.acks, p.verify, func(proc uint32) string { return p.transportOf[proc] }, windows)
}

// printPubCounts prints one window's (or the run's) gateway publishes, a
// line per transport.
func printPubCounts(indent string, counts map[string]*pubCount) {
	if len(counts) == 0 {
		fmt.Printf("%sgateway publishes: none sent in the window\n", indent)
		return
	}
	for _, tr := range slices.Sorted(maps.Keys(counts)) {
		c := counts[tr]
		fmt.Printf("%sgateway publishes %-4s %d settled: acknowledged %d: not in Kafka %d, elsewhere or altered %d, acknowledged twice %d, in Kafka twice %d; error answers %s (%d in Kafka, %d of them answered not written); unanswered %d (%d in Kafka); not sent %d (%d in Kafka); answered after more than %s %d (slowest %.1f s)\n",
			indent, tr, c.sent, c.acked, c.ackedMissing, c.ackedElsewhere, c.ackedTwice, c.inKafkaTwice, codesLine(c.errors), c.errorsInKafka, c.refusedInKafka, c.unanswered, c.unansweredInKafka, c.notSent, c.notSentInKafka,
			answerBound, c.slowAnswers, float64(c.slowest)/1e9)
	}
}

func codesLine(byCode map[int64]int64) string {
	if len(byCode) == 0 {
		return "0"
	}
	var parts []string
	for _, code := range slices.Sorted(maps.Keys(byCode)) {
		parts = append(parts, strconv.FormatInt(code, 10)+"×"+strconv.FormatInt(byCode[code], 10))
	}
	return strings.Join(parts, ", ")
}

// printSummary is the end of the report for the gateway publishers: what
// each transport's processes counted, the verification of every
// acknowledgement against the topic, and the run's counts per transport.
func (p *gatewayPublisher) printSummary(total map[string]*pubCount) {
	fmt.Printf("\n-- publishers through the gateway --\n")
	for _, tr := range slices.Sorted(maps.Keys(p.reports)) {
		r := p.reports[tr]
		fmt.Printf("  %-4s %d connections: %d sent, %d acknowledged, errors %s, %d unanswered, %d not sent; %d dials, %d failed; %d acknowledged twice, %d out of order, %d late sends; send -> acknowledgement ms p50 %.1f p99 %.1f max %.1f\n",
			tr, r.Conns, r.Sent, r.Acked, errorsLine(r.ErrorsByCode), r.Unanswered, r.NotSent, r.Dials, r.DialFailures, r.AckedTwice, r.OutOfOrder, r.Late,
			r.percentile(0.5), r.percentile(0.99), float64(r.MaxMicros)/1000)
		if r.outcomes() != r.Sent {
			fmt.Printf("  %s: %d publishes sent but %d outcomes logged: PUBLISHER DEFECT\n", tr, r.Sent, r.outcomes())
		}
	}
	fmt.Printf("  verification: %s\n", p.checked)
	for _, e := range p.inKafkaUnacked {
		fmt.Printf("  in Kafka without an acknowledgement: %s\n", e)
	}
	printPubCounts("  ", total)
	var missing, elsewhere, twice, refused int64
	for _, c := range total {
		missing += c.ackedMissing
		elsewhere += c.ackedElsewhere
		twice += c.ackedTwice + c.inKafkaTwice
		refused += c.refusedInKafka
	}
	if missing+elsewhere+twice+refused > 0 || p.checked.NeverAckedOther > 0 || p.checked.OutOfOrder > 0 {
		fmt.Printf("  ACKNOWLEDGEMENT CHECK FAILED: %d acknowledged but not in Kafka, %d elsewhere or altered, %d twice, %d answered 'not written' but in Kafka, %d records of publishes without an outcome, %d out of order\n",
			missing, elsewhere, twice, refused, p.checked.NeverAckedOther, p.checked.OutOfOrder)
	} else {
		fmt.Printf("  every acknowledgement holds (unanswered publishes found in Kafka are allowed: the client could not know; they were never sent again)\n")
	}
}
