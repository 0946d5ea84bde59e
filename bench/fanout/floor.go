package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"log"
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

// floorMain runs the floor server (`fanout floor-server`): the least work any
// socket-per-client WebSocket server must do in the fan-out scenario. It generates
// the messages itself (no Kafka), encodes each message's frame once and hands it to
// every subscriber of its key with exactly one write(2) on the socket's fd, from the
// generating goroutine. No queue, no writer goroutine, no deadline, no retry: what
// it costs is what the kernel's write path and the scheduling of that one loop cost.
// A write that would block or is partial is counted as a short write and dropped.
func floorMain(args []string) {
	fs := flag.NewFlagSet("floor-server", flag.ExitOnError)
	addr := fs.String("addr", "127.0.0.1:18080", "listen address")
	keys := fs.Int("keys", 1000, "keys; each gets one message per second")
	payload := fs.Int("payload", 512, "payload bytes per message")
	stamp := fs.String("stamp", "write", "what a message's send time is: write (just before its own writes) or slot (when its 10 ms slot began, as all of a Kafka fetch's records arrive at once)")
	_ = fs.Parse(args)
	if *stamp != "write" && *stamp != "slot" {
		log.Fatalf("-stamp %q: write or slot", *stamp)
	}

	f := &floor{keys: make([]floorKey, *keys)}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, _ *http.Request) {})
	// Empty: the orchestrator's delay histogram reader then prints nothing.
	mux.HandleFunc("GET /metrics", func(w http.ResponseWriter, _ *http.Request) {})
	mux.HandleFunc("GET /stats", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, f.stats().encode())
	})
	mux.HandleFunc("GET /ws", f.upgrade)
	ln, err := net.Listen("tcp", *addr)
	must(err)
	go func() { log.Fatal(http.Serve(ln, mux)) }()

	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		f.generate(*payload, *stamp == "slot", stop)
	}()

	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	<-sig
	close(stop)
	<-done
	st := f.stats()
	fmt.Fprintf(os.Stderr, "floor-server: %d messages generated, %d frames written, %d short writes (expected 0)\n",
		st.generated, st.written, st.short)
}

type floor struct {
	keys                      []floorKey
	generated, written, short atomic.Int64
}

type floorKey struct {
	mu       sync.Mutex
	endpoint string // from the first subscribe; the frame carries it
	subs     []*floorSub
}

// floorSub is one registered socket. write is bound once at registration so the
// per-message path allocates nothing: the generator sets frame, calls
// raw.Write(write) and reads n and err back.
type floorSub struct {
	raw   syscall.RawConn
	key   int
	index int // in floorKey.subs
	frame []byte
	n     int
	err   error
	write func(fd uintptr) bool
}

func (s *floorSub) writeOnce(fd uintptr) bool {
	for {
		s.n, s.err = syscall.Write(int(fd), s.frame)
		if !errors.Is(s.err, syscall.EINTR) {
			return true // never wait for writability: a floor does not queue
		}
	}
}

var upgrader = websocket.Upgrader{
	Subprotocols:    []string{"sluice.v1"},
	ReadBufferSize:  512,
	WriteBufferSize: 512,
	CheckOrigin:     func(*http.Request) bool { return true },
}

func (f *floor) upgrade(w http.ResponseWriter, r *http.Request) {
	ws, err := upgrader.Upgrade(w, r, nil)
	if err != nil {
		return
	}
	go f.serve(ws)
}

// serve reads the single subscribe frame, answers it, registers the socket and
// then parks reading until the client goes away.
func (f *floor) serve(ws *websocket.Conn) {
	defer ws.Close()
	_, data, err := ws.ReadMessage()
	if err != nil {
		return
	}
	endpoint, key, ok := f.parseSubscribe(data)
	if !ok {
		_ = ws.WriteMessage(websocket.TextMessage, []byte(`{"type":"error","code":4000,"message":"expected {\"type\":\"subscribe\",\"endpoint\":\"/<topic>/k<N>\"}"}`))
		return
	}
	tcp, ok := ws.NetConn().(*net.TCPConn)
	if !ok {
		return
	}
	raw, err := tcp.SyscallConn()
	if err != nil {
		return
	}
	// The reply goes out before registration, so gorilla never writes while the
	// generator does. A close frame from the client gets no echo for the same reason.
	ws.SetCloseHandler(func(int, string) error { return nil })
	if err := ws.WriteMessage(websocket.TextMessage, fmt.Appendf(nil, `{"type":"subscribed","endpoint":%q,"epoch":"x","partition":0}`, endpoint)); err != nil {
		return
	}
	sub := &floorSub{raw: raw, key: key}
	sub.write = sub.writeOnce
	k := &f.keys[key]
	k.mu.Lock()
	if k.endpoint == "" {
		k.endpoint = endpoint
	}
	sub.index = len(k.subs)
	k.subs = append(k.subs, sub)
	k.mu.Unlock()
	defer f.unregister(sub)
	for {
		if _, _, err := ws.ReadMessage(); err != nil {
			return
		}
	}
}

func (f *floor) unregister(sub *floorSub) {
	k := &f.keys[sub.key]
	k.mu.Lock()
	last := len(k.subs) - 1
	k.subs[sub.index] = k.subs[last]
	k.subs[sub.index].index = sub.index
	k.subs[last] = nil
	k.subs = k.subs[:last]
	k.mu.Unlock()
}

// parseSubscribe accepts {"type":"subscribe","endpoint":"/<topic>/k<N>"} with N
// one of the keys.
func (f *floor) parseSubscribe(data []byte) (endpoint string, key int, ok bool) {
	if !bytes.HasPrefix(data, []byte(`{"type":"subscribe"`)) {
		return "", 0, false
	}
	const field = `"endpoint":"`
	i := bytes.Index(data, []byte(field))
	if i < 0 {
		return "", 0, false
	}
	rest := data[i+len(field):]
	j := bytes.IndexByte(rest, '"')
	if j < 0 {
		return "", 0, false
	}
	endpoint = string(rest[:j])
	slash := strings.LastIndex(endpoint, "/k")
	if slash < 0 {
		return "", 0, false
	}
	key, err := strconv.Atoi(endpoint[slash+2:])
	if err != nil || key < 0 || key >= len(f.keys) {
		return "", 0, false
	}
	return endpoint, key, true
}

// generate gives every key one message per second in 10 ms slots, as publish()
// does, and writes each message to the key's subscribers.
// generate gives each key one message per second, a hundredth of the keys
// every 10 ms. With slotStamp, every message of a slot carries the slot's
// start as its send time: its latency then includes the wait behind the
// slot's earlier writes, as a record's does behind the rest of its fetch in
// the gateway; else each carries the time just before its own writes.
func (f *floor) generate(size int, slotStamp bool, stop <-chan struct{}) {
	counters := make([]int64, len(f.keys))
	pad := strings.Repeat("x", max(size-80, 0))
	const slots = 100
	t := time.NewTicker(time.Second / slots)
	defer t.Stop()
	var buf, frame []byte
	slot := 0
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		slotStart := time.Now()
		for key := slot; key < len(f.keys); key += slots {
			counters[key]++
			f.generated.Add(1)
			k := &f.keys[key]
			k.mu.Lock()
			if len(k.subs) > 0 {
				at := slotStart
				if !slotStamp {
					at = time.Now()
				}
				buf, frame = appendMessageFrame(buf[:0], k.endpoint, key, counters[key], pad, at)
				for _, s := range k.subs {
					s.frame = frame
					if err := s.raw.Write(s.write); err != nil {
						continue // closed: the reader unregisters it
					}
					if s.err != nil || s.n < len(frame) {
						f.short.Add(1)
					} else {
						f.written.Add(1)
					}
				}
			}
			k.mu.Unlock()
		}
		slot = (slot + 1) % slots
	}
}

// maxFrameHeader is the longest server-to-client WebSocket header: FIN|text,
// 127, 8 length bytes (server frames are not masked).
const maxFrameHeader = 10

// appendMessageFrame encodes one message as a complete WebSocket text frame (a
// gateway message frame whose data is the payload publish() sends) into buf and
// returns buf, for reuse, and the frame, a suffix of it.
func appendMessageFrame(buf []byte, endpoint string, key int, n int64, pad string, now time.Time) (all, frame []byte) {
	buf = append(buf, make([]byte, maxFrameHeader)...)
	buf = append(buf, `{"type":"message","endpoint":"`...)
	buf = append(buf, endpoint...)
	buf = append(buf, `","epoch":"x","partition":0,"seq":`...)
	buf = strconv.AppendInt(buf, n, 10)
	buf = append(buf, `,"ts":`...)
	buf = strconv.AppendInt(buf, now.UnixMilli(), 10)
	buf = append(buf, `,"data":{"k":`...)
	buf = strconv.AppendInt(buf, int64(key), 10)
	buf = append(buf, `,"n":`...)
	buf = strconv.AppendInt(buf, n, 10)
	buf = append(buf, `,"t":`...)
	buf = strconv.AppendInt(buf, now.UnixNano(), 10)
	buf = append(buf, `,"p":"`...)
	buf = append(buf, pad...)
	buf = append(buf, `"}}`...)

	length := len(buf) - maxFrameHeader
	var hdr []byte
	switch {
	case length < 126:
		hdr = []byte{0x81, byte(length)}
	case length <= 0xffff:
		hdr = []byte{0x81, 126, byte(length >> 8), byte(length)}
	default:
		hdr = []byte{0x81, 127, 0, 0, 0, 0, byte(length >> 24), byte(length >> 16), byte(length >> 8), byte(length)}
	}
	start := maxFrameHeader - len(hdr)
	copy(buf[start:], hdr)
	return buf, buf[start:]
}

type floorStats struct{ generated, written, short int64 }

func (f *floor) stats() floorStats {
	return floorStats{f.generated.Load(), f.written.Load(), f.short.Load()}
}

func (s floorStats) encode() string {
	return fmt.Sprintf("%d %d %d", s.generated, s.written, s.short)
}

// floorStatsAt reads a floor server's counters (GET /stats).
func floorStatsAt(url string) floorStats {
	res, err := http.Get(url)
	must(err)
	defer res.Body.Close()
	var s floorStats
	_, err = fmt.Fscan(res.Body, &s.generated, &s.written, &s.short)
	must(err)
	return s
}
