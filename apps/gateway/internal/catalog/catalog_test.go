package catalog

import (
	"crypto"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sluicehq/sluice/apps/gateway/internal/protocol"
)

func path(topic, key string) protocol.Path { return protocol.Path{Topic: topic, Key: key} }

func wantEvents(t *testing.T, rec *recorder, want ...string) {
	t.Helper()
	got := rec.take()
	if !slices.Equal(got, want) {
		t.Fatalf("listener calls:\n got %q\nwant %q", got, want)
	}
}

func TestApplyEndpointLifecycle(t *testing.T) {
	c, rec, _ := newTestCatalog(t)

	c.Apply("endpoint/p", endpointRecord("p", "prices", "", "symbol"))
	wantEvents(t, rec, "endpoint nil -> p:/prices/{symbol}")
	p1 := c.Resolve(path("prices", "AAPL"))
	if p1 == nil || p1.ID != "p" {
		t.Fatalf("param endpoint not resolved: %v", p1)
	}

	// Re-reading the same record changes nothing and tells nobody.
	c.Apply("endpoint/p", endpointRecord("p", "prices", "", "symbol"))
	wantEvents(t, rec)
	if c.Resolve(path("prices", "AAPL")) != p1 {
		t.Fatal("unchanged record replaced the endpoint")
	}

	// A change of operations is a change: old and new are reported.
	c.Apply("endpoint/p", endpointRecord("p", "prices", "", "symbol", set("operations", []string{"subscribe"})))
	wantEvents(t, rec, "endpoint p:/prices/{symbol} -> p:/prices/{symbol}")
	p2 := c.Resolve(path("prices", "AAPL"))
	if p2 == p1 || p2.Publish || !p1.Publish {
		t.Fatal("a changed endpoint must be a new value; the old one must not change")
	}

	// A move to another topic: the old path is no longer served.
	c.Apply("endpoint/p", endpointRecord("p", "quotes", "", "sym"))
	wantEvents(t, rec, "endpoint p:/prices/{symbol} -> p:/quotes/{sym}")
	if c.Resolve(path("prices", "AAPL")) != nil {
		t.Fatal("old topic still served")
	}
	if e := c.Resolve(path("quotes", "AAPL")); e == nil || e.ID != "p" {
		t.Fatal("new topic not served")
	}

	// A move from param to exact key.
	c.Apply("endpoint/p", endpointRecord("p", "quotes", "AAPL", ""))
	wantEvents(t, rec, "endpoint p:/quotes/{sym} -> p:/quotes/AAPL")
	if c.Resolve(path("quotes", "MSFT")) != nil || c.Resolve(path("quotes", "AAPL")) == nil {
		t.Fatal("exact endpoint after move")
	}

	// Tombstone.
	c.Apply("endpoint/p", nil)
	wantEvents(t, rec, "endpoint p:/quotes/AAPL -> nil")
	if c.Resolve(path("quotes", "AAPL")) != nil || len(c.Endpoints()) != 0 {
		t.Fatal("removed endpoint still served")
	}
	// A tombstone for an unknown endpoint is a no-op.
	c.Apply("endpoint/p", nil)
	c.Apply("endpoint/never", nil)
	wantEvents(t, rec)

	s := c.Stats()
	if s.Records != 8 || s.BadRecords != 0 || s.Endpoints != 0 {
		t.Fatalf("stats %+v", s)
	}
}

func TestEndpointChangedPassesOldAndNewValues(t *testing.T) {
	c, rec, _ := newTestCatalog(t)
	c.Apply("endpoint/e", endpointRecord("e", "t", "a", ""))
	first := c.Resolve(path("t", "a"))
	c.Apply("endpoint/e", endpointRecord("e", "t", "b", ""))
	rec.mu.Lock()
	pairs := slices.Clone(rec.pairs)
	rec.mu.Unlock()
	if len(pairs) != 2 || pairs[0][0] != nil || pairs[0][1] != first || pairs[1][0] != first || pairs[1][1] != c.Resolve(path("t", "b")) {
		t.Fatalf("pairs %v", pairs)
	}
}

func TestResolvePrecedence(t *testing.T) {
	c, _, _ := newTestCatalog(t)
	c.Apply("endpoint/param", endpointRecord("param", "prices", "", "symbol"))
	c.Apply("endpoint/exact", endpointRecord("exact", "prices", "AAPL", "", set("operations", []string{"subscribe"})))
	c.Apply("endpoint/nested", endpointRecord("nested", "vehicles", "1/speed", ""))

	cases := []struct {
		p    protocol.Path
		want string
	}{
		{path("prices", "AAPL"), "exact"},
		{path("prices", "MSFT"), "param"},
		{path("prices", "AAPL/x"), "param"},
		{path("vehicles", "1/speed"), "nested"},
		{path("vehicles", "1"), ""},
		{path("vehicles", "1/speed/x"), ""},
		{path("other", "AAPL"), ""},
	}
	for _, tc := range cases {
		e := c.Resolve(tc.p)
		got := ""
		if e != nil {
			got = e.ID
		}
		if got != tc.want {
			t.Errorf("Resolve(%v) = %q, want %q", tc.p, got, tc.want)
		}
	}
	// ParamEndpoint is the topic's parameterised endpoint, whatever exact ones
	// it has.
	if e := c.ParamEndpoint("prices"); e == nil || e.ID != "param" {
		t.Errorf("ParamEndpoint(prices) = %v, want param", e)
	}
	if e := c.ParamEndpoint("vehicles"); e != nil {
		t.Errorf("ParamEndpoint(vehicles) = %s, want none", e.ID)
	}
	// A path parsed from a non-canonical spelling resolves the same.
	p, perr := protocol.ParsePath("/vehicles/%31/sp%65ed")
	if perr != nil || c.Resolve(p) == nil || c.Resolve(p).ID != "nested" {
		t.Fatalf("non-canonical spelling: %v %v", p, perr)
	}
	// Removing the exact endpoint falls back to the param one.
	c.Apply("endpoint/exact", nil)
	if e := c.Resolve(path("prices", "AAPL")); e == nil || e.ID != "param" {
		t.Fatal("no fallback to the param endpoint")
	}
	got := []string{}
	for _, e := range c.Endpoints() {
		got = append(got, e.Path)
	}
	if !slices.Equal(got, []string{"/prices/{symbol}", "/vehicles/1/speed"}) {
		t.Fatalf("Endpoints() = %v", got)
	}
}

func TestBadEndpointKeepsPreviousState(t *testing.T) {
	c, rec, logs := newTestCatalog(t)
	c.Apply("endpoint/e", endpointRecord("e", "t", "k", ""))
	rec.take()
	before := c.Resolve(path("t", "k"))

	bad := [][]byte{
		[]byte("garbage"),
		[]byte(""),
		endpointRecord("e", "t", "k", "", set("v", 2)),
		endpointRecord("e", "t", "k2", "", set("path", "/t/k")),
		endpointRecord("e", "t", "k", "", set("payload_format", "xml")),
	}
	for _, v := range bad {
		c.Apply("endpoint/e", v)
	}
	if c.Resolve(path("t", "k")) != before || c.Resolve(path("t", "k2")) != nil {
		t.Fatal("a bad record changed the endpoint")
	}
	wantEvents(t, rec)
	if s := c.Stats(); s.BadRecords != uint64(len(bad)) || s.Endpoints != 1 {
		t.Fatalf("stats %+v", s)
	}
	mustContain(t, logs.String(), "payload_format")
	mustContain(t, logs.String(), "key=endpoint/e")

	// A bad record for a new endpoint adds nothing; an empty id is bad.
	c.Apply("endpoint/new", []byte(`{"v":1}`))
	c.Apply("endpoint/", endpointRecord("", "t", "x", ""))
	if c.Stats().Endpoints != 1 || c.Stats().BadRecords != uint64(len(bad))+2 {
		t.Fatalf("stats %+v", c.Stats())
	}
}

func TestEndpointConflicts(t *testing.T) {
	c, rec, logs := newTestCatalog(t)
	c.Apply("endpoint/a", endpointRecord("a", "prices", "AAPL", ""))
	c.Apply("endpoint/p1", endpointRecord("p1", "prices", "", "symbol"))
	rec.take()

	// Same (topic, key): the first is kept, the second waits.
	c.Apply("endpoint/b", endpointRecord("b", "prices", "AAPL", "", set("operations", []string{"publish"})))
	// Second param endpoint on a topic.
	c.Apply("endpoint/p2", endpointRecord("p2", "prices", "", "sym"))
	wantEvents(t, rec)
	if c.Resolve(path("prices", "AAPL")).ID != "a" || c.Resolve(path("prices", "X")).ID != "p1" {
		t.Fatal("the first endpoint was not kept")
	}
	s := c.Stats()
	if s.BadRecords != 2 || s.PendingEndpoints != 2 || s.Endpoints != 2 {
		t.Fatalf("stats %+v", s)
	}
	mustContain(t, logs.String(), "endpoint conflict")
	mustContain(t, logs.String(), "served_by=a")

	// An endpoint that moves onto a taken path keeps its previous path.
	c.Apply("endpoint/c", endpointRecord("c", "prices", "MSFT", ""))
	rec.take()
	c.Apply("endpoint/c", endpointRecord("c", "prices", "AAPL", ""))
	wantEvents(t, rec)
	if c.Resolve(path("prices", "MSFT")).ID != "c" {
		t.Fatal("conflicting move dropped the previous path")
	}

	// When the holder goes away, the earliest waiting claim takes the path.
	c.Apply("endpoint/a", nil)
	wantEvents(t, rec, "endpoint a:/prices/AAPL -> nil", "endpoint nil -> b:/prices/AAPL")
	if e := c.Resolve(path("prices", "AAPL")); e.ID != "b" || e.Subscribe {
		t.Fatalf("promoted endpoint %+v", e)
	}
	// b goes away: c (waiting) moves there and frees /prices/MSFT.
	c.Apply("endpoint/b", nil)
	wantEvents(t, rec, "endpoint b:/prices/AAPL -> nil", "endpoint c:/prices/MSFT -> c:/prices/AAPL")
	if c.Resolve(path("prices", "MSFT")).ID != "p1" {
		t.Fatal("MSFT should fall back to the param endpoint")
	}

	// The param holder moves away: p2 takes the topic.
	c.Apply("endpoint/p1", endpointRecord("p1", "other", "", "symbol"))
	wantEvents(t, rec, "endpoint p1:/prices/{symbol} -> p1:/other/{symbol}", "endpoint nil -> p2:/prices/{sym}")
	if s := c.Stats(); s.PendingEndpoints != 0 || s.Endpoints != 3 {
		t.Fatalf("stats %+v", s)
	}

	// A newer record of a waiting endpoint replaces its claim; a tombstone
	// drops it.
	c.Apply("endpoint/d", endpointRecord("d", "prices", "AAPL", ""))
	c.Apply("endpoint/d", endpointRecord("d", "prices", "IBM", ""))
	wantEvents(t, rec, "endpoint nil -> d:/prices/IBM")
	c.Apply("endpoint/e", endpointRecord("e", "prices", "AAPL", ""))
	c.Apply("endpoint/e", nil)
	c.Apply("endpoint/c", nil)
	wantEvents(t, rec, "endpoint c:/prices/AAPL -> nil")
	if c.Resolve(path("prices", "AAPL")).ID != "p2" || c.Stats().PendingEndpoints != 0 {
		t.Fatal("a dropped claim was promoted")
	}
}

func TestApplyKeys(t *testing.T) {
	c, rec, _ := newTestCatalog(t)
	pub, jwk := newECJWK(t)
	c.Apply("key/k1", keyRecord("k1", "ES256", jwk, "active"))
	alg, key, ok := c.VerificationKey("k1")
	if !ok || alg != "ES256" || !pub.Equal(key) {
		t.Fatalf("key: %v %v %v", alg, key, ok)
	}
	// Retired keys still verify.
	c.Apply("key/k1", keyRecord("k1", "ES256", jwk, "retired"))
	if _, _, ok := c.VerificationKey("k1"); !ok {
		t.Fatal("retired key dropped")
	}
	if _, _, ok := c.VerificationKey("nope"); ok {
		t.Fatal("unknown kid found")
	}

	pub2, jwk2 := newECJWK(t)
	bad := []struct {
		value []byte
		want  string
	}{
		{keyRecord("k1", "HS256", jwk2, "active"), "alg: \"HS256\""},
		{keyRecord("k1", "none", jwk2, "active"), "alg: "},
		{keyRecord("k2", "ES256", jwk2, "active"), "kid: \"k2\" does not match"},
		{keyRecord("k1", "ES256", jwk2, "compromised"), "status: "},
		{keyRecord("k1", "ES256", json.RawMessage(`"x"`), "active"), "jwk: must be a JSON object"},
		{keyRecord("k1", "ES256", json.RawMessage(`{"kty":"EC","crv":"P-384"}`), "active"), "jwk: unsupported key"},
		{keyRecord("k1", "EdDSA", jwk2, "active"), "jwk: "},
		{[]byte(`{"v":1,"kid":"k1","alg":"ES256","status":"active"}`), "jwk: must be a JSON object"},
		{[]byte(`{"v":1,"kid":"k1","jwk":{},"status":"active"}`), "alg: missing"},
		{[]byte(`{"v":3,"kid":"k1"}`), "v: unknown version 3"},
		{[]byte(`not json`), "value: not valid JSON"},
	}
	for _, b := range bad {
		_, err := parseKey("k1", b.value, parseTestJWK)
		if err == nil {
			t.Fatalf("accepted %s", b.value)
		}
		mustContain(t, err.Error(), b.want)
		c.Apply("key/k1", b.value)
	}
	if _, key, _ := c.VerificationKey("k1"); !pub.Equal(key) || pub2.Equal(key) {
		t.Fatal("a bad key record replaced the key")
	}
	if c.Stats().BadRecords != uint64(len(bad)) {
		t.Fatalf("stats %+v", c.Stats())
	}

	// Key rotation, then tombstone.
	c.Apply("key/k1", keyRecord("k1", "ES256", jwk2, "active"))
	if _, key, _ := c.VerificationKey("k1"); !pub2.Equal(key) {
		t.Fatal("key not replaced")
	}
	c.Apply("key/k1", nil)
	if _, _, ok := c.VerificationKey("k1"); ok {
		t.Fatal("tombstoned key still found")
	}
	wantEvents(t, rec) // keys never notify
}

func TestKeysWithoutParserFailClosed(t *testing.T) {
	c := New(Options{})
	_, jwk := newECJWK(t)
	c.Apply("key/k1", keyRecord("k1", "ES256", jwk, "active"))
	if _, _, ok := c.VerificationKey("k1"); ok {
		t.Fatal("a key was accepted without a parser")
	}
	// A parser that panics or returns nothing does not crash or add a key.
	c = New(Options{ParseJWK: func(string, json.RawMessage) (crypto.PublicKey, error) { panic("boom") }})
	c.Apply("key/k1", keyRecord("k1", "ES256", jwk, "active"))
	c = New(Options{ParseJWK: func(string, json.RawMessage) (crypto.PublicKey, error) { return nil, nil }})
	c.Apply("key/k1", keyRecord("k1", "ES256", jwk, "active"))
	if _, _, ok := c.VerificationKey("k1"); ok || c.Stats().BadRecords != 1 {
		t.Fatal("a nil key was accepted")
	}
}

func TestApplyApps(t *testing.T) {
	c, rec, _ := newTestCatalog(t)
	if _, known := c.AppTokensNotBefore("a1"); known {
		t.Fatal("unknown app known")
	}
	c.Apply("app/a1", appRecord("a1", nil))
	if nbf, known := c.AppTokensNotBefore("a1"); !known || nbf != 0 {
		t.Fatalf("null tokens_not_before: %d %v", nbf, known)
	}
	c.Apply("app/a2", []byte(`{"v":1,"id":"a2","name":"x"}`)) // absent → 0
	c.Apply("app/a3", appRecord("a3", 1795000000))            // new app: nothing to revoke
	wantEvents(t, rec)

	c.Apply("app/a1", appRecord("a1", 1795000000))
	wantEvents(t, rec, "app a1 1795000000")
	c.Apply("app/a1", appRecord("a1", 1795000000)) // unchanged
	c.Apply("app/a1", appRecord("a1", 1700000000)) // lowered: no revocation
	wantEvents(t, rec)
	if nbf, _ := c.AppTokensNotBefore("a1"); nbf != 1700000000 {
		t.Fatalf("nbf %d", nbf)
	}

	c.Apply("app/a1", nil)
	wantEvents(t, rec, fmt.Sprintf("app a1 %d", int64(math.MaxInt64)))
	if _, known := c.AppTokensNotBefore("a1"); known {
		t.Fatal("tombstoned app still known")
	}
	c.Apply("app/a1", nil) // already gone
	c.Apply("app/zz", nil) // never known
	wantEvents(t, rec)
	if s := c.Stats(); s.Apps != 2 || s.BadRecords != 0 {
		t.Fatalf("stats %+v", s)
	}
}

func TestBadAppRecordFailsClosed(t *testing.T) {
	c, rec, logs := newTestCatalog(t)
	now := time.Unix(1795001234, 0)
	c.now = func() time.Time { return now }

	c.Apply("app/a1", appRecord("a1", 1795000000))
	rec.take()
	bad := []struct {
		value []byte
		want  string
	}{
		{[]byte("{garbage"), "value: not valid JSON"},
		{appRecord("a1", "soon"), "tokens_not_before"},
		{appRecord("a1", -5), "tokens_not_before"},
		{appRecord("a1", 1.5), "tokens_not_before"},
		{appRecord("other", 0), "id: \"other\" does not match"},
		{[]byte(`{"v":2,"id":"a1"}`), "v: unknown version 2"},
	}
	for _, b := range bad {
		_, err := parseApp("a1", b.value)
		if err == nil {
			t.Fatalf("accepted %s", b.value)
		}
		mustContain(t, err.Error(), b.want)
	}
	c.Apply("app/a1", bad[0].value)
	wantEvents(t, rec, "app a1 1795001234")
	if nbf, known := c.AppTokensNotBefore("a1"); !known || nbf != 1795001234 {
		t.Fatalf("after a damaged record: %d %v", nbf, known)
	}
	for _, b := range bad[1:] {
		c.Apply("app/a1", b.value)
	}
	wantEvents(t, rec) // already revoked up to now
	mustContain(t, logs.String(), "failing closed")

	// A damaged record never lowers tokens_not_before.
	c.Apply("app/a1", appRecord("a1", 1799999999))
	rec.take()
	c.Apply("app/a1", []byte("x"))
	if nbf, _ := c.AppTokensNotBefore("a1"); nbf != 1799999999 {
		t.Fatalf("nbf lowered to %d", nbf)
	}
	// A damaged record of an unknown app leaves it unknown.
	c.Apply("app/new", []byte("x"))
	if _, known := c.AppTokensNotBefore("new"); known {
		t.Fatal("damaged record made an app known")
	}
	wantEvents(t, rec)
	if s := c.Stats(); s.BadRecords != uint64(len(bad))+2 {
		t.Fatalf("stats %+v", s)
	}
}

func TestApplyRevocations(t *testing.T) {
	c, rec, _ := newTestCatalog(t)
	c.Apply("revoked/j1", revokedRecord("j1", "a1", 1795003600))
	wantEvents(t, rec, "revoked j1")
	if !c.JTIRevoked("j1") || c.JTIRevoked("j2") {
		t.Fatal("revocation")
	}
	c.Apply("revoked/j1", revokedRecord("j1", "a1", 1795003600)) // again: no second call
	wantEvents(t, rec)
	// Tombstone: the token has expired, the entry goes, nobody is told.
	c.Apply("revoked/j1", nil)
	wantEvents(t, rec)
	if c.JTIRevoked("j1") || c.Stats().Revocations != 0 {
		t.Fatal("tombstoned revocation kept")
	}
	c.Apply("revoked/j9", nil)
	wantEvents(t, rec)
}

// A damaged revocation still revokes the jti of its key.
func TestRevocationFailsClosedOnGarbage(t *testing.T) {
	c, rec, logs := newTestCatalog(t)
	values := map[string][]byte{
		"g1": []byte("\x00\xff garbage"),
		"g2": []byte(""),
		"g3": []byte(`{"v":7,"jti":"g3"}`),
		"g4": []byte(`{"v":1,"jti":"other","expires_at":5}`),
		"g5": []byte(`{"v":1,"jti":"g5","expires_at":"tomorrow"}`),
		"g6": []byte(`null`),
		"g7": []byte(`[]`),
	}
	for jti, v := range values {
		c.Apply("revoked/"+jti, v)
		if !c.JTIRevoked(jti) {
			t.Errorf("%s (%q) not revoked", jti, v)
		}
	}
	if c.JTIRevoked("other") {
		t.Error("the jti inside a mismatching value was revoked")
	}
	got := rec.take()
	slices.Sort(got)
	if !slices.Equal(got, []string{"revoked g1", "revoked g2", "revoked g3", "revoked g4", "revoked g5", "revoked g6", "revoked g7"}) {
		t.Fatalf("listener: %v", got)
	}
	if s := c.Stats(); s.BadRecords != uint64(len(values)) || s.Revocations != len(values) {
		t.Fatalf("stats %+v", s)
	}
	mustContain(t, logs.String(), "revoking the jti of its key anyway")

	// No jti in the key: nothing can be revoked; counted as bad.
	c.Apply("revoked/", revokedRecord("", "a", 1))
	if c.JTIRevoked("") || c.Stats().BadRecords != uint64(len(values))+1 {
		t.Fatal("empty jti")
	}
}

func TestUnknownKindsLoggedOnce(t *testing.T) {
	c, rec, logs := newTestCatalog(t)
	c.Apply("widget/1", []byte(`{"v":1}`))
	c.Apply("widget/2", []byte(`{"v":1}`))
	c.Apply("widget/3", nil)
	c.Apply("gadget", []byte(`x`))
	c.Apply("", nil)
	if n := strings.Count(logs.String(), "kind=widget"); n != 1 {
		t.Fatalf("widget logged %d times:\n%s", n, logs)
	}
	mustContain(t, logs.String(), "kind=gadget")
	s := c.Stats()
	if s.IgnoredRecords != 5 || s.BadRecords != 0 || s.Records != 5 {
		t.Fatalf("stats %+v", s)
	}
	wantEvents(t, rec)
}

// No input makes Apply panic, whatever the kind.
func TestApplyNeverPanics(t *testing.T) {
	c, _, logs := newTestCatalog(t)
	defer func() {
		if strings.Contains(logs.String(), "internal error") {
			t.Fatalf("a record caused a recovered panic:\n%s", logs)
		}
	}()
	r := rand.New(rand.NewPCG(1, 2))
	seeds := [][]byte{
		endpointRecord("x", "t", "k", "", set("json_schema", map[string]any{"type": "object"})),
		[]byte(`{"v":1,"kid":"x","alg":"ES256","jwk":{"kty":"EC"},"status":"active"}`),
		appRecord("x", 5),
		revokedRecord("x", "a", 5),
	}
	for i := 0; i < 4000; i++ {
		v := slices.Clone(seeds[r.IntN(len(seeds))])
		for range r.IntN(4) + 1 {
			if len(v) > 0 {
				v[r.IntN(len(v))] = byte(r.IntN(256))
			}
		}
		if r.IntN(5) == 0 {
			v = v[:r.IntN(len(v)+1)]
		}
		kind := []string{"endpoint", "key", "app", "revoked"}[r.IntN(4)]
		c.Apply(kind+"/x", v)
	}
	for _, v := range []string{`{"v":1,"id":"x","topic":"t","key":"k","path":"/t/k","operations":["subscribe"],"payload_format":"json","json_schema":{"$ref":"#/nope"}}`,
		`{"v":1,"id":"x","topic":"t","key":"k","path":"/t/k","operations":["subscribe"],"payload_format":"json","json_schema":{"$schema":"file:///etc/passwd"}}`,
		`{"v":1,"id":"x","topic":"t","key":"k","path":"/t/k","operations":["subscribe"],"payload_format":"json","json_schema":{"$ref":"#"}}`,
		`{"v":1e400}`, `{"v":1,"id":null}`, `{"v":-1}`, `"\ud800"`} {
		c.Apply("endpoint/x", []byte(v))
	}
}

// Readers run while records are applied (go test -race).
func TestConcurrentReadsDuringApply(t *testing.T) {
	c, _, _ := newTestCatalog(t)
	_, jwk := newECJWK(t)
	c.Apply("endpoint/param", endpointRecord("param", "prices", "", "symbol"))
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var mismatches sync.Map
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				key := fmt.Sprintf("K%d", (i+g)%50)
				e := c.Resolve(path("prices", key))
				if e == nil {
					mismatches.Store("nil endpoint for "+key, true)
					continue
				}
				if e.ID != "param" && e.Key != key {
					mismatches.Store("wrong endpoint for "+key, true)
				}
				_ = e.ValidatePayload([]byte(`{"qty":1}`))
				c.VerificationKey("k" + key)
				c.JTIRevoked("j" + key)
				c.AppTokensNotBefore("a" + key)
				c.Endpoints()
				c.Stats()
			}
		}()
	}
	for i := range 2000 {
		k := fmt.Sprintf("K%d", i%50)
		switch i % 5 {
		case 0:
			c.Apply("endpoint/"+k, endpointRecord(k, "prices", k, "", set("json_schema", map[string]any{"type": "object"})))
		case 1:
			c.Apply("endpoint/"+k, nil)
		case 2:
			c.Apply("key/k"+k, keyRecord("k"+k, "ES256", jwk, "active"))
		case 3:
			c.Apply("app/a"+k, appRecord("a"+k, i))
		case 4:
			c.Apply("revoked/j"+k, revokedRecord("j"+k, "a", 1))
		}
	}
	close(stop)
	wg.Wait()
	mismatches.Range(func(k, _ any) bool { t.Error(k); return true })
}

// A listener may read the catalog (the read lock is released) and sees the
// state already changed.
type readingListener struct {
	c      *Catalog
	t      *testing.T
	called bool
}

func (l *readingListener) EndpointChanged(old, new *Endpoint) {
	l.called = true
	if new != nil && l.c.Resolve(path(new.Topic, new.Key)) != new {
		l.t.Error("EndpointChanged before the state changed")
	}
	if new == nil && l.c.Resolve(path(old.Topic, old.Key)) != nil {
		l.t.Error("EndpointChanged(old, nil) while old is still served")
	}
}
func (l *readingListener) TokenRevoked(jti string) {
	l.called = true
	if !l.c.JTIRevoked(jti) {
		l.t.Error("TokenRevoked before the state changed")
	}
}
func (l *readingListener) AppRevoked(id string, nbf int64) {
	l.called = true
	got, known := l.c.AppTokensNotBefore(id)
	if nbf == math.MaxInt64 && known || nbf != math.MaxInt64 && got != nbf {
		l.t.Error("AppRevoked before the state changed")
	}
}

func TestListenerMayReadCatalog(t *testing.T) {
	l := &readingListener{t: t}
	c := New(Options{})
	c.Listen(Listeners{Endpoints: l, Revocations: l})
	l.c = c
	done := make(chan struct{})
	go func() {
		defer close(done)
		c.Apply("endpoint/e", endpointRecord("e", "t", "k", ""))
		c.Apply("endpoint/e", nil)
		c.Apply("revoked/j", revokedRecord("j", "a", 1))
		c.Apply("app/a", appRecord("a", 1))
		c.Apply("app/a", appRecord("a", 2))
		c.Apply("app/a", nil)
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("deadlock: a listener reading the catalog blocked")
	}
	if !l.called {
		t.Fatal("listener not called")
	}
}

func TestRecordKeys(t *testing.T) {
	c, _, _ := newTestCatalog(t)
	_, jwk := newECJWK(t)
	c.Apply("endpoint/a", endpointRecord("a", "t", "k", ""))
	c.Apply("endpoint/b", endpointRecord("b", "t", "k", "")) // pending
	c.Apply("key/k1", keyRecord("k1", "ES256", jwk, "active"))
	c.Apply("app/x", appRecord("x", nil))
	c.Apply("revoked/j", revokedRecord("j", "x", 1))
	got := c.recordKeys()
	slices.Sort(got)
	want := []string{"app/x", "endpoint/a", "endpoint/b", "key/k1", "revoked/j"}
	if !slices.Equal(got, want) {
		t.Fatalf("recordKeys = %v", got)
	}
	for _, k := range got {
		c.apply(k, nil)
	}
	if s := c.Stats(); s.Endpoints+s.PendingEndpoints+s.Keys+s.Apps+s.Revocations != 0 || s.Records != 5 {
		t.Fatalf("after sweeping: %+v", s)
	}
}

func TestSafely(t *testing.T) {
	if err := safely(func() error { panic("x") }); err == nil {
		t.Fatal("panic not caught")
	}
	want := errors.New("e")
	if err := safely(func() error { return want }); err != want {
		t.Fatal(err)
	}
}

// The decoder asks which topics' values and keys are in the registry's wire
// format; the answer follows endpoints being added, changed (format, key
// schema, topic) and removed.
func TestTopicRegistryUse(t *testing.T) {
	c, _, _ := newTestCatalog(t)
	avro := func(id, topic, key string) []byte {
		return endpointRecord(id, topic, key, "", set("payload_format", "avro"), set("value_schema", map[string]any{"subject": topic + "-value"}))
	}
	avroKeys := func(id, topic, key string) []byte {
		return endpointRecord(id, topic, key, "", set("key_schema", map[string]any{"subject": topic + "-key", "version": 2}))
	}
	check := func(when, topic string, values, keys bool) {
		t.Helper()
		if v, k := c.TopicRegistryUse(topic); v != values || k != keys {
			t.Fatalf("%s: %s has registry values %v, keys %v; want %v, %v", when, topic, v, k, values, keys)
		}
	}
	c.Apply("endpoint/a", avro("a", "orders", "1"))
	c.Apply("endpoint/b", avro("b", "orders", "2"))
	c.Apply("endpoint/j", endpointRecord("j", "prices", "k", ""))
	c.Apply("endpoint/k", avroKeys("k", "carts", "7"))
	check("after adding", "orders", true, false)
	check("after adding", "prices", false, false)
	check("after adding", "carts", false, true)
	c.Apply("endpoint/a", endpointRecord("a", "orders", "1", "")) // now json
	check("a is json", "orders", true, false)                     // b still serves orders in avro
	c.Apply("endpoint/b", avro("b", "payments", "2"))             // moved to another topic
	check("after moving", "orders", false, false)
	check("after moving", "payments", true, false)
	c.Apply("endpoint/b", nil)
	check("after removing", "payments", false, false)
	c.Apply("endpoint/k", endpointRecord("k", "carts", "7", "")) // plain keys again
	check("plain keys again", "carts", false, false)
}

// An app record's limits: its plans, each a limit per dimension (null: none);
// a damaged record keeps the limits it had (failing closed on them too).
func TestAppLimits(t *testing.T) {
	c, _, _ := newTestCatalog(t)
	record := func(limits any) []byte {
		b, _ := json.Marshal(map[string]any{"v": 1, "id": "a1", "name": "x", "tokens_not_before": nil, "limits": limits})
		return b
	}
	c.Apply("app/a1", record([]map[string]any{
		{"plan": "p1", "name": "free", "patterns": []string{"/prices/*"}, "connections": 2, "subscriptions_per_connection": 5,
			"publish_per_second": 10, "delivered_per_second": 100, "delivered_bytes_per_second": nil},
	}))
	want := []Limit{{Plan: "p1", Name: "free", Patterns: []string{"/prices/*"}, Connections: 2, SubscriptionsPerConn: 5, PublishPerSecond: 10, DeliveredPerSecond: 100}}
	if got := c.AppLimits("a1"); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("limits %+v", got)
	}
	for _, tc := range []struct {
		limits any
		want   string
	}{
		{[]map[string]any{{"patterns": []string{"/x/*"}}}, "limits[0].plan: must be"},
		{[]map[string]any{{"plan": "p", "patterns": []string{}}}, "limits[0].patterns: must hold"},
		{[]map[string]any{{"plan": "p", "patterns": []string{"x"}}}, `limits[0].patterns[0]: "x" is not`},
		{[]map[string]any{{"plan": "p", "patterns": []string{"/x"}, "connections": 0}}, "limits[0].connections: 0 is not a positive limit"},
		{[]map[string]any{{"plan": "p", "patterns": []string{"/x"}, "publish_per_second": -1}}, "limits[0].publish_per_second: -1"},
		{"lots", "limits"},
	} {
		_, err := parseApp("a1", record(tc.limits))
		if err == nil {
			t.Fatalf("accepted %v", tc.limits)
		}
		mustContain(t, err.Error(), tc.want)
	}
	c.Apply("app/a1", record([]map[string]any{{"plan": "p", "patterns": []string{"x"}}}))
	if got := c.AppLimits("a1"); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("a damaged record changed the limits: %+v", got)
	}
	c.Apply("app/a1", record(nil))
	if got := c.AppLimits("a1"); got != nil {
		t.Fatalf("no limits: %+v", got)
	}
}
