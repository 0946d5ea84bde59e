package edge

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/sluicehq/sluice/apps/gateway/internal/protocol"
	"github.com/sluicehq/sluice/apps/gateway/internal/wsframe"
)

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
