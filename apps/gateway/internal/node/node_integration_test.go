//go:build integration

// End-to-end tests of one gateway node against the real Kafka of the test stack
// (KAFKA_BROKERS): catalog records in, WebSocket/SSE/HTTP clients out.
package node

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/gorilla/websocket"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sluicehq/sluice/apps/gateway/internal/config"
)

type fixture struct {
	t       *testing.T
	brokers []string
	kc      *kgo.Client
	catalog string
	topic   string
	usage   string // the node's usage topic
	key     *ecdsa.PrivateKey
	kid     string
	app     string
	base    string // http://host:port, or https:// when the node serves TLS
	// httpc and dialer reach the node, trusting its certificate when it
	// serves TLS.
	httpc    *http.Client
	dialer   websocket.Dialer
	cancel   context.CancelFunc
	finished chan error
}

// newFixture starts a node on its own catalog and topic; tune adjusts its
// configuration.
func newFixture(t *testing.T, tune ...func(*config.Config)) *fixture {
	raw := os.Getenv("KAFKA_BROKERS")
	if raw == "" {
		t.Skip("KAFKA_BROKERS not set")
	}
	suffix := fmt.Sprintf("%d", time.Now().UnixNano())
	f := &fixture{t: t, brokers: strings.Split(raw, ","), catalog: "__sluice_catalog_test_" + suffix, topic: "prices-" + suffix, usage: "__sluice_usage_test_" + suffix, kid: "k1", app: "app-1"}
	kc, err := kgo.NewClient(kgo.SeedBrokers(f.brokers...))
	if err != nil {
		t.Fatal(err)
	}
	f.kc = kc
	t.Cleanup(kc.Close)
	adm := kadm.NewClient(kc)
	ctx := context.Background()
	if _, err := adm.CreateTopic(ctx, 1, 1, map[string]*string{"cleanup.policy": ptr("compact")}, f.catalog); err != nil {
		t.Fatal(err)
	}
	for _, topic := range []string{f.topic, f.usage} {
		if _, err := adm.CreateTopic(ctx, 3, 1, nil, topic); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { _, _ = adm.DeleteTopics(context.Background(), f.catalog, f.topic, f.usage) })

	f.key, _ = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	// The uncompressed point: 0x04, then X and Y, 32 bytes each.
	point, err := f.key.PublicKey.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	f.putCatalog("key/"+f.kid, map[string]any{"v": 1, "kid": f.kid, "alg": "ES256", "status": "active", "jwk": map[string]any{
		"kty": "EC", "crv": "P-256",
		"x": base64.RawURLEncoding.EncodeToString(point[1:33]),
		"y": base64.RawURLEncoding.EncodeToString(point[33:]),
	}})
	f.putCatalog("app/"+f.app, map[string]any{"v": 1, "id": f.app, "name": "Test app", "tokens_not_before": nil})
	f.putCatalog("endpoint/ep-1", map[string]any{
		"v": 1, "id": "ep-1", "path": "/" + f.topic + "/{symbol}", "topic": f.topic, "key": nil, "key_param": "symbol",
		"operations": []string{"subscribe", "publish"}, "payload_format": "json",
		"json_schema": map[string]any{"type": "object", "required": []string{"price"}, "properties": map[string]any{"price": map[string]any{"type": "number", "minimum": 0}}},
		"api":         map[string]any{"id": "api-1", "name": "Market", "version": "1.0.0"},
	})

	cfg := config.Defaults()
	cfg.Addr = "127.0.0.1:0"
	cfg.KafkaBrokers = f.brokers
	cfg.CatalogTopic = f.catalog
	// Every node test meters (its own usage topic, a record a second): the
	// counting runs under the race detector wherever clients are served.
	cfg.UsageTopic, cfg.UsageInterval = f.usage, time.Second
	cfg.ShutdownGrace = 5 * time.Second
	for _, fn := range tune {
		fn(&cfg)
	}
	n, start, err := Build(cfg, slog.New(slog.NewTextHandler(testLogOut(), nil)))
	if err != nil {
		t.Fatal(err)
	}
	runCtx, cancel := context.WithCancel(context.Background())
	f.cancel = cancel
	f.finished = make(chan error, 1)
	go func() { f.finished <- start(runCtx) }()
	<-n.Server.Ready()
	f.httpc, f.dialer = http.DefaultClient, websocket.Dialer{Subprotocols: []string{"sluice.v1"}, HandshakeTimeout: 5 * time.Second}
	f.base = "http://" + n.Server.Addr().String()
	if cfg.ServesTLS() {
		tc := trustServed(t, cfg.TLSCertFile)
		f.httpc = &http.Client{Transport: &http.Transport{TLSClientConfig: tc}}
		f.dialer.TLSClientConfig = tc
		f.base = "https://" + n.Server.Addr().String()
	}
	t.Cleanup(func() {
		cancel()
		<-f.finished
	})
	f.waitReady()
	return f
}

func ptr(s string) *string { return &s }

func (f *fixture) putCatalog(key string, value any) {
	var b []byte
	if value != nil {
		b, _ = json.Marshal(value)
	}
	if err := f.kc.ProduceSync(context.Background(), &kgo.Record{Topic: f.catalog, Key: []byte(key), Value: b}).FirstErr(); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) produce(key, value string) (int32, int64) {
	r := &kgo.Record{Topic: f.topic, Key: []byte(key), Value: []byte(value)}
	if err := f.kc.ProduceSync(context.Background(), r).FirstErr(); err != nil {
		f.t.Fatal(err)
	}
	return r.Partition, r.Offset
}

func (f *fixture) waitReady() {
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		res, err := f.httpc.Get(f.base + "/readyz")
		if err == nil {
			res.Body.Close()
			if res.StatusCode == 200 {
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	f.t.Fatal("node never became ready")
}

func (f *fixture) token(perms map[string][]string, ttl time.Duration, jti string) string {
	now := time.Now()
	tok := jwt.NewWithClaims(jwt.SigningMethodES256, jwt.MapClaims{
		"iss": "sluice", "aud": "sluice-gateway", "sub": f.app, "jti": jti,
		"iat": now.Unix(), "exp": now.Add(ttl).Unix(), "permissions": perms,
	})
	tok.Header["kid"] = f.kid
	s, err := tok.SignedString(f.key)
	if err != nil {
		f.t.Fatal(err)
	}
	return s
}

type client struct {
	t  *testing.T
	ws *websocket.Conn
}

func (f *fixture) dial(header http.Header) *client {
	ws, _, err := f.dialer.Dial("ws"+strings.TrimPrefix(f.base, "http")+"/ws", header)
	if err != nil {
		f.t.Fatal(err)
	}
	f.t.Cleanup(func() { ws.Close() })
	return &client{t: f.t, ws: ws}
}

func (c *client) send(frame string) {
	c.t.Helper()
	if err := c.ws.WriteMessage(websocket.TextMessage, []byte(frame)); err != nil {
		c.t.Fatal(err)
	}
}

// next reads frames until one of type typ arrives (other frames are returned
// in skipped for the caller to inspect when it cares).
func (c *client) next(typ string) map[string]any {
	c.t.Helper()
	_ = c.ws.SetReadDeadline(time.Now().Add(10 * time.Second))
	for {
		_, data, err := c.ws.ReadMessage()
		if err != nil {
			c.t.Fatalf("waiting for %s: %v", typ, err)
		}
		var m map[string]any
		if err := json.Unmarshal(data, &m); err != nil {
			c.t.Fatalf("not JSON: %s", data)
		}
		if m["type"] == typ {
			return m
		}
		if m["type"] == "error" && typ != "error" {
			c.t.Fatalf("waiting for %s got error %v", typ, m)
		}
	}
}

func (f *fixture) authed(perms map[string][]string) (*client, string) {
	jti := fmt.Sprintf("jti-%d", time.Now().UnixNano())
	c := f.dial(nil)
	c.send(`{"type":"auth","id":"a","token":"` + f.token(perms, time.Hour, jti) + `"}`)
	if m := c.next("authenticated"); m["app"] != f.app || m["id"] != "a" {
		f.t.Fatalf("authenticated = %v", m)
	}
	return c, jti
}

func TestSubscribePublishAndErrors(t *testing.T) { testSubscribePublishAndErrors(t) }

// testSubscribePublishAndErrors runs over the listener tune points the node at (plaintext by default).
func testSubscribePublishAndErrors(t *testing.T, tune ...func(*config.Config)) {
	f := newFixture(t, tune...)
	all := map[string][]string{"all": {"/" + f.topic + "/*"}}
	c, _ := f.authed(all)
	ep := "/" + f.topic + "/AAPL"

	c.send(`{"type":"subscribe","id":"s1","endpoint":"` + ep + `"}`)
	sub := c.next("subscribed")
	if sub["endpoint"] != ep || sub["epoch"] == "" {
		t.Fatalf("subscribed = %v", sub)
	}
	p, off := f.produce("AAPL", `{"price":1.5}`)
	f.produce("MSFT", `{"price":9}`)
	msg := c.next("message")
	if msg["endpoint"] != ep || msg["seq"] != float64(off) || msg["partition"] != float64(p) || msg["epoch"] != sub["epoch"] {
		t.Fatalf("message = %v (want partition %d seq %d)", msg, p, off)
	}
	if d := msg["data"].(map[string]any); d["price"] != 1.5 {
		t.Fatalf("data = %v", msg["data"])
	}

	// A malformed frame gets an error frame and the connection keeps working.
	c.send(`{"type":"subscribe","id":"bad"`)
	if e := c.next("error"); e["code"] != float64(4000) {
		t.Fatalf("error = %v", e)
	}
	c.send(`{"type":"ping","id":"p"}`)
	c.next("pong")

	c.send(`{"type":"subscribe","id":"s2","endpoint":"/nope-topic/x"}`)
	if e := c.next("error"); e["code"] != float64(4004) || e["id"] != "s2" {
		t.Fatalf("unknown endpoint error = %v", e)
	}
	c.send(`{"type":"subscribe","id":"s3","endpoint":"` + ep + `"}`)
	if e := c.next("error"); e["code"] != float64(4090) {
		t.Fatalf("duplicate subscribe error = %v", e)
	}

	// Publish: acknowledged with Kafka's position, app id in a header.
	c.send(`{"type":"publish","id":"pub1","endpoint":"/` + f.topic + `/IBM","data":{"price":3}}`)
	ack := c.next("published")
	if ack["id"] != "pub1" || ack["endpoint"] != "/"+f.topic+"/IBM" {
		t.Fatalf("published = %v", ack)
	}
	rec := f.readBack(int32(ack["partition"].(float64)), int64(ack["seq"].(float64)))
	if string(rec.Key) != "IBM" || string(rec.Value) != `{"price":3}` || len(rec.Headers) != 1 || string(rec.Headers[0].Value) != f.app {
		t.Fatalf("record %q %q %v", rec.Key, rec.Value, rec.Headers)
	}
	c.send(`{"type":"publish","id":"pub2","endpoint":"/` + f.topic + `/IBM","data":{"price":-1}}`)
	if e := c.next("error"); e["code"] != float64(4022) || !strings.Contains(e["message"].(string), "/price") {
		t.Fatalf("schema error = %v", e)
	}

	// A token limited to one key may not subscribe to another.
	c2, _ := f.authed(map[string][]string{"sub": {ep}})
	c2.send(`{"type":"subscribe","id":"x","endpoint":"/` + f.topic + `/MSFT"}`)
	if e := c2.next("error"); e["code"] != float64(4003) {
		t.Fatalf("forbidden error = %v", e)
	}
	c2.send(`{"type":"publish","id":"y","endpoint":"` + ep + `","data":{"price":1}}`)
	if e := c2.next("error"); e["code"] != float64(4003) {
		t.Fatalf("publish without pub permission = %v", e)
	}
}

// Publishes sent on one connection to one endpoint without waiting for their
// acknowledgements are written to Kafka in the order they were sent, as one
// Kafka producer's would be, and acknowledged in that order.
func TestPublishesOfAConnectionKeepTheirOrder(t *testing.T) {
	f := newFixture(t)
	c, _ := f.authed(map[string][]string{"all": {"/" + f.topic + "/*"}})
	const n = 300
	for i := range n {
		c.send(fmt.Sprintf(`{"type":"publish","id":"%d","endpoint":"/%s/ORD","data":{"price":%d}}`, i, f.topic, i+1))
	}
	seqOf := make([]int64, n)
	partition := -1.0
	for want := range n {
		ack := c.next("published")
		i, err := strconv.Atoi(ack["id"].(string))
		if err != nil || i != want {
			t.Fatalf("ack %v, want the one of publish %d next", ack, want)
		}
		seqOf[i] = int64(ack["seq"].(float64)) + 1 // +1: 0 means not acknowledged yet
		if partition >= 0 && ack["partition"] != partition {
			t.Fatalf("ack on partition %v, earlier ones on %v", ack["partition"], partition)
		}
		partition = ack["partition"].(float64)
	}
	for i := 1; i < n; i++ {
		if seqOf[i] <= seqOf[i-1] {
			t.Fatalf("publish %d was written at offset %d, before publish %d at %d", i, seqOf[i]-1, i-1, seqOf[i-1]-1)
		}
	}
}

func (f *fixture) readBack(partition int32, offset int64) *kgo.Record {
	return f.readBackFrom(f.topic, partition, offset)
}

// readBackFrom reads the record at offset of topic's partition.
func (f *fixture) readBackFrom(topic string, partition int32, offset int64) *kgo.Record {
	cl, err := kgo.NewClient(kgo.SeedBrokers(f.brokers...), kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: {partition: kgo.NewOffset().At(offset)}}))
	if err != nil {
		f.t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			f.t.Fatal("record not found")
		}
		var found *kgo.Record
		fs.EachRecord(func(r *kgo.Record) {
			if r.Offset == offset {
				found = r
			}
		})
		if found != nil {
			return found
		}
	}
}

func TestResumeAfterReconnectIsExact(t *testing.T) { testResumeAfterReconnectIsExact(t) }

// testResumeAfterReconnectIsExact runs over the listener tune points the node at (plaintext by default).
func testResumeAfterReconnectIsExact(t *testing.T, tune ...func(*config.Config)) {
	f := newFixture(t, tune...)
	perms := map[string][]string{"sub": {"/" + f.topic + "/*"}}
	ep := "/" + f.topic + "/TSLA"
	c, _ := f.authed(perms)
	c.send(`{"type":"subscribe","endpoint":"` + ep + `"}`)
	c.next("subscribed")
	f.produce("TSLA", `{"price":1}`)
	last := c.next("message")
	c.ws.Close()

	// Missed while disconnected.
	for i := 2; i <= 4; i++ {
		f.produce("TSLA", fmt.Sprintf(`{"price":%d}`, i))
	}
	c2, _ := f.authed(perms)
	c2.send(fmt.Sprintf(`{"type":"subscribe","endpoint":"%s","from":{"epoch":"%s","partition":%v,"seq":%v}}`, ep, last["epoch"], last["partition"], last["seq"]))
	c2.next("subscribed")
	f.produce("TSLA", `{"price":5}`)
	for want := 2; want <= 5; want++ {
		m := c2.next("message")
		if got := m["data"].(map[string]any)["price"]; got != float64(want) {
			t.Fatalf("message %d has price %v", want, got)
		}
	}
	// Nothing more (no duplicate).
	_ = c2.ws.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
	if _, data, err := c2.ws.ReadMessage(); err == nil {
		t.Fatalf("unexpected extra frame %s", data)
	}
}

func TestRevocationClosesLiveConnectionsWithinASecond(t *testing.T) {
	testRevocationClosesLiveConnectionsWithinASecond(t)
}

// testRevocationClosesLiveConnectionsWithinASecond runs over the listener tune points the node at (plaintext by default).
func testRevocationClosesLiveConnectionsWithinASecond(t *testing.T, tune ...func(*config.Config)) {
	f := newFixture(t, tune...)
	c, jti := f.authed(map[string][]string{"sub": {"/" + f.topic + "/*"}})
	c.send(`{"type":"subscribe","endpoint":"/` + f.topic + `/A"}`)
	c.next("subscribed")
	other, _ := f.authed(map[string][]string{"sub": {"/" + f.topic + "/*"}})

	start := time.Now()
	f.putCatalog("revoked/"+jti, map[string]any{"v": 1, "jti": jti, "app": f.app, "expires_at": time.Now().Add(time.Hour).Unix()})
	closing := c.next("closing")
	if closing["code"] != float64(4009) {
		t.Fatalf("closing = %v", closing)
	}
	_, _, err := c.ws.ReadMessage()
	var ce *websocket.CloseError
	if !asCloseError(err, &ce) || ce.Code != 4009 {
		t.Fatalf("close = %v", err)
	}
	if elapsed := time.Since(start); elapsed > time.Second {
		t.Fatalf("revocation took %v", elapsed)
	}
	// Another token of the same app is unaffected.
	other.send(`{"type":"ping","id":"still-here"}`)
	other.next("pong")

	// Revoking the whole app closes the rest.
	f.putCatalog("app/"+f.app, map[string]any{"v": 1, "id": f.app, "name": "Test app", "tokens_not_before": time.Now().Add(time.Minute).Unix()})
	if m := other.next("closing"); m["code"] != float64(4009) {
		t.Fatalf("app revocation closing = %v", m)
	}
}

func asCloseError(err error, target **websocket.CloseError) bool {
	ce, ok := err.(*websocket.CloseError)
	if ok {
		*target = ce
	}
	return ok
}

func TestHeaderAuthSSEAndHTTPPublish(t *testing.T) { testHeaderAuthSSEAndHTTPPublish(t) }

// testHeaderAuthSSEAndHTTPPublish runs over the listener tune makes (plain HTTP by default).
func testHeaderAuthSSEAndHTTPPublish(t *testing.T, tune ...func(*config.Config)) {
	f := newFixture(t, tune...)
	tok := f.token(map[string][]string{"all": {"/" + f.topic + "/*"}}, time.Hour, "jti-sse")

	// Upgrade with the Authorization header: authenticated from the start.
	c := f.dial(http.Header{"Authorization": {"Bearer " + tok}})
	c.send(`{"type":"subscribe","id":"1","endpoint":"/` + f.topic + `/K"}`)
	c.next("subscribed")

	// Without the subprotocol the upgrade is refused.
	if _, res, err := (&websocket.Dialer{TLSClientConfig: f.dialer.TLSClientConfig}).Dial("ws"+strings.TrimPrefix(f.base, "http")+"/ws", nil); err == nil || res.StatusCode != 400 {
		t.Fatalf("upgrade without subprotocol: %v", err)
	}

	req, _ := http.NewRequest("GET", f.base+"/sse/"+f.topic+"/K?access_token="+tok, nil)
	res, err := f.httpc.Do(req)
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("sse: %v %v", err, res)
	}
	defer res.Body.Close()
	lines := bufio.NewScanner(res.Body)
	// The stream opens with a comment naming the subscription, before any message.
	if !lines.Scan() || lines.Text() != ": subscribed /"+f.topic+"/K" {
		t.Fatalf("first SSE line = %q, want the subscribed comment", lines.Text())
	}

	body := strings.NewReader(`{"price":42}`)
	pub, _ := http.NewRequest("POST", f.base+"/pub/"+f.topic+"/K", body)
	pub.Header.Set("Authorization", "Bearer "+tok)
	pub.Header.Set("Content-Type", "application/json")
	pres, err := f.httpc.Do(pub)
	if err != nil || pres.StatusCode != 200 {
		b, _ := io.ReadAll(pres.Body)
		t.Fatalf("publish: %v %d %s", err, pres.StatusCode, b)
	}
	pres.Body.Close()

	var id, data string
	for lines.Scan() {
		l := lines.Text()
		if strings.HasPrefix(l, "id: ") {
			id = l[4:]
		}
		if strings.HasPrefix(l, "data: ") {
			data = l[6:]
			break
		}
	}
	if !strings.Contains(data, `"price":42`) || strings.Count(id, ":") != 2 {
		t.Fatalf("sse event id %q data %q", id, data)
	}
	if m := c.next("message"); m["data"].(map[string]any)["price"] != float64(42) {
		t.Fatalf("ws message = %v", m)
	}

	// Problems name what is wrong.
	bad, _ := http.NewRequest("POST", f.base+"/pub/"+f.topic+"/K", strings.NewReader(`{"price":"x"}`))
	bad.Header.Set("Authorization", "Bearer "+tok)
	bres, _ := f.httpc.Do(bad)
	var problem map[string]any
	_ = json.NewDecoder(bres.Body).Decode(&problem)
	bres.Body.Close()
	if bres.StatusCode != 422 || problem["code"] != float64(4022) {
		t.Fatalf("bad publish = %d %v", bres.StatusCode, problem)
	}
	unauth, _ := f.httpc.Get(f.base + "/sse/" + f.topic + "/K")
	unauth.Body.Close()
	if unauth.StatusCode != 401 {
		t.Fatalf("sse without token = %d", unauth.StatusCode)
	}
}

func TestRemovedEndpointEndsSubscriptionAndShutdownSays1012(t *testing.T) {
	f := newFixture(t)
	c, _ := f.authed(map[string][]string{"sub": {"/" + f.topic + "/*"}})
	c.send(`{"type":"subscribe","endpoint":"/` + f.topic + `/Z"}`)
	c.next("subscribed")
	f.putCatalog("endpoint/ep-1", nil)
	if m := c.next("unsubscribed"); m["code"] != float64(4004) {
		t.Fatalf("unsubscribed = %v", m)
	}
	f.cancel()
	if m := c.next("closing"); m["code"] != float64(1012) {
		t.Fatalf("closing = %v", m)
	}
}

// Catalog changes reach live subscriptions per path: an exact endpoint beside
// the topic's parameterised one has its own format; when it is removed the
// parameterised endpoint serves its key (the subscription continues, in the
// new format), and removing that one ends every subscription it serves.
func TestCatalogChangesReachSubscriptionsPerPath(t *testing.T) {
	testCatalogChangesReachSubscriptionsPerPath(t)
}

// testCatalogChangesReachSubscriptionsPerPath runs over the listener tune points the node at (plaintext by default).
func testCatalogChangesReachSubscriptionsPerPath(t *testing.T, tune ...func(*config.Config)) {
	f := newFixture(t, tune...)
	c, _ := f.authed(map[string][]string{"sub": {"/" + f.topic + "/*"}})
	for _, key := range []string{"X", "Z"} {
		c.send(`{"type":"subscribe","id":"` + key + `","endpoint":"/` + f.topic + `/` + key + `"}`)
		c.next("subscribed")
	}
	isText := func(data any) bool { _, ok := data.(string); return ok }
	isJSON := func(data any) bool { _, ok := data.(map[string]any); return ok }
	waitData(t, f, c, "X", isJSON) // served by the parameterised endpoint

	f.putCatalog("endpoint/ep-x", map[string]any{
		"v": 1, "id": "ep-x", "path": "/" + f.topic + "/X", "topic": f.topic, "key": "X", "key_param": nil,
		"operations": []string{"subscribe"}, "payload_format": "text",
		"api": map[string]any{"id": "api-1", "name": "Market", "version": "1.0.0"},
	})
	waitData(t, f, c, "X", isText) // its own exact endpoint now
	waitData(t, f, c, "Z", isJSON)

	f.putCatalog("endpoint/ep-x", nil)
	waitData(t, f, c, "X", isJSON) // the parameterised endpoint again

	f.putCatalog("endpoint/ep-1", nil)
	ended := map[string]bool{}
	for len(ended) < 2 {
		m := c.next("unsubscribed")
		if m["code"] != float64(4004) {
			t.Fatalf("unsubscribed = %v", m)
		}
		ended[m["endpoint"].(string)] = true
	}
	if !ended["/"+f.topic+"/X"] || !ended["/"+f.topic+"/Z"] {
		t.Fatalf("ended %v", ended)
	}
}

// waitData produces to key, to which c is subscribed, until a message whose
// data satisfies ok arrives; the subscription must not end meanwhile.
func waitData(t *testing.T, f *fixture, c *client, key string, ok func(any) bool) {
	t.Helper()
	ep := "/" + f.topic + "/" + key
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		f.produce(key, `{"price":1}`)
		for waiting := true; waiting; {
			m := c.read()
			switch {
			case m["type"] == "message" && m["endpoint"] == ep:
				if ok(m["data"]) {
					return
				}
				waiting = false
			case m["type"] == "unsubscribed" || m["type"] == "error":
				t.Fatalf("waiting for data on %s: %v", ep, m)
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("no message on %s with the expected data", ep)
}

// read returns the next frame.
func (c *client) read() map[string]any {
	c.t.Helper()
	_ = c.ws.SetReadDeadline(time.Now().Add(10 * time.Second))
	_, data, err := c.ws.ReadMessage()
	if err != nil {
		c.t.Fatalf("reading: %v", err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		c.t.Fatalf("not JSON: %s", data)
	}
	return m
}

// A node told to stop answers every publish it already handed to Kafka before
// it says 1012, and refuses what comes after with 5003, writing none of it.
// (bench/fanout publish -stop-gateway found publishes in Kafka that were never
// answered: their client, not knowing, would publish them again elsewhere.)
func TestShutdownAnswersEveryPublishKafkaHasBeforeClosing(t *testing.T) {
	f := newFixture(t)
	c, _ := f.authed(map[string][]string{"pub": {"/" + f.topic + "/*"}})
	frames := make(chan map[string]any, 1024)
	go func() {
		defer close(frames)
		_ = c.ws.SetReadDeadline(time.Now().Add(20 * time.Second))
		for {
			_, data, err := c.ws.ReadMessage()
			if err != nil {
				return
			}
			var m map[string]any
			if json.Unmarshal(data, &m) == nil {
				frames <- m
			}
		}
	}()
	publish := func(i int) bool {
		frame := fmt.Sprintf(`{"type":"publish","id":"p%d","endpoint":"/%s/SHUT","data":{"price":%d}}`, i, f.topic, i)
		return c.ws.WriteMessage(websocket.TextMessage, []byte(frame)) == nil
	}
	acked, refused := map[int]bool{}, 0
	closing := false
	take := func(m map[string]any) {
		switch m["type"] {
		case "published":
			acked[atoiID(t, m["id"])] = true
		case "error":
			if m["code"] != float64(5003) {
				t.Errorf("error %v, want only 5003 (shutting down)", m)
			}
			refused++
		case "closing":
			if m["code"] != float64(1012) {
				t.Errorf("closing = %v", m)
			}
			closing = true
		}
	}
	// Publishes flowing (the first answered), then the shutdown while more
	// keep coming: some are in Kafka's hands when it begins.
	const n = 600
	sent := 0
	for ; sent < n/2; sent++ {
		publish(sent)
	}
	take(<-frames)
	f.cancel()
	for ; sent < n && publish(sent); sent++ {
	}
	for m := range frames {
		if closing {
			t.Fatalf("a frame after closing: %v", m)
		}
		take(m)
	}
	if !closing {
		t.Fatal("the connection ended without a closing frame")
	}

	// What Kafka holds of this key, read to the end of every partition.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ends, err := kadm.NewClient(f.kc).ListEndOffsets(ctx, f.topic)
	if err != nil {
		t.Fatal(err)
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(f.brokers...), kgo.ConsumeTopics(f.topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	written := map[int]int{}
	remaining := map[int32]int64{}
	ends.Each(func(o kadm.ListedOffset) {
		if o.Offset > 0 {
			remaining[o.Partition] = o.Offset
		}
	})
	for len(remaining) > 0 && ctx.Err() == nil {
		cl.PollFetches(ctx).EachRecord(func(r *kgo.Record) {
			if string(r.Key) == "SHUT" {
				var v struct{ Price int }
				if err := json.Unmarshal(r.Value, &v); err != nil {
					t.Fatalf("record %s", r.Value)
				}
				written[v.Price]++
			}
			if r.Offset+1 >= remaining[r.Partition] {
				delete(remaining, r.Partition)
			}
		})
	}
	if len(remaining) > 0 {
		t.Fatalf("could not read the topic to its end: %v left", remaining)
	}
	for price, times := range written {
		if !acked[price] || times != 1 {
			t.Errorf("publish p%d is in Kafka %d times, answered: %v", price, times, acked[price])
		}
	}
	for id := range acked {
		if written[id] != 1 {
			t.Errorf("publish p%d was answered but Kafka holds it %d times", id, written[id])
		}
	}
	t.Logf("%d publishes sent: %d answered and in Kafka, %d refused (5003), %d never read by the node and not written", sent, len(acked), refused, sent-len(acked)-refused)
	if len(acked) == 0 {
		t.Fatal("no publish was answered before the shutdown: the test proves nothing")
	}
}

func atoiID(t *testing.T, id any) int {
	t.Helper()
	s, _ := id.(string)
	n, err := strconv.Atoi(strings.TrimPrefix(s, "p"))
	if err != nil {
		t.Fatalf("id %v", id)
	}
	return n
}
