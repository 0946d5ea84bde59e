package main

// The hostile-clients mode of the fan-out scenario (issue 18): beside the
// normal clients, which are measured as usual, misbehaving clients run in
// load-generator processes of their own (`fanout hostile -kind …`), so the
// normal clients' figures say what the misbehaviour costs everyone else:
//
//   - stall: subscribes to -slow-subs endpoints, then never reads its socket
//     again (a small SO_RCVBUF, so the gateway's side fills quickly); at the end
//     it reads what was left and counts messages, gaps and how it was closed;
//   - garbage: every -garbage-every sends invalid JSON, a binary frame, a text
//     frame over 1 MiB, an unknown frame type and a flood of ping frames, and
//     counts the answers (error frames by code, pongs, closes);
//   - unauth: upgrades without a token and sends nothing: the gateway must
//     close it with 4001 after 10 s; it reconnects and counts;
//   - flood: during the window, -flood-rate upgrades per second from 127.0.0.9,
//     each held -flood-hold, counting 101s, 429s (code 4294) and failures.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/gorilla/websocket"
)

// hostileSettings are the orchestrator's flags of the mode.
type hostileSettings struct {
	on                             bool
	stallFrac, garbageFrac, unauth float64
	slowSubs, slowRcvBuf           int
	garbageEvery                   time.Duration
	floodRate                      int
	floodHold                      time.Duration
	maxPerAddress                  int
	// nice is the niceness the misbehaving clients' processes run at.
	nice int
}

func (h *hostileSettings) flags() {
	flag.BoolVar(&h.on, "hostile", false, "also run misbehaving clients (stalled readers, garbage senders, unauthenticated connections, a connection flood) in processes of their own; the normal clients are measured as usual")
	flag.Float64Var(&h.stallFrac, "stall-fraction", 0.05, "with -hostile: clients (fraction of -clients) that subscribe and then stop reading")
	flag.IntVar(&h.slowSubs, "slow-subs", 200, "with -hostile: endpoints each stalled client subscribes to (more fills its queue sooner)")
	flag.IntVar(&h.slowRcvBuf, "slow-rcvbuf", 4096, "with -hostile: SO_RCVBUF of a stalled client's socket, bytes")
	flag.Float64Var(&h.garbageFrac, "garbage-fraction", 0.01, "with -hostile: clients (fraction of -clients) that send garbage frames")
	flag.DurationVar(&h.garbageEvery, "garbage-every", 2*time.Second, "with -hostile: how often a garbage client sends its round of bad frames")
	flag.Float64Var(&h.unauth, "unauth-fraction", 0.01, "with -hostile: connections (fraction of -clients) that upgrade and never authenticate")
	flag.IntVar(&h.floodRate, "flood-rate", 2000, "with -hostile: upgrades per second from 127.0.0.9 during the window (0: no flood)")
	flag.DurationVar(&h.floodHold, "flood-hold", time.Second, "with -hostile: how long a flood connection that was accepted is held")
	flag.IntVar(&h.maxPerAddress, "max-per-address", 0, "the gateway's -max-connections-per-address (0: flag not passed, no bound)")
	flag.IntVar(&h.nice, "hostile-nice", 0, "with -hostile: niceness of the misbehaving clients' processes (19: they take only CPU nothing else wants, as if they ran on machines of their own)")
}

// check refuses a bound that the normal clients' own processes would hit.
func (h *hostileSettings) check(s *settings) {
	if h.maxPerAddress <= 0 {
		return
	}
	per := (s.clients + s.procs - 1) / s.procs
	if h.maxPerAddress < per || h.maxPerAddress < h.count(h.stallFrac, s) || h.maxPerAddress < h.count(h.garbageFrac, s) {
		log.Fatalf("-max-per-address %d: below what one load-generator process holds (%d normal clients per process): raise it or -procs", h.maxPerAddress, per)
	}
	s.gatewayExtra = append(s.gatewayExtra, "-max-connections-per-address", strconv.Itoa(h.maxPerAddress))
}

func (h *hostileSettings) count(frac float64, s *settings) int {
	if frac <= 0 {
		return 0
	}
	return max(int(frac*float64(s.clients)+0.5), 1)
}

// hostileRun is the mode's running part: its processes and the gateway's RSS
// sampled every second.
type hostileRun struct {
	kinds    []string
	children []*exec.Cmd
	outputs  []*bufio.Reader
	rss      *rssSampler
	// timeline: every 5 s, the gateway's RSS, the stalled clients' sockets
	// still established and the gateway's dropped-messages counter.
	timeline     []string
	stopTimeline chan struct{}
	timelineDone chan struct{}
}

// startHostile starts one process per kind of misbehaviour, each from a source
// address of its own (the flood from 127.0.0.9, as the brief of issue 18 says).
func startHostile(h *hostileSettings, s *settings, topic, token, url string, pid int, from, to time.Time) *hostileRun {
	r := &hostileRun{rss: startRSSSampler(pid, time.Second), stopTimeline: make(chan struct{}), timelineDone: make(chan struct{})}
	_, port, _ := net.SplitHostPort(s.gatewayAddr)
	metricsURL := strings.Replace(strings.Replace(url, "ws", "http", 1), "/ws", "/metrics", 1)
	go func() {
		defer close(r.timelineDone)
		began := time.Now()
		t := time.NewTicker(5 * time.Second)
		defer t.Stop()
		for {
			select {
			case <-r.stopTimeline:
				return
			case <-t.C:
			}
			sendQ, stalled := socketQueues("( sport = :"+port+" and dst 127.0.0.20 )", 2) // the gateway's side: the clients' stays established until it reads
			r.timeline = append(r.timeline, fmt.Sprintf("+%.0fs %dMiB %d %dKiB %.0f", time.Since(began).Seconds(), rssKiB(pid)/1024, stalled, sendQ.sum/1024,
				metricSum(metricsURL, "sluice_gateway_dropped_messages_total")))
		}
	}()
	add := func(kind, src string, n int, extra ...string) {
		if n <= 0 {
			return
		}
		args := append([]string{"hostile", "-kind", kind, "-n", strconv.Itoa(n), "-keys", strconv.Itoa(s.keys), "-topic", topic,
			"-url", url, "-token", token, "-src", src,
			"-from", strconv.FormatInt(from.UnixNano(), 10), "-to", strconv.FormatInt(to.UnixNano(), 10)}, extra...)
		cmd := exec.Command(os.Args[0], args...)
		if h.nice != 0 {
			// Through nice(1): every thread the process makes inherits it.
			cmd = exec.Command("nice", append([]string{"-n", strconv.Itoa(h.nice), os.Args[0]}, args...)...)
		}
		out, err := cmd.StdoutPipe()
		must(err)
		cmd.Stderr = os.Stderr
		must(cmd.Start())
		r.kinds = append(r.kinds, kind)
		r.children = append(r.children, cmd)
		r.outputs = append(r.outputs, bufio.NewReader(out))
	}
	add("stall", "127.0.0.20", h.count(h.stallFrac, s), "-subs", strconv.Itoa(h.slowSubs), "-rcvbuf", strconv.Itoa(h.slowRcvBuf))
	add("garbage", "127.0.0.21", h.count(h.garbageFrac, s), "-every", h.garbageEvery.String())
	add("unauth", "127.0.0.22", h.count(h.unauth, s))
	if h.floodRate > 0 {
		add("flood", "127.0.0.9", h.floodRate, "-hold", h.floodHold.String())
	}
	return r
}

// finish stops the processes and prints what each kind got, with the
// gateway's own counters (metricsURL) and its RSS over the run.
func (r *hostileRun) finish(metricsURL, gatewayAddr string) {
	r.rss.stop()
	close(r.stopTimeline)
	<-r.timelineDone
	fmt.Printf("timeline (every 5 s: since the clients' start, gateway RSS, the gateway's stalled sockets still established and their Send-Q, dropped messages):\n  %s\n", strings.Join(r.timeline, " | "))
	// Before the stalled clients read what is left: what the kernel holds for
	// them, which the gateway's RSS does not show.
	_, port, _ := net.SplitHostPort(gatewayAddr)
	gwQ, gwN := socketQueues("( sport = :"+port+" and dst 127.0.0.20 )", 2)
	clQ, _ := socketQueues("( dport = :"+port+" and src 127.0.0.20 )", 1)
	fmt.Printf("stalled sockets (ss):       %d connections; gateway side Send-Q %d KiB in all (%d KiB max per connection), clients' Recv-Q %d KiB in all\n",
		gwN, gwQ.sum/1024, gwQ.max/1024, clQ.sum/1024)
	for i, cmd := range r.children {
		cpu := float64(cpuTicks(cmd.Process.Pid)) / float64(clockTicks()) // the whole run: they compete with the gateway for the cores
		_ = cmd.Process.Signal(os.Interrupt)
		var rep hostileReport
		if err := json.NewDecoder(r.outputs[i]).Decode(&rep); err != nil {
			log.Printf("hostile %s report: %v", r.kinds[i], err)
			continue
		}
		_ = cmd.Wait()
		fmt.Printf("hostile %-8s %s; its CPU %.1f s\n", r.kinds[i]+":", rep.summary(), cpu)
	}
	fmt.Printf("gateway counters:           dropped messages %.0f, slow disconnects %.0f, error frames %s, connections at the end %.0f\n",
		metricSum(metricsURL, "sluice_gateway_dropped_messages_total"), metricSum(metricsURL, "sluice_gateway_slow_disconnects_total"),
		metricLines(metricsURL, "sluice_gateway_error_frames_total"), metricSum(metricsURL, "sluice_gateway_connections"))
	fmt.Printf("gateway RSS (every 1 s):    %s\n", r.rss.summary())
}

type queueSum struct{ sum, max int64 }

// socketQueues adds up column col (1: Recv-Q, 2: Send-Q) of the established
// TCP sockets matching filter.
func socketQueues(filter string, col int) (q queueSum, n int) {
	out, err := exec.Command("sh", "-c", "ss -tnH state established '"+filter+"'").Output()
	if err != nil {
		log.Printf("ss: %v", err)
		return q, 0
	}
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) < 3 {
			continue
		}
		// With a state filter ss leaves the state column out: Recv-Q Send-Q Local Peer.
		v, _ := strconv.ParseInt(f[col-1], 10, 64)
		q.sum += v
		q.max = max(q.max, v)
		n++
	}
	return q, n
}

// rssSampler reads a process's RSS every period until stopped.
type rssSampler struct {
	mu               sync.Mutex
	start, max, last int64
	maxAt            time.Duration
	n                int
	began            time.Time
	done             chan struct{}
}

func startRSSSampler(pid int, period time.Duration) *rssSampler {
	s := &rssSampler{began: time.Now(), done: make(chan struct{})}
	sample := func() {
		v := rssKiB(pid)
		s.mu.Lock()
		if s.n == 0 {
			s.start = v
		}
		if v > s.max {
			s.max, s.maxAt = v, time.Since(s.began)
		}
		s.last = v
		s.n++
		s.mu.Unlock()
	}
	sample()
	go func() {
		t := time.NewTicker(period)
		defer t.Stop()
		for {
			select {
			case <-s.done:
				return
			case <-t.C:
				sample()
			}
		}
	}()
	return s
}

func (s *rssSampler) stop() { close(s.done) }

func (s *rssSampler) summary() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return fmt.Sprintf("start %d KiB, max %d KiB (at +%.0fs), end %d KiB (%d samples)", s.start, s.max, s.maxAt.Seconds(), s.last, s.n)
}

// hostileReport is what a hostile process prints as JSON when it stops.
type hostileReport struct {
	Conns        int64            // connections upgraded
	DialFailures int64            // dials that failed below HTTP (refused, reset, timeout)
	HTTPStatus   map[string]int64 // upgrade answers by status, with the problem code of a refusal ("429/4294")
	ErrorCodes   map[string]int64 // error frames by code
	CloseCodes   map[string]int64 // how connections ended: close code, or "eof"/"reset"/"open"
	Closing      map[string]int64 // closing frames by code
	Sent         map[string]int64 // bad frames sent, by kind
	Pongs        int64
	Messages     int64            // stall: message frames read at the end
	GapReasons   map[string]int64 // stall: gap frames by reason
	Subscribed   int64
	// CloseAfterMs: unauth connections, upgrade → close (min, max).
	CloseAfterMinMs, CloseAfterMaxMs int64
}

func (r *hostileReport) summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d connections", r.Conns)
	if r.Subscribed > 0 {
		fmt.Fprintf(&b, ", %d subscriptions", r.Subscribed)
	}
	if r.DialFailures > 0 {
		fmt.Fprintf(&b, ", %d dial failures", r.DialFailures)
	}
	for _, p := range []struct {
		name string
		m    map[string]int64
	}{{"upgrade answers", r.HTTPStatus}, {"sent", r.Sent}, {"error frames", r.ErrorCodes}, {"closing frames", r.Closing}, {"ended", r.CloseCodes}} {
		if len(p.m) > 0 {
			fmt.Fprintf(&b, "; %s %s", p.name, countsLine(p.m))
		}
	}
	if r.Pongs > 0 {
		fmt.Fprintf(&b, "; pongs %d", r.Pongs)
	}
	if r.Messages > 0 || len(r.GapReasons) > 0 {
		fmt.Fprintf(&b, "; read at the end: %d messages, gaps by reason: %s", r.Messages, countsLine(r.GapReasons))
	}
	if r.CloseAfterMaxMs > 0 {
		fmt.Fprintf(&b, "; closed %.1f-%.1f s after the upgrade", float64(r.CloseAfterMinMs)/1000, float64(r.CloseAfterMaxMs)/1000)
	}
	return b.String()
}

func countsLine(m map[string]int64) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s=%d", k, m[k])
	}
	return strings.Join(parts, " ")
}

// hostileGen is one hostile process.
type hostileGen struct {
	kind, topic, url string
	keys             int
	from, to         time.Time
	header           http.Header
	dialer           websocket.Dialer
	stopping         atomic.Bool
	conns            atomic.Int64
	pongs, messages  atomic.Int64

	mu  sync.Mutex
	rep hostileReport
	// open are the connections to close (or, stalled, to read) at the end.
	open map[*websocket.Conn]struct{}
}

func (g *hostileGen) count(m *map[string]int64, k string) {
	g.mu.Lock()
	if *m == nil {
		*m = map[string]int64{}
	}
	(*m)[k]++
	g.mu.Unlock()
}

// dialerFor binds to src and sets SO_LINGER 0 (a closed flood connection
// leaves no TIME_WAIT behind: thousands per second would exhaust the source
// address's ports) and, when rcvbuf > 0, a small receive buffer.
func dialerFor(src string, rcvbuf int) websocket.Dialer {
	nd := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(src)}, Timeout: 10 * time.Second,
		Control: func(_, _ string, rc syscall.RawConn) error {
			return rc.Control(func(fd uintptr) {
				_ = syscall.SetsockoptLinger(int(fd), syscall.SOL_SOCKET, syscall.SO_LINGER, &syscall.Linger{Onoff: 1, Linger: 0})
				if rcvbuf > 0 {
					_ = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, rcvbuf)
				}
			})
		}}
	return websocket.Dialer{Subprotocols: []string{"sluice.v1"}, HandshakeTimeout: 10 * time.Second,
		ReadBufferSize: 4096, WriteBufferSize: 4096, NetDial: nd.Dial}
}

// dial upgrades one connection, counting a refused upgrade by its status and
// problem code.
func (g *hostileGen) dial() *websocket.Conn {
	ws, res, err := g.dialer.Dial(g.url, g.header)
	if err != nil {
		if res == nil {
			g.count(&g.rep.CloseCodes, "dial-failed")
			g.mu.Lock()
			g.rep.DialFailures++
			g.mu.Unlock()
			return nil
		}
		body, _ := io.ReadAll(io.LimitReader(res.Body, 4096))
		key := strconv.Itoa(res.StatusCode)
		if c := fieldInt(body, `"code":`); c != 0 {
			key += "/" + strconv.FormatInt(c, 10)
		}
		g.count(&g.rep.HTTPStatus, key)
		return nil
	}
	g.conns.Add(1)
	g.mu.Lock()
	g.open[ws] = struct{}{}
	g.mu.Unlock()
	return ws
}

func (g *hostileGen) forget(ws *websocket.Conn) {
	g.mu.Lock()
	delete(g.open, ws)
	g.mu.Unlock()
	_ = ws.Close()
}

// endReason names how a read ended: the close code, or eof/reset/timeout.
func endReason(err error) string {
	var ce *websocket.CloseError
	switch {
	case err == nil:
		return "open"
	case asCloseError(err, &ce):
		return strconv.Itoa(ce.Code)
	case strings.Contains(err.Error(), "reset"):
		return "reset"
	case strings.Contains(err.Error(), "timeout"):
		return "open"
	default:
		return "eof"
	}
}

func asCloseError(err error, ce **websocket.CloseError) bool {
	c, ok := err.(*websocket.CloseError)
	if ok {
		*ce = c
	}
	return ok
}

// countFrame counts one server frame of a hostile connection.
func (g *hostileGen) countFrame(data []byte) {
	switch {
	case bytes.HasPrefix(data, []byte(`{"type":"message"`)):
		g.messages.Add(1)
	case bytes.HasPrefix(data, []byte(`{"type":"pong"`)):
		g.pongs.Add(1)
	case bytes.HasPrefix(data, []byte(`{"type":"subscribed"`)):
		g.mu.Lock()
		g.rep.Subscribed++
		g.mu.Unlock()
	case bytes.HasPrefix(data, []byte(`{"type":"gap"`)):
		g.count(&g.rep.GapReasons, fieldStr(data, `"reason":"`))
	case bytes.HasPrefix(data, []byte(`{"type":"error"`)):
		g.count(&g.rep.ErrorCodes, strconv.FormatInt(fieldInt(data, `"code":`), 10))
	case bytes.HasPrefix(data, []byte(`{"type":"closing"`)):
		g.count(&g.rep.Closing, strconv.FormatInt(fieldInt(data, `"code":`), 10))
	}
}

func hostileMain(args []string) {
	fs := flag.NewFlagSet("hostile", flag.ExitOnError)
	kind := fs.String("kind", "", "stall, garbage, unauth or flood")
	n := fs.Int("n", 10, "connections (flood: upgrades per second)")
	keys := fs.Int("keys", 100, "keys")
	topic := fs.String("topic", "", "topic")
	url := fs.String("url", "", "gateway WebSocket URL")
	token := fs.String("token", "", "token")
	src := fs.String("src", "127.0.0.20", "source address")
	from := fs.Int64("from", 0, "window start, unix ns")
	to := fs.Int64("to", 0, "window end, unix ns")
	subs := fs.Int("subs", 200, "stall: endpoints each connection subscribes to")
	rcvbuf := fs.Int("rcvbuf", 4096, "stall: SO_RCVBUF, bytes")
	every := fs.Duration("every", 2*time.Second, "garbage: period of a round of bad frames")
	hold := fs.Duration("hold", time.Second, "flood: how long an accepted connection is held")
	_ = fs.Parse(args)

	g := &hostileGen{kind: *kind, topic: *topic, url: *url, keys: *keys, from: time.Unix(0, *from), to: time.Unix(0, *to),
		header: http.Header{"Authorization": {"Bearer " + *token}}, open: map[*websocket.Conn]struct{}{}}
	g.dialer = dialerFor(*src, 0)
	var wg sync.WaitGroup
	spawn := func(f func()) { wg.Add(1); go func() { defer wg.Done(); f() }() }
	switch *kind {
	case "stall":
		g.dialer = dialerFor(*src, *rcvbuf)
		for i := 0; i < *n; i++ {
			spawn(func() { g.stall(i, *subs) })
			time.Sleep(20 * time.Millisecond)
		}
	case "garbage":
		for i := 0; i < *n; i++ {
			spawn(func() { g.garbage(*every) })
			time.Sleep(50 * time.Millisecond)
		}
	case "unauth":
		g.header = nil
		for i := 0; i < *n; i++ {
			spawn(g.unauth)
			time.Sleep(50 * time.Millisecond)
		}
	case "flood":
		spawn(func() { g.flood(*n, *hold, &wg) })
	default:
		log.Fatalf("hostile -kind %q: want stall, garbage, unauth or flood", *kind)
	}

	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	<-sig
	g.stopping.Store(true)
	if *kind == "stall" {
		g.drainStalled()
	}
	g.mu.Lock()
	for ws := range g.open {
		_ = ws.Close()
	}
	g.mu.Unlock()
	waited := make(chan struct{})
	go func() { wg.Wait(); close(waited) }()
	select {
	case <-waited:
	case <-time.After(5 * time.Second):
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.rep.Conns, g.rep.Pongs, g.rep.Messages = g.conns.Load(), g.pongs.Load(), g.messages.Load()
	_ = json.NewEncoder(os.Stdout).Encode(&g.rep)
}

// stall subscribes to subs endpoints, reads until they are acknowledged, then
// reads nothing more until the end (drainStalled).
func (g *hostileGen) stall(i, subs int) {
	ws := g.dial()
	if ws == nil {
		return
	}
	for j := 0; j < subs; j++ {
		sub := fmt.Sprintf(`{"type":"subscribe","id":"s%d","endpoint":"/%s/k%d"}`, j, g.topic, (i*subs+j)%g.keys)
		if err := ws.WriteMessage(websocket.TextMessage, []byte(sub)); err != nil {
			return
		}
	}
	acked := 0
	_ = ws.SetReadDeadline(time.Now().Add(10 * time.Second))
	for acked < subs {
		_, data, err := ws.ReadMessage()
		if err != nil {
			g.forget(ws)
			g.count(&g.rep.CloseCodes, endReason(err))
			return
		}
		if bytes.HasPrefix(data, []byte(`{"type":"subscribed"`)) || bytes.HasPrefix(data, []byte(`{"type":"error"`)) {
			acked++
		}
		g.countFrame(data)
	}
	// From here on nothing is read: the gateway's queue for this connection
	// fills, and its slow policy (or its write deadline) must deal with it.
}

// drainStalled reads what the stalled connections have left, up to their end
// or a quiet second, and counts how each ended.
func (g *hostileGen) drainStalled() {
	g.mu.Lock()
	conns := make([]*websocket.Conn, 0, len(g.open))
	for ws := range g.open {
		conns = append(conns, ws)
	}
	g.mu.Unlock()
	var wg sync.WaitGroup
	for _, ws := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				_ = ws.SetReadDeadline(time.Now().Add(time.Second))
				_, data, err := ws.ReadMessage()
				if err != nil {
					g.count(&g.rep.CloseCodes, endReason(err))
					return
				}
				g.countFrame(data)
			}
		}()
	}
	wg.Wait()
}

// garbage connects (with the token) and sends a round of bad frames every
// period, reading and counting the answers; it reconnects if closed.
func (g *hostileGen) garbage(every time.Duration) {
	big := bytes.Repeat([]byte("x"), 1<<20+1024)
	for !g.stopping.Load() {
		ws := g.dial()
		if ws == nil {
			time.Sleep(time.Second)
			continue
		}
		done := make(chan struct{})
		go func() {
			defer close(done)
			for {
				_, data, err := ws.ReadMessage()
				if err != nil {
					if !g.stopping.Load() {
						g.count(&g.rep.CloseCodes, endReason(err))
					}
					return
				}
				g.countFrame(data)
			}
		}()
		t := time.NewTicker(every)
	rounds:
		for !g.stopping.Load() {
			frames := []struct {
				kind string
				op   int
				data []byte
			}{
				{"invalid-json", websocket.TextMessage, []byte(`{"type":"subscribe","endpoint":`)},
				{"binary", websocket.BinaryMessage, []byte{0, 1, 2, 0xff}},
				{"not-utf8", websocket.TextMessage, []byte{'{', 0xc3, 0x28, '}'}},
				{"oversized", websocket.TextMessage, big},
				{"unknown-type", websocket.TextMessage, []byte(`{"type":"bogus","id":"u"}`)},
			}
			for _, f := range frames {
				if ws.WriteMessage(f.op, f.data) != nil {
					break rounds
				}
				g.count(&g.rep.Sent, f.kind)
			}
			for p := 0; p < 100; p++ { // a ping flood
				if ws.WriteMessage(websocket.TextMessage, []byte(`{"type":"ping","id":"p"}`)) != nil {
					break rounds
				}
				g.count(&g.rep.Sent, "ping")
			}
			select {
			case <-t.C:
			case <-done:
				break rounds
			}
		}
		t.Stop()
		g.forget(ws)
		<-done
	}
}

// unauth upgrades without a token, sends nothing, and waits for the gateway
// to close; then again.
func (g *hostileGen) unauth() {
	for !g.stopping.Load() {
		began := time.Now()
		ws := g.dial()
		if ws == nil {
			time.Sleep(time.Second)
			continue
		}
		var err error
		for {
			var data []byte
			if _, data, err = ws.ReadMessage(); err != nil {
				break
			}
			g.countFrame(data)
		}
		if g.stopping.Load() {
			return
		}
		ms := time.Since(began).Milliseconds()
		g.mu.Lock()
		if g.rep.CloseAfterMinMs == 0 || ms < g.rep.CloseAfterMinMs {
			g.rep.CloseAfterMinMs = ms
		}
		g.rep.CloseAfterMaxMs = max(g.rep.CloseAfterMaxMs, ms)
		g.mu.Unlock()
		g.count(&g.rep.CloseCodes, endReason(err))
		g.forget(ws)
	}
}

// flood upgrades rate connections per second during the window, each on a
// goroutine of its own that holds an accepted connection for hold.
func (g *hostileGen) flood(rate int, hold time.Duration, wg *sync.WaitGroup) {
	time.Sleep(time.Until(g.from))
	interval := time.Second / time.Duration(max(rate, 1))
	next := time.Now()
	for !g.stopping.Load() && time.Now().Before(g.to) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			g.count(&g.rep.Sent, "upgrade")
			ws := g.dial()
			if ws == nil {
				return
			}
			g.count(&g.rep.HTTPStatus, "101")
			time.Sleep(hold)
			g.forget(ws)
		}()
		next = next.Add(interval)
		time.Sleep(time.Until(next))
	}
}
