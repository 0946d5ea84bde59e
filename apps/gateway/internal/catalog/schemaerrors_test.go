package catalog

import (
	"strings"
	"testing"

	"github.com/sluicehq/sluice/apps/gateway/internal/protocol"
)

func TestValidatePayloadSchemaMessages(t *testing.T) {
	e := schemaEndpoint(t, map[string]any{
		"type":     "object",
		"required": []string{"qty", "sku"},
		"properties": map[string]any{
			"qty":   map[string]any{"type": "integer", "minimum": 1, "maximum": 100},
			"sku":   map[string]any{"type": "string", "minLength": 3, "pattern": "^[A-Z]+$"},
			"price": map[string]any{"exclusiveMinimum": 0, "multipleOf": 0.5},
			"tags":  map[string]any{"type": "array", "maxItems": 2, "items": map[string]any{"enum": []string{"a", "b"}}},
			"note":  map[string]any{"anyOf": []any{map[string]any{"type": "string"}, map[string]any{"type": "null"}}},
			"a/b":   map[string]any{"type": "boolean"},
		},
		"additionalProperties": false,
	})
	cases := []struct{ payload, want string }{
		{`{"qty":3,"sku":"ABC"}`, ""},
		{`{"qty":0,"sku":"ABC"}`, "/qty: must be >= 1"},
		{`{"qty":101,"sku":"ABC"}`, "/qty: must be <= 100"},
		{`{"qty":1.5,"sku":"ABC"}`, "/qty: must be integer, got number"},
		{`{"qty":"3","sku":"ABC"}`, "/qty: must be integer, got string"},
		{`{"sku":"ABC"}`, "/qty: is required"},
		{`{}`, "/qty: is required"},
		{`{"qty":3,"sku":"AB"}`, "/sku: must be at least 3 characters long"},
		{`{"qty":3,"sku":"abc"}`, `/sku: must match pattern "^[A-Z]+$"`},
		{`{"qty":3,"sku":"ABC","price":0}`, "/price: must be > 0"},
		{`{"qty":3,"sku":"ABC","price":0.3}`, "/price: must be a multiple of 0.5"},
		{`{"qty":3,"sku":"ABC","tags":["a","b","a"]}`, "/tags: must have at most 2 items"},
		{`{"qty":3,"sku":"ABC","tags":["c"]}`, `/tags/0: must be one of "a", "b"`},
		{`{"qty":3,"sku":"ABC","note":5}`, "/note: must be string or null, got number"},
		{`{"qty":3,"sku":"ABC","a/b":1}`, "/a~1b: must be boolean, got number"},
		{`{"qty":3,"sku":"ABC","extra":1}`, "/extra: is not allowed"},
		{`[1]`, "(root): must be object, got array"},
		// Several failures: the first location in pointer order is named,
		// whatever order the validator visited the members in.
		{`{"qty":0,"sku":"a","price":-1}`, "/price: must be > 0"},
		{`{"qty":"x"`, "payload is not valid JSON (byte 10"},
	}
	for _, tc := range cases {
		for range 5 { // map iteration order varies between runs
			err := e.ValidatePayload([]byte(tc.payload))
			if tc.want == "" {
				if err != nil {
					t.Fatalf("%s: %v", tc.payload, err)
				}
				continue
			}
			if err == nil {
				t.Fatalf("%s: accepted", tc.payload)
			}
			if err.Code != protocol.CodeInvalidPayload {
				t.Fatalf("%s: code %d", tc.payload, err.Code)
			}
			if !strings.HasPrefix(err.Message, tc.want) {
				t.Fatalf("%s: message %q, want %q", tc.payload, err.Message, tc.want)
			}
		}
	}
}

func TestValidatePayloadSchemaKinds(t *testing.T) {
	cases := []struct {
		schema  map[string]any
		payload string
		want    string
	}{
		{map[string]any{"const": "x"}, `"y"`, `(root): must be "x"`},
		{map[string]any{"not": map[string]any{"type": "string"}}, `"y"`, `(root): must not match the "not" schema`},
		{map[string]any{"oneOf": []any{map[string]any{"type": "number"}, map[string]any{"type": "integer"}}}, `1`, "(root): must match exactly one schema of oneOf, matches 0 and 1"},
		{map[string]any{"oneOf": []any{map[string]any{"minimum": 5}, map[string]any{"maximum": 1}}}, `3`, "(root): must match exactly one schema of oneOf, matches none"},
		{map[string]any{"anyOf": []any{map[string]any{"minimum": 5}, map[string]any{"maximum": 1}}}, `3`, "(root): must match at least one schema of anyOf"},
		{map[string]any{"properties": map[string]any{"a": false}}, `{"a":1}`, "/a: is not allowed"},
		{map[string]any{"minProperties": 2}, `{"a":1}`, "(root): must have at least 2 properties"},
		{map[string]any{"maxLength": 2}, `"héé"`, "(root): must be at most 2 characters long"},
		{map[string]any{"minItems": 2}, `[1]`, "(root): must have at least 2 items"},
		{map[string]any{"enum": []any{1, map[string]any{"a": true}}}, `2`, `(root): must be one of 1, {"a":true}`},
		{map[string]any{"uniqueItems": true}, `[1,1]`, "(root): items at 0 and 1 are equal"},
		{map[string]any{"contains": map[string]any{"type": "string"}}, `[1]`, `(root): must contain an item matching the "contains" schema`},
		{map[string]any{"required": []string{"b", "a"}}, `{}`, "/b: is required"},
		{map[string]any{"properties": map[string]any{"x": map[string]any{"$ref": "#/$defs/d"}}, "$defs": map[string]any{"d": map[string]any{"anyOf": []any{map[string]any{"type": "string"}, map[string]any{"$ref": "#/$defs/n"}}}, "n": map[string]any{"type": "null"}}}, `{"x":1}`, "/x: must be string or null, got number"},
		{map[string]any{"exclusiveMaximum": 10}, `10`, "(root): must be < 10"},
		{map[string]any{"allOf": []any{map[string]any{"$ref": "#/$defs/pos"}}, "$defs": map[string]any{"pos": map[string]any{"minimum": 0}}}, `-1`, "(root): must be >= 0"},
	}
	for _, tc := range cases {
		e := schemaEndpoint(t, tc.schema)
		err := e.ValidatePayload([]byte(tc.payload))
		if err == nil {
			t.Fatalf("%v / %s: accepted", tc.schema, tc.payload)
		}
		if !strings.HasPrefix(err.Message, tc.want) {
			t.Errorf("%v / %s: %q, want prefix %q", tc.schema, tc.payload, err.Message, tc.want)
		}
	}
}
