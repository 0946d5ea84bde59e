package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
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
)

// clientMain runs one load-generator process: n clients that each subscribe to one
// random key, measuring messages whose send time falls in [from, to).
//
// With -resume (the failover scenario) a client whose connection ends moves on to
// the next URL of -url, after a reconnect delay with full jitter like the SDK's
// (attempt a waits a uniformly random time in [0, min(max, initial*2^a))), and
// re-subscribes from the position of the last message it received, or, if none,
// from its subscribed frame's position. It then checks the per-key counter "n"
// over the whole run: every n after the first must be the previous one + 1.
func clientMain(args []string) {
	fs := flag.NewFlagSet("client", flag.ExitOnError)
	n := fs.Int("n", 100, "clients")
	keys := fs.Int("keys", 100, "keys")
	topic := fs.String("topic", "", "topic")
	urls := fs.String("url", "", "gateway WebSocket URL; with -resume a comma-separated list, tried in turn")
	token := fs.String("token", "", "token")
	src := fs.String("src", "127.0.0.2", "source address")
	seed := fs.Int64("seed", 1, "random seed")
	ramp := fs.Int("ramp", 500, "connections per second")
	from := fs.Int64("from", 0, "window start, unix ns")
	to := fs.Int64("to", 0, "window end, unix ns")
	resume := fs.Bool("resume", false, "reconnect to the next URL and resume when a connection ends")
	backoffInitial := fs.Duration("backoff-initial", 500*time.Millisecond, "with -resume: first reconnect delay bound (full jitter)")
	backoffMax := fs.Duration("backoff-max", 30*time.Second, "with -resume: reconnect delay cap")
	caFile := fs.String("ca", "", "PEM CA that wss:// URLs are verified with")
	spread := fs.Bool("spread", false, "each client starts at a random URL of the list and, with -resume, moves through the others in a random order of its own (the SDK's server-list rule)")
	stall := fs.Duration("stall", 0, "with -resume (fault runs): record a stall when a client gets no message for longer than this, and the time and range of every hole, duplicate and gap (0: off)")
	churn := fs.Float64("churn", 0, "with -resume: share of the clients whose connection is closed each second of the window (soak.go)")
	refresh := fs.Duration("refresh", 0, "with -resume: each client refreshes its token this often, with one minted from -key-file (soak.go)")
	keyFile := fs.String("key-file", "", "PEM EC key refresh tokens are signed with")
	sseFraction := fs.Float64("sse-fraction", 0, "share of the clients that subscribe with Server-Sent Events (GET /sse/<topic>/<key>, resuming with Last-Event-ID) instead of WebSocket (sse_client.go)")
	extraKeys := fs.String("extra-keys", "", "comma-separated record keys that clients subscribe to beside k0..k<keys-1> (the keys of publishers through the gateway), each as likely as one of those")
	_ = fs.Parse(args)

	g := &loadGen{
		urls: strings.Split(*urls, ","), topic: *topic, from: *from, to: *to,
		resume: *resume, backoffInitial: *backoffInitial, backoffMax: *backoffMax, stall: int64(*stall),
		rep: &clientReport{Buckets: make([]int64, fineBuckets+coarseBuckets), GapReasons: map[string]int64{}},
		dialer: websocket.Dialer{
			Subprotocols:     []string{"sluice.v1"},
			HandshakeTimeout: 30 * time.Second,
			ReadBufferSize:   2048,
			WriteBufferSize:  512,
			NetDial:          (&net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(*src)}, Timeout: 30 * time.Second}).Dial,
		},
		header: http.Header{"Authorization": {"Bearer " + *token}},
		open:   map[*websocket.Conn]struct{}{},
		keys:   *keys, token: *token,
	}
	if *extraKeys != "" {
		g.extraKeys = strings.Split(*extraKeys, ",")
	}
	if *sseFraction > 0 {
		g.sse = newSSETransport(*src)
	}
	if *caFile != "" {
		tc, err := trusting(*caFile)
		if err != nil {
			log.Fatal(err)
		}
		g.dialer.TLSClientConfig = tc
		if g.sse != nil {
			g.sse.tr.TLSClientConfig = tc
		}
	}
	rng := rand.New(rand.NewSource(*seed))
	interval := time.Second / time.Duration(max(*ramp, 1))
	for i := 0; i < *n; i++ {
		c := &benchConn{key: rng.Intn(*keys + len(g.extraKeys)), rng: rand.New(rand.NewSource(*seed*1_000_003 + int64(i)))}
		c.sse = sseClientAt(i, *sseFraction)
		c.order = tryOrder(len(g.urls), c.rng, *spread)
		g.conns = append(g.conns, c)
		g.running.Add(1)
		go func() {
			defer g.running.Done()
			g.run(c)
		}()
		time.Sleep(interval)
	}
	if *churn > 0 {
		go g.churnLoop(*churn, rand.New(rand.NewSource(*seed*7919)))
	}
	if *refresh > 0 {
		go g.refreshLoop(*refresh, readSigningKey(*keyFile), *topic)
	}

	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	<-sig
	g.stopping.Store(true)
	g.mu.Lock()
	for ws := range g.open {
		_ = ws.Close()
	}
	g.mu.Unlock()
	g.endStreams()
	waited := make(chan struct{})
	go func() { g.running.Wait(); close(waited) }()
	select { // readers flush their histograms as they return
	case <-waited:
	case <-time.After(5 * time.Second):
		log.Printf("client: some connections still in a reconnect delay or dial at exit")
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	r := g.rep
	r.Connected, r.Subscribed = int(g.connected.Load()), int(g.subscribed.Load())
	r.Received, r.Lost, r.Gaps, r.Errors, r.MaxMicros = g.received.Load(), g.lost.Load(), g.gaps.Load(), g.errs.Load(), g.maxMicros.Load()
	if g.resume {
		r.Duplicates, r.DialFailures, r.Closing1012 = g.dups.Load(), g.dialFailures.Load(), g.closing1012.Load()
		r.Late = g.late.Load()
		r.Churned, r.RefreshSent, r.Refreshed = g.churned.Load(), g.refreshSent.Load(), g.refreshed.Load()
		for _, c := range g.conns {
			c.mu.Lock()
			r.Conns = append(r.Conns, c.rec)
			c.mu.Unlock()
		}
	}
	_ = json.NewEncoder(os.Stdout).Encode(r)
}

// loadGen is one load-generator process's clients and counters.
type loadGen struct {
	urls                       []string
	topic                      string
	from, to                   int64
	resume                     bool
	backoffInitial, backoffMax time.Duration
	// stall (ns, > 0 in fault runs): a silence longer than this is one of a
	// client's stalls, and holes, duplicates and gaps are recorded as events.
	stall                           int64
	dialer                          websocket.Dialer
	header                          http.Header
	conns                           []*benchConn
	running                         sync.WaitGroup
	stopping                        atomic.Bool
	connected, subscribed           atomic.Int64
	received, lost, gaps, errs      atomic.Int64
	dups, dialFailures, closing1012 atomic.Int64
	late                            atomic.Int64
	maxMicros                       atomic.Int64
	logged                          atomic.Int64
	// Soak mode (soak.go): connections closed by churnLoop, refreshes sent
	// and acknowledged.
	churned, refreshSent, refreshed atomic.Int64
	// keys: k0..k<keys-1>; extraKeys: the key indexes after those (keyName).
	keys      int
	extraKeys []string
	token     string
	// sse: the HTTP client of the process's SSE clients (nil: none).
	sse *sseTransport

	mu   sync.Mutex // guards rep's histogram, gap reasons and events, and open
	rep  *clientReport
	open map[*websocket.Conn]struct{}
}

// benchConn is one client: its key and, in resume mode, its last position and
// what happened to it around the failover.
type benchConn struct {
	key   int
	sse   bool // subscribes with Server-Sent Events (sse_client.go), not WebSocket
	rng   *rand.Rand
	order []int // indexes of loadGen.urls, in the order this client tries them
	// url is the index in loadGen.urls of the connection being made or read
	// (set by run before each session; read under mu by onMessage).
	url int

	mu  sync.Mutex // guards rec (read by the final report)
	rec connRecord
	// The position to resume from: the last message's, else the subscribed frame's.
	epoch          string
	partition, seq int64
	havePos        bool
	// gapSince: a gap frame arrived since the last message (the next hole
	// in n is one the gateway reported).
	gapSince bool
	// lostConn: a connection ended since the last message; the silence
	// around it is a stall however short.
	lostConn bool
	// missing: the n of its holes (up to maxMissing), so that one arriving
	// later counts as late, not as a duplicate.
	missing map[int64]struct{}
	// live is the connection once its subscription is acknowledged, nil
	// between connections: refreshLoop writes to it (guarded by mu).
	live *websocket.Conn
}

// connRecord is what the orchestrator needs of one client: its key and last
// counter (to find messages missing at the end), and the unix-ns times of its
// first outage: when it noticed it, re-subscribed, received its first message
// after that, and its first message sent after the window start (the node's stop).
type connRecord struct {
	K       int   `json:"k"`
	N       int64 `json:"n"`
	Down    int64 `json:"down,omitempty"`
	Sub     int64 `json:"sub,omitempty"`
	First   int64 `json:"first,omitempty"`
	FirstT  int64 `json:"first_t,omitempty"` // that message's send time ("t")
	Fresh   int64 `json:"fresh,omitempty"`
	Outages int   `json:"outages,omitempty"`
	// NoMsg: the client had received no message before its first outage, so it
	// resumed from its subscribed frame's position.
	NoMsg bool `json:"nomsg,omitempty"`
	// With -stall: the arrival time of the last message and every silence
	// longer than -stall or around a lost connection (from the message before
	// it to the message that ended it).
	Last   int64   `json:"last,omitempty"`
	Stalls []stall `json:"stalls,omitempty"`
	// SSE: the client used Server-Sent Events. What it counted over the run,
	// so the report can split every figure by transport: messages missing in
	// its n (holes), n seen again, gap frames, error answers or frames,
	// connections made and failed.
	SSE       bool  `json:"sse,omitempty"`
	Holes     int64 `json:"holes,omitempty"`
	Dups      int64 `json:"dups,omitempty"`
	Late      int64 `json:"late,omitempty"`
	Gaps      int64 `json:"gaps,omitempty"`
	Errs      int64 `json:"errs,omitempty"`
	Connects  int64 `json:"conns,omitempty"`
	DialFails int64 `json:"dialf,omitempty"`
}

// stall is a silence of one client: [From, To) in unix ns, both arrivals;
// Reconnected: the client lost its connection in it.
type stall struct {
	From        int64 `json:"f"`
	To          int64 `json:"t"`
	Reconnected bool  `json:"r,omitempty"`
	// URL: the index in -url's list of the node whose message ended it.
	URL int `json:"u,omitempty"`
}

// clientEvent is a hole, duplicate or gap seen by a client (with -stall), at
// unix ns At on key K: a hole is n From..To missing (Reported: after a gap
// frame), a duplicate n From again, a gap frame seq From..To of Partition.
type clientEvent struct {
	At        int64  `json:"at"`
	Kind      string `json:"kind"`
	K         int    `json:"k"`
	From      int64  `json:"from"`
	To        int64  `json:"to"`
	Partition int64  `json:"p,omitempty"`
	Reason    string `json:"reason,omitempty"`
	Reported  bool   `json:"reported,omitempty"`
	SSE       bool   `json:"sse,omitempty"` // seen by an SSE client
}

// maxEvents bounds the events one process keeps; more are only counted.
const maxEvents = 200_000

// maxMissing bounds the hole numbers a client remembers.
const maxMissing = 10_000

// event records e (with -stall); called without c.mu or g.mu held.
func (g *loadGen) event(e clientEvent) {
	if g.stall <= 0 {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.rep.Events) >= maxEvents {
		g.rep.EventsDropped++
		return
	}
	g.rep.Events = append(g.rep.Events, e)
}

func (g *loadGen) logf(format string, args ...any) {
	if g.logged.Add(1) <= 5 {
		log.Printf(format, args...)
	}
}

// tryOrder is the order in which a client tries n URLs: as listed, or with
// spread a random permutation of its own (random start, and the clients of a
// node that stops spread over all the others instead of all moving to the next).
func tryOrder(n int, rng *rand.Rand, spread bool) []int {
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	if spread {
		rng.Shuffle(n, func(a, b int) { order[a], order[b] = order[b], order[a] })
	}
	return order
}

func (g *loadGen) run(c *benchConn) {
	if len(c.order) != len(g.urls) {
		c.order = tryOrder(len(g.urls), c.rng, false)
	}
	c.rec.K = c.key
	c.rec.SSE = c.sse
	urlIdx, attempt := 0, 0
	for !g.stopping.Load() {
		url := g.urls[c.order[urlIdx]]
		c.mu.Lock()
		c.url = c.order[urlIdx]
		c.mu.Unlock()
		var made, subscribed bool
		if c.sse {
			made, subscribed = g.sseSession(c, url)
		} else {
			made, subscribed = g.wsSession(c, url)
		}
		if !made {
			if !g.resume {
				return
			}
			g.dialFailures.Add(1)
			c.mu.Lock()
			c.rec.DialFails++
			c.mu.Unlock()
			urlIdx = (urlIdx + 1) % len(g.urls)
			g.sleepBackoff(c, attempt)
			attempt++
			continue
		}
		if subscribed {
			attempt = 0
		}
		if !g.resume || g.stopping.Load() {
			return
		}
		now := time.Now().UnixNano()
		c.mu.Lock()
		if c.rec.Outages == 0 {
			c.rec.Down = now
			c.rec.NoMsg = c.rec.N == 0
		}
		c.rec.Outages++
		c.lostConn = true
		c.mu.Unlock()
		urlIdx = (urlIdx + 1) % len(g.urls)
		g.sleepBackoff(c, attempt)
		attempt++
	}
}

// wsSession is one WebSocket connection of a client: dial, subscribe (from
// the kept position when there is one), read until it ends. made: the
// connection was made; subscribed: the subscription was acknowledged.
func (g *loadGen) wsSession(c *benchConn, url string) (made, subscribed bool) {
	ws, _, err := g.dialer.Dial(url, g.header)
	if err != nil {
		if !g.resume {
			g.errs.Add(1)
			log.Printf("dial: %v", err)
		}
		return false, false
	}
	g.mu.Lock()
	g.open[ws] = struct{}{}
	g.mu.Unlock()
	g.connected.Add(1)
	endpoint := "/" + g.topic + "/" + g.keyName(c.key)
	sub := fmt.Sprintf(`{"type":"subscribe","endpoint":%q}`, endpoint)
	c.mu.Lock()
	c.rec.Connects++
	if c.havePos {
		sub = fmt.Sprintf(`{"type":"subscribe","endpoint":%q,"from":{"epoch":%q,"partition":%d,"seq":%d}}`, endpoint, c.epoch, c.partition, c.seq)
	}
	c.mu.Unlock()
	if err := ws.WriteMessage(websocket.TextMessage, []byte(sub)); err != nil {
		g.countErr(c)
	} else {
		subscribed = g.read(c, ws)
	}
	g.mu.Lock()
	delete(g.open, ws)
	g.mu.Unlock()
	_ = ws.Close()
	return true, subscribed
}

// keyName is the record key of key index k: "k<k>" for the direct producer's
// keys, and after them the keys of -extra-keys (publishers through the gateway).
func (g *loadGen) keyName(k int) string {
	if i := k - g.keys; k >= g.keys && i < len(g.extraKeys) {
		return g.extraKeys[i]
	}
	return "k" + strconv.Itoa(k)
}

func (g *loadGen) countErr(c *benchConn) {
	g.errs.Add(1)
	c.mu.Lock()
	c.rec.Errs++
	c.mu.Unlock()
}

func (g *loadGen) sleepBackoff(c *benchConn, attempt int) {
	bound := g.backoffInitial << min(attempt, 20)
	if bound <= 0 || bound > g.backoffMax {
		bound = g.backoffMax
	}
	if bound > 0 {
		time.Sleep(time.Duration(c.rng.Int63n(int64(bound))))
	}
}

// read handles one connection's frames until it ends; it says whether the
// subscription was acknowledged.
func (g *loadGen) read(c *benchConn, ws *websocket.Conn) (subscribed bool) {
	local := map[int]int64{}
	defer func() {
		c.mu.Lock()
		c.live = nil
		c.mu.Unlock()
		g.flushLatencies(local)
	}()
	for {
		_, data, err := ws.ReadMessage()
		if err != nil {
			return subscribed
		}
		now := time.Now().UnixNano()
		switch {
		case bytes.HasPrefix(data, []byte(`{"type":"message"`)):
			g.onMessage(c, data, now, local)
		case bytes.HasPrefix(data, []byte(`{"type":"subscribed"`)):
			subscribed = true
			if g.resume {
				c.mu.Lock()
				c.live = ws
				c.mu.Unlock()
			}
			g.onSubscribed(c, fieldStr(data, `"epoch":"`), fieldInt(data, `"partition":`), fieldInt(data, `"seq":`), now)
		case bytes.HasPrefix(data, []byte(`{"type":"authenticated","id":`)):
			g.refreshed.Add(1) // the answer to a refresh (soak.go); the unasked one has no id
		case bytes.HasPrefix(data, []byte(`{"type":"gap"`)):
			g.onGap(c, data, now)
		case bytes.HasPrefix(data, []byte(`{"type":"error"`)), bytes.HasPrefix(data, []byte(`{"type":"closing"`)):
			g.onErrorFrame(c, data)
			if g.resume && !subscribed && bytes.HasPrefix(data, []byte(`{"type":"error"`)) {
				return false // the subscribe failed (e.g. 5003): reconnect and try again
			}
		}
	}
}

// onMessage counts one message (a WebSocket message frame, or an SSE
// message event's data, which is the same frame without its type): its n
// against the key's last (holes, duplicates), the client's silences, its
// position to resume from, and its latency if it was sent in the window
// (into local, the connection's histogram, flushed when it ends).
func (g *loadGen) onMessage(c *benchConn, data []byte, now int64, local map[int]int64) {
	t := fieldInt(data, `"t":`)
	seq := fieldInt(data, `"n":`)
	inWindow := t >= g.from && t < g.to
	var ev *clientEvent // recorded after c.mu is released (lock order: g.mu, then c.mu)
	c.mu.Lock()
	lastN := c.rec.N
	switch {
	case !g.resume:
		if lastN > 0 && seq > lastN+1 && inWindow {
			g.lost.Add(seq - lastN - 1)
		}
	case lastN > 0 && seq <= lastN:
		if _, filled := c.missing[seq]; filled {
			// Not a repeat: an n of an earlier hole, after later ones (out of
			// order in Kafka; e.g. a publish a node still held after its
			// client had moved on to the other node).
			delete(c.missing, seq)
			g.late.Add(1)
			c.rec.Late++
			ev = &clientEvent{At: now, Kind: "late", K: c.key, From: seq, To: seq, SSE: c.sse}
			break
		}
		g.dups.Add(1)
		c.rec.Dups++
		ev = &clientEvent{At: now, Kind: "dup", K: c.key, From: seq, To: seq, SSE: c.sse}
	case lastN > 0 && seq > lastN+1:
		g.lost.Add(seq - lastN - 1)
		c.rec.Holes += seq - lastN - 1
		ev = &clientEvent{At: now, Kind: "hole", K: c.key, From: lastN + 1, To: seq - 1, Reported: c.gapSince, SSE: c.sse}
		if c.missing == nil {
			c.missing = map[int64]struct{}{}
		}
		for n := lastN + 1; n < seq && len(c.missing) < maxMissing; n++ {
			c.missing[n] = struct{}{}
		}
	}
	c.gapSince = false
	if g.stall > 0 {
		if c.rec.Last > 0 && (now-c.rec.Last > g.stall || c.lostConn) {
			c.rec.Stalls = append(c.rec.Stalls, stall{From: c.rec.Last, To: now, Reconnected: c.lostConn, URL: c.url})
		}
		c.lostConn = false
		c.rec.Last = now
	}
	if seq > lastN || !g.resume {
		c.rec.N = seq
	}
	if g.resume {
		c.epoch = fieldStr(data, `"epoch":"`)
		c.partition, c.seq, c.havePos = fieldInt(data, `"partition":`), fieldInt(data, `"seq":`), true
		if c.rec.Outages > 0 && c.rec.First == 0 {
			c.rec.First, c.rec.FirstT = now, t
		}
		if c.rec.Outages > 0 && c.rec.Fresh == 0 && t >= g.from {
			c.rec.Fresh = now
		}
	}
	c.mu.Unlock()
	if ev != nil {
		g.event(*ev)
	}
	if inWindow {
		g.received.Add(1)
		us := (now - t) / 1000
		local[bucketOf(us)]++
		for {
			m := g.maxMicros.Load()
			if us <= m || g.maxMicros.CompareAndSwap(m, us) {
				break
			}
		}
	}
}

// onSubscribed counts an acknowledged subscription whose delivery starts
// after (epoch, partition, seq): a WebSocket subscribed frame, or the id of
// the block that opens an SSE stream. With nothing received yet, that is the
// position to resume from.
func (g *loadGen) onSubscribed(c *benchConn, epoch string, partition, seq, now int64) {
	g.subscribed.Add(1)
	if !g.resume {
		return
	}
	c.mu.Lock()
	if c.rec.N == 0 { // nothing received yet: resume from here
		c.epoch, c.partition, c.seq, c.havePos = epoch, partition, seq, true
	}
	if c.rec.Outages > 0 && c.rec.Sub == 0 {
		c.rec.Sub = now
	}
	c.mu.Unlock()
}

// onGap counts a gap frame (WebSocket) or gap event's data (SSE, the same frame).
func (g *loadGen) onGap(c *benchConn, data []byte, now int64) {
	g.gaps.Add(1)
	reason := fieldStr(data, `"reason":"`)
	g.mu.Lock()
	g.rep.GapReasons[reason]++
	g.mu.Unlock()
	c.mu.Lock()
	c.gapSince = true
	c.rec.Gaps++
	c.mu.Unlock()
	g.event(clientEvent{At: now, Kind: "gap", K: c.key, Partition: fieldInt(data, `"partition":`),
		From: fieldInt(data, `"from_seq":`), To: fieldInt(data, `"to_seq":`), Reason: reason, SSE: c.sse})
}

// onErrorFrame counts an error or closing frame: a closing 1012 (the node is
// shutting down) is expected in resume mode, anything else is an error.
func (g *loadGen) onErrorFrame(c *benchConn, data []byte) {
	if g.resume && bytes.Contains(data, []byte(`"type":"closing"`)) && fieldInt(data, `"code":`) == 1012 {
		g.closing1012.Add(1)
		return
	}
	g.countErr(c)
	g.logf("frame: %s", data)
}

// flushLatencies adds a connection's latency histogram to the report.
func (g *loadGen) flushLatencies(local map[int]int64) {
	g.mu.Lock()
	for b, n := range local {
		g.rep.Buckets[b] += n
	}
	g.mu.Unlock()
}

// fieldInt reads the integer after name in a frame (the payload is ours, so a
// scan is enough and keeps the load generator's CPU low).
func fieldInt(data []byte, name string) int64 {
	i := bytes.Index(data, []byte(name))
	if i < 0 {
		return 0
	}
	j := i + len(name)
	k := j
	if k < len(data) && data[k] == '-' {
		k++
	}
	for k < len(data) && data[k] >= '0' && data[k] <= '9' {
		k++
	}
	v, _ := strconv.ParseInt(string(data[j:k]), 10, 64)
	return v
}

// fieldStr reads the string after name (which ends with the opening quote); the
// gateway's epochs and reasons contain no escapes.
func fieldStr(data []byte, name string) string {
	i := bytes.Index(data, []byte(name))
	if i < 0 {
		return ""
	}
	rest := data[i+len(name):]
	j := bytes.IndexByte(rest, '"')
	if j < 0 {
		return ""
	}
	return string(rest[:j])
}
