package catalog

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sluicehq/sluice/apps/gateway/internal/protocol"
)

func TestParseEndpointExactAndParam(t *testing.T) {
	e, err := parseEndpoint("e1", endpointRecord("e1", "prices", "BRK.B", ""))
	if err != nil {
		t.Fatal(err)
	}
	if e.Path != "/prices/BRK.B" || e.Topic != "prices" || e.Key != "BRK.B" || e.KeyParam != "" {
		t.Fatalf("exact endpoint: %+v", e)
	}
	if !e.Subscribe || !e.Publish || e.Format != FormatJSON || e.SchemaJSON != nil {
		t.Fatalf("exact endpoint: %+v", e)
	}
	if e.API != (API{ID: "api-1", Name: "Market data", Version: "1.0.0"}) {
		t.Fatalf("api: %+v", e.API)
	}

	e, err = parseEndpoint("e2", endpointRecord("e2", "news", "café/le monde", ""))
	if err != nil {
		t.Fatal(err)
	}
	if e.Path != "/news/caf%C3%A9/le%20monde" {
		t.Fatalf("canonical path: %s", e.Path)
	}

	e, err = parseEndpoint("e3", endpointRecord("e3", "prices", "", "symbol",
		set("operations", []string{"subscribe"}), set("payload_format", "text")))
	if err != nil {
		t.Fatal(err)
	}
	if e.Path != "/prices/{symbol}" || e.KeyParam != "symbol" || e.Key != "" || e.Publish || e.Format != FormatText {
		t.Fatalf("param endpoint: %+v", e)
	}

	// Fields this gateway does not know are ignored; api is optional.
	if _, err := parseEndpoint("e4", endpointRecord("e4", "t", "k", "", set("future_field", 42), del("api"))); err != nil {
		t.Fatal(err)
	}
}

func TestParseEndpointRejections(t *testing.T) {
	cases := []struct {
		name  string
		value []byte
		want  string // the error names this field
	}{
		{"not json", []byte(`{"v":1,`), "value: not valid JSON"},
		{"not an object", []byte(`[1,2]`), "value: must be a JSON object"},
		{"missing v", endpointRecord("e", "t", "k", "", del("v")), "v: missing"},
		{"unknown version", endpointRecord("e", "t", "k", "", set("v", 2)), "v: unknown version 2"},
		{"v wrong type", endpointRecord("e", "t", "k", "", set("v", "1")), "v: wrong type"},
		{"id missing", endpointRecord("e", "t", "k", "", del("id")), "id: missing"},
		{"id mismatch", endpointRecord("other", "t", "k", ""), "id: \"other\" does not match"},
		{"topic missing", endpointRecord("e", "t", "k", "", del("topic")), "topic: missing"},
		{"topic invalid", endpointRecord("e", "bad topic", "k", ""), "topic: "},
		{"topic dot", endpointRecord("e", "..", "k", ""), "topic: "},
		{"topic wrong type", endpointRecord("e", "t", "k", "", set("topic", 5)), "topic: wrong type"},
		{"both key and param", endpointRecord("e", "t", "k", "", set("key_param", "p")), "key, key_param: exactly one"},
		{"neither key nor param", endpointRecord("e", "t", "k", "", set("key", nil)), "key, key_param: exactly one"},
		{"key missing and param missing", endpointRecord("e", "t", "k", "", del("key"), del("key_param")), "key, key_param"},
		{"empty key", endpointRecord("e", "t", "", "", set("path", "/t/")), "key: must not be empty"},
		{"key with empty segment", endpointRecord("e", "t", "a//b", ""), "key: "},
		{"key trailing slash", endpointRecord("e", "t", "a/", ""), "key: "},
		{"key control char", endpointRecord("e", "t", "a\x01", ""), "key: "},
		{"key too long", endpointRecord("e", "t", strings.Repeat("k", 1025), ""), "key: "},
		{"bad key_param", endpointRecord("e", "t", "", "1sym"), "key_param: "},
		{"key_param with brace", endpointRecord("e", "t", "", "a}b"), "key_param: "},
		{"path missing", endpointRecord("e", "t", "k", "", del("path")), "path: missing"},
		{"path not canonical", endpointRecord("e", "prices", "BRK.B", "", set("path", "/prices/BRK%2eB")), "path: "},
		{"path of other key", endpointRecord("e", "prices", "A", "", set("path", "/prices/B")), "path: "},
		{"param path wrong", endpointRecord("e", "prices", "", "symbol", set("path", "/prices/{sym}")), "path: "},
		{"operations missing", endpointRecord("e", "t", "k", "", del("operations")), "operations: must hold"},
		{"operations empty", endpointRecord("e", "t", "k", "", set("operations", []string{})), "operations: must hold"},
		{"operations unknown", endpointRecord("e", "t", "k", "", set("operations", []string{"subscribe", "delete"})), "operations: unknown operation \"delete\""},
		{"operations wrong type", endpointRecord("e", "t", "k", "", set("operations", "subscribe")), "operations: wrong type"},
		{"format missing", endpointRecord("e", "t", "k", "", del("payload_format")), "payload_format: missing"},
		{"format unknown", endpointRecord("e", "t", "k", "", set("payload_format", "xml")), "payload_format: \"xml\""},
		{"schema not object", endpointRecord("e", "t", "k", "", set("json_schema", true)), "json_schema: must be an object"},
		{"schema array", endpointRecord("e", "t", "k", "", set("json_schema", []int{1})), "json_schema: must be an object"},
		{"schema for text", endpointRecord("e", "t", "k", "", set("payload_format", "text"), set("json_schema", map[string]any{"type": "string"})), "json_schema: only json endpoints"},
		{"schema for bytes", endpointRecord("e", "t", "k", "", set("payload_format", "bytes"), set("json_schema", map[string]any{})), "json_schema: only json endpoints"},
		{"schema invalid", endpointRecord("e", "t", "k", "", set("json_schema", map[string]any{"type": 5})), "json_schema: does not compile"},
		{"schema bad regex", endpointRecord("e", "t", "k", "", set("json_schema", map[string]any{"pattern": "("})), "json_schema: does not compile"},
		{"schema remote ref", endpointRecord("e", "t", "k", "", set("json_schema", map[string]any{"$ref": "https://example.com/s.json"})), "json_schema: does not compile"},
		{"registry format without value_schema", endpointRecord("e", "t", "k", "", set("payload_format", "avro")), "value_schema: required for a avro endpoint"},
		{"value_schema on json", endpointRecord("e", "t", "k", "", set("value_schema", map[string]any{"subject": "t-value", "version": nil})), "value_schema: only avro, protobuf and json-schema"},
		{"value_schema without subject", endpointRecord("e", "t", "k", "", set("payload_format", "protobuf"), set("value_schema", map[string]any{"version": 2})), "value_schema.subject: must be"},
		{"value_schema empty subject", endpointRecord("e", "t", "k", "", set("payload_format", "protobuf"), set("value_schema", map[string]any{"subject": ""})), "value_schema.subject: must be"},
		{"value_schema version 0", endpointRecord("e", "t", "k", "", set("payload_format", "json-schema"), set("value_schema", map[string]any{"subject": "s", "version": 0})), "value_schema.version: 0 is not"},
		{"value_schema version not a number", endpointRecord("e", "t", "k", "", set("payload_format", "avro"), set("value_schema", map[string]any{"subject": "s", "version": "1"})), "value_schema.version: wrong type"},
		{"key_schema without subject", endpointRecord("e", "t", "k", "", set("key_schema", map[string]any{"version": 2})), "key_schema.subject: must be"},
		{"key_schema version -1", endpointRecord("e", "t", "k", "", set("key_schema", map[string]any{"subject": "t-key", "version": -1})), "key_schema.version: -1 is not"},
		{"key_schema not an object", endpointRecord("e", "t", "k", "", set("key_schema", "t-key")), "key_schema"},
		{"json_schema on avro", endpointRecord("e", "t", "k", "", set("payload_format", "avro"), set("value_schema", map[string]any{"subject": "s"}), set("json_schema", map[string]any{})), "json_schema: only json endpoints"},
		{"api wrong type", endpointRecord("e", "t", "k", "", set("api", "x")), "api: wrong type"},
		{"api field wrong type", endpointRecord("e", "t", "k", "", set("api", map[string]any{"id": 1})), "api.id: wrong type"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e, err := parseEndpoint("e", tc.value)
			if err == nil {
				t.Fatalf("accepted: %+v", e)
			}
			mustContain(t, err.Error(), tc.want)
		})
	}
}

func TestParseRegistryBackedEndpoints(t *testing.T) {
	for _, tc := range []struct {
		format  string
		version any
		want    SubjectSchema
	}{
		{"avro", nil, SubjectSchema{Subject: "orders-value"}},
		{"protobuf", 3, SubjectSchema{Subject: "orders-value", Version: 3}},
		{"json-schema", nil, SubjectSchema{Subject: "orders-value"}},
	} {
		e, err := parseEndpoint("e", endpointRecord("e", "orders", "", "id", set("payload_format", tc.format),
			set("value_schema", map[string]any{"subject": "orders-value", "version": tc.version})))
		if err != nil {
			t.Fatalf("%s: %v", tc.format, err)
		}
		if !e.Format.RegistryBacked() || e.ValueSchema == nil || *e.ValueSchema != tc.want {
			t.Fatalf("%s: %+v", tc.format, e.ValueSchema)
		}
	}
	json, err := parseEndpoint("e", endpointRecord("e", "t", "k", "", set("value_schema", nil)))
	if err != nil || json.ValueSchema != nil || json.Format.RegistryBacked() {
		t.Fatalf("json with a null value_schema: %+v %v", json, err)
	}
	pinned, _ := parseEndpoint("e", endpointRecord("e", "t", "k", "", set("payload_format", "avro"), set("value_schema", map[string]any{"subject": "s", "version": 1})))
	latest, _ := parseEndpoint("e", endpointRecord("e", "t", "k", "", set("payload_format", "avro"), set("value_schema", map[string]any{"subject": "s", "version": nil})))
	if pinned.same(latest) {
		t.Fatal("the pinned version makes no difference")
	}
}

// A key schema is allowed whatever the payload format; absent or null means
// plain keys.
func TestParseKeySchema(t *testing.T) {
	for _, format := range []string{"json", "text", "bytes", "avro"} {
		edits := []func(map[string]any){set("payload_format", format), set("key_schema", map[string]any{"subject": "carts-key", "version": 4})}
		if format == "avro" {
			edits = append(edits, set("value_schema", map[string]any{"subject": "carts-value"}))
		}
		e, err := parseEndpoint("e", endpointRecord("e", "carts", "", "id", edits...))
		if err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		if e.KeySchema == nil || *e.KeySchema != (SubjectSchema{Subject: "carts-key", Version: 4}) {
			t.Fatalf("%s: %+v", format, e.KeySchema)
		}
	}
	plain, err := parseEndpoint("e", endpointRecord("e", "carts", "k", "", set("key_schema", nil)))
	if err != nil || plain.KeySchema != nil {
		t.Fatalf("a null key_schema: %+v %v", plain, err)
	}
	keyed, _ := parseEndpoint("e", endpointRecord("e", "carts", "k", "", set("key_schema", map[string]any{"subject": "carts-key"})))
	if plain.same(keyed) || !keyed.same(keyed) {
		t.Fatal("the key schema makes no difference to same")
	}
}

// A schema must not be able to make the gateway read its own files.
func TestSchemaFileRefRefused(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "s.json")
	if err := os.WriteFile(f, []byte(`{"type":"string"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, ref := range []string{"file://" + f, f, "s.json"} {
		_, err := parseEndpoint("e", endpointRecord("e", "t", "k", "", set("json_schema", map[string]any{"$ref": ref})))
		if err == nil {
			t.Fatalf("$ref %q was loaded", ref)
		}
		mustContain(t, err.Error(), "json_schema")
	}
	// Local references within the schema work.
	_, err := parseEndpoint("e", endpointRecord("e", "t", "k", "", set("json_schema", map[string]any{
		"$defs": map[string]any{"qty": map[string]any{"type": "integer", "minimum": 1}},
		"type":  "object", "properties": map[string]any{"qty": map[string]any{"$ref": "#/$defs/qty"}},
	})))
	if err != nil {
		t.Fatal(err)
	}
}

func TestAllows(t *testing.T) {
	e := &Endpoint{Subscribe: true}
	if !e.Allows(protocol.OpSubscribe) || e.Allows(protocol.OpPublish) || e.Allows(protocol.Op(99)) {
		t.Fatal("subscribe-only endpoint")
	}
	e = &Endpoint{Publish: true}
	if e.Allows(protocol.OpSubscribe) || !e.Allows(protocol.OpPublish) {
		t.Fatal("publish-only endpoint")
	}
}

func schemaEndpoint(t *testing.T, schema map[string]any) *Endpoint {
	t.Helper()
	e, err := parseEndpoint("e", endpointRecord("e", "orders", "eu", "", set("json_schema", schema)))
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestValidatePayloadFormats(t *testing.T) {
	j := &Endpoint{Format: FormatJSON}
	for _, ok := range []string{`{"a":1}`, `3`, `"s"`, ` null `, `[1,2]`} {
		if err := j.ValidatePayload([]byte(ok)); err != nil {
			t.Errorf("json %q: %v", ok, err)
		}
	}
	for _, bad := range []string{``, `{`, `{"a":1}x`, `{"a":1} {}`, `nul`, "\xff"} {
		err := j.ValidatePayload([]byte(bad))
		if err == nil || err.Code != protocol.CodeInvalidPayload {
			t.Errorf("json %q: %v", bad, err)
			continue
		}
		mustContain(t, err.Message, "not valid JSON")
	}

	// JSON syntax with a string that is not UTF-8 would reach subscribers as
	// base64 (frames are text): refused at publish instead.
	for _, e := range []*Endpoint{j, schemaEndpoint(t, map[string]any{"type": "object"})} {
		err := e.ValidatePayload([]byte("{\"a\":\"b\xffc\"}"))
		if err == nil || err.Code != protocol.CodeInvalidPayload {
			t.Fatalf("json with invalid UTF-8 (schema %v): %v", e.schema != nil, err)
		}
		mustContain(t, err.Message, "not valid UTF-8 (byte 7)")
	}

	txt := &Endpoint{Format: FormatText}
	if err := txt.ValidatePayload([]byte("héllo ✓")); err != nil {
		t.Error(err)
	}
	if err := txt.ValidatePayload(nil); err != nil {
		t.Error(err)
	}
	err := txt.ValidatePayload([]byte("ab\xffc"))
	if err == nil || err.Code != protocol.CodeInvalidPayload {
		t.Fatalf("text with invalid UTF-8: %v", err)
	}
	mustContain(t, err.Message, "not valid UTF-8 (byte 2)")

	bin := &Endpoint{Format: FormatBytes}
	if err := bin.ValidatePayload([]byte{0xff, 0, 1}); err != nil {
		t.Error(err)
	}
}

func TestSchemaDraftDefaultAndExplicit(t *testing.T) {
	// 2020-12 by default: prefixItems is a keyword.
	e := schemaEndpoint(t, map[string]any{"prefixItems": []any{map[string]any{"type": "string"}}})
	if err := e.ValidatePayload([]byte(`[1]`)); err == nil {
		t.Fatal("prefixItems ignored: not draft 2020-12")
	}
	// An explicit older draft is honoured (embedded metaschema, no network).
	e = schemaEndpoint(t, map[string]any{"$schema": "http://json-schema.org/draft-07/schema#", "maximum": 3})
	if err := e.ValidatePayload([]byte(`4`)); err == nil {
		t.Fatal("draft-07 schema not applied")
	}
	// Format is an annotation in 2020-12.
	e = schemaEndpoint(t, map[string]any{"format": "email"})
	if err := e.ValidatePayload([]byte(`"not an email"`)); err != nil {
		t.Fatalf("format asserted: %v", err)
	}
}

func TestEndpointSame(t *testing.T) {
	a, _ := parseEndpoint("e", endpointRecord("e", "t", "k", "", set("json_schema", map[string]any{"type": "object"})))
	b, _ := parseEndpoint("e", []byte(strings.Replace(string(endpointRecord("e", "t", "k", "", set("json_schema", map[string]any{"type": "object"}))), `{"type":"object"}`, `{ "type" : "object" }`, 1)))
	if a == nil || b == nil || !a.same(b) {
		t.Fatal("schema whitespace makes a difference")
	}
	c, _ := parseEndpoint("e", endpointRecord("e", "t", "k", "", set("operations", []string{"subscribe"})))
	if a.same(c) {
		t.Fatal("operations make no difference")
	}
}
