package edge

import (
	"strings"
	"testing"

	"github.com/sluicehq/sluice/apps/gateway/internal/catalog"
	"github.com/sluicehq/sluice/apps/gateway/internal/protocol"
)

// Until the gateway encodes with the registry, a publish to a registry-backed
// endpoint is refused: producing the client's bytes as they are would put
// records without the wire format on the topic.
func TestPublishToARegistryBackedEndpointIsRefused(t *testing.T) {
	for _, format := range []catalog.PayloadFormat{catalog.FormatAvro, catalog.FormatProtobuf, catalog.FormatJSONSchema} {
		ep := &catalog.Endpoint{Path: "/orders/{id}", Topic: "orders", KeyParam: "id", Publish: true, Format: format,
			ValueSchema: &catalog.ValueSchema{Subject: "orders-value"}}
		value, err := payloadFor(ep, &protocol.ClientFrame{Type: "publish", Data: []byte(`{"a":1}`)})
		if value != nil || err == nil || err.Code != protocol.CodeInvalidPayload || !strings.Contains(err.Message, string(format)) {
			t.Fatalf("%s: %q %+v", format, value, err)
		}
	}
	json := &catalog.Endpoint{Path: "/orders/{id}", Topic: "orders", KeyParam: "id", Publish: true, Format: catalog.FormatJSON}
	if value, err := payloadFor(json, &protocol.ClientFrame{Type: "publish", Data: []byte(`{"a":1}`)}); err != nil || string(value) != `{"a":1}` {
		t.Fatalf("json: %q %+v", value, err)
	}
}
