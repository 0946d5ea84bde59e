package edge

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/sluicehq/sluice/apps/gateway/internal/auth"
	"github.com/sluicehq/sluice/apps/gateway/internal/hub"
	"github.com/sluicehq/sluice/apps/gateway/internal/metrics"
)

// Every case of packages/protocol/vectors/handshakes.json against a real
// server: the upgrade with or without an Authorization header, the client's
// frames, and exactly the server frames the vector expects, in order, byte for
// byte (a connection authenticated by the header is told so without asking).
func TestHandshakeVectors(t *testing.T) {
	b, err := os.ReadFile("../../../../packages/protocol/vectors/handshakes.json")
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Token     string
		App       string
		ExpiresAt int64 `json:"expires_at"`
		Cases     []struct {
			Name, Authorization string
			Send, Expect        []string
			Status, Code        int
		}
	}
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	if len(v.Cases) == 0 {
		t.Fatal("no cases")
	}

	perms, err := auth.NewPermissions([]string{"/prices/*"}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	opt := Options{
		Verifier: tokenTable{v.Token: {App: v.App, JTI: "jti-vector", ExpiresAt: v.ExpiresAt, Permissions: perms}},
		Catalog:  endpoints{},
		Hub:      hub.New(newMemLog(), hub.Config{CacheSize: 16, Linger: time.Minute}),
		Metrics:  metrics.New(),
	}
	s := New(opt)
	mux := http.NewServeMux()
	s.Routes(mux)
	hs := httptest.NewServer(mux)
	t.Cleanup(func() { hs.Close(); s.cancel(); opt.Hub.Close() })
	url := "ws" + strings.TrimPrefix(hs.URL, "http") + "/ws"

	for _, c := range v.Cases {
		t.Run(c.Name, func(t *testing.T) {
			header := http.Header{}
			if c.Authorization != "" {
				header.Set("Authorization", c.Authorization)
			}
			d := websocket.Dialer{Subprotocols: []string{Subprotocol}, HandshakeTimeout: 5 * time.Second}
			ws, res, err := d.Dial(url, header)
			if c.Status != 0 {
				if err == nil {
					ws.Close()
					t.Fatalf("upgrade accepted, want HTTP %d", c.Status)
				}
				if res == nil || res.StatusCode != c.Status {
					t.Fatalf("upgrade refused with %v, want HTTP %d", res, c.Status)
				}
				var problem struct{ Code int }
				if err := json.NewDecoder(res.Body).Decode(&problem); err != nil || problem.Code != c.Code {
					t.Fatalf("problem body: code %d (%v), want %d", problem.Code, err, c.Code)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer ws.Close()
			_ = ws.SetReadDeadline(time.Now().Add(5 * time.Second))
			// The frames the server sends on its own come before any answer, so
			// sending everything first and then reading keeps the expected order.
			for _, frame := range c.Send {
				if err := ws.WriteMessage(websocket.TextMessage, []byte(frame)); err != nil {
					t.Fatal(err)
				}
			}
			for i, want := range c.Expect {
				typ, got, err := ws.ReadMessage()
				if err != nil {
					t.Fatalf("frame %d: %v, want %s", i, err, want)
				}
				if typ != websocket.TextMessage || string(got) != want {
					t.Fatalf("frame %d:\n got %s\nwant %s", i, got, want)
				}
			}
			// Nothing more: a ping's pong is the next frame.
			if err := ws.WriteMessage(websocket.TextMessage, []byte(`{"type":"ping","id":"end"}`)); err != nil {
				t.Fatal(err)
			}
			if _, got, err := ws.ReadMessage(); err != nil || string(got) != `{"type":"pong","id":"end"}` {
				t.Fatalf("after the expected frames: %s %v, want the pong", got, err)
			}
		})
	}
}
