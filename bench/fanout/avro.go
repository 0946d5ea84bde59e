package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// payloadEncoding is how the publisher writes each message and how the
// benchmark's endpoint declares it: JSON (the default), or Avro in the schema
// registry's wire format, which the gateway decodes to the same JSON (so the
// clients read both alike and the two runs compare the gateway's cost).
type payloadEncoding struct {
	format   string // "json" or "avro"
	subject  string // avro: the registry subject of the topic's values
	schemaID int    // avro: the registered schema's id
}

var jsonEncoding = payloadEncoding{format: "json"}

// benchSchema is the Avro schema of a benchmark message: the JSON publisher's
// fields in the same order, so the decoded JSON is the same text.
const benchSchema = `{"type":"record","name":"BenchMessage","namespace":"sluice.bench","fields":[` +
	`{"name":"k","type":"long"},{"name":"n","type":"long"},{"name":"t","type":"long"},{"name":"p","type":"string"}]}`

// registerAvro registers benchSchema under "<topic>-value" at the registry's
// Confluent-compatible API (registryURL) and returns the encoding.
func registerAvro(registryURL, topic string) (payloadEncoding, error) {
	subject := topic + "-value"
	body, _ := json.Marshal(map[string]string{"schema": benchSchema, "schemaType": "AVRO"})
	resp, err := http.Post(strings.TrimRight(registryURL, "/")+"/subjects/"+url.PathEscape(subject)+"/versions", "application/vnd.schemaregistry.v1+json", bytes.NewReader(body))
	if err != nil {
		return payloadEncoding{}, fmt.Errorf("registering the bench schema: %w", err)
	}
	defer resp.Body.Close()
	var out struct {
		ID int `json:"id"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != http.StatusOK {
		return payloadEncoding{}, fmt.Errorf("registering the bench schema: HTTP %d", resp.StatusCode)
	}
	return payloadEncoding{format: "avro", subject: subject, schemaID: out.ID}, nil
}

// endpointFields are the catalog fields of the endpoint for e.
func (e payloadEncoding) endpointFields() map[string]any {
	if e.format == "avro" {
		return map[string]any{"payload_format": "avro", "value_schema": map[string]any{"subject": e.subject, "version": nil}}
	}
	return map[string]any{"payload_format": "json", "json_schema": nil}
}

// sentAt reads the "t" (ns) of a record message wrote, for the Kafka-only
// probe (which reads the records as Kafka holds them); 0 when it cannot.
func (e payloadEncoding) sentAt(value []byte) int64 {
	if e.format != "avro" {
		return fieldInt(value, `"t":`)
	}
	if len(value) < 5 {
		return 0
	}
	b := value[5:]
	var t int64
	for range 3 { // k, n, then t
		v, n := binary.Varint(b)
		if n <= 0 {
			return 0
		}
		t, b = v, b[n:]
	}
	return t
}

// message is the record value of message n of key k sent at t (ns), padded
// with pad.
func (e payloadEncoding) message(k int, n, t int64, pad string) []byte {
	if e.format != "avro" {
		return fmt.Appendf(nil, `{"k":%d,"n":%d,"t":%d,"p":"%s"}`, k, n, t, pad)
	}
	// The wire format (a zero byte, the schema id), then the Avro binary
	// record: longs as zigzag varints (Go's binary.AppendVarint is exactly
	// Avro's encoding), the string as its length then its bytes.
	b := binary.BigEndian.AppendUint32([]byte{0}, uint32(e.schemaID))
	b = binary.AppendVarint(b, int64(k))
	b = binary.AppendVarint(b, n)
	b = binary.AppendVarint(b, t)
	b = binary.AppendVarint(b, int64(len(pad)))
	return append(b, pad...)
}
