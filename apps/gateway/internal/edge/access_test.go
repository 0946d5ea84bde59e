package edge

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/sluicehq/sluice/apps/gateway/internal/catalog"
	"github.com/sluicehq/sluice/apps/gateway/internal/protocol"
	"github.com/sluicehq/sluice/apps/gateway/internal/registry"
	"github.com/sluicehq/sluice/apps/gateway/internal/schemawire"
)

// pairsCodec "encodes" a JSON object {"a": n} as the byte n, and refuses the rest.
type pairsCodec struct{}

func (pairsCodec) Encode(j []byte) ([]byte, error) {
	if len(j) == 7 && strings.HasPrefix(string(j), `{"a":`) {
		return []byte{j[5] - '0'}, nil
	}
	return nil, errors.New(`$.a: expected an int, got "x"`)
}

func (pairsCodec) Decode(data []byte) ([]byte, error) {
	return []byte(`{"a":` + string('0'+data[0]) + `}`), nil
}

// A publish to a schema-registry endpoint is the client's JSON encoded with the
// subject's schema in the wire format; without a registry it is refused, since
// producing the client's bytes as they are would put records without the wire
// format on the topic.
func TestPublishToARegistryBackedEndpoint(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/subjects/orders-value/versions/latest" {
			_, _ = w.Write([]byte(`{"subject":"orders-value","version":2,"id":300,"schema":"{}"}`))
			return
		}
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`{"error_code":40401}`))
	}))
	defer srv.Close()
	enc := schemawire.NewEncoder(registry.New(registry.Options{URL: srv.URL}), func(context.Context, *registry.Schema, string) (schemawire.Encoding, error) {
		return pairsCodec{}, nil
	})
	with, without := &Edge{opt: Options{Encoder: enc}}, &Edge{}
	ep := func(format catalog.PayloadFormat, subject string) *catalog.Endpoint {
		return &catalog.Endpoint{Path: "/orders/{id}", Topic: "orders", KeyParam: "id", Publish: true, Format: format, ValueSchema: &catalog.SubjectSchema{Subject: subject}}
	}
	for _, format := range []catalog.PayloadFormat{catalog.FormatAvro, catalog.FormatProtobuf, catalog.FormatJSONSchema} {
		value, perr := payloadFor(ep(format, "orders-value"), &protocol.ClientFrame{Type: "publish", Data: []byte(`{"a":7}`)})
		if perr != nil || string(value) != `{"a":7}` {
			t.Fatalf("%s: the JSON to encode: %q %+v", format, value, perr)
		}
		record, perr := with.inWireFormat(context.Background(), ep(format, "orders-value"), value)
		if perr != nil || string(record) != string([]byte{0, 0, 0, 1, 44, 7}) {
			t.Fatalf("%s: wire record %v %+v", format, record, perr)
		}
		if _, perr := without.inWireFormat(context.Background(), ep(format, "orders-value"), value); perr == nil || perr.Code != protocol.CodeUnavailable || !strings.Contains(perr.Message, "SCHEMA_REGISTRY_URL") {
			t.Fatalf("%s without a registry: %+v", format, perr)
		}
	}
	if _, perr := with.inWireFormat(context.Background(), ep(catalog.FormatAvro, "orders-value"), []byte(`{"a":"x"}`)); perr == nil || perr.Code != protocol.CodeInvalidPayload || perr.Message != `data: $.a: expected an int, got "x"` {
		t.Fatalf("a value that does not fit: %+v", perr)
	}
	if _, perr := with.inWireFormat(context.Background(), ep(catalog.FormatAvro, "nope-value"), []byte(`{"a":1}`)); perr == nil || perr.Code != protocol.CodeUnavailable || !strings.Contains(perr.Message, "nope-value") {
		t.Fatalf("a subject the registry does not have: %+v", perr)
	}
	if _, perr := payloadFor(ep(catalog.FormatAvro, "orders-value"), &protocol.ClientFrame{Type: "publish", Data: []byte(`not json`)}); perr == nil || perr.Code != protocol.CodeInvalidPayload {
		t.Fatalf("not JSON: %+v", perr)
	}
	json := &catalog.Endpoint{Path: "/orders/{id}", Topic: "orders", KeyParam: "id", Publish: true, Format: catalog.FormatJSON}
	if value, perr := with.inWireFormat(context.Background(), json, []byte(`{"a":1}`)); perr != nil || string(value) != `{"a":1}` {
		t.Fatalf("json passes as it is: %q %+v", value, perr)
	}
}

// intKeyCodec is a key schema of ints written as their decimal text: "42"
// is not an int (a JSON string), 42 is; 042 does not parse as JSON.
type intKeyCodec struct{}

func (intKeyCodec) Encode(j []byte) ([]byte, error) {
	if len(j) == 0 || j[0] < '0' || j[0] > '9' {
		return nil, fmt.Errorf("$: expected an int, got %s", j)
	}
	return j, nil
}

func (intKeyCodec) Decode(data []byte) ([]byte, error) { return data, nil }

// On an endpoint with a key schema the key in the path is encoded with it:
// that is the partition key of a subscription and the record key of a
// publish; a key the schema cannot encode, or writes otherwise, is a 4004.
func TestTheKeyOfAnEndpointWithAKeySchema(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/subjects/counters-key/versions/3" {
			_, _ = w.Write([]byte(`{"subject":"counters-key","version":3,"id":301,"schema":"\"int\""}`))
			return
		}
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`{"error_code":40401}`))
	}))
	defer srv.Close()
	enc := schemawire.NewEncoder(registry.New(registry.Options{URL: srv.URL}), func(context.Context, *registry.Schema, string) (schemawire.Encoding, error) {
		return intKeyCodec{}, nil
	})
	with, without := &Edge{opt: Options{Encoder: enc}}, &Edge{}
	ep := &catalog.Endpoint{Path: "/counters/{n}", Topic: "counters", KeyParam: "n", Subscribe: true, Format: catalog.FormatJSON,
		KeySchema: &catalog.SubjectSchema{Subject: "counters-key", Version: 3}}
	path := func(key string) protocol.Path { return protocol.Path{Topic: "counters", Key: key} }

	served, perr := with.servedFor(context.Background(), ep, path("42"))
	if perr != nil || string(served.PartitionKey) != "\x00\x00\x00\x01\x2d42" || served.KeyEncoding != "counters-key@3" {
		t.Fatalf("subscribe: %q %q %+v", served.PartitionKey, served.KeyEncoding, perr)
	}
	if key, perr := with.recordKey(context.Background(), ep, path("42")); perr != nil || string(key) != string(served.PartitionKey) {
		t.Fatalf("publish: %q %+v", key, perr)
	}
	for key, want := range map[string]string{
		"abc": "endpoint /counters/abc: the key is not a value of the key schema (subject counters-key): $: expected an int, got \"abc\"",
		"042": "endpoint /counters/042: the key is not a value of the key schema (subject counters-key): $: expected an int, got \"042\"",
		"42 ": "endpoint /counters/42%20: the key schema (subject counters-key) writes this key as 42",
		"4 2": "endpoint /counters/4%202: the key is not a value of the key schema (subject counters-key): $: expected an int, got \"4 2\"",
	} {
		if _, perr := with.servedFor(context.Background(), ep, path(key)); perr == nil || perr.Code != protocol.CodeNotFound || perr.Message != want {
			t.Errorf("%s: %+v", key, perr)
		}
	}
	if _, perr := without.recordKey(context.Background(), ep, path("42")); perr == nil || perr.Code != protocol.CodeUnavailable || !strings.Contains(perr.Message, "SCHEMA_REGISTRY_URL") {
		t.Fatalf("without a registry: %+v", perr)
	}
	plain := &catalog.Endpoint{Path: "/counters/{n}", Topic: "counters", KeyParam: "n", Subscribe: true, Format: catalog.FormatJSON}
	if served, perr := without.servedFor(context.Background(), plain, path("042")); perr != nil || served.PartitionKey != nil || served.KeyEncoding != "" {
		t.Fatalf("plain keys: %+v %+v", served, perr)
	}
}
