package schema

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/sluicehq/sluice/apps/gateway/internal/registry"
)

const orderJSONSchema = `{
	"$schema": "https://json-schema.org/draft/2020-12/schema",
	"type": "object",
	"required": ["id", "items"],
	"properties": {
		"id": {"type": "string"},
		"items": {"type": "array", "items": {"$ref": "item.json"}},
		"note": {"type": ["string", "null"]}
	},
	"additionalProperties": false
}`

const itemJSONSchema = `{"type": "object", "required": ["qty"], "properties": {"qty": {"type": "integer", "minimum": 1}}}`

func orderJSONCodec(t *testing.T) Codec {
	t.Helper()
	resolve := func(_ context.Context, ref registry.Reference) (*registry.Schema, error) {
		if ref.Subject != "item" {
			return nil, registry.ErrSchemaNotFound
		}
		return &registry.Schema{Type: registry.TypeJSONSchema, Text: itemJSONSchema}, nil
	}
	c, err := Compile(context.Background(), &registry.Schema{ID: 21, Type: registry.TypeJSONSchema, Text: orderJSONSchema,
		References: []registry.Reference{{Name: "item.json", Subject: "item", Version: 1}}}, resolve)
	if err != nil {
		t.Fatalf("Compile: %v", err)
	}
	return c
}

func TestJSONSchemaDecodeChecksJSONOnly(t *testing.T) {
	c := orderJSONCodec(t)
	// Decode does not validate: the writer's schema is the registry's
	// concern, and a subscriber is better served by the record than by
	// nothing.
	for _, in := range []string{`{"id":"a","items":[]}`, ` {"anything": [1, 2]} `} {
		got, err := c.Decode([]byte(in))
		if err != nil || string(got) != in {
			t.Errorf("Decode(%s) = %s, %v", in, got, err)
		}
	}
	for _, in := range []string{`{"id":`, "\"\xff\"", ``} {
		if _, err := c.Decode([]byte(in)); !errors.Is(err, ErrBadRecord) || !strings.Contains(err.Error(), "schema id 21") {
			t.Errorf("Decode(%q) = %v, want ErrBadRecord naming the id", in, err)
		}
	}
}

func TestJSONSchemaEncodeValidates(t *testing.T) {
	c := orderJSONCodec(t)
	ok := `{"id":"a","items":[{"qty":1}],"note":null}`
	if got, err := c.Encode([]byte(ok)); err != nil || string(got) != ok {
		t.Fatalf("Encode(valid) = %s, %v", got, err)
	}
	cases := []struct{ in, want string }{
		{`{"id":"a","items":[{"qty":1},{"qty":2},{"qty":0}]}`, `$.items[2].qty: must be >= 1`},
		{`{"id":"a","items":[{}]}`, `$.items[0].qty: is required`},
		{`{"items":[]}`, `$.id: is required`},
		{`{"id":5,"items":[]}`, `$.id: must be string, got number`},
		{`{"id":"a","items":[],"colour":"red"}`, `$.colour: is not allowed`},
		{`{"id":"a","items":[],"note":3}`, `$.note: must be null or string, got number`},
		{`{"id":"a","items":[],"2":true}`, `$["2"]: is not allowed`},
		{`[]`, `$: must be object, got array`},
		{`{"id":`, `not valid JSON`},
	}
	for _, tc := range cases {
		_, err := c.Encode([]byte(tc.in))
		if !errors.Is(err, ErrBadMessage) || !strings.HasSuffix(err.Error(), tc.want) {
			t.Errorf("Encode(%s) = %v, want …%s", tc.in, err, tc.want)
		}
	}
}

func TestJSONSchemaCompileErrors(t *testing.T) {
	for _, s := range []*registry.Schema{
		{ID: 31, Type: registry.TypeJSONSchema, Text: `{"type": 5}`},
		{ID: 32, Type: registry.TypeJSONSchema, Text: `{"type":`},
		// A $ref outside the schema and its references is refused, not
		// fetched or read from disk.
		{ID: 33, Type: registry.TypeJSONSchema, Text: `{"$ref": "file:///etc/passwd"}`},
		{ID: 34, Type: registry.TypeJSONSchema, Text: `{"$ref": "other.json"}`},
	} {
		_, err := Compile(context.Background(), s, nil)
		if !errors.Is(err, ErrUnsupportedSchema) || !strings.Contains(err.Error(), "schema id") {
			t.Errorf("Compile(%s) = %v, want ErrUnsupportedSchema naming the id", s.Text, err)
		}
	}
	if _, err := Compile(context.Background(), &registry.Schema{ID: 35, Type: "XML", Text: `<x/>`}, nil); !errors.Is(err, ErrUnsupportedSchema) {
		t.Errorf("Compile(unknown type) = %v", err)
	}
}
