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
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/gorilla/websocket"
)

// clientMain runs one load-generator process: n clients that each subscribe to one
// random key, measuring messages whose send time falls in [from, to).
func clientMain(args []string) {
	fs := flag.NewFlagSet("client", flag.ExitOnError)
	n := fs.Int("n", 100, "clients")
	keys := fs.Int("keys", 100, "keys")
	topic := fs.String("topic", "", "topic")
	url := fs.String("url", "", "gateway WebSocket URL")
	token := fs.String("token", "", "token")
	src := fs.String("src", "127.0.0.2", "source address")
	seed := fs.Int64("seed", 1, "random seed")
	ramp := fs.Int("ramp", 500, "connections per second")
	from := fs.Int64("from", 0, "window start, unix ns")
	to := fs.Int64("to", 0, "window end, unix ns")
	_ = fs.Parse(args)

	rep := &clientReport{Buckets: make([]int64, fineBuckets+coarseBuckets)}
	var connected, subscribed atomic.Int64
	var received, lost, gaps, errs, maxMicros atomic.Int64
	var bucketsMu sync.Mutex

	dialer := websocket.Dialer{
		Subprotocols:     []string{"sluice.v1"},
		HandshakeTimeout: 30 * time.Second,
		ReadBufferSize:   2048,
		WriteBufferSize:  512,
		NetDial:          (&net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(*src)}, Timeout: 30 * time.Second}).Dial,
	}
	header := http.Header{"Authorization": {"Bearer " + *token}}
	rng := rand.New(rand.NewSource(*seed))
	interval := time.Second / time.Duration(max(*ramp, 1))

	var conns []*websocket.Conn
	var connsMu sync.Mutex
	for i := 0; i < *n; i++ {
		key := rng.Intn(*keys)
		go func() {
			ws, _, err := dialer.Dial(*url, header)
			if err != nil {
				errs.Add(1)
				log.Printf("dial: %v", err)
				return
			}
			connsMu.Lock()
			conns = append(conns, ws)
			connsMu.Unlock()
			connected.Add(1)
			sub := fmt.Sprintf(`{"type":"subscribe","endpoint":"/%s/k%d"}`, *topic, key)
			if err := ws.WriteMessage(websocket.TextMessage, []byte(sub)); err != nil {
				errs.Add(1)
				return
			}
			var lastN int64
			local := map[int]int64{}
			for {
				_, data, err := ws.ReadMessage()
				if err != nil {
					bucketsMu.Lock()
					for b, c := range local {
						rep.Buckets[b] += c
					}
					bucketsMu.Unlock()
					return
				}
				now := time.Now().UnixNano()
				switch {
				case bytes.HasPrefix(data, []byte(`{"type":"message"`)):
					t := fieldInt(data, `"t":`)
					seq := fieldInt(data, `"n":`)
					if lastN > 0 && seq > lastN+1 && t >= *from && t < *to {
						lost.Add(seq - lastN - 1)
					}
					lastN = seq
					if t >= *from && t < *to {
						received.Add(1)
						us := (now - t) / 1000
						local[bucketOf(us)]++
						for {
							m := maxMicros.Load()
							if us <= m || maxMicros.CompareAndSwap(m, us) {
								break
							}
						}
					}
				case bytes.HasPrefix(data, []byte(`{"type":"subscribed"`)):
					subscribed.Add(1)
				case bytes.HasPrefix(data, []byte(`{"type":"gap"`)):
					gaps.Add(1)
				case bytes.HasPrefix(data, []byte(`{"type":"error"`)), bytes.HasPrefix(data, []byte(`{"type":"closing"`)):
					errs.Add(1)
					log.Printf("frame: %s", data)
				}
			}
		}()
		time.Sleep(interval)
	}

	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	<-sig
	connsMu.Lock()
	for _, ws := range conns {
		_ = ws.Close()
	}
	connsMu.Unlock()
	time.Sleep(500 * time.Millisecond) // let readers flush their histograms
	bucketsMu.Lock()
	rep.Connected, rep.Subscribed = int(connected.Load()), int(subscribed.Load())
	rep.Received, rep.Lost, rep.Gaps, rep.Errors, rep.MaxMicros = received.Load(), lost.Load(), gaps.Load(), errs.Load(), maxMicros.Load()
	_ = json.NewEncoder(os.Stdout).Encode(rep)
	bucketsMu.Unlock()
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
	for k < len(data) && data[k] >= '0' && data[k] <= '9' {
		k++
	}
	v, _ := strconv.ParseInt(string(data[j:k]), 10, 64)
	return v
}
