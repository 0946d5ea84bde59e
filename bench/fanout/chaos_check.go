package main

import (
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/gorilla/websocket"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// revocation is one revocation check: a client with a token of its own,
// subscribed on a node, whose token is then revoked through the catalog.
type revocation struct {
	node       string
	ackAfter   time.Duration // the catalog record's acknowledgement (acks=all)
	closeAfter time.Duration // from writing the record until the socket closed
	code       int           // the WebSocket close code (4009 expected)
	err        string
}

func (r revocation) String() string {
	if r.err != "" {
		return fmt.Sprintf("node %s: %s", r.node, r.err)
	}
	ok := "OK"
	if r.closeAfter > time.Second || r.code != 4009 {
		ok = "FAIL"
	}
	return fmt.Sprintf("node %s: closed %d after %d ms (record acknowledged after %d ms) %s", r.node, r.code, r.closeAfter.Milliseconds(), r.ackAfter.Milliseconds(), ok)
}

// checkRevocation connects to the node at addr with a new token (jti), subscribes,
// then writes revoked/<jti> to the catalog topic as the bridge does
// (CATALOG.md) and measures until the gateway closes the socket.
func checkRevocation(ctx context.Context, kc *kgo.Client, key *ecdsa.PrivateKey, catalogTopic, topic, node, addr, jti string) revocation {
	r := revocation{node: node}
	exp := time.Now().Add(time.Hour)
	ws, closed, werr := watchedSubscription(addr, mintToken(key, topic, jti, exp, "subscribe"), topic)
	if werr != "" {
		r.err = werr
		return r
	}
	defer ws.Close()
	value, _ := json.Marshal(map[string]any{"v": 1, "jti": jti, "app": "bench", "expires_at": exp.Unix()})
	t0 := time.Now()
	if err := kc.ProduceSync(ctx, &kgo.Record{Topic: catalogTopic, Key: []byte("revoked/" + jti), Value: value}).FirstErr(); err != nil {
		r.err = "writing the revocation: " + err.Error()
		return r
	}
	r.ackAfter = time.Since(t0)
	select {
	case r.code = <-closed:
		r.closeAfter = time.Since(t0)
	case <-time.After(10 * time.Second):
		r.err = "socket still open 10 s after the revocation"
	}
	return r
}

// watchedSubscription connects to a node with token, subscribes to
// /<topic>/k0 and waits for the subscribed frame, then reports the socket's
// close code on closed (-1: closed without a close frame): the start of a
// revocation check. err says what failed, "" when nothing did.
func watchedSubscription(addr, token, topic string) (ws *websocket.Conn, closed <-chan int, err string) {
	d := websocket.Dialer{Subprotocols: []string{"sluice.v1"}, HandshakeTimeout: 10 * time.Second}
	ws, _, derr := d.Dial("ws://"+addr+"/ws", http.Header{"Authorization": {"Bearer " + token}})
	if derr != nil {
		return nil, nil, "connect: " + derr.Error()
	}
	_ = ws.WriteMessage(websocket.TextMessage, fmt.Appendf(nil, `{"type":"subscribe","id":"1","endpoint":"/%s/k0"}`, topic))
	_ = ws.SetReadDeadline(time.Now().Add(10 * time.Second))
	for {
		_, data, rerr := ws.ReadMessage()
		if rerr != nil {
			ws.Close()
			return nil, nil, "no subscribed frame: " + rerr.Error()
		}
		if fieldStr(data, `"type":"`) == "subscribed" {
			break
		}
	}
	codes := make(chan int, 1)
	go func() {
		for {
			if _, _, rerr := ws.ReadMessage(); rerr != nil {
				var ce *websocket.CloseError
				if errors.As(rerr, &ce) {
					codes <- ce.Code
				} else {
					codes <- -1
				}
				return
			}
		}
	}()
	_ = ws.SetReadDeadline(time.Now().Add(time.Minute))
	return ws, codes, ""
}

// kafkaHolds is what the data topic holds at the end, read back from its start:
// per key, which counters n are in it, and how many records repeat an n.
type kafkaHolds struct {
	present    [][]uint64
	records    int64
	repeats    int64
	logStart   map[int32]int64
	readErrors int
	// appends are (send time "t", broker append time) of every record, both
	// unix ns: the data topic uses LogAppendTime, so a record that waited in
	// the publisher or for a leader shows it here, before any consumer.
	appends [][2]int64
}

// appendDelay is the largest and the mean append time − send time of the
// records sent in [from, to), in seconds, and how many they were.
func (h *kafkaHolds) appendDelay(from, to int64) (maxS, meanS float64, n int) {
	var sum float64
	for _, a := range h.appends {
		if a[0] >= from && a[0] < to {
			d := float64(a[1]-a[0]) / 1e9
			sum += d
			maxS = max(maxS, d)
			n++
		}
	}
	if n > 0 {
		meanS = sum / float64(n)
	}
	return maxS, meanS, n
}

func (h *kafkaHolds) has(k int, n int64) bool {
	w := int(n / 64)
	return k < len(h.present) && w < len(h.present[k]) && h.present[k][w]&(1<<(n%64)) != 0
}

// readBackKeys reads every partition of topic from its log start to its end:
// index gives each record key's key index (records of other keys are
// skipped), and each, if not nil, sees every record (the gateway publishers'
// verifier).
func readBackKeys(ctx context.Context, brokers, topic string, index map[string]int, each func(*kgo.Record)) *kafkaHolds {
	keys := 0
	for _, k := range index {
		keys = max(keys, k+1)
	}
	h := &kafkaHolds{present: make([][]uint64, keys), logStart: map[int32]int64{}}
	cl, err := newKafkaClient(brokers)
	must(err)
	adm := kadm.NewClient(cl)
	starts, err := adm.ListStartOffsets(ctx, topic)
	must(err)
	ends, err := adm.ListEndOffsets(ctx, topic)
	must(err)
	cl.Close()
	at := map[int32]kgo.Offset{}
	left := map[int32]int64{}
	starts.Each(func(o kadm.ListedOffset) {
		h.logStart[o.Partition] = o.Offset
		at[o.Partition] = kgo.NewOffset().At(o.Offset)
	})
	ends.Each(func(o kadm.ListedOffset) {
		if n := o.Offset - h.logStart[o.Partition]; n > 0 {
			left[o.Partition] = o.Offset
		} else {
			delete(at, o.Partition)
		}
	})
	if len(at) == 0 {
		return h
	}
	rd, err := newKafkaClient(brokers, kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: at}), kgo.FetchMaxBytes(64<<20))
	must(err)
	defer rd.Close()
	ctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	for len(left) > 0 && ctx.Err() == nil {
		fs := rd.PollFetches(ctx)
		fs.EachError(func(string, int32, error) { h.readErrors++ })
		fs.EachRecord(func(r *kgo.Record) {
			if end, ok := left[r.Partition]; ok && r.Offset >= end-1 {
				delete(left, r.Partition)
			}
			if each != nil {
				each(r)
			}
			k, ok := index[string(r.Key)]
			n := fieldInt(r.Value, `"n":`)
			if !ok || n < 0 {
				return
			}
			h.records++
			h.appends = append(h.appends, [2]int64{fieldInt(r.Value, `"t":`), r.Timestamp.UnixNano()})
			w := int(n / 64)
			for len(h.present[k]) <= w {
				h.present[k] = append(h.present[k], 0)
			}
			if h.present[k][w]&(1<<(n%64)) != 0 {
				h.repeats++
			}
			h.present[k][w] |= 1 << (n % 64)
		})
	}
	if len(left) > 0 {
		h.readErrors++
	}
	return h
}
