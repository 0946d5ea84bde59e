package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/websocket"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// The catalog writer: for the whole run it commits catalog changes through the
// portal's API at a steady rate (create an endpoint, or flip one's operations,
// or delete one), keeps every answer, and a probe on each gateway node checks
// when each acknowledged change is served there. Every change writes its index
// into the endpoint's JSON Schema title, so the catalog topic, read back at the
// end, says which change each record carries and in which order they came.
//
// What a gateway serves is read with subscribe frames on one WebSocket per
// node (a token for /<cat topic>/*): `subscribed` means the endpoint exists
// and allows subscribe, error 4005 that it exists and allows only publish,
// 4004 that the node does not know it. Changes of one endpoint are serialised:
// the next one is sent only once the last was served on every node, so each
// change has one expected answer and a node that shows an older state after a
// newer one is caught by the end's check.

// Endpoint states as a gateway answers a subscribe.
const (
	stSub    = "sub"    // subscribed
	stPub    = "pub"    // 4005: exists, publish only
	stAbsent = "absent" // 4004
)

type catalogChange struct {
	idx      int
	op       string // create, update, delete
	ep       *catEndpoint
	want     string // what a node must answer once the change is served
	sent     time.Time
	answered time.Time
	res      apiResult
	served   []time.Time // per node: first seen served; zero: not yet
}

func (c *catalogChange) acked() bool { return c.res.status/100 == 2 && c.res.problem == "" }

type catEndpoint struct {
	id, path string
	state    string         // after the last acknowledged change
	last     *catalogChange // the last acknowledged change
	busy     bool           // a change in flight, or acknowledged and not yet served everywhere
	// uncertain: a change got no clear answer (no answer, or a 500): it may
	// have committed or not; the endpoint takes no more changes.
	uncertain bool
}

type catalogWriter struct {
	k       *catalogStack
	nodes   []*chaosNode
	mu      sync.Mutex
	changes []*catalogChange
	eps     []*catEndpoint
	rng     *rand.Rand
	stop    chan struct{}
	done    chan struct{}
	reqs    sync.WaitGroup
	probes  []*catalogProbe
	halted  bool
	skipped int // ticks without a change: -catalog-inflight requests were unanswered
	paused  bool
	// the portal's CPU (clock ticks) when the writer started; its pid then
	portalTicks int64
	portalPid   int
}

// pause stops new changes and waits (up to limit) until none is unanswered,
// so a revocation check times the path, not the writer's queue at the portal.
func (w *catalogWriter) pause(limit time.Duration) {
	w.mu.Lock()
	w.paused = true
	w.mu.Unlock()
	deadline := time.Now().Add(limit)
	for w.inFlight() > 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
}

func (w *catalogWriter) resume() {
	w.mu.Lock()
	w.paused = false
	w.mu.Unlock()
}

func newCatalogWriter(k *catalogStack, nodes []*chaosNode) *catalogWriter {
	return &catalogWriter{k: k, nodes: nodes, rng: rand.New(rand.NewSource(time.Now().UnixNano())), stop: make(chan struct{}), done: make(chan struct{})}
}

func (w *catalogWriter) start() {
	// The process that listens (next start runs its server in a child).
	_, port, _ := net.SplitHostPort(w.k.st.portalAddr)
	if w.portalPid = listenerPid(port); w.portalPid > 0 {
		w.portalTicks = cpuTicks(w.portalPid)
	}
	token, _ := w.k.mintToken("/"+w.k.catTopic+"/*", []string{"subscribe"}, 6*time.Hour, "fanout chaos catalog probe")
	for i, n := range w.nodes {
		p := &catalogProbe{w: w, node: i, name: n.name, addr: n.addr, token: token}
		w.probes = append(w.probes, p)
		go p.run()
	}
	go w.loop()
}

func (w *catalogWriter) loop() {
	defer close(w.done)
	t := time.NewTicker(time.Duration(float64(time.Second) / w.k.st.rate))
	defer t.Stop()
	for {
		select {
		case <-w.stop:
			return
		case <-t.C:
			w.next()
		}
	}
}

// halt stops the writing and waits for the requests in flight.
func (w *catalogWriter) halt() {
	w.mu.Lock()
	if w.halted {
		w.mu.Unlock()
		return
	}
	w.halted = true
	w.mu.Unlock()
	close(w.stop)
	<-w.done
	w.reqs.Wait()
}

func (w *catalogWriter) inFlight() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := 0
	for _, c := range w.changes {
		if c.answered.IsZero() {
			n++
		}
	}
	return n
}

// next picks and sends one change: an update (25 %) or a delete (15 %) of an
// endpoint whose last change is served everywhere, else a create.
func (w *catalogWriter) next() {
	w.mu.Lock()
	if w.paused {
		w.mu.Unlock()
		return
	}
	// A portal that stops answering is not sent an ever longer queue: the
	// writer keeps at most -catalog-inflight requests open and counts the
	// ticks it skipped.
	open := 0
	for i := len(w.changes) - 1; i >= 0 && i >= len(w.changes)-4*w.k.st.inflight; i-- {
		if w.changes[i].answered.IsZero() {
			open++
		}
	}
	if open >= w.k.st.inflight {
		w.skipped++
		w.mu.Unlock()
		return
	}
	c := &catalogChange{idx: len(w.changes) + 1, served: make([]time.Time, len(w.nodes))}
	var settled []*catEndpoint
	for _, e := range w.eps {
		if !e.busy && !e.uncertain && e.state != stAbsent {
			settled = append(settled, e)
		}
	}
	r := w.rng.Float64()
	switch {
	case r < 0.25 && len(settled) > 0:
		c.op, c.ep = "update", settled[w.rng.Intn(len(settled))]
		c.want = map[string]string{stSub: stPub, stPub: stSub}[c.ep.state]
	case r < 0.40 && len(settled) > 0:
		c.op, c.ep, c.want = "delete", settled[w.rng.Intn(len(settled))], stAbsent
	default:
		c.op, c.want = "create", stSub
		c.ep = &catEndpoint{path: fmt.Sprintf("/%s/e%d", w.k.catTopic, c.idx), state: stAbsent}
		w.eps = append(w.eps, c.ep)
	}
	c.ep.busy = true
	w.changes = append(w.changes, c)
	w.mu.Unlock()
	w.reqs.Add(1)
	go func() { defer w.reqs.Done(); w.send(c) }()
}

func (w *catalogWriter) send(c *catalogChange) {
	schema := map[string]any{"title": "change " + strconv.Itoa(c.idx)}
	var out struct {
		ID string `json:"id"`
	}
	c.sent = time.Now()
	switch c.op {
	case "create":
		c.res = w.k.api("POST", "/apis/"+w.k.apiID+"/endpoints", map[string]any{"path": c.ep.path, "operations": []string{"subscribe"}, "payloadFormat": "json", "jsonSchema": schema}, &out)
	case "update":
		ops := map[string][]string{stSub: {"subscribe"}, stPub: {"publish"}}[c.want]
		c.res = w.k.api("PATCH", "/endpoints/"+c.ep.id, map[string]any{"operations": ops, "jsonSchema": schema}, nil)
	case "delete":
		c.res = w.k.api("DELETE", "/endpoints/"+c.ep.id, nil, nil)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	c.answered = time.Now()
	switch {
	case c.acked():
		if c.op == "create" {
			c.ep.id = out.ID
		}
		c.ep.state, c.ep.last = c.want, c
		// busy until the probes have seen it on every node
	case c.res.status/100 == 4 || (c.res.status == 503 && strings.Contains(c.res.problem, "Nothing was changed")):
		// A clear refusal: nothing committed; the end's check of the
		// database says whether that holds.
		c.ep.busy = false
	default:
		// No answer, a 500, a 503 that cannot say, a 2xx cut off: it may
		// have committed or not.
		c.ep.uncertain, c.ep.busy = true, false
	}
}

// pending is what probe i still has to see: acknowledged changes not yet
// served on node i, at most limit, oldest first.
func (w *catalogWriter) pending(i, limit int) []*catalogChange {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []*catalogChange
	for _, c := range w.changes {
		if !c.answered.IsZero() && c.acked() && c.served[i].IsZero() {
			out = append(out, c)
			if len(out) == limit {
				break
			}
		}
	}
	return out
}

func (w *catalogWriter) markServed(i int, c *catalogChange, at time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	c.served[i] = at
	if c.ep.last != c {
		return
	}
	for _, s := range c.served {
		if s.IsZero() {
			return
		}
	}
	c.ep.busy = false
}

// catalogProbe asks one gateway node about endpoints, over one WebSocket.
type catalogProbe struct {
	w          *catalogWriter
	node       int
	name, addr string
	token      string
	mu         sync.Mutex // one round at a time (the loop, the end's check)
	ws         *websocket.Conn
	seq        int
	reconnects int
	others     map[string]int64 // answers that are no state (code), counted
}

func (p *catalogProbe) run() {
	for {
		select {
		case <-p.w.stop:
			return
		default:
		}
		round := time.Now()
		if cs := p.w.pending(p.node, 200); len(cs) > 0 {
			paths := make([]string, len(cs))
			for i, c := range cs {
				paths[i] = c.ep.path
			}
			states, at := p.observe(paths)
			for i, c := range cs {
				if states[i] == c.want {
					p.w.markServed(p.node, c, at)
				}
			}
		}
		time.Sleep(time.Until(round.Add(50 * time.Millisecond)))
	}
}

// observe asks the node for paths in one round and returns each one's state
// ("" when the node could not be asked) and when the answers were in.
func (p *catalogProbe) observe(paths []string) ([]string, time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	states := make([]string, len(paths))
	if p.ws == nil {
		d := websocket.Dialer{Subprotocols: []string{"sluice.v1"}, HandshakeTimeout: 5 * time.Second}
		ws, _, err := d.Dial("ws://"+p.addr+"/ws", http.Header{"Authorization": {"Bearer " + p.token}})
		if err != nil {
			return states, time.Now()
		}
		p.ws = ws
		p.reconnects++
	}
	fail := func() ([]string, time.Time) {
		_ = p.ws.Close()
		p.ws = nil
		return states, time.Now()
	}
	ids := map[string]int{}
	for i, path := range paths {
		p.seq++
		id := "s" + strconv.Itoa(p.seq)
		ids[id] = i
		if p.ws.WriteMessage(websocket.TextMessage, fmt.Appendf(nil, `{"type":"subscribe","id":%q,"endpoint":%q}`, id, path)) != nil {
			return fail()
		}
	}
	_ = p.ws.SetReadDeadline(time.Now().Add(10 * time.Second))
	var unsub []string
	for left := len(ids); left > 0; {
		_, data, err := p.ws.ReadMessage()
		if err != nil {
			return fail()
		}
		var f struct {
			Type, ID string
			Code     int
		}
		if json.Unmarshal(data, &f) != nil {
			continue
		}
		i, ok := ids[f.ID]
		if !ok {
			continue
		}
		delete(ids, f.ID)
		left--
		switch {
		case f.Type == "subscribed":
			states[i] = stSub
			unsub = append(unsub, paths[i])
		case f.Type == "error" && f.Code == 4005:
			states[i] = stPub
		case f.Type == "error" && f.Code == 4004:
			states[i] = stAbsent
		default:
			if p.others == nil {
				p.others = map[string]int64{}
			}
			p.others[fmt.Sprintf("%s %d", f.Type, f.Code)]++
		}
	}
	at := time.Now()
	for _, path := range unsub {
		p.seq++
		if p.ws.WriteMessage(websocket.TextMessage, fmt.Appendf(nil, `{"type":"unsubscribe","id":"u%d","endpoint":%q}`, p.seq, path)) != nil {
			return fail()
		}
	}
	return states, at
}

// checkRevocation is the revocation check through the portal: the portal
// mints a token, a client subscribes with it on the node, then the token is
// revoked with DELETE /apps/{app}/tokens/{jti}; timed from sending that
// request until the socket closes: portal → outbox → bridge → Kafka → gateway.
//
// The writer pauses for the check (its requests in flight answered first): at
// 5 changes/s on two shared cores the portal queues requests for seconds, and
// the revocation would time that queue; the writer's own figures show the
// path under load.
func (k *catalogStack) checkRevocation(topic, node, addr string) (revocation, string) {
	if k.writer != nil {
		k.writer.pause(k.st.apiTimeout)
		defer k.writer.resume()
	}
	r := revocation{node: node}
	var out struct {
		Token     string `json:"token"`
		TokenInfo struct {
			Jti string `json:"jti"`
		} `json:"tokenInfo"`
	}
	if res := k.api("POST", "/apps/"+k.appID+"/tokens", map[string]any{"permissions": map[string]any{"sub": []string{"/" + topic + "/*"}},
		"lifetimeSeconds": 3600, "description": "revocation check"}, &out); !(res.status == 201 && res.problem == "") {
		r.err = fmt.Sprintf("minting the token: %d %s", res.status, res.problem)
		return r, "node " + node + ": " + r.err
	}
	// The node knows the new token's app and key: they are old.
	ws, closed, werr := watchedSubscription(addr, out.Token, topic)
	if werr != "" {
		r.err = werr
		return r, "node " + node + ": " + r.err
	}
	defer ws.Close()
	t0 := time.Now()
	res := k.api("DELETE", "/apps/"+k.appID+"/tokens/"+out.TokenInfo.Jti, nil, nil)
	r.ackAfter = res.took
	if res.status != 204 {
		r.err = fmt.Sprintf("revoking through the portal: %d %s", res.status, res.problem)
		return r, "node " + node + ": " + r.err
	}
	select {
	case r.code = <-closed:
		r.closeAfter = time.Since(t0)
	case <-time.After(10 * time.Second):
		r.err = "socket still open 10 s after the revocation request"
		return r, "node " + node + ": " + r.err
	}
	k.revoked = append(k.revoked, revocationTiming{jti: out.TokenInfo.Jti, node: node, sent: t0, answered: t0.Add(res.took), closed: t0.Add(r.closeAfter)})
	ok := "OK"
	if r.closeAfter > time.Second || r.code != 4009 {
		ok = "FAIL"
	}
	return r, fmt.Sprintf("node %s: closed %d %d ms after DELETE /apps/{app}/tokens/{jti} was sent (the portal answered 204 after %d ms; portal -> outbox -> bridge -> Kafka -> gateway) %s",
		node, r.code, r.closeAfter.Milliseconds(), r.ackAfter.Milliseconds(), ok)
}

// finish stops the writer, waits for the acknowledged changes to be served,
// then checks the database, the catalog topic and every node against each
// other and against what the portal acknowledged, and prints it all.
func (k *catalogStack) finish(ctx context.Context, results []*scenarioResult, brokers, catalogTopic string) {
	w := k.writer
	w.halt()
	deadline := time.Now().Add(k.st.servedWait)
	for time.Now().Before(deadline) {
		if len(w.pending(0, 1)) == 0 && (len(w.probes) < 2 || len(w.pending(1, 1)) == 0) {
			break
		}
		for i, p := range w.probes {
			cs := w.pending(i, 500)
			paths := make([]string, len(cs))
			for j, c := range cs {
				paths[j] = c.ep.path
			}
			states, at := p.observe(paths)
			for j, c := range cs {
				if states[j] == c.want {
					w.markServed(i, c, at)
				}
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	// The nodes' final view of every endpoint the writer touched.
	var paths []string
	for _, e := range w.eps {
		paths = append(paths, e.path)
	}
	final := make([][]string, len(w.probes))
	for i, p := range w.probes {
		for from := 0; from < len(paths); from += 500 {
			states, _ := p.observe(paths[from:min(from+500, len(paths))])
			final[i] = append(final[i], states...)
		}
	}
	// The database, as the bridge reads it.
	var db struct {
		Records []struct {
			Key   string          `json:"key"`
			Value json.RawMessage `json:"value"`
		} `json:"records"`
		Pending int `json:"pending"`
	}
	must(json.Unmarshal(k.helper("catalog", k.dbURL), &db))
	dbState := map[string]string{}
	for _, r := range db.Records {
		dbState[r.Key] = canonicalJSON(r.Value)
	}
	topicLog := readCatalogTopic(ctx, brokers, catalogTopic)
	k.printReport(results, final, dbState, db.Pending, topicLog)
}

// topicRecord is one catalog record as read back (read_committed).
type topicRecord struct {
	key   string
	value string    // canonical JSON; "" for a tombstone
	ts    time.Time // the bridge's producer stamps it when it sends (CreateTime)
}

func readCatalogTopic(ctx context.Context, brokers, topic string) []topicRecord {
	cl, err := newKafkaClient(brokers)
	must(err)
	ends, err := kadm.NewClient(cl).ListEndOffsets(ctx, topic)
	cl.Close()
	must(err)
	end := int64(0)
	ends.Each(func(o kadm.ListedOffset) { end = o.Offset })
	var out []topicRecord
	if end == 0 {
		return out
	}
	rd, err := newKafkaClient(brokers, kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: {0: kgo.NewOffset().AtStart()}}),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()))
	must(err)
	defer rd.Close()
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	for ctx.Err() == nil {
		fs := rd.PollFetches(ctx)
		reached := false
		fs.EachRecord(func(r *kgo.Record) {
			v := ""
			if r.Value != nil {
				v = canonicalJSON(r.Value)
			}
			out = append(out, topicRecord{key: string(r.Key), value: v, ts: r.Timestamp})
			if r.Offset >= end-1 {
				reached = true
			}
		})
		// Transaction markers end the log: the last record may sit below end-1.
		fs.EachPartition(func(p kgo.FetchTopicPartition) {
			if p.HighWatermark >= end && len(p.Records) == 0 && p.Err == nil {
				reached = true
			}
		})
		if reached {
			break
		}
	}
	return out
}

// canonicalJSON re-encodes JSON with sorted object keys, so equal values compare equal.
func canonicalJSON(b []byte) string {
	if len(b) == 0 || string(b) == "null" {
		return ""
	}
	var v any
	if json.Unmarshal(b, &v) != nil {
		return string(b)
	}
	out, _ := json.Marshal(v)
	return string(out)
}

// changeOf is the change index an endpoint value carries (its schema's title), or 0.
func changeOf(value string) int {
	var v struct {
		JSONSchema struct {
			Title string `json:"title"`
		} `json:"json_schema"`
	}
	if json.Unmarshal([]byte(value), &v) != nil {
		return 0
	}
	n, _ := strconv.Atoi(strings.TrimPrefix(v.JSONSchema.Title, "change "))
	return n
}

// catWindow is one window of the catalog report.
type catWindow struct {
	name     string
	from, to time.Time
	fault    *stackFault
}

func (k *catalogStack) printReport(results []*scenarioResult, final [][]string, dbState map[string]string, dbPending int, topicLog []topicRecord) {
	w := k.writer
	nodes := len(w.probes)
	fmt.Printf("\n== catalog faults: changes through the portal (%s/s), PostgreSQL, 2 bridge replicas, %d gateway nodes ==\n", strconv.FormatFloat(k.st.rate, 'f', -1, 64), nodes)
	var windows []catWindow
	prev := time.Time{}
	for _, sc := range results {
		windows = append(windows, catWindow{name: "(outside the faults)", from: prev, to: sc.start})
		windows = append(windows, catWindow{name: sc.name, from: sc.start, to: sc.done, fault: k.faults[sc.name]})
		prev = sc.done
	}
	windows = append(windows, catWindow{name: "(outside the faults)", from: prev, to: time.Now().Add(time.Hour)})
	// The two "outside" pieces and more fold into one line.
	type agg struct {
		sent, acked      int
		answers          map[string]int
		took             []int64
		lat              [][]int64 // per node, ns
		latAfter         [][]int64 // per node, ns: answered after the fault's end
		notServed        []int
		firstAckAfterEnd time.Time
	}
	aggs := map[string]*agg{}
	var order []string
	for _, win := range windows {
		if _, ok := aggs[win.name]; !ok {
			aggs[win.name] = &agg{answers: map[string]int{}, lat: make([][]int64, nodes), latAfter: make([][]int64, nodes), notServed: make([]int, nodes)}
			order = append(order, win.name)
		}
	}
	windowOf := func(t time.Time) *catWindow {
		for i := range windows {
			if !t.Before(windows[i].from) && t.Before(windows[i].to) {
				return &windows[i]
			}
		}
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	// A change belongs to the window in which the portal answered it.
	for _, c := range w.changes {
		if c.answered.IsZero() {
			continue
		}
		win := windowOf(c.answered)
		if win == nil {
			continue
		}
		a := aggs[win.name]
		a.sent++
		a.took = append(a.took, int64(c.res.took))
		if c.acked() {
			a.acked++
			a.answers[fmt.Sprintf("%d", c.res.status)]++
			for i := range nodes {
				if c.served[i].IsZero() {
					a.notServed[i]++
				} else {
					d := int64(max(c.served[i].Sub(c.answered), 0))
					if win.fault != nil && !c.answered.Before(win.fault.end) {
						a.latAfter[i] = append(a.latAfter[i], d)
					} else {
						a.lat[i] = append(a.lat[i], d)
					}
				}
			}
			if win.fault != nil && !win.fault.end.IsZero() && c.sent.After(win.fault.end) && (a.firstAckAfterEnd.IsZero() || c.answered.Before(a.firstAckAfterEnd)) {
				a.firstAckAfterEnd = c.answered
			}
		} else {
			key := fmt.Sprintf("%d %s", c.res.status, c.res.problem)
			if c.res.status == 0 {
				key = c.res.problem
			}
			if len(key) > 160 {
				key = key[:160] + "…"
			}
			a.answers[key]++
		}
	}
	for _, name := range order {
		a := aggs[name]
		fmt.Printf("\n-- catalog: %s --\n", name)
		for _, win := range windows {
			if win.name == name && win.fault != nil {
				for _, n := range win.fault.notes {
					fmt.Printf("  %s\n", n)
				}
				if f := win.fault; f.leader >= 0 {
					from, what := f.start, "the kill"
					if f.name == "postgres-restart" {
						from, what = f.pgBackAt, "PostgreSQL's return"
					}
					logPath := k.bridges[f.leader].logPath
					fmt.Printf("  bridge %d (its log): took the publisher lock %s after %s, in sync (topic state taken, catalog reconciled; its log says how) %s after it\n",
						f.leader, since0(bridgeLogTime(logPath, "holding the publisher lock", from), from), what, since0(bridgeLogTime(logPath, " is in sync ", from), from))
				}
			}
		}
		fmt.Printf("  changes answered: %d, acknowledged (2xx): %d; answers: %s\n", a.sent, a.acked, fmtCounts(a.answers))
		fmt.Printf("  portal request time                 ms %s\n", pctChanges(a.took))
		fault := windowIsFault(windows, name)
		for i := range nodes {
			during := ""
			if fault {
				during = " (answered during the fault)"
			}
			fmt.Printf("  2xx answer -> served on node %s      ms %s%s; never served: %d\n", w.probes[i].name, pctChanges(a.lat[i]), during, a.notServed[i])
		}
		for i := range nodes {
			if fault {
				fmt.Printf("  2xx answer -> served on node %s      ms %s (answered after its end)\n", w.probes[i].name, pctChanges(a.latAfter[i]))
			}
		}
		for _, win := range windows {
			if win.name != name || win.fault == nil {
				continue
			}
			f := win.fault
			if f.name == "postgres-restart" {
				if a.firstAckAfterEnd.IsZero() {
					fmt.Printf("  NO WRITE ACKNOWLEDGED after PostgreSQL's return within the window\n")
				} else {
					fmt.Printf("  first write sent after PostgreSQL's return acknowledged %d ms after it (the portal was not restarted%s)\n",
						a.firstAckAfterEnd.Sub(f.pgBackAt).Milliseconds(), map[bool]string{true: ": IT EXITED and was restarted", false: ""}[f.portalDied])
				}
			}
		}
	}

	// Acknowledged changes against the database, the topic and the nodes.
	type epCheck struct {
		missingInDB, wrongInDB int
	}
	var chk epCheck
	nodeWrong := make([]int, nodes)
	var examples []string
	example := func(format string, args ...any) {
		if len(examples) < 8 {
			examples = append(examples, fmt.Sprintf(format, args...))
		}
	}
	for i, e := range w.eps {
		if e.uncertain || e.last == nil {
			continue
		}
		key := "endpoint/" + e.id
		dbv, inDB := dbState[key]
		switch {
		case e.state == stAbsent && inDB:
			chk.wrongInDB++
			example("%s: deleted (change %d acknowledged) but in the database", e.path, e.last.idx)
		case e.state != stAbsent && !inDB:
			chk.missingInDB++
			example("%s: change %d acknowledged, endpoint not in the database", e.path, e.last.idx)
		case e.state != stAbsent && changeOf(dbv) != e.last.idx:
			chk.wrongInDB++
			example("%s: change %d acknowledged, the database holds change %d", e.path, e.last.idx, changeOf(dbv))
		}
		for n := range nodes {
			if final[n][i] != e.state {
				nodeWrong[n]++
				example("%s: node %s answers %q, the last acknowledged change %d says %q", e.path, w.probes[n].name, final[n][i], e.last.idx, e.state)
			}
		}
	}
	// Refused changes that committed anyway: their index in the database.
	refused := map[int]bool{}
	for _, c := range w.changes {
		if !c.acked() && !c.ep.uncertain && c.op != "delete" {
			refused[c.idx] = true
		}
	}
	refusedCommitted := 0
	for key, v := range dbState {
		if strings.HasPrefix(key, "endpoint/") && refused[changeOf(v)] {
			refusedCommitted++
			example("%s holds change %d, which the portal refused", key, changeOf(v))
		}
	}
	// The topic: its last value per key against the database, and per
	// endpoint key the order of the changes it carried.
	topicState := map[string]string{}
	seq := map[string][]int{}
	for _, r := range topicLog {
		if r.value == "" {
			delete(topicState, r.key)
			seq[r.key] = append(seq[r.key], -1)
		} else {
			topicState[r.key] = r.value
			if strings.HasPrefix(r.key, "endpoint/") {
				seq[r.key] = append(seq[r.key], changeOf(r.value))
			}
		}
	}
	onlyDB, onlyTopic, differ := 0, 0, 0
	for key, v := range dbState {
		tv, ok := topicState[key]
		switch {
		case !ok:
			onlyDB++
			example("%s: in the database, not on the topic", key)
		case tv != v:
			differ++
			example("%s: the topic's value differs from the database's", key)
		}
	}
	for key := range topicState {
		if _, ok := dbState[key]; !ok {
			onlyTopic++
			example("%s: on the topic, not in the database", key)
		}
	}
	twice, backwards, lostOnTopic := 0, 0, 0
	for _, e := range w.eps {
		if e.id == "" {
			continue
		}
		s := seq["endpoint/"+e.id]
		for j := 1; j < len(s); j++ {
			switch {
			case s[j] == s[j-1]:
				twice++
			case s[j-1] == -1 || (s[j] != -1 && s[j] < s[j-1]):
				backwards++
				example("endpoint %s: change %d after %d on the topic", e.path, s[j], s[j-1])
			}
		}
	}
	for _, c := range w.changes {
		if !c.acked() || c.op == "delete" || c.ep.id == "" {
			continue
		}
		if !slices.Contains(seq["endpoint/"+c.ep.id], c.idx) {
			lostOnTopic++
			example("change %d (%s %s) acknowledged, never on the topic", c.idx, c.op, c.ep.path)
		}
	}
	// Changes without a clear answer: did they commit? (The database says:
	// a create or update whose index it holds, a delete whose endpoint is gone.)
	titles := map[int]bool{}
	for key, v := range dbState {
		if strings.HasPrefix(key, "endpoint/") {
			titles[changeOf(v)] = true
		}
	}
	unclear, unclearCommitted := 0, 0
	for _, c := range w.changes {
		if c.acked() || c.answered.IsZero() || c.res.status/100 == 4 || (c.res.status == 503 && strings.Contains(c.res.problem, "Nothing was changed")) {
			continue
		}
		unclear++
		_, stillThere := dbState["endpoint/"+c.ep.id]
		if (c.op != "delete" && titles[c.idx]) || (c.op == "delete" && !stillThere) {
			unclearCommitted++
		}
	}
	acked, uncertain := 0, 0
	for _, c := range w.changes {
		if c.acked() {
			acked++
		}
	}
	for _, e := range w.eps {
		if e.uncertain {
			uncertain++
		}
	}
	fmt.Printf("\n-- catalog: end of run --\n")
	fmt.Printf("  %d changes sent, %d acknowledged; %d ticks skipped (%d requests unanswered); %d endpoints left out of the checks (a change without a clear answer: none, a 500, a 503 that cannot say)\n",
		len(w.changes), acked, w.skipped, k.st.inflight, uncertain)
	fmt.Printf("  changes without a clear answer: %d, of which the database holds %d (committed) and %d not\n", unclear, unclearCommitted, unclear-unclearCommitted)
	fmt.Printf("  acknowledged, missing from the database afterwards: %d; database holds another state: %d (must be 0); refused (4xx/503) but committed: %d\n", chk.missingInDB, chk.wrongInDB, refusedCommitted)
	fmt.Printf("  acknowledged creates/updates never on the catalog topic: %d (must be 0); carried twice in a row: %d; out of order: %d\n", lostOnTopic, twice, backwards)
	fmt.Printf("  catalog topic (read_committed, %d records) vs the database (%d keys, %d outbox rows pending): only in the database %d, only on the topic %d, different values %d (must be 0 each)\n",
		len(topicLog), len(dbState), dbPending, onlyDB, onlyTopic, differ)
	for n := range nodes {
		p := w.probes[n]
		fmt.Printf("  node %s: %d endpoints answered otherwise than the last acknowledged change (must be 0); probe reconnects %d; other answers %s\n",
			p.name, nodeWrong[n], max(p.reconnects-1, 0), fmtCounts64(p.others))
	}
	for _, e := range examples {
		fmt.Printf("  e.g. %s\n", e)
	}
	k.printPathSplit(topicLog)
	_, port, _ := net.SplitHostPort(k.st.portalAddr)
	if pid := listenerPid(port); pid > 0 && pid == w.portalPid {
		cpu := float64(cpuTicks(pid)-w.portalTicks) / float64(clockTicks())
		answered := 0
		for _, c := range w.changes {
			if !c.answered.IsZero() {
				answered++
			}
		}
		fmt.Printf("  the portal's CPU while the writer ran: %.1f s for %d answered writes (and the probes' and checks' calls): %.0f ms per write\n",
			cpu, answered, 1000*cpu/float64(max(answered, 1)))
	}
}

func fmtCounts(m map[string]int) string {
	if len(m) == 0 {
		return "none"
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int { return m[b] - m[a] })
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%d× %s", m[k], k)
	}
	return strings.Join(parts, "; ")
}

func fmtCounts64(m map[string]int64) string {
	c := map[string]int{}
	for k, v := range m {
		c[k] = int(v)
	}
	return fmtCounts(c)
}

// pctChanges formats p50/p99/max of durations given in ns, and how many.
func pctChanges(ns []int64) string {
	if len(ns) == 0 {
		return "(none)"
	}
	slices.Sort(ns)
	at := func(q float64) float64 { return float64(ns[max(int(q*float64(len(ns))+0.999999)-1, 0)]) / 1e6 }
	return fmt.Sprintf("p50 %.0f  p99 %.0f  max %.0f  (%d changes)", at(0.50), at(0.99), float64(ns[len(ns)-1])/1e6, len(ns))
}

func windowIsFault(windows []catWindow, name string) bool {
	for _, w := range windows {
		if w.name == name && w.fault != nil {
			return true
		}
	}
	return false
}

// revocationTiming is one revocation check through the portal, to split its
// time at the end: the record's timestamp on the catalog topic is when the
// bridge sent it.
type revocationTiming struct {
	jti, node              string
	sent, answered, closed time.Time
}

// printPathSplit splits commit -> served at the bridge's send (the record's
// timestamp): how long changes waited in the portal/outbox/bridge, and how
// long from the bridge's send to a gateway serving them.
func (k *catalogStack) printPathSplit(topicLog []topicRecord) {
	w := k.writer
	sentAt := map[int]time.Time{} // change index -> first record carrying it
	revokedAt := map[string]time.Time{}
	for _, r := range topicLog {
		if n := changeOf(r.value); n > 0 {
			if _, ok := sentAt[n]; !ok {
				sentAt[n] = r.ts
			}
		}
		if strings.HasPrefix(r.key, "revoked/") && r.value != "" {
			revokedAt[strings.TrimPrefix(r.key, "revoked/")] = r.ts
		}
	}
	var toTopic []int64
	toServed := make([][]int64, len(w.probes))
	for _, c := range w.changes {
		t, ok := sentAt[c.idx]
		if !c.acked() || !ok {
			continue
		}
		toTopic = append(toTopic, int64(t.Sub(c.answered)))
		for i := range w.probes {
			if !c.served[i].IsZero() {
				toServed[i] = append(toServed[i], int64(c.served[i].Sub(t)))
			}
		}
	}
	fmt.Printf("  where the time goes (whole run; creates and updates, whose record names the change):\n")
	fmt.Printf("    2xx answer -> the bridge sent the record (its timestamp)    ms %s (negative: sent before the answer arrived)\n", pctSigned(toTopic))
	for i, p := range w.probes {
		fmt.Printf("    the bridge sent it -> served on node %s                     ms %s\n", p.name, pctSigned(toServed[i]))
	}
	for _, rv := range k.revoked {
		t, ok := revokedAt[rv.jti]
		if !ok {
			fmt.Printf("    revocation check on node %s: revoked/%s NOT ON THE TOPIC\n", rv.node, rv.jti)
			continue
		}
		fmt.Printf("    revocation check on node %s: DELETE sent -> 204 %d ms; -> the bridge sent revoked/<jti> %d ms; -> socket closed %d ms\n",
			rv.node, rv.answered.Sub(rv.sent).Milliseconds(), t.Sub(rv.sent).Milliseconds(), rv.closed.Sub(rv.sent).Milliseconds())
	}
}

// pctSigned is pctChanges for durations that may be negative.
func pctSigned(ns []int64) string {
	if len(ns) == 0 {
		return "(none)"
	}
	slices.Sort(ns)
	at := func(q float64) float64 { return float64(ns[max(int(q*float64(len(ns))+0.999999)-1, 0)]) / 1e6 }
	return fmt.Sprintf("p50 %.0f  p99 %.0f  max %.0f  (%d)", at(0.50), at(0.99), float64(ns[len(ns)-1])/1e6, len(ns))
}
