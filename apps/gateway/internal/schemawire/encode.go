package schemawire

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/sluicehq/sluice/apps/gateway/internal/registry"
)

// Encoding is a codec able to encode JSON, and to decode what it encoded
// (the schema package's Codec).
type Encoding interface {
	Encode(jsonText []byte) ([]byte, error)
	Decode(data []byte) ([]byte, error)
}

// EncodingCompiler builds the Encoding of a schema; record, when set, is the
// record (protobuf message) the subject is named for, which a publish encodes.
type EncodingCompiler func(ctx context.Context, s *registry.Schema, record string) (Encoding, error)

// SubjectRecord is the record a subject of topic is named for by the
// Confluent subject strategies: "" for TopicNameStrategy ("<topic>-value",
// "<topic>-key"),
// the rest for TopicRecordNameStrategy ("<topic>-<record>"), the subject
// itself for RecordNameStrategy ("<record>").
func SubjectRecord(topic, subject string) string {
	switch {
	case subject == topic+"-value", subject == topic+"-key":
		return ""
	case strings.HasPrefix(subject, topic+"-"):
		return subject[len(topic)+1:]
	}
	return subject
}

// Encoder turns the JSON a client publishes to a registry-backed endpoint into
// a record in the wire format: encoded with the endpoint's subject at its
// pinned version, or at the latest version (looked up again after LatestTTL,
// so a new version is picked up without a restart). Nothing is registered:
// the subject must exist.
type Encoder struct {
	reg       *registry.Client
	compile   EncodingCompiler
	latestTTL time.Duration
	timeout   time.Duration
	now       func() time.Time

	mu      sync.Mutex
	subject map[subjectVersion]encoding
}

type subjectVersion struct {
	subject string
	version int    // 0: the latest
	record  string // SubjectRecord's
}

type encoding struct {
	id      int
	codec   Encoding
	fetched time.Time
}

// LatestTTL is how long the latest version of a subject is used before it is
// looked up again.
const LatestTTL = 30 * time.Second

// NewEncoder returns an Encoder.
func NewEncoder(reg *registry.Client, compile EncodingCompiler) *Encoder {
	return &Encoder{reg: reg, compile: compile, latestTTL: LatestTTL, timeout: 5 * time.Second, now: time.Now, subject: map[subjectVersion]encoding{}}
}

// ErrInvalid wraps an encoding error: the JSON does not fit the schema (the
// message names the field). Other errors are the registry's or the schema's:
// ErrRegistry.
var (
	ErrInvalid  = errors.New("the data does not fit the endpoint's schema")
	ErrRegistry = errors.New("the endpoint's schema is not available")
)

// Encode returns the wire-format record of jsonText for subject (of topic) at
// version (0: the latest). A protobuf subject of a record strategy encodes the
// message it is named for; of the topic strategy, the file's first message.
func (e *Encoder) Encode(ctx context.Context, topic, subject string, version int, jsonText []byte) ([]byte, error) {
	enc, err := e.encoding(ctx, subjectVersion{subject: subject, version: version, record: SubjectRecord(topic, subject)})
	if err != nil {
		return nil, err
	}
	data, err := enc.codec.Encode(jsonText)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	return append(registry.AppendWire(make([]byte, 0, registry.WireHeaderSize+len(data)), enc.id), data...), nil
}

// EncodeKey returns the record key that the key in a path (pathKey) names on
// an endpoint whose keys are encoded with subject at version (0: the latest):
// pathKey as a JSON string when the schema takes one, else pathKey read as
// JSON (docs/payload-formats.md, "Keys"). The error wraps ErrInvalid when the
// schema cannot encode pathKey, or when it writes the key differently (a path
// names each key one way: {"b":1,"a":2} is refused where the schema orders a
// before b), naming the form it writes.
func (e *Encoder) EncodeKey(ctx context.Context, topic, subject string, version int, pathKey string) ([]byte, error) {
	enc, err := e.encoding(ctx, subjectVersion{subject: subject, version: version, record: SubjectRecord(topic, subject)})
	if err != nil {
		return nil, err
	}
	quoted, _ := json.Marshal(pathKey)
	data, err := enc.codec.Encode(quoted)
	if err != nil {
		if !json.Valid([]byte(pathKey)) {
			return nil, fmt.Errorf("%w: the key is not a value of the key schema (subject %s): %v", ErrInvalid, subject, err)
		}
		if data, err = enc.codec.Encode([]byte(pathKey)); err != nil {
			return nil, fmt.Errorf("%w: the key is not a value of the key schema (subject %s): %v", ErrInvalid, subject, err)
		}
	}
	decoded, err := enc.codec.Decode(data)
	if err != nil {
		return nil, fmt.Errorf("%w: subject %q (schema id %d) does not read back the key it wrote: %v", ErrRegistry, subject, enc.id, err)
	}
	if text, ok := KeyText(decoded); !ok || string(text) != pathKey {
		return nil, fmt.Errorf("%w: the key schema (subject %s) writes this key as %s", ErrInvalid, subject, text)
	}
	return append(registry.AppendWire(make([]byte, 0, registry.WireHeaderSize+len(data)), enc.id), data...), nil
}

func (e *Encoder) encoding(ctx context.Context, sv subjectVersion) (encoding, error) {
	e.mu.Lock()
	cached, ok := e.subject[sv]
	e.mu.Unlock()
	if ok && (sv.version > 0 || e.now().Sub(cached.fetched) < e.latestTTL) {
		return cached, nil
	}
	ctx, cancel := context.WithTimeout(ctx, e.timeout)
	defer cancel()
	v, err := e.reg.Version(ctx, sv.subject, sv.version)
	if err != nil {
		if ok && errors.Is(err, registry.ErrUnavailable) {
			return cached, nil // the version known a moment ago beats refusing every publish
		}
		return encoding{}, fmt.Errorf("%w: %v", ErrRegistry, err)
	}
	if ok && cached.id == v.Schema.ID {
		cached.fetched = e.now()
	} else {
		record := sv.record
		if v.Schema.Type != registry.TypeProtobuf {
			record = "" // an Avro or JSON schema holds its one record
		}
		codec, err := e.compile(ctx, v.Schema, record)
		if err != nil {
			return encoding{}, fmt.Errorf("%w: subject %q version %d (schema id %d): %v", ErrRegistry, sv.subject, v.Version, v.Schema.ID, err)
		}
		cached = encoding{id: v.Schema.ID, codec: codec, fetched: e.now()}
	}
	e.mu.Lock()
	e.subject[sv] = cached
	e.mu.Unlock()
	return cached, nil
}
