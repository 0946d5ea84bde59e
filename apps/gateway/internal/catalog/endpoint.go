package catalog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/sluicehq/sluice/apps/gateway/internal/protocol"
)

// PayloadFormat is what an endpoint's records hold: "json", "text", "bytes",
// or one of the schema-registry formats.
type PayloadFormat string

// The payload formats of CATALOG.md.
const (
	FormatJSON  PayloadFormat = "json"
	FormatText  PayloadFormat = "text"
	FormatBytes PayloadFormat = "bytes"
	// The registry-backed formats: records in the Confluent wire format (a
	// zero byte, the writer's schema id, the encoded data), served as JSON.
	FormatAvro       PayloadFormat = "avro"
	FormatProtobuf   PayloadFormat = "protobuf"
	FormatJSONSchema PayloadFormat = "json-schema"
)

// RegistryBacked reports whether f's records carry a schema registry's wire format.
func (f PayloadFormat) RegistryBacked() bool { return protocol.RegistryFormat(string(f)) }

// SubjectSchema is a registry subject and the version of it an endpoint
// encodes with. For the values (Endpoint.ValueSchema) that is what a publish
// is encoded with; for the keys (Endpoint.KeySchema) what the key in the path
// is encoded with, to find its partition and as the key of a publish.
// Subscribing decodes each record with the schema its own id names.
type SubjectSchema struct {
	Subject string
	// Version is the pinned version; 0 is the latest.
	Version int
}

// API names the streaming API an endpoint belongs to (informational: the gateway
// only reports it, e.g. in logs and metrics).
type API struct{ ID, Name, Version string }

// Endpoint is one endpoint of the catalog. Values handed out by the catalog are
// immutable: a change to the endpoint produces a new *Endpoint, so a caller that
// holds one (a live subscription) keeps a consistent view and can tell a change
// by pointer comparison.
type Endpoint struct {
	ID    string
	Path  string // canonical path, "/topic/{param}" for a parameterised endpoint
	Topic string
	// Key is the exact record key, "" when KeyParam is set.
	Key string
	// KeyParam is the parameter name of a "/topic/{param}" endpoint, which serves
	// every key of the topic.
	KeyParam   string
	Subscribe  bool
	Publish    bool
	Format     PayloadFormat
	SchemaJSON json.RawMessage // compacted JSON Schema; nil when none
	// ValueSchema is set exactly for the registry-backed formats.
	ValueSchema *SubjectSchema
	// KeySchema is set when the topic's record keys are in the registry's
	// wire format (any payload format): the key in the path is then the
	// decoded key as text (docs/payload-formats.md, "Keys").
	KeySchema *SubjectSchema
	API       API

	schema *jsonschema.Schema // compiled SchemaJSON; nil when none
}

// Allows reports whether the endpoint allows op (error 4005 otherwise).
func (e *Endpoint) Allows(op protocol.Op) bool {
	switch op {
	case protocol.OpSubscribe:
		return e.Subscribe
	case protocol.OpPublish:
		return e.Publish
	}
	return false
}

// ValidatePayload checks a payload before it is published: json payloads must be
// one valid JSON value (and match the schema, if any), text payloads valid UTF-8,
// bytes payloads anything. The error is CodeInvalidPayload with a message naming
// the failing location, e.g. "/qty: must be >= 1". It is safe for concurrent use
// (compiled schemas are read-only).
func (e *Endpoint) ValidatePayload(data []byte) *protocol.Error {
	switch e.Format {
	case FormatAvro, FormatProtobuf, FormatJSONSchema:
		// JSON, checked against the subject's schema when it is encoded.
		if !protocol.ValidJSON(data) {
			return invalidJSON(data)
		}
		return nil
	case FormatJSON:
		if !protocol.ValidJSON(data) {
			return invalidJSON(data)
		}
		if e.schema == nil {
			return nil
		}
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
		if err != nil {
			return invalidJSON(data)
		}
		var verr error
		if perr := safely(func() error { verr = e.schema.Validate(inst); return nil }); perr != nil {
			return protocol.Errorf(protocol.CodeInvalidPayload, "payload could not be checked against the JSON Schema")
		}
		if verr == nil {
			return nil
		}
		var ve *jsonschema.ValidationError
		if !errors.As(verr, &ve) {
			return protocol.Errorf(protocol.CodeInvalidPayload, "payload does not match the JSON Schema")
		}
		return protocol.Errorf(protocol.CodeInvalidPayload, "%s", describeValidation(ve))
	case FormatText:
		if !utf8.Valid(data) {
			return protocol.Errorf(protocol.CodeInvalidPayload, "payload is not valid UTF-8 (byte %d)", firstInvalidUTF8(data))
		}
		return nil
	case FormatBytes:
		return nil
	}
	return protocol.Errorf(protocol.CodeInvalidPayload, "endpoint has unknown payload format %q", e.Format)
}

// invalidJSON names where a JSON payload stops being JSON.
func invalidJSON(data []byte) *protocol.Error {
	var v any
	err := json.Unmarshal(data, &v)
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return protocol.Errorf(protocol.CodeInvalidPayload, "payload is not valid JSON (byte %d: %s)", se.Offset, se.Error())
	}
	if i := firstInvalidUTF8(data); i < len(data) {
		// Subscribers get JSON in text frames, which must be UTF-8.
		return protocol.Errorf(protocol.CodeInvalidPayload, "payload is not valid UTF-8 (byte %d)", i)
	}
	return protocol.Errorf(protocol.CodeInvalidPayload, "payload is not valid JSON")
}

func firstInvalidUTF8(data []byte) int {
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && size <= 1 {
			return i
		}
		i += size
	}
	return len(data)
}

// same reports whether two endpoints are the same in every field the catalog
// carries, so that re-reading an unchanged record causes no EndpointChanged.
func (e *Endpoint) same(o *Endpoint) bool {
	return e.ID == o.ID && e.Path == o.Path && e.Topic == o.Topic && e.Key == o.Key &&
		e.KeyParam == o.KeyParam && e.Subscribe == o.Subscribe && e.Publish == o.Publish &&
		e.Format == o.Format && bytes.Equal(e.SchemaJSON, o.SchemaJSON) && e.API == o.API &&
		sameSubject(e.ValueSchema, o.ValueSchema) && sameSubject(e.KeySchema, o.KeySchema)
}

func sameSubject(a, b *SubjectSchema) bool {
	return (a == nil) == (b == nil) && (a == nil || *a == *b)
}

// slot is what an endpoint claims in the path space: one exact (topic, key), or
// every key of a topic. Two endpoints may not claim the same slot.
type slot struct {
	topic, key string
	param      bool
}

func (e *Endpoint) slot() slot {
	if e.KeyParam != "" {
		return slot{topic: e.Topic, param: true}
	}
	return slot{topic: e.Topic, key: e.Key}
}

// endpointValue is the JSON of an endpoint record (CATALOG.md, kind endpoint).
type endpointValue struct {
	V             *int64              `json:"v"`
	ID            *string             `json:"id"`
	Path          *string             `json:"path"`
	Topic         *string             `json:"topic"`
	Key           *string             `json:"key"`
	KeyParam      *string             `json:"key_param"`
	Operations    []string            `json:"operations"`
	PayloadFormat *string             `json:"payload_format"`
	JSONSchema    json.RawMessage     `json:"json_schema"`
	ValueSchema   *subjectSchemaValue `json:"value_schema"`
	KeySchema     *subjectSchemaValue `json:"key_schema"`
	API           *struct {
		ID      string `json:"id"`
		Name    string `json:"name"`
		Version string `json:"version"`
	} `json:"api"`
}

type subjectSchemaValue struct {
	Subject *string `json:"subject"`
	Version *int64  `json:"version"`
}

// parse checks a value_schema or key_schema (field) of the catalog.
func (v *subjectSchemaValue) parse(field string) (*SubjectSchema, error) {
	if v.Subject == nil || *v.Subject == "" || len(*v.Subject) > 255 {
		return nil, fmt.Errorf("%s.subject: must be a string of 1 to 255 bytes", field)
	}
	s := &SubjectSchema{Subject: *v.Subject}
	if v.Version != nil {
		if *v.Version < 1 || *v.Version > 1<<31-1 {
			return nil, fmt.Errorf("%s.version: %d is not a positive version (null for the latest)", field, *v.Version)
		}
		s.Version = int(*v.Version)
	}
	return s, nil
}

// keyParamRE is the portal's rule for parameter names (packages/db, endpoints).
var keyParamRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,63}$`)

// parseEndpoint reads and validates an endpoint record value and compiles its
// schema. It takes no locks: the (possibly slow) schema compilation happens
// before the catalog is locked.
func parseEndpoint(id string, value []byte) (*Endpoint, error) {
	var v endpointValue
	if err := decodeValue(value, &v); err != nil {
		return nil, err
	}
	if err := checkVersion(v.V); err != nil {
		return nil, err
	}
	if err := checkID("id", v.ID, id); err != nil {
		return nil, err
	}
	e := &Endpoint{ID: id}

	if v.Topic == nil {
		return nil, errors.New("topic: missing")
	}
	e.Topic = *v.Topic
	if perr := protocol.ValidTopic(e.Topic); perr != nil {
		return nil, fmt.Errorf("topic: %s", strings.TrimPrefix(perr.Message, "endpoint: "))
	}

	switch {
	case v.Key != nil && v.KeyParam != nil:
		return nil, errors.New("key, key_param: exactly one must be non-null, both are set")
	case v.Key == nil && v.KeyParam == nil:
		return nil, errors.New("key, key_param: exactly one must be non-null, both are null")
	case v.Key != nil:
		e.Key = *v.Key
		if e.Key == "" {
			return nil, errors.New("key: must not be empty")
		}
		canonical := protocol.Path{Topic: e.Topic, Key: e.Key}.String()
		// The key must be addressable by a path: a key with an empty segment
		// ("a//b", "a/") or a control character could never be requested.
		p, perr := protocol.ParsePath(canonical)
		if perr != nil {
			return nil, fmt.Errorf("key: %s", strings.TrimPrefix(perr.Message, "endpoint: "))
		}
		if p.Key != e.Key {
			return nil, fmt.Errorf("key: %q cannot be expressed as a path", truncate(e.Key))
		}
		e.Path = canonical
	default:
		e.KeyParam = *v.KeyParam
		if !keyParamRE.MatchString(e.KeyParam) {
			return nil, fmt.Errorf("key_param: %q must match %s", truncate(e.KeyParam), keyParamRE)
		}
		e.Path = "/" + e.Topic + "/{" + e.KeyParam + "}"
	}
	if v.Path == nil {
		return nil, errors.New("path: missing")
	}
	if *v.Path != e.Path {
		return nil, fmt.Errorf("path: %q is not the canonical path %q of its topic and key", truncate(*v.Path), truncate(e.Path))
	}

	if len(v.Operations) == 0 {
		return nil, errors.New("operations: must hold at least one of subscribe, publish")
	}
	for _, op := range v.Operations {
		switch op {
		case "subscribe":
			e.Subscribe = true
		case "publish":
			e.Publish = true
		default:
			return nil, fmt.Errorf("operations: unknown operation %q", truncate(op))
		}
	}

	if v.PayloadFormat == nil {
		return nil, errors.New("payload_format: missing")
	}
	switch f := PayloadFormat(*v.PayloadFormat); f {
	case FormatJSON, FormatText, FormatBytes, FormatAvro, FormatProtobuf, FormatJSONSchema:
		e.Format = f
	default:
		return nil, fmt.Errorf("payload_format: %q is not json, text, bytes, avro, protobuf or json-schema", truncate(string(f)))
	}
	switch vs := v.ValueSchema; {
	case !e.Format.RegistryBacked() && vs != nil:
		return nil, fmt.Errorf("value_schema: only avro, protobuf and json-schema endpoints have one, this one is %s", e.Format)
	case e.Format.RegistryBacked() && vs == nil:
		return nil, fmt.Errorf("value_schema: required for a %s endpoint", e.Format)
	case e.Format.RegistryBacked():
		var err error
		if e.ValueSchema, err = vs.parse("value_schema"); err != nil {
			return nil, err
		}
	}
	if v.KeySchema != nil {
		var err error
		if e.KeySchema, err = v.KeySchema.parse("key_schema"); err != nil {
			return nil, err
		}
	}

	if s := bytes.TrimSpace(v.JSONSchema); len(s) > 0 && !bytes.Equal(s, []byte("null")) {
		if s[0] != '{' {
			return nil, errors.New("json_schema: must be an object or null")
		}
		if e.Format != FormatJSON {
			return nil, fmt.Errorf("json_schema: only json endpoints may have a schema, this one is %s", e.Format)
		}
		var compact bytes.Buffer
		if err := json.Compact(&compact, s); err != nil {
			return nil, fmt.Errorf("json_schema: %v", err)
		}
		sch, err := compileSchema(compact.Bytes())
		if err != nil {
			return nil, fmt.Errorf("json_schema: does not compile: %v", err)
		}
		e.SchemaJSON, e.schema = json.RawMessage(compact.Bytes()), sch
	}

	if v.API != nil {
		e.API = API{ID: v.API.ID, Name: v.API.Name, Version: v.API.Version}
	}
	return e, nil
}

// schemaURL is the base URL schemas are compiled under. It is not resolvable on
// purpose: every reference outside the schema itself is refused (see noLoader).
const schemaURL = "https://schemas.sluice.invalid/endpoint.json"

// noLoader refuses to load any schema resource. The library's default loader
// reads local files, so a catalog schema with "$ref": "file:///etc/..." could
// otherwise make the gateway read its own disk.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("external reference %q: only references within the schema are allowed", url)
}

// compileSchema compiles a JSON Schema (draft 2020-12 unless "$schema" says
// otherwise). Format assertions stay off, as the 2020-12 specification says.
func compileSchema(raw []byte) (sch *jsonschema.Schema, err error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(noLoader{})
	if err := c.AddResource(schemaURL, doc); err != nil {
		return nil, err
	}
	if perr := safely(func() error { sch, err = c.Compile(schemaURL); return nil }); perr != nil {
		return nil, perr
	}
	return sch, err
}
