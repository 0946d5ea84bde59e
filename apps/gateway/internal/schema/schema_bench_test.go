package schema

import (
	"context"
	"encoding/json"
	"math/big"
	"testing"
	"time"

	"github.com/linkedin/goavro/v2"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/sluicehq/sluice/apps/gateway/internal/protocol"
	"github.com/sluicehq/sluice/apps/gateway/internal/registry"
)

// benchOrderSchema is a realistic ten-field record: strings, numbers, a
// decimal, an enum, a timestamp, a nullable string, a map and an array of
// records.
const benchOrderSchema = `{"type":"record","name":"Order","namespace":"shop","fields":[
	{"name":"id","type":{"type":"string","logicalType":"uuid"}},
	{"name":"customer","type":"string"},
	{"name":"amount","type":{"type":"bytes","logicalType":"decimal","precision":12,"scale":2}},
	{"name":"currency","type":{"type":"enum","name":"Currency","symbols":["EUR","USD","GBP"]}},
	{"name":"created_at","type":{"type":"long","logicalType":"timestamp-millis"}},
	{"name":"qty","type":"int"},
	{"name":"express","type":"boolean"},
	{"name":"note","type":["null","string"],"default":null},
	{"name":"tags","type":{"type":"map","values":"string"}},
	{"name":"items","type":{"type":"array","items":{"type":"record","name":"Item","fields":[
		{"name":"sku","type":"string"},{"name":"qty","type":"int"},{"name":"price","type":"double"}]}}}]}`

func benchAvroRecord(b *testing.B) (Codec, []byte) {
	b.Helper()
	g, err := goavro.NewCodec(benchOrderSchema)
	if err != nil {
		b.Fatal(err)
	}
	data, err := g.BinaryFromNative(nil, map[string]any{
		"id":         "0e1f6c36-4c9b-4a8b-9a53-6f7f4b0e9e2a",
		"customer":   "Ada Lovelace",
		"amount":     mustRat("1234.50"),
		"currency":   "EUR",
		"created_at": time.UnixMilli(1714557600123),
		"qty":        int32(3),
		"express":    true,
		"note":       goavro.Union("string", "leave at the door"),
		"tags":       map[string]any{"channel": "web"},
		"items": []any{
			map[string]any{"sku": "BOOK-1", "qty": int32(1), "price": 19.99},
			map[string]any{"sku": "PEN-7", "qty": int32(2), "price": 2.5},
		},
	})
	if err != nil {
		b.Fatal(err)
	}
	c, err := Compile(context.Background(), &registry.Schema{ID: 1, Type: registry.TypeAvro, Text: benchOrderSchema}, nil)
	if err != nil {
		b.Fatal(err)
	}
	return c, data
}

// BenchmarkDecodeAvro is the consumer-path cost of an Avro record against
// what a json endpoint pays for the same record as JSON (json.Valid, and the
// gateway's own protocol.ValidJSON that json endpoints run).
func BenchmarkDecodeAvro(b *testing.B) {
	c, data := benchAvroRecord(b)
	asJSON, err := c.Decode(data)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("avro", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			if _, err := c.Decode(data); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("json.Valid", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(asJSON)))
		for b.Loop() {
			if !json.Valid(asJSON) {
				b.Fatal("invalid")
			}
		}
	})
	b.Run("protocol.ValidJSON", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(asJSON)))
		for b.Loop() {
			if !protocol.ValidJSON(asJSON) {
				b.Fatal("invalid")
			}
		}
	})
}

func BenchmarkEncodeAvro(b *testing.B) {
	c, data := benchAvroRecord(b)
	asJSON, _ := c.Decode(data)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Encode(asJSON); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecodeProtobuf is the same kind of record as protobuf
// (dynamicpb + protojson).
func BenchmarkDecodeProtobuf(b *testing.B) {
	c, err := Compile(context.Background(), &registry.Schema{ID: 9, Type: registry.TypeProtobuf, Text: shopProto}, nil)
	if err != nil {
		b.Fatal(err)
	}
	data := concat([]byte{0},
		pbString(1, "0e1f6c36-4c9b-4a8b-9a53-6f7f4b0e9e2a"),
		pbVarint(2, 123450),
		pbMessage(3, pbString(1, "BOOK-1"), pbVarint(2, 1)),
		pbMessage(3, pbString(1, "PEN-7"), pbVarint(2, 2)),
		pbMessage(4, pbString(1, "channel"), pbVarint(2, 1)),
		pbString(5, "4242"),
		pbVarint(7, 1),
		pbMessage(9, pbVarint(1, 1714557600), pbVarint(2, 123000000)),
		pbVarint(13, 3),
		protowire.AppendBytes(protowire.AppendTag(nil, 8, protowire.BytesType), []byte("raw")),
	)
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := c.Decode(data); err != nil {
			b.Fatal(err)
		}
	}
}

func mustRat(s string) any {
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		panic(s)
	}
	return r
}
