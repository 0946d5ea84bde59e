package schema

import (
	"context"
	"math/big"
	"testing"

	"github.com/linkedin/goavro/v2"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/sluicehq/sluice/apps/gateway/internal/registry"
)

// The examples of docs/payload-formats.md, checked.

func TestDocAvroExample(t *testing.T) {
	schemaText := `{"type":"record","name":"Order","namespace":"shop","fields":[
  {"name":"id","type":"string"},
  {"name":"total","type":{"type":"bytes","logicalType":"decimal","precision":9,"scale":2}},
  {"name":"created_at","type":{"type":"long","logicalType":"timestamp-millis"}},
  {"name":"note","type":["null","string"],"default":null},
  {"name":"payment","type":["null","string",{"type":"record","name":"Card","fields":[{"name":"last4","type":"string"}]}],"default":null}]}`
	g, err := goavro.NewCodec(schemaText)
	if err != nil {
		t.Fatal(err)
	}
	data, err := g.BinaryFromNative(nil, map[string]any{
		"id": "o-17", "total": big.NewRat(1230, 100), "created_at": mustTime("2024-05-01T10:34:56.789Z"),
		"note": nil, "payment": goavro.Union("shop.Card", map[string]any{"last4": "4242"}),
	})
	if err != nil {
		t.Fatal(err)
	}
	c := avroCodecFor(t, 1, schemaText)
	got, err := c.Decode(data)
	want := `{"id":"o-17","total":"12.30","created_at":"2024-05-01T10:34:56.789Z","note":null,"payment":{"shop.Card":{"last4":"4242"}}}`
	if err != nil || string(got) != want {
		t.Fatalf("Decode = %s, %v\nwant %s", got, err, want)
	}
	enc, err := c.Encode([]byte(`{"id":"o-18","total":12.3,"created_at":"2024-05-01T12:34:56.789+02:00","payment":"voucher-9"}`))
	if err != nil {
		t.Fatal(err)
	}
	back, _, err := g.NativeFromBinary(enc)
	if err != nil {
		t.Fatal(err)
	}
	if p := back.(map[string]any)["payment"]; p.(map[string]any)["string"] != "voucher-9" {
		t.Fatalf("payment = %#v", p)
	}
	dur := avroCodecFor(t, 2, wrap(`{"type":"fixed","name":"D","size":12,"logicalType":"duration"}`))
	if got, err := dur.Decode([]byte{1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0}); err != nil || string(got) != `{"v":"AQAAAAIAAAADAAAA"}` {
		t.Fatalf("duration = %s, %v", got, err)
	}
}

func TestDocProtobufExample(t *testing.T) {
	text := `syntax = "proto3";
import "google/protobuf/timestamp.proto";
message Order {
  string id = 1;
  int64 total_cents = 2;
  repeated Item items = 3;
  google.protobuf.Timestamp created_at = 4;
  message Item { string sku = 1; int32 qty = 2; }
}`
	c, err := Compile(context.Background(), &registry.Schema{ID: 1, Type: registry.TypeProtobuf, Text: text}, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.Decode(concat([]byte{0}, pbString(1, "o-17"), pbVarint(2, 1230),
		pbMessage(3, pbString(1, "a"), pbVarint(2, 2)),
		pbMessage(4, pbVarint(1, 1714557600), protowire.AppendVarint(protowire.AppendTag(nil, 2, protowire.VarintType), 500000000))))
	if err != nil {
		t.Fatal(err)
	}
	sameJSON(t, got, `{"id":"o-17","totalCents":"1230","items":[{"sku":"a","qty":2}],"createdAt":"2024-05-01T10:00:00.500Z"}`)
}
