package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Server-Sent Events clients of a load-generator process (-sse-fraction):
// they count exactly what the WebSocket clients count (client.go's onMessage,
// onSubscribed, onGap) and differ only in how they subscribe and resume, which
// is what a browser's EventSource does (PROTOCOL.md, "Server-Sent Events"):
//
//   - GET /sse/<topic>/<key>?access_token=<token> (an EventSource cannot set an
//     Authorization header, so a browser sends the token in the query);
//   - the stream opens with a comment and an id-only block, the start
//     position: that is the subscription's acknowledgement;
//   - on a lost stream the client sends the last event id it saw as
//     Last-Event-ID (epoch:partition:seq, the opening block's until a message
//     came), to the next node of its list after the same full-jitter backoff
//     as the WebSocket clients (the SDK's rule; EventSource itself would retry
//     the same URL after its fixed retry delay, which a list of nodes rules out).
//
// Unlike an EventSource, an HTTP error answer (a node not ready, Kafka
// unavailable for a resume) does not end the client: it counts the answer by
// status and code and moves on as after a lost connection, as the WebSocket
// clients do after an error answering their subscribe.

// sseTransport is the HTTP client the SSE clients of one process share: one
// TCP connection per stream, from the process's source address; cancel ends
// every stream at the stop.
type sseTransport struct {
	tr     *http.Transport
	cl     *http.Client
	ctx    context.Context
	cancel context.CancelFunc
}

func newSSETransport(src string) *sseTransport {
	d := &net.Dialer{Timeout: 30 * time.Second}
	if src != "" {
		d.LocalAddr = &net.TCPAddr{IP: net.ParseIP(src)}
	}
	tr := &http.Transport{
		DialContext: d.DialContext, DisableCompression: true, ForceAttemptHTTP2: false,
		// The answer (headers) comes once the subscription is in place;
		// the body is a stream without end, so no overall timeout.
		ResponseHeaderTimeout: 30 * time.Second, MaxIdleConnsPerHost: 16,
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &sseTransport{tr: tr, cl: &http.Client{Transport: tr}, ctx: ctx, cancel: cancel}
}

// endStreams ends every SSE stream of the process (at the stop).
func (g *loadGen) endStreams() {
	if g.sse != nil {
		g.sse.cancel()
	}
}

// sseClientAt says whether client i of a process subscribes with SSE: the
// clients with a floor(i*fraction) step, so exactly floor(n*fraction) of the
// first n are, evenly interleaved with the WebSocket ones (and their keys as
// random as everyone's).
func sseClientAt(i int, fraction float64) bool {
	return fraction > 0 && int(float64(i+1)*fraction) > int(float64(i)*fraction)
}

// sseBase is the node's HTTP base URL for a WebSocket URL of the list
// (ws://host:port/ws -> http://host:port).
func sseBase(wsURL string) string {
	u := strings.TrimSuffix(wsURL, "/ws")
	switch {
	case strings.HasPrefix(u, "wss://"):
		return "https://" + u[len("wss://"):]
	case strings.HasPrefix(u, "ws://"):
		return "http://" + u[len("ws://"):]
	}
	return u
}

// sseSession is one SSE stream of a client: subscribe (resuming with
// Last-Event-ID from the kept position), read until the stream ends. made:
// the node answered; subscribed: the stream opened.
func (g *loadGen) sseSession(c *benchConn, wsURL string) (made, subscribed bool) {
	u := sseBase(wsURL) + "/sse/" + g.topic + "/" + url.PathEscape(g.keyName(c.key)) + "?access_token=" + url.QueryEscape(g.token)
	req, err := http.NewRequestWithContext(g.sse.ctx, http.MethodGet, u, nil)
	if err != nil {
		g.countErr(c)
		return false, false
	}
	req.Header.Set("Accept", "text/event-stream") // what EventSource sends
	req.Header.Set("Cache-Control", "no-cache")
	c.mu.Lock()
	if c.havePos {
		req.Header.Set("Last-Event-ID", fmt.Sprintf("%s:%d:%d", c.epoch, c.partition, c.seq))
	}
	c.mu.Unlock()
	res, err := g.sse.cl.Do(req)
	if err != nil {
		if !g.resume {
			g.errs.Add(1)
			g.logf("sse: %v", err)
		}
		return false, false
	}
	defer res.Body.Close()
	g.connected.Add(1)
	c.mu.Lock()
	c.rec.Connects++
	c.mu.Unlock()
	if res.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(res.Body, 4096))
		g.countErr(c)
		g.countRefusal(res.StatusCode, fieldInt(body, `"code":`))
		g.logf("sse: %s: %d %s", g.keyName(c.key), res.StatusCode, bytes.TrimSpace(body))
		return true, false
	}
	local := map[int]int64{}
	defer g.flushLatencies(local)
	rd := newSSEReader(res.Body)
	for {
		ev, err := rd.next()
		if err != nil {
			return true, subscribed
		}
		now := time.Now().UnixNano()
		switch ev.event {
		case "message":
			g.onMessage(c, ev.data, now, local)
		case "gap":
			g.onGap(c, ev.data, now)
		case "closing", "unsubscribed":
			// closing 1012: the node is shutting down; anything else
			// (revoked, expired, slow consumer, endpoint removed) is an error.
			g.onErrorFrame(c, ev.data)
		case "":
			if !ev.hasData && ev.hasID && !subscribed {
				epoch, partition, seq, ok := parseEventID(ev.id)
				if !ok {
					g.countErr(c)
					g.logf("sse: opening id %q is not epoch:partition:seq", ev.id)
					return true, false
				}
				subscribed = true
				g.onSubscribed(c, epoch, partition, seq, now)
			}
		}
	}
}

// countRefusal counts an HTTP error answer to a stream's request by status
// and protocol code ("503/5003").
func (g *loadGen) countRefusal(status int, code int64) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.rep.SSERefused == nil {
		g.rep.SSERefused = map[string]int64{}
	}
	g.rep.SSERefused[fmt.Sprintf("%d/%d", status, code)]++
}

// parseEventID reads an event id "epoch:partition:seq" (the epoch holds no
// colon; seq may be -1).
func parseEventID(id string) (epoch string, partition, seq int64, ok bool) {
	i := strings.LastIndexByte(id, ':')
	if i < 0 {
		return "", 0, 0, false
	}
	j := strings.LastIndexByte(id[:i], ':')
	if j < 0 {
		return "", 0, 0, false
	}
	p, err1 := strconv.ParseInt(id[j+1:i], 10, 32)
	s, err2 := strconv.ParseInt(id[i+1:], 10, 64)
	if err1 != nil || err2 != nil || p < 0 || s < -1 {
		return "", 0, 0, false
	}
	return id[:j], p, s, true
}

// sseEvent is one block of an event stream, up to its blank line: the
// fields an EventSource looks at. A block with only comments is skipped.
type sseEvent struct {
	id      string
	hasID   bool
	event   string
	data    []byte // data lines joined with "\n"
	hasData bool
}

// sseReader parses an event stream (the HTML standard's rules, as far as a
// Sluice stream uses them): lines end with LF, CRLF or CR; a line starting with
// ':' is a comment; "field: value" loses one space after the colon; several
// data lines join with "\n"; a blank line ends the block.
type sseReader struct {
	br *bufio.Reader
}

func newSSEReader(r io.Reader) *sseReader { return &sseReader{br: bufio.NewReaderSize(r, 16<<10)} }

// errSSELineTooLong: a line over 4 MiB (a message is at most 1 MiB of JSON).
var errSSELineTooLong = errors.New("sse: line too long")

// next returns the next block with a field; at the end of the stream
// (mid-block or not) it returns the error.
func (r *sseReader) next() (sseEvent, error) {
	var ev sseEvent
	fields := false
	for {
		line, err := r.line()
		if err != nil {
			return sseEvent{}, err
		}
		if len(line) == 0 {
			if fields {
				return ev, nil
			}
			continue
		}
		if line[0] == ':' {
			continue
		}
		name, value := line, []byte(nil)
		if i := bytes.IndexByte(line, ':'); i >= 0 {
			name, value = line[:i], line[i+1:]
			if len(value) > 0 && value[0] == ' ' {
				value = value[1:]
			}
		}
		switch string(name) {
		case "id":
			if bytes.IndexByte(value, 0) < 0 {
				ev.id, ev.hasID = string(value), true
				fields = true
			}
		case "event":
			ev.event = string(value)
			fields = true
		case "data":
			if ev.hasData {
				ev.data = append(ev.data, '\n')
			}
			ev.data = append(ev.data, value...)
			ev.hasData = true
			fields = true
		}
	}
}

// line reads one line without its end (LF, CRLF or a lone CR).
func (r *sseReader) line() ([]byte, error) {
	var out []byte
	for {
		b, err := r.br.ReadByte()
		if err != nil {
			return nil, err
		}
		switch b {
		case '\n':
			return out, nil
		case '\r':
			if nb, err := r.br.Peek(1); err == nil && nb[0] == '\n' {
				_, _ = r.br.ReadByte()
			}
			return out, nil
		}
		if out == nil {
			out = make([]byte, 0, 256)
		}
		out = append(out, b)
		if len(out) > 4<<20 {
			return nil, errSSELineTooLong
		}
	}
}
