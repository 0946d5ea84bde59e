//go:build integration

package schema

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/linkedin/goavro/v2"

	"github.com/sluicehq/sluice/apps/gateway/internal/registry"
)

// Run against a real registry's Confluent-compatible API:
// SCHEMA_REGISTRY_URL=http://127.0.0.1:27181/apis/ccompat/v7 go test -race -tags integration ./internal/schema/
//
// Schemas are registered as a producer's tooling would, read back by id
// through the gateway's registry client (so the registry's own rendering of
// each schema is what compiles), and references resolve through
// RegistryResolver.

type registryFixture struct {
	t      *testing.T
	url    string
	suffix string
	client *registry.Client
}

func newRegistryFixture(t *testing.T) *registryFixture {
	t.Helper()
	u := os.Getenv("SCHEMA_REGISTRY_URL")
	if u == "" {
		t.Skip("SCHEMA_REGISTRY_URL is not set")
	}
	return &registryFixture{t: t, url: strings.TrimRight(u, "/"), suffix: fmt.Sprintf("-%d", time.Now().UnixNano()),
		client: registry.New(registry.Options{URL: u})}
}

// register adds a schema version to subject (made unique to this run) and
// returns its id.
func (f *registryFixture) register(subject, schemaType, text string, refs ...registry.Reference) int {
	f.t.Helper()
	body := map[string]any{"schema": text, "schemaType": schemaType}
	if len(refs) > 0 {
		body["references"] = refs
	}
	b, _ := json.Marshal(body)
	resp, err := http.Post(f.url+"/subjects/"+url.PathEscape(f.subject(subject))+"/versions", "application/vnd.schemaregistry.v1+json", bytes.NewReader(b))
	if err != nil {
		f.t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		ID      int    `json:"id"`
		Message string `json:"message"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&out)
	if resp.StatusCode != http.StatusOK {
		f.t.Fatalf("register %s: HTTP %d %s", subject, resp.StatusCode, out.Message)
	}
	return out.ID
}

func (f *registryFixture) subject(s string) string { return s + f.suffix }

func (f *registryFixture) compile(id int, message string) Codec {
	f.t.Helper()
	ctx := context.Background()
	s, err := f.client.SchemaByID(ctx, id)
	if err != nil {
		f.t.Fatalf("SchemaByID(%d): %v", id, err)
	}
	c, err := CompileMessage(ctx, s, RegistryResolver(f.client), message)
	if err != nil {
		f.t.Fatalf("Compile(%d): %v", id, err)
	}
	return c
}

func TestRegistryAvroWithReferenceAndTwoVersions(t *testing.T) {
	f := newRegistryFixture(t)
	f.register("shop-item", "AVRO", itemSchema)
	orderV1 := `{"type":"record","name":"Order","namespace":"shop","fields":[{"name":"items","type":{"type":"array","items":"shop.Item"}}]}`
	orderV2 := `{"type":"record","name":"Order","namespace":"shop","fields":[{"name":"items","type":{"type":"array","items":"shop.Item"}},{"name":"note","type":["null","string"],"default":null}]}`
	ref := registry.Reference{Name: "shop.Item", Subject: f.subject("shop-item"), Version: 1}
	id1 := f.register("orders-value", "AVRO", orderV1, ref)
	id2 := f.register("orders-value", "AVRO", orderV2, ref)
	c1, c2 := f.compile(id1, ""), f.compile(id2, "")

	inline := func(text string) string {
		return strings.Replace(text, `"items":"shop.Item"`, `"items":`+itemSchema, 1)
	}
	g1, err := goavro.NewCodec(inline(orderV1))
	if err != nil {
		t.Fatal(err)
	}
	g2, _ := goavro.NewCodec(inline(orderV2))
	r1, _ := g1.BinaryFromNative(nil, map[string]any{"items": []any{map[string]any{"sku": "a", "qty": int32(1)}}})
	r2, _ := g2.BinaryFromNative(nil, map[string]any{"items": []any{}, "note": goavro.Union("string", "hi")})
	if got, err := c1.Decode(r1); err != nil || string(got) != `{"items":[{"sku":"a","qty":1}]}` {
		t.Fatalf("v1 Decode = %s, %v", got, err)
	}
	if got, err := c2.Decode(r2); err != nil || string(got) != `{"items":[],"note":"hi"}` {
		t.Fatalf("v2 Decode = %s, %v", got, err)
	}
	enc, err := c2.Encode([]byte(`{"items":[{"sku":"b","qty":2}]}`))
	if err != nil {
		t.Fatal(err)
	}
	back, _, err := g2.NativeFromBinary(enc)
	if err != nil || fmt.Sprint(back) != fmt.Sprint(map[string]any{"items": []any{map[string]any{"sku": "b", "qty": int32(2)}}, "note": nil}) {
		t.Fatalf("goavro reads %v, %v", back, err)
	}
}

func TestRegistryProtobufWithImports(t *testing.T) {
	f := newRegistryFixture(t)
	money := `syntax = "proto3";
package common;
message Money {
  string currency = 1;
  int64 units = 2;
}
`
	f.register("common-money", "PROTOBUF", money)
	main := `syntax = "proto3";
package shop;
import "common/money.proto";
import "google/protobuf/timestamp.proto";
message Price {
  common.Money amount = 1;
  google.protobuf.Timestamp at = 2;
}
message Other {
  string x = 1;
}
`
	id := f.register("prices-value", "PROTOBUF", main, registry.Reference{Name: "common/money.proto", Subject: f.subject("common-money"), Version: 1})
	c := f.compile(id, "")
	got, err := c.Decode(concat([]byte{0}, pbMessage(1, pbString(1, "EUR"), pbVarint(2, 12)), pbMessage(2, pbVarint(1, 1714557600))))
	if err != nil {
		t.Fatal(err)
	}
	sameJSON(t, got, `{"amount":{"currency":"EUR","units":"12"},"at":"2024-05-01T10:00:00Z"}`)
	got, err = c.Decode(concat([]byte{2, 2}, pbString(1, "y")))
	if err != nil {
		t.Fatal(err)
	}
	sameJSON(t, got, `{"x":"y"}`)
	enc, err := f.compile(id, "shop.Other").Encode([]byte(`{"x":"z"}`))
	if err != nil || !bytes.Equal(enc, concat([]byte{2, 2}, pbString(1, "z"))) {
		t.Fatalf("Encode(Other) = %x, %v", enc, err)
	}
}

func TestRegistryJSONSchemaWithReference(t *testing.T) {
	f := newRegistryFixture(t)
	f.register("item-json", "JSON", itemJSONSchema)
	id := f.register("orders-json-value", "JSON", orderJSONSchema, registry.Reference{Name: "item.json", Subject: f.subject("item-json"), Version: 1})
	c := f.compile(id, "")
	if _, err := c.Encode([]byte(`{"id":"a","items":[{"qty":1}]}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Encode([]byte(`{"id":"a","items":[{"qty":0}]}`)); err == nil || !strings.HasSuffix(err.Error(), "$.items[0].qty: must be >= 1") {
		t.Fatalf("Encode(invalid) = %v", err)
	}
}
