package edge

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/sluicehq/sluice/apps/gateway/internal/metrics"
	"github.com/sluicehq/sluice/apps/gateway/internal/protocol"
	"github.com/sluicehq/sluice/apps/gateway/internal/wsframe"
)

// These tests drive the WebSocket transport (framing, control frames, closing)
// with a real client over loopback; frames that need no token are enough.

func newWSTestServer(t *testing.T, opt Options) (*Edge, string) {
	opt.Metrics = metrics.New()
	s := New(opt)
	mux := http.NewServeMux()
	s.Routes(mux)
	hs := httptest.NewServer(mux)
	t.Cleanup(func() { hs.Close(); s.cancel() })
	return s, "ws" + strings.TrimPrefix(hs.URL, "http") + "/ws"
}

func dial(t *testing.T, url string) *websocket.Conn {
	t.Helper()
	d := websocket.Dialer{Subprotocols: []string{Subprotocol}, HandshakeTimeout: 5 * time.Second}
	ws, _, err := d.Dial(url, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	_ = ws.SetReadDeadline(time.Now().Add(10 * time.Second))
	return ws
}

func readFrame(t *testing.T, ws *websocket.Conn) map[string]any {
	t.Helper()
	typ, data, err := ws.ReadMessage()
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	if typ != websocket.TextMessage {
		t.Fatalf("message type %d", typ)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("frame %q: %v", data, err)
	}
	return m
}

func TestWebSocketFramesLargeBinaryFragmentedAndControl(t *testing.T) {
	_, url := newWSTestServer(t, Options{})
	ws := dial(t, url)

	// A message over the limit is refused with 4013 and skipped; the connection
	// keeps working.
	big := `{"type":"ping","id":"` + strings.Repeat("x", protocol.MaxFrameBytes) + `"}`
	if err := ws.WriteMessage(websocket.TextMessage, []byte(big)); err != nil {
		t.Fatal(err)
	}
	if e := readFrame(t, ws); e["type"] != "error" || e["code"] != float64(protocol.CodeFrameTooLarge) {
		t.Fatalf("after a large frame: %v", e)
	}
	// Binary frames are refused.
	_ = ws.WriteMessage(websocket.BinaryMessage, []byte(`{"type":"ping"}`))
	if e := readFrame(t, ws); e["type"] != "error" || e["code"] != float64(protocol.CodeBadFrame) {
		t.Fatalf("after a binary frame: %v", e)
	}
	// Text that is not UTF-8 is refused, not altered.
	_ = ws.WriteMessage(websocket.TextMessage, []byte("{\"type\":\"ping\",\"id\":\"\xff\"}"))
	if e := readFrame(t, ws); e["type"] != "error" || e["code"] != float64(protocol.CodeBadFrame) || !strings.Contains(e["message"].(string), "UTF-8") {
		t.Fatalf("after a text frame with invalid UTF-8: %v", e)
	}
	// A text message in three fragments is one frame of the protocol.
	w, _ := ws.NextWriter(websocket.TextMessage)
	for _, part := range []string{`{"type":"pi`, `ng","id`, `":"frag"}`} {
		_, _ = w.Write([]byte(part))
		if bw, ok := w.(interface{ Flush() error }); ok {
			_ = bw.Flush()
		}
	}
	_ = w.Close()
	if p := readFrame(t, ws); p["type"] != "pong" || p["id"] != "frag" {
		t.Fatalf("after a fragmented message: %v", p)
	}
	// A WebSocket ping is answered with a pong carrying its payload.
	pong := make(chan string, 1)
	ws.SetPongHandler(func(data string) error { pong <- data; return nil })
	_ = ws.WriteControl(websocket.PingMessage, []byte("hello"), time.Now().Add(time.Second))
	_ = ws.WriteMessage(websocket.TextMessage, []byte(`{"type":"ping","id":"after"}`))
	if p := readFrame(t, ws); p["id"] != "after" {
		t.Fatalf("after a ping: %v", p)
	}
	if got := <-pong; got != "hello" {
		t.Fatalf("pong payload %q", got)
	}
	// A close from the client is answered with its code.
	_ = ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(4321, "bye"), time.Now().Add(time.Second))
	_, _, err := ws.ReadMessage()
	if !websocket.IsCloseError(err, 4321) {
		t.Fatalf("close answer: %v", err)
	}
}

// A framing violation gets a 1002 close frame; a silent client is not needed
// for that, any raw socket shows it.
func TestWebSocketProtocolErrorClosesWith1002(t *testing.T) {
	_, url := newWSTestServer(t, Options{})
	conn := rawUpgrade(t, url)
	// An unmasked client frame.
	if _, err := conn.Write(wsframe.Append(nil, wsframe.OpText, []byte(`{"type":"ping"}`))); err != nil {
		t.Fatal(err)
	}
	_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	var all bytes.Buffer
	_, _ = all.ReadFrom(conn) // until the server closes
	b := all.Bytes()
	if len(b) < 4 || b[0] != 0x88 || int(b[2])<<8|int(b[3]) != wsframe.CloseProtocolError {
		t.Fatalf("server sent % x, want a close frame with 1002", b)
	}
}

// terminate queues a closing notice then a close frame with the same code, and
// the socket is closed after them.
func TestTerminateSendsClosingNoticeThenCloseFrame(t *testing.T) {
	_, url := newWSTestServer(t, Options{AuthTimeout: 100 * time.Millisecond})
	ws := dial(t, url)
	if c := readFrame(t, ws); c["type"] != "closing" || c["code"] != float64(protocol.CodeUnauthenticated) {
		t.Fatalf("closing notice: %v", c)
	}
	if _, _, err := ws.ReadMessage(); !websocket.IsCloseError(err, int(protocol.CodeUnauthenticated)) {
		t.Fatalf("close frame: %v", err)
	}
}

// A client that sends nothing at all (not even pongs) is dropped after the idle
// timeout; one that answers pings stays.
func TestSilentClientsAreDroppedAfterTheIdleTimeout(t *testing.T) {
	s, url := newWSTestServer(t, Options{PingInterval: 50 * time.Millisecond, IdleTimeout: 300 * time.Millisecond, AuthTimeout: time.Minute})
	silent := rawUpgrade(t, url)
	alive := dial(t, url)
	go func() { // gorilla answers pings while reading
		for {
			if _, _, err := alive.ReadMessage(); err != nil {
				return
			}
		}
	}()
	_ = silent.SetReadDeadline(time.Now().Add(5 * time.Second))
	var b bytes.Buffer
	if _, err := b.ReadFrom(silent); err != nil {
		t.Fatalf("silent client: %v", err)
	}
	s.mu.Lock()
	n := len(s.sessions)
	s.mu.Unlock()
	if n != 1 {
		t.Fatalf("%d sessions left, want the one answering pings", n)
	}
}

// rawUpgrade does the handshake on a plain TCP connection.
func rawUpgrade(t *testing.T, url string) net.Conn {
	t.Helper()
	host := strings.TrimPrefix(strings.TrimSuffix(url, "/ws"), "ws://")
	conn, err := net.Dial("tcp", host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	req := "GET /ws HTTP/1.1\r\nHost: " + host + "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
		"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: " + Subprotocol + "\r\n\r\n"
	if _, err := conn.Write([]byte(req)); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(conn)
	res, err := http.ReadResponse(br, nil)
	if err != nil || res.StatusCode != http.StatusSwitchingProtocols {
		t.Fatalf("handshake: %v %v", res, err)
	}
	if br.Buffered() > 0 {
		t.Fatal("bytes after the handshake")
	}
	return conn
}
