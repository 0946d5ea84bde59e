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

// An undecoded record is not served from the cache, and neither is anything
// before it: a resume from there reads Kafka again, which may decode it now.
func TestUndecodedRecordsAreNotCached(t *testing.T) {
	ep := &endpointState{path: "/orders/A", epoch: "e", format: "avro"}
	for seq := int64(10); seq < 13; seq++ {
		ep.addToCache(ep.newFrame(Record{Offset: seq, Value: []byte{0}, Decoded: []byte(`{}`)}), 4)
	}
	if frames, ok := ep.cachedFrom(10); !ok || len(frames) != 3 {
		t.Fatalf("decoded records are cached: %d %v", len(frames), ok)
	}
	ep.addToCache(ep.newFrame(Record{Offset: 13, Value: []byte{0}, Problem: "schema id 9 is not in the registry"}), 4)
	if _, ok := ep.cachedFrom(11); ok {
		t.Fatal("a resume from before the undecoded record was served from memory")
	}
	ep.addToCache(ep.newFrame(Record{Offset: 14, Value: []byte{0}, Decoded: []byte(`{}`)}), 4)
	if frames, ok := ep.cachedFrom(14); !ok || len(frames) != 1 || frames[0].Seq != 14 {
		t.Fatalf("the cache goes on after it: %d %v", len(frames), ok)
	}
}
