@@HEADER@@

// Package sluice is a client for the Sluice wire protocol v1 (WebSocket,
// subprotocol sluice.v1).
//
// One connection at a time. Subscriptions outlive connections: after a drop
// the client reconnects with exponential backoff and full jitter and
// re-subscribes each endpoint from the last delivered position, dropping
// anything at or before it, so a handler sees every message once. Given several
// gateway URLs (nodes of one cluster), it puts them in a random order of its
// own, starts at the first and moves to the next after every drop or failed
// attempt (so the clients of a node that stops spread over all the others).
// A publish is
// sent once: if the connection drops before its acknowledgement it fails (the
// outcome is unknown) rather than risk writing the record twice.
package sluice

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"math"
	"math/rand"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/gorilla/websocket"
)

// Subprotocol is the WebSocket subprotocol of the Sluice wire protocol v1.
const Subprotocol = "sluice.v1"

// DefaultGatewayURL is the gateway (comma-separated nodes) this client was generated for; SLUICE_GATEWAY_URL overrides it.
const DefaultGatewayURL = @@GATEWAY_URL@@

// Error codes of PROTOCOL.md ("Errors"), plus client-side ones (>= 6000).
const (
	CodeBadFrame             = 4000
	CodeUnauthenticated      = 4001
	CodeForbidden            = 4003
	CodeNotFound             = 4004
	CodeNotAllowed           = 4005
	CodeTokenExpired         = 4008
	CodeRevoked              = 4009
	CodeInvalidPayload       = 4022
	CodeTooManySubscriptions = 4029
	CodeAlreadySubscribed    = 4090
	CodeInternal             = 5000
	CodeUnavailable          = 5003
	CodePublishUnconfirmed   = 5004 // a publish that may or may not be written
	CodeTimeout              = 6001
	CodeDisconnected         = 6002
	CodeClosed               = 6003
	CodeUnreachable          = 6004 // the first connection could be made to none of the gateway URLs
)

// Error is an error from the gateway (Code as in PROTOCOL.md) or from this client (Code >= 6000).
type Error struct {
	Code     int
	Message  string
	Endpoint string
}

func (e *Error) Error() string { return fmt.Sprintf("%s (code %d)", e.Message, e.Code) }

func newError(code int, endpoint, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...), Endpoint: endpoint}
}

// Position is where a message lives in Kafka; subscribe From it to resume right after it.
type Position struct {
	Epoch     string `json:"epoch"`
	Partition int    `json:"partition"`
	Seq       int64  `json:"seq"`
}

// Message is one delivered message.
type Message struct {
	Endpoint string          // canonical endpoint path
	Key      string          // the Kafka record key (decoded)
	Data     json.RawMessage // the payload as it travelled: JSON value, text as a JSON string, or base64 text
	Encoding string          // "base64" when Data is base64 text (bytes endpoints, records that fit no format)
	Ts       int64           // Kafka record timestamp, ms since the epoch
	Position Position
}

// Bytes decodes a base64 payload (Encoding "base64").
func (m Message) Bytes() ([]byte, error) {
	var s string
	if err := json.Unmarshal(m.Data, &s); err != nil {
		return nil, err
	}
	return base64.StdEncoding.DecodeString(s)
}

// Gap reports that messages with FromSeq <= seq < ToSeq will not arrive.
type Gap struct {
	Endpoint  string
	Epoch     string
	Partition int
	FromSeq   int64
	ToSeq     int64
	Reason    string // retention, epoch (the topic was recreated), slow_consumer
}

// Ack is a publish acknowledgement: Kafka stored the record here.
type Ack struct {
	Endpoint  string `json:"endpoint"`
	Epoch     string `json:"epoch"`
	Partition int    `json:"partition"`
	Seq       int64  `json:"seq"`
}

// From is where a subscription starts: Latest(), Earliest(), FromTime(ms) or FromPosition(p).
type From struct{ value any }

func Latest() From                 { return From{"latest"} }
func Earliest() From               { return From{"earliest"} }
func FromTime(ms int64) From       { return From{map[string]int64{"time": ms}} }
func FromPosition(p Position) From { return From{p} }
func (f From) isLatest() bool      { return f.value == nil || f.value == "latest" }

// SubscribeOptions tune one subscription.
type SubscribeOptions struct {
	From  From      // default Latest()
	OnGap func(Gap) // called for every gap; default: logged
}

// Options configure a Client. Zero values take the defaults.
type Options struct {
	GatewayURL          string                           // one URL or several nodes separated by commas; default SLUICE_GATEWAY_URL, then DefaultGatewayURL
	Token               string                           // default SLUICE_TOKEN
	RequestTimeout      time.Duration                    // auth, subscribe, ping answers; default 10 s
	PublishTimeout      time.Duration                    // default 30 s
	PingInterval        time.Duration                    // default 30 s
	FirstConnectTimeout time.Duration                    // give up when no connection could be made at all; default 30 s
	BackoffInitial      time.Duration                    // default 500 ms
	BackoffMax          time.Duration                    // default 30 s
	Logf                func(format string, args ...any) // status lines; default log to stderr
}

type frame map[string]any

// Client is a connection to a Sluice gateway that reconnects and resumes on its own.
type Client struct {
	urls     []string // WebSocket URLs of the gateway nodes
	urlIndex int      // the one in use; only the run goroutine changes it
	token    string
	opts     Options

	mu            sync.Mutex
	conn          *websocket.Conn
	authenticated chan struct{} // closed while authenticated on conn
	nextID        int
	pending       map[string]chan frame
	subs          map[string]*Subscription
	closed        bool
	err           error

	writeMu sync.Mutex
	done    chan struct{}
	first   chan error
	cancel  context.CancelFunc
}

// Connect opens a client and returns once it is authenticated.
func Connect(ctx context.Context, opts Options) (*Client, error) {
	if opts.Token == "" {
		opts.Token = os.Getenv("SLUICE_TOKEN")
	}
	if opts.Token == "" {
		return nil, newError(CodeUnauthenticated, "", "no token: set the environment variable SLUICE_TOKEN to an app token from the Sluice portal")
	}
	if opts.GatewayURL == "" {
		opts.GatewayURL = os.Getenv("SLUICE_GATEWAY_URL")
	}
	if opts.GatewayURL == "" {
		opts.GatewayURL = DefaultGatewayURL
	}
	wsURLs, err := GatewayURLs(opts.GatewayURL)
	if err != nil {
		return nil, err
	}
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&opts.RequestTimeout, 10*time.Second)
	def(&opts.PublishTimeout, 30*time.Second)
	def(&opts.PingInterval, 30*time.Second)
	def(&opts.FirstConnectTimeout, 30*time.Second)
	def(&opts.BackoffInitial, 500*time.Millisecond)
	def(&opts.BackoffMax, 30*time.Second)
	if opts.Logf == nil {
		logger := log.New(os.Stderr, "sluice: ", 0)
		opts.Logf = logger.Printf
	}
	runCtx, cancel := context.WithCancel(context.Background())
	c := &Client{
		// A random order of its own: starts spread over the nodes, and so do
		// the moves away from a node that stops.
		urls: shuffled(wsURLs), urlIndex: 0, token: opts.Token, opts: opts,
		authenticated: make(chan struct{}),
		pending:       map[string]chan frame{},
		subs:          map[string]*Subscription{},
		done:          make(chan struct{}),
		first:         make(chan error, 1),
		cancel:        cancel,
	}
	go c.run(runCtx)
	select {
	case err := <-c.first:
		if err != nil {
			return nil, err
		}
		return c, nil
	case <-ctx.Done():
		c.Close()
		return nil, ctx.Err()
	}
}

// Done is closed when the client has ended for good; Err then says why (nil after Close).
func (c *Client) Done() <-chan struct{} { return c.done }

// Err is the error that ended the client, nil while it runs or after Close.
func (c *Client) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Close ends the client: subscriptions end, pending calls fail.
func (c *Client) Close() error {
	c.shutdown(nil)
	return nil
}

// Subscribe subscribes to a concrete endpoint path and returns once the gateway
// acknowledged it. handler runs on the client's reader goroutine, in order.
// It fails with an *Error when the gateway refuses (4003 not permitted, 4004 no such endpoint, ...).
func (c *Client) Subscribe(ctx context.Context, path string, handler func(Message), opts SubscribeOptions) (*Subscription, error) {
	canonical, _, key, err := ParsePath(path)
	if err != nil {
		return nil, err
	}
	if opts.OnGap == nil {
		opts.OnGap = func(g Gap) {
			c.opts.Logf("gap on %s partition %d: seq %d to %d will not arrive (%s)", g.Endpoint, g.Partition, g.FromSeq, g.ToSeq, g.Reason)
		}
	}
	sub := &Subscription{
		client: c, Endpoint: canonical, Key: key, from: opts.From, created: time.Now().UnixMilli(),
		handler: handler, onGap: opts.OnGap, lastSeq: map[int]int64{},
		ready: make(chan struct{}), ended: make(chan struct{}),
	}
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil, newError(CodeClosed, canonical, "the client is closed")
	}
	if _, ok := c.subs[canonical]; ok {
		c.mu.Unlock()
		return nil, newError(CodeAlreadySubscribed, canonical, "already subscribed to %s", canonical)
	}
	c.subs[canonical] = sub
	conn, auth := c.conn, c.authenticated
	c.mu.Unlock()
	if conn != nil && isClosed(auth) {
		go c.sendSubscribe(conn, sub)
	}
	select {
	case <-sub.ready:
		return sub, nil
	case <-sub.ended:
		return nil, sub.Err()
	case <-ctx.Done():
		sub.Unsubscribe(context.Background())
		return nil, ctx.Err()
	}
}

// Publish writes one message (data is marshalled to JSON; []byte is sent base64-encoded)
// and returns where Kafka stored it. It waits for a connection up to PublishTimeout.
// A *Error with CodeDisconnected means the connection dropped before the
// acknowledgement: the record may or may not have been written.
func (c *Client) Publish(ctx context.Context, path string, data any) (Ack, error) {
	canonical, _, _, err := ParsePath(path)
	if err != nil {
		return Ack{}, err
	}
	f := frame{"type": "publish", "endpoint": canonical}
	if b, ok := data.([]byte); ok {
		f["data"], f["encoding"] = base64.StdEncoding.EncodeToString(b), "base64"
	} else {
		raw, err := json.Marshal(data)
		if err != nil {
			return Ack{}, newError(CodeBadFrame, canonical, "publish to %s: data is not JSON: %v", canonical, err)
		}
		f["data"] = json.RawMessage(raw)
	}
	ctx, cancel := context.WithTimeout(ctx, c.opts.PublishTimeout)
	defer cancel()
	conn, err := c.connected(ctx, canonical)
	if err != nil {
		return Ack{}, err
	}
	answer, err := c.request(ctx, conn, f)
	if err != nil {
		return Ack{}, err
	}
	var ack Ack
	raw, _ := json.Marshal(answer)
	if err := json.Unmarshal(raw, &ack); err != nil {
		return Ack{}, newError(CodeInternal, canonical, "bad acknowledgement: %v", err)
	}
	return ack, nil
}

// connected waits until the client is authenticated on a connection.
func (c *Client) connected(ctx context.Context, endpoint string) (*websocket.Conn, error) {
	for {
		c.mu.Lock()
		conn, auth, closed, cerr := c.conn, c.authenticated, c.closed, c.err
		c.mu.Unlock()
		if closed {
			if cerr != nil {
				return nil, cerr
			}
			return nil, newError(CodeClosed, endpoint, "the client is closed")
		}
		if conn != nil && isClosed(auth) {
			return conn, nil
		}
		select {
		case <-auth:
		case <-c.done:
		case <-ctx.Done():
			return nil, newError(CodeTimeout, endpoint, "%s: not connected in time", endpoint)
		}
	}
}

func isClosed(ch chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// ---- connection loop --------------------------------------------------------

func (c *Client) run(ctx context.Context) {
	connectedOnce := false
	authFailures := 0
	attempt := 0
	refused := 0 // first attempts in a row that no node answered (a 502/503/504 from a loading node does not count)
	firstDeadline := time.Now().Add(c.opts.FirstConnectTimeout)
	for ctx.Err() == nil {
		authenticated, reason, fatal := c.connection(ctx)
		if ctx.Err() != nil {
			return
		}
		if strings.HasPrefix(reason, "HTTP 5") {
			refused = 0
		} else {
			refused++
		}
		if authenticated {
			connectedOnce, authFailures, attempt = true, 0, 0
		} else if fatal != nil && fatal.Code == CodeUnauthenticated && connectedOnce && authFailures < 2 {
			// The token worked before: a node that just started may not know its key yet.
			authFailures++
			fatal = nil
		}
		if fatal != nil {
			c.shutdown(fatal)
			return
		}
		if !connectedOnce && (refused >= len(c.urls) || time.Now().After(firstDeadline)) {
			c.shutdown(newError(CodeUnreachable, "", "no gateway reachable (%s): %s", strings.Join(c.urls, ", "), reason))
			return
		}
		// Whatever ended this connection may end the next attempt at the same
		// node too (it died, or is shutting down): try the next one.
		c.urlIndex = (c.urlIndex + 1) % len(c.urls)
		// Exponential backoff with full jitter: uniform in [0, min(max, initial*2^attempt)).
		capDelay := math.Min(float64(c.opts.BackoffMax), float64(c.opts.BackoffInitial)*math.Pow(2, float64(attempt)))
		attempt++
		delay := time.Duration(rand.Float64() * capDelay)
		c.opts.Logf("disconnected (%s); reconnecting to %s in %.1f s", reason, c.urls[c.urlIndex], delay.Seconds())
		select {
		case <-time.After(delay):
		case <-ctx.Done():
			return
		}
	}
}

// connection runs one connection until it ends: whether it got authenticated,
// why it ended, and an error that ends the client.
func (c *Client) connection(ctx context.Context) (bool, string, *Error) {
	dialer := websocket.Dialer{
		Subprotocols:     []string{Subprotocol},
		HandshakeTimeout: c.opts.RequestTimeout,
		Proxy:            http.ProxyFromEnvironment,
	}
	header := http.Header{"User-Agent": {"sluice-go gorilla/websocket"}}
	conn, resp, err := dialer.DialContext(ctx, c.urls[c.urlIndex], header)
	if err != nil {
		if resp != nil {
			body, _ := io.ReadAll(io.LimitReader(resp.Body, 300))
			resp.Body.Close()
			switch resp.StatusCode {
			case 502, 503, 504: // a node still loading its catalog, or a proxy in between
				return false, fmt.Sprintf("HTTP %d", resp.StatusCode), nil
			}
			return false, fmt.Sprintf("HTTP %d", resp.StatusCode),
				newError(CodeDisconnected, "", "the gateway refused the WebSocket upgrade with HTTP %d %s", resp.StatusCode, strings.TrimSpace(string(body)))
		}
		return false, err.Error(), nil
	}
	conn.SetReadLimit(1<<20 + 1024)
	auth := make(chan struct{})
	c.mu.Lock()
	c.conn, c.authenticated = conn, auth
	c.mu.Unlock()

	closing := make(chan [2]any, 1) // code, reason of the gateway's closing frame or close frame
	readerDone := make(chan struct{})
	go func() {
		defer close(readerDone)
		c.read(conn, closing)
		// Fail what waits for an answer now rather than at its timeout.
		conn.Close()
		c.failInFlight()
	}()
	connCtx, stop := context.WithCancel(ctx)
	defer stop()
	go func() { // unblock the reader when the client is closed
		select {
		case <-connCtx.Done():
			conn.Close()
		case <-readerDone:
		}
	}()

	authenticated := false
	authCtx, cancelAuth := context.WithTimeout(connCtx, c.opts.RequestTimeout)
	_, err = c.request(authCtx, conn, frame{"type": "auth", "token": c.token})
	cancelAuth()
	var fatal *Error
	if err == nil {
		authenticated = true
		close(auth)
		select {
		case c.first <- nil:
		default:
		}
		c.mu.Lock()
		subs := make([]*Subscription, 0, len(c.subs))
		for _, s := range c.subs {
			subs = append(subs, s)
		}
		c.mu.Unlock()
		for _, s := range subs {
			go c.sendSubscribe(conn, s)
		}
		go c.ping(connCtx, conn, readerDone)
		<-readerDone
	} else {
		var e *Error
		if errors.As(err, &e) && (e.Code == CodeUnauthenticated || e.Code == CodeTokenExpired || e.Code == CodeRevoked) {
			fatal = e
		}
		conn.Close()
		<-readerDone
	}
	c.mu.Lock()
	c.conn = nil
	c.authenticated = make(chan struct{})
	c.mu.Unlock()
	conn.Close()
	c.failInFlight()

	code, reason := 1006, "connection lost"
	if err != nil && fatal == nil {
		reason = err.Error()
	}
	select {
	case cr := <-closing:
		code, reason = cr[0].(int), cr[1].(string)
	default:
	}
	if fatal == nil {
		switch code {
		case CodeRevoked:
			fatal = newError(CodeRevoked, "", "token revoked: %s; a new token is needed", reason)
		case CodeTokenExpired:
			fatal = newError(CodeTokenExpired, "", "token expired: set SLUICE_TOKEN to a new token")
		case CodeUnauthenticated:
			fatal = newError(CodeUnauthenticated, "", "not authenticated: %s", reason)
		}
	}
	return authenticated, strings.TrimSpace(fmt.Sprintf("%d %s", code, reason)), fatal
}

// read dispatches frames until the connection ends.
func (c *Client) read(conn *websocket.Conn, closing chan<- [2]any) {
	var closingFrame *[2]any
	defer func() {
		if closingFrame != nil {
			closing <- *closingFrame
		}
	}()
	for {
		_, data, err := conn.ReadMessage()
		if err != nil {
			var ce *websocket.CloseError
			if closingFrame == nil && errors.As(err, &ce) {
				closingFrame = &[2]any{ce.Code, ce.Text}
			}
			return
		}
		var f frame
		if err := json.Unmarshal(data, &f); err != nil {
			c.opts.Logf("ignored a frame that is not a JSON object: %.100s", data)
			continue
		}
		kind, _ := f["type"].(string)
		endpoint, _ := f["endpoint"].(string)
		id, _ := f["id"].(string)
		switch {
		case kind == "message":
			if sub := c.sub(endpoint); sub != nil {
				sub.handleMessage(data)
			}
		case kind == "gap":
			if sub := c.sub(endpoint); sub != nil {
				sub.onGap(Gap{Endpoint: endpoint, Epoch: str(f["epoch"]), Partition: int(num(f["partition"])),
					FromSeq: num(f["from_seq"]), ToSeq: num(f["to_seq"]), Reason: str(f["reason"])})
			}
		case kind == "closing":
			closingFrame = &[2]any{int(num(f["code"])), str(f["reason"])}
		case kind == "unsubscribed" && id == "":
			c.mu.Lock()
			sub := c.subs[endpoint]
			delete(c.subs, endpoint)
			c.mu.Unlock()
			if sub != nil {
				code := int(num(f["code"]))
				if code == 0 {
					code = CodeNotFound
				}
				sub.end(newError(code, endpoint, "subscription ended by the gateway: %s", str(f["reason"])))
			}
		default:
			c.mu.Lock()
			ch := c.pending[id]
			delete(c.pending, id)
			c.mu.Unlock()
			if ch != nil {
				ch <- f
			} else if kind == "error" {
				c.opts.Logf("gateway error %v: %v", f["code"], f["message"])
			}
		}
	}
}

func (c *Client) sub(endpoint string) *Subscription {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.subs[endpoint]
}

// ping finds a dead connection that the operating system has not noticed yet
// (the gateway's WebSocket pings, answered by gorilla, keep a live one open).
func (c *Client) ping(ctx context.Context, conn *websocket.Conn, readerDone <-chan struct{}) {
	ticker := time.NewTicker(c.opts.PingInterval)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-readerDone:
			return
		case <-ticker.C:
			pctx, cancel := context.WithTimeout(ctx, c.opts.RequestTimeout)
			_, err := c.request(pctx, conn, frame{"type": "ping"})
			cancel()
			var e *Error
			if errors.As(err, &e) && e.Code == CodeTimeout {
				c.opts.Logf("no pong: the connection is dead")
				conn.Close()
				return
			}
		}
	}
}

// request sends a frame with a fresh id and waits for the answer.
func (c *Client) request(ctx context.Context, conn *websocket.Conn, f frame) (frame, error) {
	endpoint, _ := f["endpoint"].(string)
	ch := make(chan frame, 1)
	c.mu.Lock()
	c.nextID++
	id := strconv.Itoa(c.nextID)
	c.pending[id] = ch
	c.mu.Unlock()
	f["id"] = id
	defer func() {
		c.mu.Lock()
		delete(c.pending, id)
		c.mu.Unlock()
	}()
	raw, err := json.Marshal(f)
	if err != nil {
		return nil, newError(CodeBadFrame, endpoint, "%s: %v", f["type"], err)
	}
	c.writeMu.Lock()
	conn.SetWriteDeadline(time.Now().Add(c.opts.RequestTimeout))
	err = conn.WriteMessage(websocket.TextMessage, raw)
	c.writeMu.Unlock()
	if err != nil {
		return nil, newError(CodeDisconnected, endpoint, "connection lost before %s was sent", f["type"])
	}
	select {
	case answer, ok := <-ch:
		if !ok {
			return nil, newError(CodeDisconnected, endpoint, "connection lost before the answer to %s: a publish may or may not have been written", f["type"])
		}
		if answer["type"] == "error" {
			return nil, &Error{Code: int(num(answer["code"])), Message: str(answer["message"]), Endpoint: endpoint}
		}
		return answer, nil
	case <-ctx.Done():
		return nil, newError(CodeTimeout, endpoint, "%s: no answer in time", f["type"])
	}
}

func (c *Client) sendSubscribe(conn *websocket.Conn, sub *Subscription) {
	f := frame{"type": "subscribe", "endpoint": sub.Endpoint}
	if from := sub.resumeFrom(); from != nil {
		f["from"] = from
	}
	sub.mu.Lock()
	sub.sent = true
	sub.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), c.opts.RequestTimeout)
	answer, err := c.request(ctx, conn, f)
	cancel()
	if c.sub(sub.Endpoint) != sub {
		return
	}
	if err == nil {
		sub.handleSubscribed(answer)
		return
	}
	var e *Error
	errors.As(err, &e)
	c.mu.Lock()
	current := c.conn == conn
	c.mu.Unlock()
	if !current || e == nil || e.Code == CodeDisconnected {
		return // the next connection subscribes again
	}
	sub.mu.Lock()
	notFoundOnResume := e.Code == CodeNotFound && sub.acks > 0 && sub.notFoundRetries < 3
	if notFoundOnResume {
		sub.notFoundRetries++
	}
	retries := sub.notFoundRetries
	sub.mu.Unlock()
	if e.Code == CodeInternal || e.Code == CodeUnavailable || e.Code == CodeTimeout || notFoundOnResume {
		// Transient (Kafka unavailable, a node still loading): try again on this connection.
		c.opts.Logf("subscribe %s failed (%s); retrying", sub.Endpoint, e.Message)
		time.Sleep(time.Duration(500*(1<<retries)) * time.Millisecond)
		c.mu.Lock()
		still := c.conn == conn && c.subs[sub.Endpoint] == sub
		c.mu.Unlock()
		if still {
			c.sendSubscribe(conn, sub)
		}
		return
	}
	c.mu.Lock()
	delete(c.subs, sub.Endpoint)
	c.mu.Unlock()
	sub.end(e)
}

func (c *Client) failInFlight() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for id, ch := range c.pending {
		close(ch)
		delete(c.pending, id)
	}
}

func (c *Client) shutdown(err *Error) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return
	}
	c.closed = true
	if err != nil {
		c.err = err
	}
	subs := c.subs
	c.subs = map[string]*Subscription{}
	conn := c.conn
	c.mu.Unlock()
	c.cancel()
	if conn != nil {
		c.writeMu.Lock()
		conn.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, "client closed"), time.Now().Add(time.Second))
		c.writeMu.Unlock()
		conn.Close()
	}
	for _, s := range subs {
		if err != nil {
			s.end(err)
		} else {
			s.end(nil) // not a typed nil: Err() must stay nil
		}
	}
	select {
	case c.first <- errOrClosed(err):
	default:
	}
	close(c.done)
}

func errOrClosed(err *Error) error {
	if err != nil {
		return err
	}
	return newError(CodeClosed, "", "the client was closed")
}

// ---- subscriptions ------------------------------------------------------------

// Subscription is a subscription to one endpoint; it is restored after every
// reconnect from the last delivered message.
type Subscription struct {
	Endpoint string // canonical path
	Key      string // decoded Kafka record key

	client  *Client
	from    From
	created int64
	handler func(Message)
	onGap   func(Gap)

	mu              sync.Mutex
	epoch           string
	lastSeq         map[int]int64 // highest seq delivered per partition within epoch
	position        *Position
	sent            bool
	acks            int
	notFoundRetries int
	duplicates      int
	ready           chan struct{}
	ended           chan struct{}
	err             error
}

// Position is where the subscription stands: the position of the last delivered
// message or, before any, the start the gateway acknowledged (subscribed.seq);
// nil before the first acknowledgement. Resuming from it loses nothing.
func (s *Subscription) Position() *Position {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.position
}

// DuplicatesDropped counts messages dropped as already delivered (overlap after a resume).
func (s *Subscription) DuplicatesDropped() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.duplicates
}

// Ended is closed when the subscription has ended; Err then says why.
func (s *Subscription) Ended() <-chan struct{} { return s.ended }

// Err is the error that ended the subscription (nil while active or after Unsubscribe).
func (s *Subscription) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// Unsubscribe ends the subscription.
func (s *Subscription) Unsubscribe(ctx context.Context) error {
	c := s.client
	c.mu.Lock()
	if c.subs[s.Endpoint] == s {
		delete(c.subs, s.Endpoint)
	}
	conn, auth := c.conn, c.authenticated
	c.mu.Unlock()
	s.mu.Lock()
	sent := s.sent
	s.mu.Unlock()
	s.end(nil)
	if conn == nil || !isClosed(auth) || !sent {
		return nil
	}
	_, err := c.request(ctx, conn, frame{"type": "unsubscribe", "endpoint": s.Endpoint})
	var e *Error
	if errors.As(err, &e) && (e.Code == CodeNotFound || e.Code == CodeDisconnected) {
		return nil
	}
	return err
}

// resumeFrom: after a message, right after it; before any, right after the
// acknowledged start (subscribed.seq). From a gateway that sends no seq: the
// original start, except "latest", whose start moved on while disconnected:
// then the subscribe time.
func (s *Subscription) resumeFrom() any {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.position != nil {
		return *s.position
	}
	if s.from.isLatest() {
		if s.sent {
			return map[string]int64{"time": s.created}
		}
		return nil
	}
	return s.from.value
}

func (s *Subscription) handleSubscribed(answer map[string]any) {
	epoch, partition := str(answer["epoch"]), int(num(answer["partition"]))
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.epoch != "" && s.epoch != epoch {
		s.lastSeq = map[int]int64{}
	}
	s.epoch = epoch
	// A resume is acknowledged with the position it asked for; only a start in
	// another epoch or partition (the topic was recreated) replaces it.
	if _, ok := answer["seq"].(float64); ok && (s.position == nil || s.position.Epoch != epoch || s.position.Partition != partition) {
		s.position = &Position{Epoch: epoch, Partition: partition, Seq: num(answer["seq"])}
	}
	s.acks++
	s.notFoundRetries = 0
	if !isClosed(s.ready) {
		close(s.ready)
	}
}

type messageFrame struct {
	Endpoint  string          `json:"endpoint"`
	Epoch     string          `json:"epoch"`
	Partition int             `json:"partition"`
	Seq       int64           `json:"seq"`
	Ts        int64           `json:"ts"`
	Data      json.RawMessage `json:"data"`
	Encoding  string          `json:"encoding"`
}

func (s *Subscription) handleMessage(raw []byte) {
	var f messageFrame
	if err := json.Unmarshal(raw, &f); err != nil {
		s.client.opts.Logf("ignored a malformed message frame: %v", err)
		return
	}
	s.mu.Lock()
	if isClosed(s.ended) {
		s.mu.Unlock()
		return
	}
	if s.epoch != f.Epoch {
		s.lastSeq = map[int]int64{} // the topic was recreated: seqs restart
		s.epoch = f.Epoch
	}
	if last, ok := s.lastSeq[f.Partition]; ok && f.Seq <= last {
		s.duplicates++
		s.mu.Unlock()
		return
	}
	s.lastSeq[f.Partition] = f.Seq
	pos := Position{Epoch: f.Epoch, Partition: f.Partition, Seq: f.Seq}
	s.position = &pos
	s.mu.Unlock()
	if f.Data == nil {
		f.Data = json.RawMessage("null")
	}
	func() {
		defer func() {
			if r := recover(); r != nil {
				s.client.opts.Logf("handler for %s panicked: %v", s.Endpoint, r)
			}
		}()
		s.handler(Message{Endpoint: s.Endpoint, Key: s.Key, Data: f.Data, Encoding: f.Encoding, Ts: f.Ts, Position: pos})
	}()
}

func (s *Subscription) end(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if isClosed(s.ended) {
		return
	}
	s.err = err
	close(s.ended)
}

// ---- paths ---------------------------------------------------------------------

// ParsePath reads an endpoint path (PROTOCOL.md, "Endpoints and paths") and
// returns its canonical form, topic and decoded key.
func ParsePath(raw string) (canonical, topic, key string, err error) {
	bad := func(format string, args ...any) (string, string, string, error) {
		return "", "", "", newError(CodeBadFrame, raw, "endpoint: "+format, args...)
	}
	if !strings.HasPrefix(raw, "/") {
		return bad("%q must start with /", raw)
	}
	segments := strings.Split(raw[1:], "/")
	if len(segments) < 2 {
		return bad("%q needs a topic and a key (/topic/key)", raw)
	}
	decoded := make([]string, len(segments))
	for i, seg := range segments {
		d, err := percentDecode(seg)
		if err != nil {
			return bad("segment %d of %q is not valid percent-encoded UTF-8", i+1, raw)
		}
		if d == "" {
			return bad("%q has an empty segment", raw)
		}
		if strings.Contains(d, "/") {
			return bad("segment %d of %q encodes a '/'", i+1, raw)
		}
		decoded[i] = d
	}
	topic = decoded[0]
	if len(topic) > 249 || topic == "." || topic == ".." || strings.IndexFunc(topic, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-')
	}) >= 0 {
		return bad("topic %q is not a valid Kafka topic name (A-Z a-z 0-9 . _ -)", topic)
	}
	key = strings.Join(decoded[1:], "/")
	if len(key) > 1024 {
		return bad("key is longer than 1024 bytes")
	}
	if strings.IndexFunc(key, func(r rune) bool { return r < 0x20 || r >= 0x7f && r <= 0x9f }) >= 0 {
		return bad("key holds a control character")
	}
	escaped := make([]string, len(decoded)-1)
	for i, seg := range decoded[1:] {
		escaped[i] = EscapeSegment(seg)
	}
	return "/" + topic + "/" + strings.Join(escaped, "/"), topic, key, nil
}

func percentDecode(s string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			b.WriteByte(s[i])
			continue
		}
		if i+2 >= len(s) {
			return "", errors.New("short escape")
		}
		v, err := strconv.ParseUint(s[i+1:i+3], 16, 8)
		if err != nil {
			return "", err
		}
		b.WriteByte(byte(v))
		i += 2
	}
	out := b.String()
	if !utf8.ValidString(out) {
		return "", errors.New("not UTF-8")
	}
	return out, nil
}

// EscapeSegment percent-encodes one path segment's UTF-8 bytes, keeping A-Z a-z 0-9 - . _ ~.
func EscapeSegment(segment string) string {
	var b strings.Builder
	for i := 0; i < len(segment); i++ {
		ch := segment[i]
		if ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9' || ch == '-' || ch == '.' || ch == '_' || ch == '~' {
			b.WriteByte(ch)
		} else {
			fmt.Fprintf(&b, "%%%02X", ch)
		}
	}
	return b.String()
}

// KeyPath builds prefix + "/" + key for a parameterised endpoint; a key may contain '/'.
func KeyPath(prefix, key string) string {
	segments := strings.Split(key, "/")
	for i, s := range segments {
		segments[i] = EscapeSegment(s)
	}
	return prefix + "/" + strings.Join(segments, "/")
}

// GatewayURLs turns a comma-separated list of gateway URLs (SLUICE_GATEWAY_URL's
// form) into WebSocket URLs.
func GatewayURLs(list string) ([]string, error) {
	var urls []string
	for _, part := range strings.Split(list, ",") {
		if strings.TrimSpace(part) == "" {
			continue
		}
		u, err := WebSocketURL(part)
		if err != nil {
			return nil, err
		}
		urls = append(urls, u)
	}
	if len(urls) == 0 {
		return nil, newError(CodeBadFrame, "", "SLUICE_GATEWAY_URL holds no gateway URL: %q", list)
	}
	return urls, nil
}

// WebSocketURL turns http(s)://host[:port][/base] into ws(s)://host[:port][/base]/ws
// (a ws(s):// URL is taken as is).
func WebSocketURL(gatewayURL string) (string, error) {
	u := strings.TrimRight(strings.TrimSpace(gatewayURL), "/")
	switch {
	case strings.HasPrefix(u, "ws://"), strings.HasPrefix(u, "wss://"):
		return u, nil
	case strings.HasPrefix(u, "https://"):
		return "wss://" + strings.TrimPrefix(u, "https://") + "/ws", nil
	case strings.HasPrefix(u, "http://"):
		return "ws://" + strings.TrimPrefix(u, "http://") + "/ws", nil
	}
	return "", newError(CodeBadFrame, "", "SLUICE_GATEWAY_URL must start with http://, https://, ws:// or wss://: %q", gatewayURL)
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

func num(v any) int64 {
	f, _ := v.(float64)
	return int64(f)
}

// TypedMessage is a Message with its payload decoded into T; PayloadErr is set
// when the payload does not decode into T (a record written by another producer).
type TypedMessage[T any] struct {
	Message
	Payload    T
	PayloadErr error
}

// Typed adapts a handler of TypedMessage[T] to a handler of Message.
func Typed[T any](handler func(TypedMessage[T])) func(Message) {
	return func(m Message) {
		tm := TypedMessage[T]{Message: m}
		tm.PayloadErr = json.Unmarshal(m.Data, &tm.Payload)
		handler(tm)
	}
}

// shuffled is a random permutation of urls (a copy).
func shuffled(urls []string) []string {
	out := append([]string(nil), urls...)
	rand.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}
