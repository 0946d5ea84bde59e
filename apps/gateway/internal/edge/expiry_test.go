package edge

import (
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/sluicehq/sluice/apps/gateway/internal/auth"
	"github.com/sluicehq/sluice/apps/gateway/internal/protocol"
)

// tokenTable is a Verifier over fixed claims: the token text names them.
type tokenTable map[string]*auth.Claims

func (tt tokenTable) Verify(token string) (*auth.Claims, *protocol.Error) {
	if c, ok := tt[token]; ok {
		return c, nil
	}
	return nil, protocol.Errorf(protocol.CodeUnauthenticated, "unknown token")
}

func (tt tokenTable) Recheck(*auth.Claims) *protocol.Error { return nil }

func authenticate(t *testing.T, ws *websocket.Conn, typ, token string) {
	t.Helper()
	if err := ws.WriteJSON(map[string]string{"type": typ, "id": typ, "token": token}); err != nil {
		t.Fatal(err)
	}
	if f := readFrame(t, ws); f["type"] != "authenticated" {
		t.Fatalf("%s answered with %v", typ, f)
	}
}

// Connections sharing a token end together when it expires (one timer per
// token, in the server's registry); a connection that refreshed to a later token
// and one with a later token of its own stay.
func TestExpiredTokenEndsEveryConnectionUsingIt(t *testing.T) {
	exp := time.Now().Add(1500 * time.Millisecond).Unix() // a whole second in the future at least
	if time.Until(time.Unix(exp, 0)) < time.Second {
		exp++
	}
	later := exp + 3600
	tt := tokenTable{
		"soon":      {App: "app-1", JTI: "jti-soon", ExpiresAt: exp},
		"later":     {App: "app-1", JTI: "jti-later", ExpiresAt: later},
		"refreshed": {App: "app-1", JTI: "jti-refreshed", ExpiresAt: later},
	}
	s, url := newWSTestServer(t, Options{Verifier: tt})
	a, b, refreshing, other := dial(t, url), dial(t, url), dial(t, url), dial(t, url)
	authenticate(t, a, "auth", "soon")
	authenticate(t, b, "auth", "soon")
	authenticate(t, refreshing, "auth", "soon")
	authenticate(t, refreshing, "refresh", "refreshed")
	authenticate(t, other, "auth", "later")

	for name, ws := range map[string]*websocket.Conn{"a": a, "b": b} {
		if f := readFrame(t, ws); f["type"] != "closing" || f["code"] != float64(protocol.CodeTokenExpired) {
			t.Fatalf("%s: %v, want closing 4008", name, f)
		}
		if _, _, err := ws.ReadMessage(); !websocket.IsCloseError(err, int(protocol.CodeTokenExpired)) {
			t.Fatalf("%s: close frame: %v", name, err)
		}
	}
	// The others still answer.
	for name, ws := range map[string]*websocket.Conn{"refreshed": refreshing, "later": other} {
		if err := ws.WriteJSON(map[string]string{"type": "ping", "id": "p"}); err != nil {
			t.Fatal(err)
		}
		if f := readFrame(t, ws); f["type"] != "pong" {
			t.Fatalf("%s: %v, want pong", name, f)
		}
	}
	s.mu.Lock()
	_, soonLeft := s.byJTI["jti-soon"]
	s.mu.Unlock()
	deadline := time.Now().Add(5 * time.Second)
	for soonLeft && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
		s.mu.Lock()
		_, soonLeft = s.byJTI["jti-soon"]
		s.mu.Unlock()
	}
	if soonLeft {
		t.Fatal("the expired token's entry (and timer) outlived its connections")
	}
}
