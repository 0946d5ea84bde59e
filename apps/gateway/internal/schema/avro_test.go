package schema

import (
	"bytes"
	"context"
	"errors"
	"math"
	"math/big"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/linkedin/goavro/v2"

	"github.com/sluicehq/sluice/apps/gateway/internal/registry"
)

// The Avro tests encode with goavro, an Avro implementation independent of
// the one under test, so a shared misreading of the spec cannot hide.

func avroCodecFor(t *testing.T, id int, text string) Codec {
	t.Helper()
	c, err := Compile(context.Background(), &registry.Schema{ID: id, Type: registry.TypeAvro, Text: text}, nil)
	if err != nil {
		t.Fatalf("Compile: %v", err)
	}
	return c
}

// wrap makes a record of one field v of type typ, so every case is a
// top-level record as on a real topic.
func wrap(typ string) string {
	return `{"type":"record","name":"R","namespace":"t","fields":[{"name":"v","type":` + typ + `}]}`
}

const itemSchema = `{"type":"record","name":"Item","namespace":"shop","fields":[{"name":"sku","type":"string"},{"name":"qty","type":"int"}]}`

func mustTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		panic(err)
	}
	return t
}

func TestAvroDecodeMatchesMapping(t *testing.T) {
	cases := []struct {
		name   string
		typ    string
		native any // goavro's native form of v
		want   string
	}{
		{"null", `"null"`, nil, `null`},
		{"boolean", `"boolean"`, true, `true`},
		{"int", `"int"`, int32(-42), `-42`},
		{"long", `"long"`, int64(math.MaxInt64), `9223372036854775807`},
		{"float", `"float"`, float32(1.5), `1.5`},
		{"double", `"double"`, 0.1, `0.1`},
		{"double large", `"double"`, 1234567.0, `1234567`},
		{"double huge", `"double"`, 1e21, `1e+21`},
		{"double tiny", `"double"`, 1e-7, `1e-7`},
		{"float fraction", `"float"`, float32(0.1), `0.1`},
		{"double NaN", `"double"`, math.NaN(), `"NaN"`},
		{"float Infinity", `"float"`, float32(math.Inf(1)), `"Infinity"`},
		{"double -Infinity", `"double"`, math.Inf(-1), `"-Infinity"`},
		{"string", `"string"`, "h\u00e9 \"q\"\n", `"hé \"q\"\n"`},
		{"bytes", `"bytes"`, []byte{0, 1, 0xfe, 0xff}, `"AAH+/w=="`},
		{"fixed", `{"type":"fixed","name":"H","size":3}`, []byte{1, 2, 3}, `"AQID"`},
		{"enum", `{"type":"enum","name":"S","symbols":["NEW","PAID"]}`, "PAID", `"PAID"`},
		{"array", `{"type":"array","items":"int"}`, []any{int32(1), int32(2)}, `[1,2]`},
		{"empty array", `{"type":"array","items":"int"}`, []any{}, `[]`},
		{"map", `{"type":"map","values":"long"}`, map[string]any{"a b": int64(7)}, `{"a b":7}`},
		{"nested record", `{"type":"record","name":"Outer","fields":[{"name":"item","type":` + itemSchema + `},{"name":"items","type":{"type":"array","items":"shop.Item"}}]}`,
			map[string]any{"item": map[string]any{"sku": "a", "qty": int32(1)}, "items": []any{map[string]any{"sku": "b", "qty": int32(2)}}},
			`{"item":{"sku":"a","qty":1},"items":[{"sku":"b","qty":2}]}`},
		{"union null first, null", `["null","string"]`, nil, `null`},
		{"union null first, value", `["null","string"]`, goavro.Union("string", "x"), `"x"`},
		{"union null second, value", `["string","null"]`, goavro.Union("string", "x"), `"x"`},
		{"union null second, null", `["string","null"]`, nil, `null`},
		{"nullable record", `["null",` + itemSchema + `]`, goavro.Union("shop.Item", map[string]any{"sku": "a", "qty": int32(3)}), `{"sku":"a","qty":3}`},
		{"general union, primitive", `["null","string","long"]`, goavro.Union("long", int64(5)), `{"long":5}`},
		{"general union, null", `["null","string","long"]`, nil, `null`},
		{"general union, named", `["string",` + itemSchema + `]`, goavro.Union("shop.Item", map[string]any{"sku": "a", "qty": int32(3)}), `{"shop.Item":{"sku":"a","qty":3}}`},
		{"general union, array", `["string",{"type":"array","items":"int"}]`, goavro.Union("array", []any{int32(1)}), `{"array":[1]}`},
		{"decimal bytes", `{"type":"bytes","logicalType":"decimal","precision":9,"scale":2}`, big.NewRat(1230, 100), `"12.30"`},
		{"decimal bytes negative", `{"type":"bytes","logicalType":"decimal","precision":9,"scale":2}`, big.NewRat(-5, 100), `"-0.05"`},
		{"decimal bytes scale 0", `{"type":"bytes","logicalType":"decimal","precision":30}`, new(big.Rat).SetInt(new(big.Int).Lsh(big.NewInt(1), 80)), `"1208925819614629174706176"`},
		{"decimal fixed", `{"type":"fixed","name":"D","size":8,"logicalType":"decimal","precision":18,"scale":3}`, big.NewRat(-123456, 1000), `"-123.456"`},
		{"decimal fixed 16 negative", `{"type":"fixed","name":"D16","size":16,"logicalType":"decimal","precision":30,"scale":2}`, mustRat("-12345678901234567890.12"), `"-12345678901234567890.12"`},
		{"decimal bytes 8 bytes min", `{"type":"bytes","logicalType":"decimal","precision":19,"scale":0}`, new(big.Rat).SetInt64(math.MinInt64), `"-9223372036854775808"`},
		{"date", `{"type":"int","logicalType":"date"}`, time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC), `"2024-02-29"`},
		{"date before 1970", `{"type":"int","logicalType":"date"}`, time.Date(1969, 12, 31, 0, 0, 0, 0, time.UTC), `"1969-12-31"`},
		{"time-millis", `{"type":"int","logicalType":"time-millis"}`, 13*time.Hour + 5*time.Minute + 7*time.Second + 8*time.Millisecond, `"13:05:07.008"`},
		{"time-micros", `{"type":"long","logicalType":"time-micros"}`, 23*time.Hour + 59*time.Minute + 59*time.Second + 999999*time.Microsecond, `"23:59:59.999999"`},
		{"timestamp-millis", `{"type":"long","logicalType":"timestamp-millis"}`, mustTime("2024-05-01T12:34:56.789+02:00"), `"2024-05-01T10:34:56.789Z"`},
		{"timestamp-micros", `{"type":"long","logicalType":"timestamp-micros"}`, mustTime("1960-01-01T00:00:00.000001Z"), `"1960-01-01T00:00:00.000001Z"`},
		// goavro knows no local-timestamp types: it writes the raw long.
		{"local-timestamp-millis", `{"type":"long","logicalType":"local-timestamp-millis"}`, mustTime("2024-05-01T12:34:56.789Z").UnixMilli(), `"2024-05-01T12:34:56.789"`},
		{"local-timestamp-micros", `{"type":"long","logicalType":"local-timestamp-micros"}`, mustTime("2024-05-01T12:34:56.000789Z").UnixMicro(), `"2024-05-01T12:34:56.000789"`},
		{"uuid", `{"type":"string","logicalType":"uuid"}`, "0e1f6c36-4c9b-4a8b-9a53-6f7f4b0e9e2a", `"0e1f6c36-4c9b-4a8b-9a53-6f7f4b0e9e2a"`},
		{"nullable timestamp", `["null",{"type":"long","logicalType":"timestamp-millis"}]`, goavro.Union("long.timestamp-millis", time.UnixMilli(1)), `"1970-01-01T00:00:00.001Z"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			schemaText := wrap(tc.typ)
			ref, err := goavro.NewCodec(schemaText)
			if err != nil {
				t.Fatalf("goavro: %v", err)
			}
			data, err := ref.BinaryFromNative(nil, map[string]any{"v": tc.native})
			if err != nil {
				t.Fatalf("goavro encode: %v", err)
			}
			c := avroCodecFor(t, 1, schemaText)
			got, err := c.Decode(data)
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			want := `{"v":` + tc.want + `}`
			if string(got) != want {
				t.Fatalf("Decode = %s, want %s", got, want)
			}
			// Encode is the inverse: its bytes decode with goavro to the
			// same value.
			enc, err := c.Encode(got)
			if err != nil {
				t.Fatalf("Encode(%s): %v", got, err)
			}
			if !bytes.Equal(enc, data) {
				back, _, err := ref.NativeFromBinary(enc)
				if err != nil {
					t.Fatalf("goavro cannot decode Encode's output %x: %v", enc, err)
				}
				orig, _, _ := ref.NativeFromBinary(data)
				if !reflect.DeepEqual(back, orig) {
					t.Fatalf("Encode's output decodes to %#v, want %#v", back, orig)
				}
			}
		})
	}
}

func TestAvroMapWithSeveralKeysRoundTrips(t *testing.T) {
	schemaText := wrap(`{"type":"map","values":{"type":"array","items":"string"}}`)
	ref, _ := goavro.NewCodec(schemaText)
	native := map[string]any{"v": map[string]any{"a": []any{"x"}, "b": []any{}, "c": []any{"y", "z"}}}
	data, err := ref.BinaryFromNative(nil, native)
	if err != nil {
		t.Fatal(err)
	}
	c := avroCodecFor(t, 1, schemaText)
	got, err := c.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	enc, err := c.Encode(got)
	if err != nil {
		t.Fatal(err)
	}
	back, _, err := ref.NativeFromBinary(enc)
	if err != nil || !reflect.DeepEqual(back, native) {
		t.Fatalf("round trip = %#v, %v; want %#v", back, err, native)
	}
}

func TestAvroEncodeAlsoAccepts(t *testing.T) {
	cases := []struct {
		name, typ, in string
		native        any // what goavro must read back
	}{
		{"decimal as number", `{"type":"bytes","logicalType":"decimal","precision":9,"scale":2}`, `12.3`, big.NewRat(123, 10)},
		{"decimal with exponent", `{"type":"bytes","logicalType":"decimal","precision":9,"scale":2}`, `1.5e2`, big.NewRat(150, 1)},
		{"decimal with fewer digits", `{"type":"bytes","logicalType":"decimal","precision":9,"scale":2}`, `"7"`, big.NewRat(7, 1)},
		{"bare union value", `["null","string","long"]`, `5`, goavro.Union("long", int64(5))},
		{"bare union string", `["null","string","long"]`, `"x"`, goavro.Union("string", "x")},
		{"bare record in union", `["string",` + itemSchema + `]`, `{"sku":"a","qty":1}`, goavro.Union("shop.Item", map[string]any{"sku": "a", "qty": int32(1)})},
		{"timestamp with offset", `{"type":"long","logicalType":"timestamp-millis"}`, `"2024-05-01T12:00:00+02:00"`, mustTime("2024-05-01T10:00:00Z")},
		{"NaN", `"float"`, `"NaN"`, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			schemaText := wrap(tc.typ)
			c := avroCodecFor(t, 1, schemaText)
			enc, err := c.Encode([]byte(`{"v":` + tc.in + `}`))
			if err != nil {
				t.Fatalf("Encode: %v", err)
			}
			ref, _ := goavro.NewCodec(schemaText)
			back, _, err := ref.NativeFromBinary(enc)
			if err != nil {
				t.Fatalf("goavro: %v", err)
			}
			got := back.(map[string]any)["v"]
			if tc.native == nil {
				if f, ok := got.(float32); !ok || !math.IsNaN(float64(f)) {
					t.Fatalf("got %#v, want NaN", got)
				}
				return
			}
			if r, ok := got.(*big.Rat); ok {
				if r.Cmp(tc.native.(*big.Rat)) != 0 {
					t.Fatalf("got %s, want %s", r, tc.native)
				}
				return
			}
			if ts, ok := got.(time.Time); ok {
				if !ts.Equal(tc.native.(time.Time)) {
					t.Fatalf("got %s, want %s", ts, tc.native)
				}
				return
			}
			if !reflect.DeepEqual(got, tc.native) {
				t.Fatalf("got %#v, want %#v", got, tc.native)
			}
		})
	}
}

func TestAvroEncodeErrorsNameTheField(t *testing.T) {
	schemaText := `{"type":"record","name":"Envelope","fields":[{"name":"order","type":{"type":"record","name":"Order","fields":[
		{"name":"items","type":{"type":"array","items":` + itemSchema + `}},
		{"name":"price","type":{"type":"bytes","logicalType":"decimal","precision":4,"scale":2}},
		{"name":"status","type":{"type":"enum","name":"S","symbols":["NEW","PAID"]},"default":"NEW"},
		{"name":"note","type":["null","string"],"default":null},
		{"name":"choice","type":["null","string","int","long"],"default":null},
		{"name":"attrs","type":{"type":"map","values":"int"},"default":{}}]}}]}`
	c := avroCodecFor(t, 1, schemaText)
	ok := `{"order":{"items":[{"sku":"a","qty":1}],"price":"1.00"}}`
	if _, err := c.Encode([]byte(ok)); err != nil {
		t.Fatalf("Encode(valid, defaults left out): %v", err)
	}
	cases := []struct{ in, want string }{
		{`{"order":{"items":[{"sku":"a","qty":1},{"sku":"b","qty":2},{"sku":"c","qty":"x"}],"price":"1.00"}}`, `$.order.items[2].qty: expected an int, got "x"`},
		{`{"order":{"items":[{"sku":"a","qty":2147483648}],"price":"1.00"}}`, `$.order.items[0].qty: 2147483648 is out of range for an int`},
		{`{"order":{"items":[{"qty":1}],"price":"1.00"}}`, `$.order.items[0].sku: is required`},
		{`{"order":{"items":[],"price":"1.005"}}`, `$.order.price: "1.005" has more than 2 fraction digits`},
		{`{"order":{"items":[],"price":"0x10"}}`, `$.order.price: expected a decimal, got "0x10"`},
		{`{"order":{"items":[],"price":"1e999999999"}}`, `$.order.price: expected a decimal, got "1e999999999"`},
		{`{"order":{"items":[{"sku":"a","qty":1e999999999}],"price":"1"}}`, `$.order.items[0].qty: expected an int, got 1e999999999`},
		{`{"order":{"items":[{"sku":"a","qty":1.5}],"price":"1"}}`, `$.order.items[0].qty: expected an int, got 1.5`},
		{`{"order":{"items":[{"sku":"a","qty":2e0}],"price":"1","attrs":{"x":1e3}}}`, ``},
		{`{"order":{"items":[],"price":"1/3"}}`, `$.order.price: expected a decimal, got "1/3"`},
		{`{"order":{"items":[],"price":"100.00"}}`, `$.order.price: "100.00" has more than 4 digits (precision)`},
		{`{"order":{"items":[],"price":"1","status":"LOST"}}`, `$.order.status: "LOST" is not a symbol of enum S (NEW, PAID)`},
		{`{"order":{"items":[],"price":"1","colour":"red"}}`, `$.order.colour: not a field of record Order`},
		{`{"order":{"items":[],"price":"1","zz":1,"b":2,"colour":3}}`, `$.order.b: not a field of record Order`},
		{`{"order":{"items":[],"price":"1","note":5}}`, `$.order.note: expected a string, got 5`},
		{`{"order":{"items":[],"price":"1","choice":7}}`, `$.order.choice: 7 fits several branches of the union (int, long): wrap it as {"<type>": value}`},
		{`{"order":{"items":[],"price":"1","choice":{"long":"x"}}}`, `$.order.choice.long: expected a long, got "x"`},
		{`{"order":{"items":[],"price":"1","attrs":{"a b":true}}}`, `$.order.attrs["a b"]: expected an int, got true`},
		{`[1]`, `$: expected an object (record Envelope), got an array`},
	}
	for _, tc := range cases {
		_, err := c.Encode([]byte(tc.in))
		if tc.want == "" {
			if err != nil {
				t.Errorf("Encode(%s) = %v", tc.in, err)
			}
			continue
		}
		if err == nil || !errors.Is(err, ErrBadMessage) || !strings.HasSuffix(err.Error(), tc.want) {
			t.Errorf("Encode(%s) = %v, want …%s", tc.in, err, tc.want)
		}
	}
	if _, err := c.Encode([]byte(`{"order":`)); !errors.Is(err, ErrBadMessage) {
		t.Errorf("Encode(truncated JSON) = %v, want ErrBadMessage", err)
	}
}

// Schema evolution is a property of the writer's schema: each record decodes
// with the codec of the id in its header, so records of two versions on one
// topic each decode to their own shape.
func TestAvroTwoVersionsSideBySide(t *testing.T) {
	v1 := `{"type":"record","name":"Order","namespace":"shop","fields":[{"name":"id","type":"string"}]}`
	v2 := `{"type":"record","name":"Order","namespace":"shop","fields":[{"name":"id","type":"string"},{"name":"qty","type":"int","default":1}]}`
	c1, c2 := avroCodecFor(t, 1, v1), avroCodecFor(t, 2, v2)
	g1, _ := goavro.NewCodec(v1)
	g2, _ := goavro.NewCodec(v2)
	r1, _ := g1.BinaryFromNative(nil, map[string]any{"id": "a"})
	r2, _ := g2.BinaryFromNative(nil, map[string]any{"id": "b", "qty": int32(3)})
	for _, tc := range []struct {
		c    Codec
		data []byte
		want string
	}{{c1, r1, `{"id":"a"}`}, {c2, r2, `{"id":"b","qty":3}`}, {c1, r1, `{"id":"a"}`}} {
		got, err := tc.c.Decode(tc.data)
		if err != nil || string(got) != tc.want {
			t.Fatalf("Decode = %s, %v; want %s", got, err, tc.want)
		}
	}
	// A v2 record read with v1's codec is the error it is, not a quiet
	// misreading: the record has bytes left over.
	if _, err := c1.Decode(r2); !errors.Is(err, ErrBadRecord) {
		t.Fatalf("v2 record with v1 codec: %v, want ErrBadRecord", err)
	}
	// Publishing with v2 fills the default.
	enc, err := c2.Encode([]byte(`{"id":"c"}`))
	if err != nil {
		t.Fatal(err)
	}
	back, _, err := g2.NativeFromBinary(enc)
	if err != nil || !reflect.DeepEqual(back, map[string]any{"id": "c", "qty": int32(1)}) {
		t.Fatalf("goavro reads %#v, %v", back, err)
	}
}

func TestAvroBadRecordNamesSchemaIDNotPayload(t *testing.T) {
	c := avroCodecFor(t, 42, wrap(`"string"`))
	secret := []byte{0x20, 's', 'e', 'c', 'r', 'e', 't'} // length 16, 6 bytes follow
	_, err := c.Decode(secret)
	if err == nil || !errors.Is(err, ErrBadRecord) || !strings.Contains(err.Error(), "schema id 42") || strings.Contains(err.Error(), "secret") {
		t.Fatalf("Decode(truncated) = %v", err)
	}
	for _, data := range [][]byte{{}, {0x80}, {0x01}, {0x02, 'a', 'b'}} {
		if _, err := c.Decode(data); !errors.Is(err, ErrBadRecord) {
			t.Errorf("Decode(%x) = %v, want ErrBadRecord", data, err)
		}
	}
}

func TestAvroCompileErrors(t *testing.T) {
	_, err := Compile(context.Background(), &registry.Schema{ID: 7, Type: registry.TypeAvro, Text: `{"type":"record","name":"R","fields":[{"name":"a","type":"Missing"}]}`}, nil)
	if !errors.Is(err, ErrUnsupportedSchema) || !strings.Contains(err.Error(), "schema id 7") {
		t.Fatalf("Compile(unknown type) = %v", err)
	}
}

// Named types from other subjects come through the Resolver, and a schema
// that is a recursive type compiles.
func TestAvroReferencesAndRecursion(t *testing.T) {
	refs := map[string]string{"shop-item": itemSchema}
	resolve := func(_ context.Context, ref registry.Reference) (*registry.Schema, error) {
		text, ok := refs[ref.Subject]
		if !ok {
			return nil, registry.ErrSchemaNotFound
		}
		return &registry.Schema{Type: registry.TypeAvro, Text: text}, nil
	}
	main := `{"type":"record","name":"Order","namespace":"shop","fields":[{"name":"items","type":{"type":"array","items":"shop.Item"}}]}`
	c, err := Compile(context.Background(), &registry.Schema{ID: 3, Type: registry.TypeAvro, Text: main,
		References: []registry.Reference{{Name: "shop.Item", Subject: "shop-item", Version: 1}}}, resolve)
	if err != nil {
		t.Fatal(err)
	}
	g, err := goavro.NewCodec(`{"type":"record","name":"Order","namespace":"shop","fields":[{"name":"items","type":{"type":"array","items":` + itemSchema + `}}]}`)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := g.BinaryFromNative(nil, map[string]any{"items": []any{map[string]any{"sku": "a", "qty": int32(2)}}})
	if got, err := c.Decode(data); err != nil || string(got) != `{"items":[{"sku":"a","qty":2}]}` {
		t.Fatalf("Decode = %s, %v", got, err)
	}
	_, err = Compile(context.Background(), &registry.Schema{ID: 4, Type: registry.TypeAvro, Text: main,
		References: []registry.Reference{{Name: "shop.Item", Subject: "gone", Version: 1}}}, resolve)
	if !errors.Is(err, registry.ErrSchemaNotFound) {
		t.Fatalf("Compile(missing reference) = %v, want ErrSchemaNotFound", err)
	}

	list := `{"type":"record","name":"Node","fields":[{"name":"v","type":"int"},{"name":"next","type":["null","Node"],"default":null}]}`
	lc := avroCodecFor(t, 5, list)
	lg, _ := goavro.NewCodec(list)
	data, _ = lg.BinaryFromNative(nil, map[string]any{"v": int32(1), "next": goavro.Union("Node", map[string]any{"v": int32(2), "next": nil})})
	got, err := lc.Decode(data)
	if err != nil || string(got) != `{"v":1,"next":{"v":2,"next":null}}` {
		t.Fatalf("Decode(recursive) = %s, %v", got, err)
	}
	if enc, err := lc.Encode([]byte(`{"v":1,"next":{"v":2}}`)); err != nil || !bytes.Equal(enc, data) {
		t.Fatalf("Encode(recursive) = %x, %v; want %x", enc, err, data)
	}
}

func TestAvroDecodeBoundsRecursion(t *testing.T) {
	c := avroCodecFor(t, 5, `{"type":"record","name":"Node","fields":[{"name":"next","type":["null","Node"]}]}`)
	deep := append(bytes.Repeat([]byte{2}, 20000), 0) // 20,000 nested nodes
	if _, err := c.Decode(deep); !errors.Is(err, ErrBadRecord) || !strings.Contains(err.Error(), "deeper") || len(err.Error()) > 500 {
		t.Fatalf("Decode(deep) = %v", err)
	}
	shallow := append(bytes.Repeat([]byte{2}, 100), 0)
	if _, err := c.Decode(shallow); err != nil {
		t.Fatalf("Decode(100 deep) = %v", err)
	}
}

func TestAvroEncodeRefusesTrailingJSON(t *testing.T) {
	c := avroCodecFor(t, 1, wrap(`"int"`))
	for _, in := range []string{`{"v":1} {"v":2}`, `{"v":1}]`, `{"v":1} x`} {
		if _, err := c.Encode([]byte(in)); !errors.Is(err, ErrBadMessage) {
			t.Errorf("Encode(%s) = %v, want ErrBadMessage", in, err)
		}
	}
	if _, err := c.Encode([]byte(" {\"v\":1}\n")); err != nil {
		t.Errorf("Encode(with whitespace) = %v", err)
	}
}

func TestAvroDecodeErrorNamesWhere(t *testing.T) {
	schemaText := `{"type":"record","name":"Order","fields":[{"name":"items","type":{"type":"array","items":` + itemSchema + `}},{"name":"m","type":{"type":"map","values":["null","int","string"]}}]}`
	c := avroCodecFor(t, 8, schemaText)
	g, _ := goavro.NewCodec(schemaText)
	data, _ := g.BinaryFromNative(nil, map[string]any{
		"items": []any{map[string]any{"sku": "a", "qty": int32(1)}, map[string]any{"sku": "b", "qty": int32(2)}},
		"m":     map[string]any{"k 1": goavro.Union("string", "xyz")},
	})
	for cut, want := range map[int]string{
		4:             "$.items[1].sku: data ends early",
		len(data) - 2: `$.m["k 1"].string: length 3 beyond the data`,
	} {
		_, err := c.Decode(data[:cut])
		if !errors.Is(err, ErrBadRecord) || !strings.HasSuffix(err.Error(), want) || !strings.Contains(err.Error(), "schema id 8") {
			t.Errorf("Decode(first %d bytes) = %v, want …%s", cut, err, want)
		}
	}
}

// A Codec is shared by every consumer and publisher of its schema id.
func TestCodecsConcurrentUse(t *testing.T) {
	avroC := avroCodecFor(t, 1, wrap(`{"type":"array","items":`+itemSchema+`}`))
	protoC := protoCodec(t, "")
	jsonC := orderJSONCodec(t)
	avroData, err := avroC.Encode([]byte(`{"v":[{"sku":"a","qty":1}]}`))
	if err != nil {
		t.Fatal(err)
	}
	protoData, err := protoC.Encode([]byte(`{"id":"x","items":[{"qty":2}]}`))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 8)
	for range 8 {
		go func() {
			for range 200 {
				if _, err := avroC.Decode(avroData); err != nil {
					done <- err
					return
				}
				if _, err := protoC.Decode(protoData); err != nil {
					done <- err
					return
				}
				if _, err := jsonC.Encode([]byte(`{"id":"a","items":[]}`)); err != nil {
					done <- err
					return
				}
			}
			done <- nil
		}()
	}
	for range 8 {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
}
