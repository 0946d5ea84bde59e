package hub

import (
	"strings"
	"testing"
)

// An endpoint of a schema-registry format sends what internal/schemawire made of
// the record: the JSON, or the raw value as base64 with the reason; other
// endpoints of the topic keep the raw value.
func TestFramesOfRegistryFormats(t *testing.T) {
	raw := []byte{0, 0, 0, 0, 9, 6, 'A'}
	for _, tc := range []struct {
		name, format string
		rec          Record
		want         string
	}{
		{"decoded", "avro", Record{Value: raw, Decoded: []byte(`{"id":"A"}`)}, `"data":{"id":"A"}}`},
		{"not decodable", "protobuf", Record{Value: raw, Problem: "schema id 9 is not in the registry"},
			`"data":"AAAAAAkGQQ==","encoding":"base64","error":"schema id 9 is not in the registry"}`},
		{"no registry at the gateway", "json-schema", Record{Value: raw},
			`"encoding":"base64","error":"the gateway does not decode this endpoint's records: it has no schema registry (SCHEMA_REGISTRY_URL)"}`},
		{"a bytes endpoint of the same topic", "bytes", Record{Value: raw, Decoded: []byte(`{"id":"A"}`)}, `"data":"AAAAAAkGQQ==","encoding":"base64"}`},
	} {
		ep := &endpointState{path: "/orders/A", epoch: "e", format: tc.format}
		if got := string(ep.newFrame(tc.rec).JSON()); !strings.HasSuffix(got, tc.want) {
			t.Errorf("%s: %s\nwant the end %s", tc.name, got, tc.want)
		}
	}
}
