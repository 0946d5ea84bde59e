package schema

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/sluicehq/sluice/apps/gateway/internal/registry"
)

// The protobuf tests build their records byte by byte with protowire, not
// with the dynamicpb messages under test.

const shopProto = `syntax = "proto3";
package shop.v1;

import "google/protobuf/timestamp.proto";
import "google/protobuf/duration.proto";
import "google/protobuf/struct.proto";
import "google/protobuf/wrappers.proto";

message Order {
  string id = 1;
  int64 total_cents = 2;
  repeated Item items = 3;
  map<string, int32> counts = 4;
  oneof payment {
    string card = 5;
    int32 voucher = 6;
  }
  Status status = 7;
  bytes raw = 8;
  google.protobuf.Timestamp created_at = 9;
  google.protobuf.Duration ttl = 10;
  google.protobuf.Struct meta = 11;
  google.protobuf.Int64Value maybe = 12;
  uint64 big = 13;
  Item first = 14;

  enum Status {
    NEW = 0;
    PAID = 1;
  }
  message Item {
    string sku = 1;
    int32 qty = 2;
  }
}

message Refund {
  string order_id = 1;
  message Line {
    int32 n = 1;
  }
}
`

func protoCodec(t *testing.T, message string) Codec {
	t.Helper()
	c, err := CompileMessage(context.Background(), &registry.Schema{ID: 9, Type: registry.TypeProtobuf, Text: shopProto}, nil, message)
	if err != nil {
		t.Fatalf("Compile: %v", err)
	}
	return c
}

// field helpers over protowire.
func pbString(num protowire.Number, s string) []byte {
	return protowire.AppendString(protowire.AppendTag(nil, num, protowire.BytesType), s)
}

func pbVarint(num protowire.Number, v uint64) []byte {
	return protowire.AppendVarint(protowire.AppendTag(nil, num, protowire.VarintType), v)
}

func pbMessage(num protowire.Number, fields ...[]byte) []byte {
	var body []byte
	for _, f := range fields {
		body = append(body, f...)
	}
	return protowire.AppendBytes(protowire.AppendTag(nil, num, protowire.BytesType), body)
}

func pbDouble(num protowire.Number, f float64) []byte {
	return protowire.AppendFixed64(protowire.AppendTag(nil, num, protowire.Fixed64Type), math.Float64bits(f))
}

func concat(parts ...[]byte) []byte {
	var out []byte
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// sameJSON compares JSON texts by value (protojson varies its whitespace on
// purpose).
func sameJSON(t *testing.T, got []byte, want string) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("output is not JSON: %s", got)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("bad want: %v", err)
	}
	if !reflect.DeepEqual(g, w) {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}

func TestProtobufDecodeCanonicalJSON(t *testing.T) {
	order := concat(
		pbString(1, "o1"),
		pbVarint(2, 9007199254740993), // beyond a double's exact integers
		pbMessage(3, pbString(1, "a"), pbVarint(2, 2)),
		pbMessage(3, pbString(1, "b")),
		pbMessage(4, pbString(1, "x"), pbVarint(2, 1)),
		pbString(5, "4242"),
		pbVarint(7, 1),
		protowire.AppendBytes(protowire.AppendTag(nil, 8, protowire.BytesType), []byte{0, 1, 0xff}),
		pbMessage(9, pbVarint(1, 1714557600), pbVarint(2, 500000000)),
		pbMessage(10, pbVarint(1, 1), pbVarint(2, 500000000)),
		pbMessage(11,
			pbMessage(1, pbString(1, "k"), pbMessage(2, pbString(3, "v"))),
			pbMessage(1, pbString(1, "n"), pbMessage(2, pbDouble(2, 1.5))),
		),
		pbMessage(12, pbVarint(1, 5)),
		pbVarint(13, math.MaxUint64),
	)
	c := protoCodec(t, "")
	got, err := c.Decode(append([]byte{0}, order...)) // [0] as the single byte 0
	if err != nil {
		t.Fatalf("Decode: %v", err)
	}
	sameJSON(t, got, `{
		"id": "o1",
		"totalCents": "9007199254740993",
		"items": [{"sku": "a", "qty": 2}, {"sku": "b", "qty": 0}],
		"counts": {"x": 1},
		"card": "4242",
		"status": "PAID",
		"raw": "AAH/",
		"createdAt": "2024-05-01T10:00:00.500Z",
		"ttl": "1.500s",
		"meta": {"k": "v", "n": 1.5},
		"maybe": "5",
		"big": "18446744073709551615"
	}`)

	// Encode is the inverse; protojson also takes the proto field names.
	_, err = c.Encode([]byte(`{"order_id_is_not_here":1}`))
	if err == nil || !errors.Is(err, ErrBadMessage) || !strings.Contains(err.Error(), "order_id_is_not_here") {
		t.Fatalf("Encode(unknown field) = %v", err)
	}
	enc, err := c.Encode(got)
	if err != nil {
		t.Fatalf("Encode: %v", err)
	}
	if enc[0] != 0 {
		t.Fatalf("Encode's message indexes = %x, want the single byte 0", enc[:1])
	}
	again, err := c.Decode(enc)
	if err != nil {
		t.Fatal(err)
	}
	sameJSON(t, again, string(got))
	enc2, err := c.Encode([]byte(`{"total_cents": "7", "created_at": "2024-05-01T10:00:00Z"}`))
	if err != nil {
		t.Fatalf("Encode(proto names): %v", err)
	}
	want := concat([]byte{0}, pbVarint(2, 7), pbMessage(9, pbVarint(1, 1714557600)))
	if string(enc2) != string(want) {
		t.Fatalf("Encode = %x, want %x", enc2, want)
	}
}

func TestProtobufMessageIndexes(t *testing.T) {
	c := protoCodec(t, "")
	// [1]: count 1, index 1 (zigzag: 2, 2).
	got, err := c.Decode(concat([]byte{2, 2}, pbString(1, "o9")))
	if err != nil {
		t.Fatal(err)
	}
	sameJSON(t, got, `{"orderId": "o9"}`)
	// [1,0]: Refund.Line.
	got, err = c.Decode(concat([]byte{4, 2, 0}, pbVarint(1, 3)))
	if err != nil {
		t.Fatal(err)
	}
	sameJSON(t, got, `{"n": 3}`)
	// [0,1]: Order.Item. Index 0 of Order's nested messages is the
	// CountsEntry type the map field declares first, as in protoc's
	// descriptors (and so in Confluent's serializers).
	got, err = c.Decode(concat([]byte{4, 0, 2}, pbString(1, "s")))
	if err != nil {
		t.Fatal(err)
	}
	sameJSON(t, got, `{"sku": "s", "qty": 0}`)
	for _, bad := range [][]byte{{}, {2, 4}, {4, 2, 2}, {2}, {1}} {
		if _, err := c.Decode(bad); !errors.Is(err, ErrBadRecord) || !strings.Contains(err.Error(), "schema id 9") {
			t.Errorf("Decode(%x) = %v, want ErrBadRecord naming the id", bad, err)
		}
	}
	// A chosen message encodes with its indexes.
	for _, tc := range []struct {
		message string
		prefix  []byte
	}{{"shop.v1.Refund", []byte{2, 2}}, {"shop.v1.Refund.Line", []byte{4, 2, 0}}, {"shop.v1.Order.Item", []byte{4, 0, 2}}} {
		enc, err := protoCodec(t, tc.message).Encode([]byte(`{}`))
		if err != nil || string(enc) != string(tc.prefix) {
			t.Errorf("Encode with %s = %x, %v; want %x", tc.message, enc, err, tc.prefix)
		}
	}
	if _, err := CompileMessage(context.Background(), &registry.Schema{ID: 9, Type: registry.TypeProtobuf, Text: shopProto}, nil, "shop.v1.Nope"); !errors.Is(err, ErrUnsupportedSchema) {
		t.Errorf("CompileMessage(unknown) = %v", err)
	}
}

func TestProtobufBadRecords(t *testing.T) {
	c := protoCodec(t, "")
	for _, data := range [][]byte{
		{0, 0x0a, 0x05, 'a'},              // a string longer than the data
		{0, 0x0a, 0x02, 0xff, 0xfe},       // a string that is not UTF-8
		{0, 0x08},                         // a tag with no value
		concat([]byte{0}, pbVarint(0, 1)), // field number 0
	} {
		_, err := c.Decode(data)
		if !errors.Is(err, ErrBadRecord) || !strings.Contains(err.Error(), "schema id 9") {
			t.Errorf("Decode(%x) = %v, want ErrBadRecord naming the id", data, err)
		}
	}
	for _, tc := range []struct{ in, want string }{
		{`{"totalCents": "x"}`, `$.totalCents: invalid value for int64 field totalCents: "x"`},
		{`{"status": "LOST"}`, `$.status: invalid value for enum field status: "LOST"`},
		{"{\n  \"id\": \"é\",\n  \"items\": [{\"sku\": \"a\"}, {\"qty\": \"many\"}]}", `$.items[1].qty: invalid value for int32 field qty: "many"`},
		{`{"counts": {"a b": 1, "c": []}}`, `$.counts.c: invalid value for int32 field value: [`},
		{`{"first": {"sku": "a"}, "nope": 1}`, `$.nope: unknown field "nope"`},
		{`{"createdAt": "yesterday"}`, `$.createdAt: invalid google.protobuf.Timestamp value "yesterday"`},
		{`{"id": 5}`, `$.id: invalid value for string field id: 5`},
		{`[`, `$: unexpected token [`},
	} {
		_, err := c.Encode([]byte(tc.in))
		if !errors.Is(err, ErrBadMessage) || !strings.HasSuffix(err.Error(), tc.want) {
			t.Errorf("Encode(%s) = %v, want …%s", tc.in, err, tc.want)
		}
	}
}

func TestProtobufImportsThroughResolver(t *testing.T) {
	common := `syntax = "proto3"; package common; message Money { string currency = 1; int64 units = 2; }`
	main := `syntax = "proto3"; package shop; import "common/money.proto"; message Price { common.Money amount = 1; }`
	var asked []registry.Reference
	resolve := func(_ context.Context, ref registry.Reference) (*registry.Schema, error) {
		asked = append(asked, ref)
		if ref.Subject != "money" {
			return nil, registry.ErrUnavailable
		}
		return &registry.Schema{Type: registry.TypeProtobuf, Text: common}, nil
	}
	s := &registry.Schema{ID: 11, Type: registry.TypeProtobuf, Text: main, References: []registry.Reference{{Name: "common/money.proto", Subject: "money", Version: 2}}}
	c, err := Compile(context.Background(), s, resolve)
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.Decode(concat([]byte{0}, pbMessage(1, pbString(1, "EUR"), pbVarint(2, 12))))
	if err != nil {
		t.Fatal(err)
	}
	sameJSON(t, got, `{"amount": {"currency": "EUR", "units": "12"}}`)
	if len(asked) != 1 || asked[0].Version != 2 {
		t.Fatalf("resolver asked %v", asked)
	}
	s.References[0].Subject = "down"
	if _, err := Compile(context.Background(), s, resolve); !errors.Is(err, registry.ErrUnavailable) || !strings.Contains(err.Error(), "schema id 11") {
		t.Fatalf("Compile(registry down) = %v, want ErrUnavailable kept", err)
	}
	if _, err := Compile(context.Background(), &registry.Schema{ID: 12, Type: registry.TypeProtobuf, Text: `syntax = "proto3"; message {`}, nil); !errors.Is(err, ErrUnsupportedSchema) || !strings.Contains(err.Error(), "schema id 12") {
		t.Fatalf("Compile(syntax error) = %v", err)
	}
}

func TestProtobufProto2Required(t *testing.T) {
	c, err := Compile(context.Background(), &registry.Schema{ID: 13, Type: registry.TypeProtobuf,
		Text: `syntax = "proto2"; message M { required string a = 1; optional int32 b = 2; }`}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// A record without a required field is still delivered.
	got, err := c.Decode(concat([]byte{0}, pbVarint(2, 1)))
	if err != nil {
		t.Fatal(err)
	}
	sameJSON(t, got, `{"b": 1}`)
	// A publish without it is refused.
	if _, err := c.Encode([]byte(`{"b": 1}`)); !errors.Is(err, ErrBadMessage) || !strings.Contains(err.Error(), "required field M.a not set") {
		t.Fatalf("Encode(missing required) = %v", err)
	}
	if enc, err := c.Encode([]byte(`{"a": "x"}`)); err != nil || string(enc) != string(concat([]byte{0}, pbString(1, "x"))) {
		t.Fatalf("Encode = %x, %v", enc, err)
	}
}
