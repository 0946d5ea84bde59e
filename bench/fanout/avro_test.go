package main

import (
	"bytes"
	"testing"
)

func TestAvroMessageIsTheWireFormat(t *testing.T) {
	e := payloadEncoding{format: "avro", subject: "t-value", schemaID: 258}
	want := []byte{0, 0, 0, 1, 2, 2, 4, 6, 4, 'x', 'y'} // header (id 258), zigzag 1, 2, 3, length 2, "xy"
	if got := e.message(1, 2, 3, "xy"); !bytes.Equal(got, want) {
		t.Fatalf("% x, want % x", got, want)
	}
	if got := e.sentAt(e.message(1, 2, 1795000000123456789, "xy")); got != 1795000000123456789 {
		t.Fatalf("sentAt: %d", got)
	}
	if got := jsonEncoding.message(1, 2, 3, "xy"); string(got) != `{"k":1,"n":2,"t":3,"p":"xy"}` {
		t.Fatalf("json: %s", got)
	}
	if f := e.endpointFields(); f["payload_format"] != "avro" || f["value_schema"].(map[string]any)["subject"] != "t-value" {
		t.Fatalf("endpoint: %v", f)
	}
}
