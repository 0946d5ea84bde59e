//go:build integration

// A node serving endpoints of the schema-registry formats against the test
// stack's real registry (SCHEMA_REGISTRY_URL) and Kafka: records written by an
// independent encoder (goavro for Avro, protowire for Protobuf) arrive as JSON,
// two versions of a schema on one topic both decode, a record whose schema id
// the registry does not have and one written while the registry is away arrive
// as base64 with the reason (and decoded on a resume once it is back), and a
// publish is encoded with the subject's latest schema, read back by goavro.
package node

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/linkedin/goavro/v2"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/sluicehq/sluice/apps/gateway/internal/config"
	"github.com/sluicehq/sluice/apps/gateway/internal/registry"
)

const orderV1 = `{"type":"record","name":"Order","namespace":"test.sluice","fields":[
 {"name":"id","type":"string"},
 {"name":"qty","type":"int"},
 {"name":"price","type":{"type":"bytes","logicalType":"decimal","precision":9,"scale":2}},
 {"name":"placed","type":{"type":"long","logicalType":"timestamp-millis"}},
 {"name":"note","type":["null","string"],"default":null}]}`

// orderV2 adds a field with a default: a compatible evolution.
const orderV2 = `{"type":"record","name":"Order","namespace":"test.sluice","fields":[
 {"name":"id","type":"string"},
 {"name":"qty","type":"int"},
 {"name":"price","type":{"type":"bytes","logicalType":"decimal","precision":9,"scale":2}},
 {"name":"placed","type":{"type":"long","logicalType":"timestamp-millis"}},
 {"name":"note","type":["null","string"],"default":null},
 {"name":"channel","type":"string","default":"web"}]}`

// orderV3 adds one more field (registered while the registry is away from the node).
const orderV3 = `{"type":"record","name":"Order","namespace":"test.sluice","fields":[
 {"name":"id","type":"string"},
 {"name":"qty","type":"int"},
 {"name":"price","type":{"type":"bytes","logicalType":"decimal","precision":9,"scale":2}},
 {"name":"placed","type":{"type":"long","logicalType":"timestamp-millis"}},
 {"name":"note","type":["null","string"],"default":null},
 {"name":"channel","type":"string","default":"web"},
 {"name":"gift","type":"boolean","default":false}]}`

type registryAt struct {
	t   *testing.T
	url string
}

func (r registryAt) register(subject, schemaType, text string) int {
	r.t.Helper()
	b, _ := json.Marshal(map[string]any{"schema": text, "schemaType": schemaType})
	resp, err := http.Post(r.url+"/subjects/"+url.PathEscape(subject)+"/versions", "application/vnd.schemaregistry.v1+json", bytes.NewReader(b))
	if err != nil {
		r.t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		ID      int    `json:"id"`
		Message string `json:"message"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&out)
	if resp.StatusCode != http.StatusOK {
		r.t.Fatalf("register %s: HTTP %d %s", subject, resp.StatusCode, out.Message)
	}
	return out.ID
}

func avroRecord(t *testing.T, schema string, id int, native any) []byte {
	t.Helper()
	codec, err := goavro.NewCodec(schema)
	if err != nil {
		t.Fatal(err)
	}
	bin, err := codec.BinaryFromNative(nil, native)
	if err != nil {
		t.Fatal(err)
	}
	return append(registry.AppendWire(nil, id), bin...)
}

func TestRegistryBackedEndpoints(t *testing.T) {
	if os.Getenv("KAFKA_BROKERS") == "" {
		t.Skip("KAFKA_BROKERS not set")
	}
	regURL := strings.TrimRight(os.Getenv("SCHEMA_REGISTRY_URL"), "/")
	if regURL == "" {
		t.Fatal("SCHEMA_REGISTRY_URL is not set: the test stack's registry is part of every run (./sluice test sets it)")
	}
	reg := registryAt{t: t, url: regURL}
	target, err := url.Parse(regURL)
	if err != nil {
		t.Fatal(err)
	}
	// The node reaches the registry through this proxy, so the test can take
	// the registry away from it mid-stream.
	var away atomic.Bool
	forward := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: target.Scheme, Host: target.Host})
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if away.Load() {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		forward.ServeHTTP(w, r)
	}))
	defer proxy.Close()
	f := newFixture(t, func(c *config.Config) { c.RegistryURL = proxy.URL + target.Path })

	suffix := fmt.Sprintf("%d", time.Now().UnixNano())
	orders, events, docs := "orders-"+suffix, "events-"+suffix, "docs-"+suffix
	adm := kadm.NewClient(f.kc)
	for _, topic := range []string{orders, events, docs} {
		if _, err := adm.CreateTopic(context.Background(), 1, 1, nil, topic); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { _, _ = adm.DeleteTopics(context.Background(), orders, events, docs) })
	endpoint := func(id, topic, format string) {
		f.putCatalog("endpoint/"+id, map[string]any{
			"v": 1, "id": id, "path": "/" + topic + "/{id}", "topic": topic, "key": nil, "key_param": "id",
			"operations": []string{"subscribe", "publish"}, "payload_format": format,
			"value_schema": map[string]any{"subject": topic + "-value", "version": nil},
			"api":          map[string]any{"id": "api-1", "name": "Orders", "version": "1.0.0"},
		})
	}
	id1 := reg.register(orders+"-value", "AVRO", orderV1)
	endpoint("ep-orders", orders, "avro")
	c, _ := f.authed(map[string][]string{"all": {"/" + orders + "/*", "/" + events + "/*", "/" + docs + "/*"}})
	subscribe := func(sid, path string) {
		for deadline := time.Now().Add(10 * time.Second); ; {
			c.send(`{"type":"subscribe","id":"` + sid + `","endpoint":"` + path + `"}`)
			m := c.nextOf("subscribed", "error")
			if m["type"] == "subscribed" {
				return
			}
			if m["code"] != float64(4004) || time.Now().After(deadline) {
				t.Fatalf("subscribe %s: %v", path, m)
			}
			time.Sleep(100 * time.Millisecond) // until the node has read the endpoint
		}
	}
	produce := func(topic string, value []byte) int64 {
		r := &kgo.Record{Topic: topic, Key: []byte("A-1"), Value: value}
		if err := f.kc.ProduceSync(context.Background(), r).FirstErr(); err != nil {
			t.Fatal(err)
		}
		return r.Offset
	}
	dataOf := func(m map[string]any) string {
		b, _ := json.Marshal(m["data"])
		return string(b)
	}
	// is compares a message's data with the JSON wanted, whatever the member order.
	is := func(m map[string]any, want string) bool {
		var w any
		if err := json.Unmarshal([]byte(want), &w); err != nil {
			t.Fatal(err)
		}
		return reflect.DeepEqual(m["data"], w)
	}
	placed := time.Date(2026, 11, 24, 10, 34, 56, 789_000_000, time.UTC)
	subscribe("s1", "/"+orders+"/A-1")

	// Two versions of the schema on one topic: each record decodes with its writer's.
	produce(orders, avroRecord(t, orderV1, id1, map[string]any{"id": "A-1", "qty": 3, "price": big.NewRat(1230, 100), "placed": placed, "note": nil}))
	if m := c.next("message"); !is(m, `{"id":"A-1","qty":3,"price":"12.30","placed":"2026-11-24T10:34:56.789Z","note":null}`) || m["encoding"] != nil {
		t.Fatalf("v1: %v", m)
	}
	id2 := reg.register(orders+"-value", "AVRO", orderV2)
	produce(orders, avroRecord(t, orderV2, id2, map[string]any{"id": "A-1", "qty": 4, "price": big.NewRat(1, 100), "placed": placed, "note": goavro.Union("string", "fragile"), "channel": "app"}))
	if m := c.next("message"); !is(m, `{"id":"A-1","qty":4,"price":"0.01","placed":"2026-11-24T10:34:56.789Z","note":"fragile","channel":"app"}`) {
		t.Fatalf("v2: %v", m)
	}

	// A schema id the registry does not have: the raw value as base64, with why.
	missing := append(registry.AppendWire(nil, 987654321), 1, 2, 3)
	produce(orders, missing)
	if m := c.next("message"); m["encoding"] != "base64" || !strings.Contains(fmt.Sprint(m["error"]), "schema id 987654321 is not in the registry") {
		t.Fatalf("a missing schema id: %v", m)
	}

	// The registry away while a record of a new version arrives: base64 with
	// why, then decoded again once it is back; a resume from before that
	// record gets it decoded.
	away.Store(true)
	id3 := reg.register(orders+"-value", "AVRO", orderV3)
	v3 := func(qty int) []byte {
		return avroRecord(t, orderV3, id3, map[string]any{"id": "A-1", "qty": qty, "price": big.NewRat(1, 100), "placed": placed, "note": nil, "channel": "web", "gift": true})
	}
	failedAt := produce(orders, v3(5))
	m := c.next("message")
	if m["encoding"] != "base64" || !strings.Contains(fmt.Sprint(m["error"]), fmt.Sprintf("schema id %d could not be fetched", id3)) {
		t.Fatalf("during the outage: %v", m)
	}
	epoch := m["epoch"]
	away.Store(false)
	time.Sleep(1100 * time.Millisecond) // a failed id is asked for again after a second
	produce(orders, v3(6))
	if m := c.next("message"); !strings.Contains(dataOf(m), `"qty":6`) || !strings.Contains(dataOf(m), `"gift":true`) {
		t.Fatalf("after the outage: %v", m)
	}
	resumed, _ := f.authed(map[string][]string{"all": {"/" + orders + "/*"}})
	resumed.send(fmt.Sprintf(`{"type":"subscribe","id":"s2","endpoint":"/%s/A-1","from":{"epoch":%q,"partition":0,"seq":%d}}`, orders, epoch, failedAt-1))
	if m := resumed.nextOf("subscribed", "error"); m["type"] != "subscribed" {
		t.Fatalf("resume: %v", m)
	}
	if m := resumed.next("message"); m["seq"] != float64(failedAt) || !strings.Contains(dataOf(m), `"qty":5`) || m["error"] != nil {
		t.Fatalf("the resume from before the failed record: %v", m)
	}

	// Publishing: the JSON is encoded with the subject's latest schema; goavro reads it back.
	c.send(`{"type":"publish","id":"p1","endpoint":"/` + orders + `/A-1","data":{"id":"A-1","qty":9,"price":"1.50","placed":"2026-11-24T10:34:56.789Z","note":null,"channel":"api","gift":false}}`)
	ack := c.nextOf("published")
	back := f.readBackFrom(orders, int32(ack["partition"].(float64)), int64(ack["seq"].(float64)))
	wid, data, ok := registry.SplitWire(back.Value)
	if !ok || wid != id3 {
		t.Fatalf("the published record: wire format %v, schema id %d (want %d)", ok, wid, id3)
	}
	codec, _ := goavro.NewCodec(orderV3)
	native, _, err := codec.NativeFromBinary(data)
	if err != nil || native.(map[string]any)["qty"] != int32(9) || native.(map[string]any)["channel"] != "api" {
		t.Fatalf("goavro reads the published record as %v (%v)", native, err)
	}
	c.send(`{"type":"publish","id":"p2","endpoint":"/` + orders + `/A-1","data":{"id":"A-1","qty":"nine"}}`)
	if e := c.nextOf("error"); e["code"] != float64(4022) || !strings.Contains(fmt.Sprint(e["message"]), "qty") {
		t.Fatalf("a publish that does not fit: %v", e)
	}

	// Protobuf, written with protowire (message index 0): protobuf's JSON mapping, int64 as a string.
	idP := reg.register(events+"-value", "PROTOBUF", `syntax = "proto3"; package test.sluice; message Event { string name = 1; int64 count = 2; }`)
	endpoint("ep-events", events, "protobuf")
	subscribe("s3", "/"+events+"/A-1")
	var pb []byte
	pb = protowire.AppendTag(pb, 1, protowire.BytesType)
	pb = protowire.AppendString(pb, "opened")
	pb = protowire.AppendTag(pb, 2, protowire.VarintType)
	pb = protowire.AppendVarint(pb, 12345678901)
	produce(events, append(append(registry.AppendWire(nil, idP), 0), pb...))
	if m := c.next("message"); !is(m, `{"name":"opened","count":"12345678901"}`) {
		t.Fatalf("protobuf: %v", m)
	}

	// A TopicRecordNameStrategy subject of a file with two messages: a publish
	// is encoded as the message the subject names (message indexes [1]), and
	// read back decoded as that message.
	shipments := events + "-shipments"
	if _, err := adm.CreateTopic(context.Background(), 1, 1, nil, shipments); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = adm.DeleteTopics(context.Background(), shipments) })
	reg.register(shipments+"-test.sluice.Shipment", "PROTOBUF", `syntax = "proto3"; package test.sluice; message Event { string name = 1; } message Shipment { string carrier = 1; int32 parcels = 2; }`)
	f.putCatalog("endpoint/ep-shipments", map[string]any{
		"v": 1, "id": "ep-shipments", "path": "/" + shipments + "/{id}", "topic": shipments, "key": nil, "key_param": "id",
		"operations": []string{"subscribe", "publish"}, "payload_format": "protobuf",
		"value_schema": map[string]any{"subject": shipments + "-test.sluice.Shipment", "version": nil},
		"api":          map[string]any{"id": "api-1", "name": "Orders", "version": "1.0.0"},
	})
	shipper, _ := f.authed(map[string][]string{"all": {"/" + shipments + "/*"}})
	for deadline := time.Now().Add(10 * time.Second); ; {
		shipper.send(`{"type":"subscribe","id":"s5","endpoint":"/` + shipments + `/A-1"}`)
		m := shipper.nextOf("subscribed", "error")
		if m["type"] == "subscribed" {
			break
		}
		if m["code"] != float64(4004) || time.Now().After(deadline) {
			t.Fatalf("subscribe shipments: %v", m)
		}
		time.Sleep(100 * time.Millisecond)
	}
	sack, shipped := shipper.publishSubscribed(`{"type":"publish","id":"p4","endpoint":"/` + shipments + `/A-1","data":{"carrier":"DHL","parcels":2}}`)
	if sack["type"] != "published" {
		t.Fatalf("publish to a record-strategy subject: %v", sack)
	}
	raw := f.readBackFrom(shipments, int32(sack["partition"].(float64)), int64(sack["seq"].(float64))).Value
	if len(raw) < registry.WireHeaderSize+2 || raw[registry.WireHeaderSize] != 2 || raw[registry.WireHeaderSize+1] != 2 {
		t.Fatalf("the published record's message indexes are not [1] (Shipment): % x", raw)
	}
	if !is(shipped, `{"carrier":"DHL","parcels":2}`) {
		t.Fatalf("the published shipment, decoded: %v", shipped)
	}

	// JSON Schema: the JSON as written.
	idJ := reg.register(docs+"-value", "JSON", `{"type":"object","properties":{"title":{"type":"string"}},"required":["title"]}`)
	endpoint("ep-docs", docs, "json-schema")
	subscribe("s4", "/"+docs+"/A-1")
	produce(docs, append(registry.AppendWire(nil, idJ), `{"title":"Q3"}`...))
	if m := c.next("message"); !is(m, `{"title":"Q3"}`) {
		t.Fatalf("json-schema: %v", m)
	}
	c.send(`{"type":"publish","id":"p3","endpoint":"/` + docs + `/A-1","data":{"pages":3}}`)
	if e := c.nextOf("error"); e["code"] != float64(4022) || !strings.Contains(fmt.Sprint(e["message"]), "title") {
		t.Fatalf("a json-schema publish without its required field: %v", e)
	}
}

// publishSubscribed sends a publish to an endpoint the client subscribes to
// and returns its answer and the message it delivers back, in whichever order
// they come (the message may arrive before the acknowledgement). After an
// error answer, message is nil.
func (c *client) publishSubscribed(frame string) (answer, message map[string]any) {
	c.t.Helper()
	c.send(frame)
	for answer == nil || (message == nil && answer["type"] == "published") {
		switch m := c.nextOf("published", "message", "error"); m["type"] {
		case "message":
			message = m
		default:
			answer = m
		}
	}
	return answer, message
}

// nextOf reads frames until one of types arrives (an error frame too, when
// asked for).
func (c *client) nextOf(types ...string) map[string]any {
	c.t.Helper()
	_ = c.ws.SetReadDeadline(time.Now().Add(10 * time.Second))
	for {
		_, data, err := c.ws.ReadMessage()
		if err != nil {
			c.t.Fatalf("waiting for %v: %v", types, err)
		}
		var m map[string]any
		if err := json.Unmarshal(data, &m); err != nil {
			c.t.Fatalf("not JSON: %s", data)
		}
		for _, typ := range types {
			if m["type"] == typ {
				return m
			}
		}
	}
}

// Keys in the registry's wire format (an endpoint with key_schema): a record
// whose key goavro wrote is found on the partition Kafka's partitioner put it
// (franz-go's, murmur2 of the encoded bytes, as the Java client's), matched by
// its decoded key, live and on a resume; a publish writes its key encoded the
// same way, to the same partition. A key the key schema cannot encode, or
// writes differently, is refused naming why.
func TestRegistryEncodedKeys(t *testing.T) {
	if os.Getenv("KAFKA_BROKERS") == "" {
		t.Skip("KAFKA_BROKERS not set")
	}
	regURL := strings.TrimRight(os.Getenv("SCHEMA_REGISTRY_URL"), "/")
	if regURL == "" {
		t.Fatal("SCHEMA_REGISTRY_URL is not set: the test stack's registry is part of every run (./sluice test sets it)")
	}
	reg := registryAt{t: t, url: regURL}
	f := newFixture(t, func(c *config.Config) { c.RegistryURL = regURL })
	suffix := fmt.Sprintf("%d", time.Now().UnixNano())
	carts, counters, stock := "carts-"+suffix, "counters-"+suffix, "stock-"+suffix
	adm := kadm.NewClient(f.kc)
	for _, topic := range []string{carts, counters, stock} {
		if _, err := adm.CreateTopic(context.Background(), 6, 1, nil, topic); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { _, _ = adm.DeleteTopics(context.Background(), carts, counters, stock) })

	const keyString, keyLong = `"string"`, `"long"`
	const keyRecord = `{"type":"record","name":"StockKey","namespace":"test.sluice","fields":[{"name":"shop","type":"string"},{"name":"sku","type":"int"}]}`
	const cartV1 = `{"type":"record","name":"Cart","namespace":"test.sluice","fields":[{"name":"items","type":"int"}]}`
	idCartKey := reg.register(carts+"-key", "AVRO", keyString)
	idCart := reg.register(carts+"-value", "AVRO", cartV1)
	idCounterKey := reg.register(counters+"-key", "AVRO", keyLong)
	idStockKey := reg.register(stock+"-key", "AVRO", keyRecord)
	endpoint := func(id, topic, format string, valueSchema any) {
		f.putCatalog("endpoint/"+id, map[string]any{
			"v": 1, "id": id, "path": "/" + topic + "/{id}", "topic": topic, "key": nil, "key_param": "id",
			"operations": []string{"subscribe", "publish"}, "payload_format": format,
			"value_schema": valueSchema,
			"key_schema":   map[string]any{"subject": topic + "-key", "version": nil},
			"api":          map[string]any{"id": "api-1", "name": "Carts", "version": "1.0.0"},
		})
	}
	endpoint("ep-carts", carts, "avro", map[string]any{"subject": carts + "-value", "version": nil})
	endpoint("ep-counters", counters, "json", nil)
	endpoint("ep-stock", stock, "json", nil)

	c, _ := f.authed(map[string][]string{"all": {"/" + carts + "/*", "/" + counters + "/*", "/" + stock + "/*"}})
	subscribe := func(c *client, sid, path string, from string) map[string]any {
		frame, _ := json.Marshal(map[string]any{"type": "subscribe", "id": sid, "endpoint": path})
		if from != "" {
			frame = append(frame[:len(frame)-1], `,"from":`+from+`}`...)
		}
		for deadline := time.Now().Add(10 * time.Second); ; {
			c.send(string(frame))
			m := c.nextOf("subscribed", "error")
			if m["type"] == "subscribed" || m["code"] != float64(4004) || !strings.Contains(fmt.Sprint(m["message"]), "no endpoint") || time.Now().After(deadline) {
				return m
			}
			time.Sleep(100 * time.Millisecond) // until the node has read the endpoint
		}
	}
	// produce writes with franz-go's default partitioner and says where Kafka put it.
	produce := func(topic string, key, value []byte) *kgo.Record {
		r := &kgo.Record{Topic: topic, Key: key, Value: value}
		if err := f.kc.ProduceSync(context.Background(), r).FirstErr(); err != nil {
			t.Fatal(err)
		}
		return r
	}
	cartKey := func(key string) []byte { return avroRecord(t, keyString, idCartKey, key) }
	cart := func(items int) []byte { return avroRecord(t, cartV1, idCart, map[string]any{"items": items}) }

	// Two keys on six partitions: each subscription gets its own key's records only.
	seven := produce(carts, cartKey("cart-7"), cart(1))
	produce(carts, cartKey("cart-8"), cart(2))
	m := subscribe(c, "s1", "/"+carts+"/cart-7", `"earliest"`)
	if m["type"] != "subscribed" || m["partition"] != float64(seven.Partition) {
		t.Fatalf("subscribe to cart-7: %v, want partition %d (where Kafka put its records)", m, seven.Partition)
	}
	if m := c.next("message"); !strings.Contains(fmt.Sprint(m["data"]), "items:1") || m["seq"] != float64(seven.Offset) {
		t.Fatalf("cart-7's record, read back for earliest: %v", m)
	}
	produce(carts, cartKey("cart-8"), cart(3))
	produce(carts, cartKey("cart-7"), cart(4))
	if m := c.next("message"); !strings.Contains(fmt.Sprint(m["data"]), "items:4") {
		t.Fatalf("cart-7's live record: %v", m)
	}

	// A publish: the key encoded with the key schema, on cart-7's partition;
	// goavro reads the key back.
	ack, delivered := c.publishSubscribed(`{"type":"publish","id":"p1","endpoint":"/` + carts + `/cart-7","data":{"items":5}}`)
	if ack["type"] != "published" || ack["partition"] != float64(seven.Partition) {
		t.Fatalf("publish to cart-7: %v, want partition %d", ack, seven.Partition)
	}
	back := f.readBackFrom(carts, seven.Partition, int64(ack["seq"].(float64)))
	kid, kdata, ok := registry.SplitWire(back.Key)
	keyCodec, _ := goavro.NewCodec(keyString)
	if native, _, err := keyCodec.NativeFromBinary(kdata); !ok || kid != idCartKey || err != nil || native != "cart-7" {
		t.Fatalf("the published record's key: wire %v, id %d (want %d), %v %v", ok, kid, idCartKey, native, err)
	}
	if !strings.Contains(fmt.Sprint(delivered["data"]), "items:5") {
		t.Fatalf("the published record, delivered: %v", delivered)
	}

	// A long key: /counters/42; 042 and abc are not keys of it.
	fortyTwo := produce(counters, avroRecord(t, keyLong, idCounterKey, int64(42)), []byte(`{"n":1}`))
	if m := subscribe(c, "s2", "/"+counters+"/42", `"earliest"`); m["type"] != "subscribed" || m["partition"] != float64(fortyTwo.Partition) {
		t.Fatalf("subscribe to counter 42: %v, want partition %d", m, fortyTwo.Partition)
	}
	if m := c.next("message"); fmt.Sprint(m["data"]) != "map[n:1]" {
		t.Fatalf("counter 42: %v", m)
	}
	for _, key := range []string{"042", "abc"} {
		if m := subscribe(c, "s-"+key, "/"+counters+"/"+key, ""); m["code"] != float64(4004) || !strings.Contains(fmt.Sprint(m["message"]), "not a value of the key schema") {
			t.Fatalf("subscribe to counter %s: %v", key, m)
		}
	}

	// A record key: its compact JSON, in the schema's field order, is the key
	// in the path; the members in another order are refused naming that form.
	shopKey := avroRecord(t, keyRecord, idStockKey, map[string]any{"shop": "eu", "sku": 7})
	st := produce(stock, shopKey, []byte(`{"units":12}`))
	if m := subscribe(c, "s3", "/"+stock+`/{"shop":"eu","sku":7}`, `"earliest"`); m["type"] != "subscribed" || m["partition"] != float64(st.Partition) {
		t.Fatalf("subscribe to a record key: %v, want partition %d", m, st.Partition)
	}
	if m := c.next("message"); fmt.Sprint(m["data"]) != "map[units:12]" {
		t.Fatalf("the record-keyed message: %v", m)
	}
	if m := subscribe(c, "s4", "/"+stock+`/{"sku":7,"shop":"eu"}`, ""); m["code"] != float64(4004) || !strings.Contains(fmt.Sprint(m["message"]), `writes this key as {"shop":"eu","sku":7}`) {
		t.Fatalf("a record key in another order: %v", m)
	}
}
