package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"hash/fnv"
	"io"
	"log"
	"math/rand"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/gorilla/websocket"
	"github.com/twmb/franz-go/pkg/kgo"
)

// publisherMain runs one publishing load-generator process (`fanout publisher`):
// n connections of one transport, each publishing to a key of its own
// ("p<proc>c<conn>") with a per-connection sequence n = 1, 2, ...; the payload
// {"p":proc,"c":conn,"n":n,"t":send-ns,"x":"xx…"} makes every publish unique
// and findable in Kafka. The transports:
//
//   - ws: a WebSocket connection (`publish` frames with id n; up to -inflight
//     unacknowledged at a time; acks come back as `published` frames);
//   - http: `POST /pub/<topic>/<key>` on a keep-alive connection of its own
//     (HTTP/1.1 has no pipelining: one request in flight per connection);
//   - kafka: no gateway: the process's one franz-go producer with the
//     gateway's producer settings (directProducerOpts), each "connection" a
//     key with its own window: the direct-produce baseline.
//
// With -rate each connection sends at its share of the process's rate (open
// loop, held back only by a full window), otherwise as fast as its window
// allows. Every outcome is written to -acks (ackEvent, 32 bytes each): the
// (partition, offset) of an acknowledgement with the FNV-1a hash of the value
// sent, the code of an error, or "unanswered" for publishes in flight when a
// connection ended or the process stopped. On SIGINT it stops sending, waits
// for what is in flight (up to -drain), and prints its publisherReport.
//
// With several -url entries a connection that ends moves to the next URL
// after a reconnect delay with full jitter (the SDK's rule) and goes on with
// its sequence: a steady load across a node's stop (the fault runner).
func publisherMain(args []string) {
	fs := flag.NewFlagSet("publisher", flag.ExitOnError)
	transport := fs.String("transport", "ws", "ws, http or kafka")
	n := fs.Int("n", 10, "connections")
	proc := fs.Int("proc", 0, "this process's index (part of every key and payload)")
	urls := fs.String("url", "", "ws: ws://host:port/ws; http: http://host:port; kafka: bootstrap brokers. Comma-separated: tried in turn after a connection ends")
	topic := fs.String("topic", "", "topic (the endpoint is /<topic>/<key>)")
	token := fs.String("token", "", "token with publish permission (ws, http)")
	src := fs.String("src", "127.0.1.1", "source address (ws, http)")
	rate := fs.Float64("rate", 0, "publishes per second, the whole process (0: as fast as the windows allow)")
	inflight := fs.Int("inflight", 16, "unacknowledged publishes per connection (ws, kafka; http: always 1)")
	payload := fs.Int("payload", 512, "payload bytes")
	ramp := fs.Int("ramp", 500, "connections per second")
	from := fs.Int64("from", 0, "window start, unix ns (latency of publishes sent in it, acks received in it)")
	to := fs.Int64("to", 0, "window end, unix ns")
	acksPath := fs.String("acks", "", "file for every publish's outcome (ackEvent records)")
	drain := fs.Duration("drain", 15*time.Second, "at the stop, how long to wait for publishes in flight")
	backoffInitial := fs.Duration("backoff-initial", 500*time.Millisecond, "first reconnect delay bound (full jitter)")
	backoffMax := fs.Duration("backoff-max", 30*time.Second, "reconnect delay cap")
	spread := fs.Bool("spread", false, "each connection starts at a random URL of -url (the SDK's server-list rule) instead of the first")
	_ = fs.Parse(args)

	f, err := os.Create(*acksPath)
	must(err)
	p := &pubGen{
		transport: *transport, proc: *proc, urls: strings.Split(*urls, ","), topic: *topic, token: *token,
		rate: *rate, inflight: max(*inflight, 1), payload: *payload, from: *from, to: *to,
		backoffInitial: *backoffInitial, backoffMax: *backoffMax, spread: *spread,
		acks: bufio.NewWriterSize(f, 1<<20), pad: strings.Repeat("x", max(*payload-80, 0)),
		stop: make(chan struct{}), rep: newPublisherReport(*transport, *n),
	}
	if p.transport == "http" {
		p.inflight = 1
	}
	p.dialer = &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(*src)}, Timeout: 30 * time.Second}
	switch p.transport {
	case "ws", "http":
	case "kafka":
		p.kc, err = newKafkaClient(*urls, directProducerOpts()...)
		must(err)
	default:
		log.Fatalf("-transport %q: want ws, http or kafka", p.transport)
	}

	perConn := 0.0
	if p.rate > 0 {
		perConn = p.rate / float64(*n)
	}
	// Interrupted during the ramp, it stops and reports all the same.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	interval := time.Second / time.Duration(max(*ramp, 1))
	interrupted := false
	for i := 0; i < *n && !interrupted; i++ {
		c := &pubConn{g: p, idx: i, key: fmt.Sprintf("p%dc%d", p.proc, i), rate: perConn,
			rng: rand.New(rand.NewSource(int64(p.proc)*1_000_003 + int64(i))), pending: map[int64]pending{}}
		c.slots = make(chan struct{}, p.inflight)
		p.conns = append(p.conns, c)
		p.running.Add(1)
		go func() {
			defer p.running.Done()
			c.run()
		}()
		select {
		case <-sig:
			interrupted = true
		case <-time.After(interval):
		}
	}
	if !interrupted {
		<-sig
	}
	close(p.stop)
	done := make(chan struct{})
	go func() { p.running.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(*drain):
		log.Printf("publisher %d: publishes still in flight %s after the stop", p.proc, *drain)
		p.stopping.Store(true)
		for _, c := range p.conns {
			c.abort()
		}
		<-done
	}
	if p.kc != nil {
		p.kc.Close()
	}
	// Every connection has returned: what is still pending was never answered.
	for _, c := range p.conns {
		c.mu.Lock()
		for n, pd := range c.pending {
			p.record(ackEvent{Conn: uint32(c.idx), Partition: eventUnanswered, N: n, Sent: pd.sent, At: time.Now().UnixNano()})
		}
		c.pending = nil
		c.mu.Unlock()
	}
	p.mu.Lock()
	must(p.acks.Flush())
	must(f.Close())
	rep := p.rep
	p.mu.Unlock()
	for _, c := range p.conns {
		rep.Sent += c.sent.Load()
	}
	_ = json.NewEncoder(os.Stdout).Encode(rep)
}

// directProducerOpts are the gateway's producer settings
// (apps/gateway/internal/kafka/cluster.go, New): acks=all with idempotence
// (franz-go's default, which the gateway keeps), no linger, a 10 s delivery
// timeout, and franz-go's default batching and compression; kept in step by
// hand, since the gateway's package is internal.
func directProducerOpts() []kgo.Opt {
	return []kgo.Opt{
		kgo.ClientID("sluice-bench-direct"),
		kgo.RequiredAcks(kgo.AllISRAcks()),
		kgo.ProducerLinger(0),
		kgo.RecordDeliveryTimeout(10 * time.Second),
		kgo.MetadataMinAge(time.Second),
	}
}

// ackEvent is one publish's outcome as the publisher writes it to its -acks
// file: little-endian conn u32, partition i32, n i64, offset i64, hash u64,
// sent i64 and at i64: when the publish was sent and when its outcome came
// (unix ns; a fault run counts the outcomes per fault window, including those
// that left no record in Kafka).
// Partition >= 0: acknowledged at (Partition, Offset), Hash = FNV-1a of the
// value sent. eventError: answered with error code Offset. eventUnanswered:
// in flight when its connection ended or the process stopped (it may or may
// not be in Kafka). eventNotSent: its request never left (HTTP: the
// connection could not be made), so it must not be in Kafka.
type ackEvent struct {
	Conn      uint32
	Partition int32
	N         int64
	Offset    int64
	Hash      uint64
	Sent, At  int64
}

// lateAfter: a publish sent this long after its scheduled time is late.
const lateAfter = 10 * time.Millisecond

const (
	eventError      = -1
	eventUnanswered = -2
	eventNotSent    = -3
	ackEventBytes   = 48
)

func (e ackEvent) append(b []byte) []byte {
	b = binary.LittleEndian.AppendUint32(b, e.Conn)
	b = binary.LittleEndian.AppendUint32(b, uint32(e.Partition))
	b = binary.LittleEndian.AppendUint64(b, uint64(e.N))
	b = binary.LittleEndian.AppendUint64(b, uint64(e.Offset))
	b = binary.LittleEndian.AppendUint64(b, e.Hash)
	b = binary.LittleEndian.AppendUint64(b, uint64(e.Sent))
	return binary.LittleEndian.AppendUint64(b, uint64(e.At))
}

// readAckEvents calls fn for each event of an -acks file.
func readAckEvents(r io.Reader, fn func(ackEvent)) error {
	br := bufio.NewReaderSize(r, 1<<20)
	var b [ackEventBytes]byte
	for {
		if _, err := io.ReadFull(br, b[:]); err != nil {
			if err == io.EOF {
				return nil
			}
			return err
		}
		fn(ackEvent{
			Conn:      binary.LittleEndian.Uint32(b[0:]),
			Partition: int32(binary.LittleEndian.Uint32(b[4:])),
			N:         int64(binary.LittleEndian.Uint64(b[8:])),
			Offset:    int64(binary.LittleEndian.Uint64(b[16:])),
			Hash:      binary.LittleEndian.Uint64(b[24:]),
			Sent:      int64(binary.LittleEndian.Uint64(b[32:])),
			At:        int64(binary.LittleEndian.Uint64(b[40:])),
		})
	}
}

func valueHash(v []byte) uint64 {
	h := fnv.New64a()
	_, _ = h.Write(v)
	return h.Sum64()
}

// publisherReport is what a publisher process prints as JSON when it stops.
type publisherReport struct {
	Transport string
	Conns     int
	// Dials are the TCP connections opened (http: more than Conns means
	// keep-alive failed), DialFailures the failed ones.
	Dials, DialFailures int64
	// Sent: every publish sent; each has exactly one outcome (acked, an
	// error, unanswered).
	Sent int64
	// SentInWindow: publishes sent in [from, to); AckedInWindow: acks received in it.
	SentInWindow, AckedInWindow int64
	Acked, Unanswered           int64
	NotSent                     int64 // HTTP requests whose connection could not be made
	// AckedTwice: an acknowledgement for a publish already answered;
	// OutOfOrder: a WebSocket ack that overtook an older publish of its
	// connection (the protocol answers in order).
	AckedTwice, OutOfOrder int64
	// Late: publishes sent more than lateAfter behind their schedule (a
	// full window, or a busy machine): their latency counts from the late
	// send, so many of them mean the figures flatter the server.
	Late         int64
	ErrorsByCode map[string]int64
	MaxMicros    int64
	Buckets      []int64 // send -> ack latency of publishes sent in the window (bucketOf)
}

func newPublisherReport(transport string, conns int) *publisherReport {
	return &publisherReport{Transport: transport, Conns: conns, ErrorsByCode: map[string]int64{}, Buckets: make([]int64, fineBuckets+coarseBuckets)}
}

func (r *publisherReport) merge(o *publisherReport) {
	r.Conns += o.Conns
	r.Dials += o.Dials
	r.DialFailures += o.DialFailures
	r.Sent += o.Sent
	r.SentInWindow += o.SentInWindow
	r.AckedInWindow += o.AckedInWindow
	r.Acked += o.Acked
	r.Unanswered += o.Unanswered
	r.NotSent += o.NotSent
	r.AckedTwice += o.AckedTwice
	r.OutOfOrder += o.OutOfOrder
	r.Late += o.Late
	for k, v := range o.ErrorsByCode {
		if r.ErrorsByCode == nil {
			r.ErrorsByCode = map[string]int64{}
		}
		r.ErrorsByCode[k] += v
	}
	r.MaxMicros = max(r.MaxMicros, o.MaxMicros)
	if r.Buckets == nil {
		r.Buckets = make([]int64, len(o.Buckets))
	}
	for i, v := range o.Buckets {
		r.Buckets[i] += v
	}
}

// outcomes is the number of publishes with an outcome: Sent when every
// publish got exactly one.
func (r *publisherReport) outcomes() int64 {
	n := r.Acked + r.Unanswered + r.NotSent
	for _, v := range r.ErrorsByCode {
		n += v
	}
	return n
}

func (r *publisherReport) percentile(q float64) float64 {
	return (&clientReport{Buckets: r.Buckets}).percentile(q)
}

// pubGen is one publisher process: its connections and the outcome log.
type pubGen struct {
	transport, topic, token    string
	proc                       int
	urls                       []string
	rate                       float64
	inflight, payload          int
	from, to                   int64
	backoffInitial, backoffMax time.Duration
	spread                     bool
	dialer                     *net.Dialer
	kc                         *kgo.Client
	pad                        string
	conns                      []*pubConn
	running                    sync.WaitGroup
	stop                       chan struct{} // closed at SIGINT: send no more
	stopping                   atomic.Bool   // the drain is over: give up on what is in flight
	logged                     atomic.Int64

	mu   sync.Mutex // guards acks and rep
	acks *bufio.Writer
	rep  *publisherReport
	buf  []byte
}

// logf logs the process's first few problems (a node that stops would
// otherwise log one line per connection per retry).
func (g *pubGen) logf(format string, args ...any) {
	if n := g.logged.Add(1); n <= 5 {
		log.Printf(format, args...)
	} else if n == 6 {
		log.Printf("publisher %d: further problems not shown (the report counts them)", g.proc)
	}
}

// record logs one outcome and counts it.
func (g *pubGen) record(e ackEvent) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.buf = e.append(g.buf[:0])
	_, _ = g.acks.Write(g.buf)
	switch {
	case e.Partition >= 0:
		g.rep.Acked++
	case e.Partition == eventError:
		g.rep.ErrorsByCode[strconv.FormatInt(e.Offset, 10)]++
	case e.Partition == eventUnanswered:
		g.rep.Unanswered++
	case e.Partition == eventNotSent:
		g.rep.NotSent++
	}
}

// latency counts an acknowledgement received at now for a publish sent at sent.
func (g *pubGen) latency(sent, now int64) {
	inSent, inAck := sent >= g.from && sent < g.to, now >= g.from && now < g.to
	if !inSent && !inAck {
		return
	}
	us := (now - sent) / 1000
	g.mu.Lock()
	defer g.mu.Unlock()
	if inAck {
		g.rep.AckedInWindow++
	}
	if inSent {
		g.rep.Buckets[bucketOf(us)]++
		g.rep.MaxMicros = max(g.rep.MaxMicros, us)
	}
}

func (g *pubGen) count(field *int64) {
	g.mu.Lock()
	*field++
	g.mu.Unlock()
}

// pending is a publish in flight: when it was sent and the hash of its value.
type pending struct {
	sent int64
	hash uint64
}

// pubConn is one publishing connection and its key.
type pubConn struct {
	g    *pubGen
	idx  int
	key  string
	rate float64 // publishes/s of this connection; 0: as fast as the window allows
	rng  *rand.Rand
	n    int64 // last sequence sent; only run's goroutine writes it
	sent atomic.Int64
	// slots holds one token per publish in flight (the window).
	slots chan struct{}

	mu      sync.Mutex // guards pending and ws
	pending map[int64]pending
	ws      *websocket.Conn
}

// run keeps the connection publishing until the stop, reconnecting through
// the URL list when it ends.
func (c *pubConn) run() {
	g := c.g
	urlIdx, attempt := 0, 0
	if g.spread {
		urlIdx = c.rng.Intn(len(g.urls))
	}
	var next time.Time // the open-loop schedule, kept across reconnects
	if c.rate > 0 {
		next = time.Now().Add(time.Duration(c.rng.Float64() * float64(time.Second) / c.rate))
	}
	for {
		select {
		case <-g.stop:
			return
		default:
		}
		if c.rate > 0 && next.Before(time.Now()) {
			// A new connection starts on time: what the schedule missed
			// while the connection was down is not sent in a burst (a client
			// that was away has nothing queued), only what a full window
			// held back on a live connection.
			next = time.Now()
		}
		var ok bool
		switch g.transport {
		case "ws":
			ok = c.runWS(g.urls[urlIdx], &next)
		case "http":
			ok = c.runHTTP(g.urls[urlIdx], &next)
		case "kafka":
			c.publishLoop(&next, nil, c.produce)
			c.waitDrained(nil)
			return
		}
		if ok {
			attempt = 0
		}
		select {
		case <-g.stop:
			return
		default:
		}
		urlIdx = (urlIdx + 1) % len(g.urls)
		bound := g.backoffInitial << min(attempt, 20)
		if bound <= 0 || bound > g.backoffMax {
			bound = g.backoffMax
		}
		attempt++
		select {
		case <-g.stop:
			return
		case <-time.After(time.Duration(c.rng.Int63n(int64(max(bound, 1))))):
		}
	}
}

// publishLoop sends with send until the stop, until send fails or until
// ended is closed (the connection's reader stopped), keeping to the schedule
// (rate mode) and the window.
func (c *pubConn) publishLoop(next *time.Time, ended <-chan struct{}, send func(n int64, value []byte) bool) {
	g := c.g
	var timer *time.Timer
	for {
		select {
		case <-g.stop:
			return
		case <-ended:
			return
		case c.slots <- struct{}{}:
		}
		if c.rate > 0 {
			if wait := time.Until(*next); wait > 0 {
				if timer == nil {
					timer = time.NewTimer(wait)
				} else {
					timer.Reset(wait)
				}
				select {
				case <-g.stop:
					<-c.slots
					return
				case <-ended:
					<-c.slots
					return
				case <-timer.C:
				}
			} else if wait < -lateAfter {
				g.count(&g.rep.Late)
			}
			*next = next.Add(time.Duration(float64(time.Second) / c.rate))
		}
		c.n++
		now := time.Now().UnixNano()
		value := fmt.Appendf(nil, `{"p":%d,"c":%d,"n":%d,"t":%d,"x":"%s"}`, g.proc, c.idx, c.n, now, g.pad)
		c.mu.Lock()
		c.pending[c.n] = pending{sent: now, hash: valueHash(value)}
		c.mu.Unlock()
		c.sent.Add(1)
		if now >= g.from && now < g.to {
			g.count(&g.rep.SentInWindow)
		}
		if !send(c.n, value) {
			return
		}
	}
}

// answer settles publish n: acknowledged at (partition, offset), or failed
// with code (partition eventError), or unanswered.
func (c *pubConn) answer(n int64, partition int32, offset int64) {
	now := time.Now().UnixNano()
	c.mu.Lock()
	p, ok := c.pending[n]
	if ok {
		delete(c.pending, n)
	}
	outOfOrder := false
	if ok && c.g.transport == "ws" {
		for m := range c.pending {
			if m < n {
				outOfOrder = true
				break
			}
		}
	}
	c.mu.Unlock()
	if !ok {
		if partition >= 0 {
			c.g.count(&c.g.rep.AckedTwice)
		}
		return
	}
	<-c.slots
	if outOfOrder && partition >= 0 {
		c.g.count(&c.g.rep.OutOfOrder)
	}
	e := ackEvent{Conn: uint32(c.idx), Partition: partition, N: n, Offset: offset, Sent: p.sent, At: now}
	if partition >= 0 {
		e.Hash = p.hash
		c.g.latency(p.sent, now)
	}
	c.g.record(e)
}

// unanswered settles everything in flight as unanswered (the connection ended).
func (c *pubConn) unanswered() {
	c.mu.Lock()
	ns := make([]int64, 0, len(c.pending))
	for n := range c.pending {
		ns = append(ns, n)
	}
	c.mu.Unlock()
	for _, n := range ns {
		c.answer(n, eventUnanswered, 0)
	}
}

// waitDrained waits until nothing is in flight, the drain is over or ended
// is closed (no answer can come any more).
func (c *pubConn) waitDrained(ended <-chan struct{}) {
	for !c.g.stopping.Load() {
		select {
		case <-ended:
			return
		default:
		}
		c.mu.Lock()
		left := len(c.pending)
		c.mu.Unlock()
		if left == 0 {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// abort ends the connection once the drain is over.
func (c *pubConn) abort() {
	c.mu.Lock()
	ws := c.ws
	c.mu.Unlock()
	if ws != nil {
		_ = ws.Close()
	}
}

func (c *pubConn) dial(network, addr string) (net.Conn, error) {
	conn, err := c.g.dialer.Dial(network, addr)
	if err != nil {
		c.g.count(&c.g.rep.DialFailures)
	} else {
		c.g.count(&c.g.rep.Dials)
	}
	return conn, err
}

// runWS publishes over one WebSocket connection until it ends or the stop; it
// says whether the connection was made.
func (c *pubConn) runWS(url string, next *time.Time) bool {
	g := c.g
	d := websocket.Dialer{Subprotocols: []string{"sluice.v1"}, HandshakeTimeout: 30 * time.Second, NetDial: c.dial}
	ws, _, err := d.Dial(url, http.Header{"Authorization": {"Bearer " + g.token}})
	if err != nil {
		g.logf("publisher: dial %s: %v", url, err)
		return false
	}
	c.mu.Lock()
	c.ws = ws
	c.mu.Unlock()
	readerDone := make(chan struct{})
	go func() {
		defer close(readerDone)
		for {
			_, data, err := ws.ReadMessage()
			if err != nil {
				return
			}
			switch {
			case bytes.HasPrefix(data, []byte(`{"type":"published"`)):
				n, _ := strconv.ParseInt(fieldStr(data, `"id":"`), 10, 64)
				c.answer(n, int32(fieldInt(data, `"partition":`)), fieldInt(data, `"seq":`))
			case bytes.HasPrefix(data, []byte(`{"type":"error"`)):
				id := fieldStr(data, `"id":"`)
				n, err := strconv.ParseInt(id, 10, 64)
				if id == "" || err != nil {
					g.logf("publisher: %s", data)
					continue
				}
				c.answer(n, eventError, fieldInt(data, `"code":`))
			case bytes.HasPrefix(data, []byte(`{"type":"closing"`)):
				g.logf("publisher: %s", data)
			}
		}
	}()
	prefix := fmt.Sprintf(`{"type":"publish","endpoint":"/%s/%s","id":"`, g.topic, c.key)
	var frame []byte
	c.publishLoop(next, readerDone, func(n int64, value []byte) bool {
		frame = append(append(strconv.AppendInt(append(frame[:0], prefix...), n, 10), `","data":`...), value...)
		frame = append(frame, '}')
		return ws.WriteMessage(websocket.TextMessage, frame) == nil
	})
	// Stopped (or the write failed): wait for the answers still to come, then close.
	select {
	case <-g.stop:
		c.waitDrained(readerDone)
	default:
	}
	_ = ws.Close()
	<-readerDone
	c.mu.Lock()
	c.ws = nil
	c.mu.Unlock()
	c.unanswered()
	return true
}

// runHTTP publishes with POST /pub/<topic>/<key> over one keep-alive
// connection until a request fails or the stop; it says whether a request was
// answered.
func (c *pubConn) runHTTP(base string, next *time.Time) bool {
	g := c.g
	tr := &http.Transport{
		DialContext:         func(_ context.Context, network, addr string) (net.Conn, error) { return c.dial(network, addr) },
		MaxIdleConnsPerHost: 1, MaxConnsPerHost: 1, DisableCompression: true, ForceAttemptHTTP2: false,
		ResponseHeaderTimeout: 30 * time.Second,
	}
	defer tr.CloseIdleConnections()
	cl := &http.Client{Transport: tr}
	url := base + "/pub/" + g.topic + "/" + c.key
	answered := false
	c.publishLoop(next, nil, func(n int64, value []byte) bool {
		req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(value))
		req.Header.Set("Authorization", "Bearer "+g.token)
		req.Header.Set("Content-Type", "application/json")
		res, err := cl.Do(req)
		if err != nil {
			g.logf("publisher: POST %s: %v", url, err)
			if opErr := (*net.OpError)(nil); errors.As(err, &opErr) && opErr.Op == "dial" {
				c.answer(n, eventNotSent, 0)
			} else {
				c.answer(n, eventUnanswered, 0)
			}
			return false
		}
		body, err := io.ReadAll(res.Body)
		res.Body.Close()
		answered = true
		switch {
		case err != nil:
			c.answer(n, eventUnanswered, 0)
			return false
		case res.StatusCode == http.StatusOK:
			var ack struct {
				Partition int32 `json:"partition"`
				Seq       int64 `json:"seq"`
			}
			if json.Unmarshal(body, &ack) != nil {
				g.logf("publisher: unreadable ack %q", body)
				c.answer(n, eventError, 0)
				return true
			}
			c.answer(n, ack.Partition, ack.Seq)
		default:
			code := fieldInt(body, `"code":`)
			if code == 0 {
				code = int64(res.StatusCode)
			}
			c.answer(n, eventError, code)
		}
		return true
	})
	return answered
}

// produce writes publish n straight to Kafka (the baseline), with the
// gateway's record header so the records weigh the same.
func (c *pubConn) produce(n int64, value []byte) bool {
	r := &kgo.Record{Topic: c.g.topic, Key: []byte(c.key), Value: value, Headers: []kgo.RecordHeader{{Key: "sluice-app", Value: []byte("bench")}}}
	c.g.kc.Produce(context.Background(), r, func(r *kgo.Record, err error) {
		if err != nil {
			c.g.logf("publisher: produce: %v", err)
			c.answer(n, eventError, 5003)
			return
		}
		c.answer(n, r.Partition, r.Offset)
	})
	return true
}
