// Package schemawire serves the records of schema-registry-backed endpoints
// (avro, protobuf, json-schema: the Confluent wire format) as JSON, and turns
// the JSON publishes to them into such records (encode.go).
//
// Decoding wraps the hub's Backend: every record of a
// topic that such an endpoint serves, live or read back for a resume, is decoded
// once, on the topic's consumer goroutine, before the hub fans it out; the hub
// then puts the JSON in the frames of those endpoints and the raw value in the
// frames of any other endpoint of the topic.
//
// A record that cannot be decoded is never dropped: it travels as base64 of its
// raw value with the reason in the message's "error" (PROTOCOL.md). When the
// registry cannot be reached, records whose schema is not cached yet travel that
// way and the schema is asked for again at most once a second per id, so an
// outage costs the registry one request per id per second, not one per record;
// a client resuming from before such a record once the registry answers gets it
// decoded.
package schemawire

import (
	"bytes"
	"container/list"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/sluicehq/sluice/apps/gateway/internal/hub"
	"github.com/sluicehq/sluice/apps/gateway/internal/registry"
)

// Codec turns one schema's encoded data into JSON (the schema package's Codec).
type Codec interface {
	Decode(data []byte) ([]byte, error)
}

// Compiler builds the Codec of a schema; references are resolved through the
// registry.
type Compiler func(ctx context.Context, s *registry.Schema) (Codec, error)

// Topics says whether endpoints read a topic's values or keys in the
// registry's wire format (the catalog).
type Topics interface {
	TopicRegistryUse(topic string) (values, keys bool)
}

// Options configure a Decoder.
type Options struct {
	Registry *registry.Client
	Compile  Compiler
	// CodecCache bounds the compiled codecs kept by schema id (default
	// registry.DefaultCacheSize).
	CodecCache int
	// FetchTimeout bounds the registry requests of one record (default 3 s):
	// they hold up the topic's delivery meanwhile.
	FetchTimeout time.Duration
	// RetryAfter is how long a schema id whose fetch failed is not asked for
	// again (default 1 s).
	RetryAfter time.Duration
	now        func() time.Time
}

// Decoder decodes records in the registry's wire format to JSON.
type Decoder struct {
	o Options

	mu      sync.Mutex
	codecs  map[int]*list.Element // of codecEntry, most recently used first
	order   *list.List
	retryAt map[int]failure // ids whose schema could not be fetched or compiled lately
}

type codecEntry struct {
	id    int
	codec Codec
}

type failure struct {
	until  time.Time
	reason string
}

// New returns a Decoder.
func New(o Options) *Decoder {
	if o.CodecCache <= 0 {
		o.CodecCache = registry.DefaultCacheSize
	}
	if o.FetchTimeout <= 0 {
		o.FetchTimeout = 3 * time.Second
	}
	if o.RetryAfter <= 0 {
		o.RetryAfter = time.Second
	}
	if o.now == nil {
		o.now = time.Now
	}
	return &Decoder{o: o, codecs: map[int]*list.Element{}, order: list.New(), retryAt: map[int]failure{}}
}

// Decode returns value as JSON, or the reason it cannot be (then json is nil).
// The reason names the schema id and never holds the payload.
func (d *Decoder) Decode(ctx context.Context, value []byte) (json []byte, problem string) {
	id, data, ok := registry.SplitWire(value)
	if !ok {
		return nil, "the record is not in the schema registry's wire format (a zero byte, then the schema id)"
	}
	codec, problem := d.codec(ctx, id)
	if codec == nil {
		return nil, problem
	}
	out, err := codec.Decode(data)
	if err != nil {
		return nil, fmt.Sprintf("the record does not decode with schema id %d: %v", id, err)
	}
	return out, ""
}

// codec returns the compiled codec of schema id, fetching and compiling it on
// first use.
func (d *Decoder) codec(ctx context.Context, id int) (Codec, string) {
	d.mu.Lock()
	if el, ok := d.codecs[id]; ok {
		d.order.MoveToFront(el)
		c := el.Value.(codecEntry).codec
		d.mu.Unlock()
		return c, ""
	}
	if f, ok := d.retryAt[id]; ok && d.o.now().Before(f.until) {
		d.mu.Unlock()
		return nil, f.reason
	}
	d.mu.Unlock()

	ctx, cancel := context.WithTimeout(ctx, d.o.FetchTimeout)
	defer cancel()
	codec, reason, final := d.compile(ctx, id)
	d.mu.Lock()
	defer d.mu.Unlock()
	if codec == nil {
		// A missing id may appear later (a schema registered after the record
		// was written is possible with some tools); ask again after a while
		// either way, later for what will not change by itself.
		wait := d.o.RetryAfter
		if final {
			wait *= 30
		}
		d.forgetExpiredLocked()
		d.retryAt[id] = failure{until: d.o.now().Add(wait), reason: reason}
		return nil, reason
	}
	delete(d.retryAt, id)
	d.codecs[id] = d.order.PushFront(codecEntry{id: id, codec: codec})
	for d.order.Len() > d.o.CodecCache {
		oldest := d.order.Back()
		d.order.Remove(oldest)
		delete(d.codecs, oldest.Value.(codecEntry).id)
	}
	return codec, ""
}

// forgetExpiredLocked keeps the failures remembered bounded: plain bytes that
// happen to start with a zero byte name random "schema ids", each remembered
// once, so the expired ones go once there are more than the codec cache holds.
func (d *Decoder) forgetExpiredLocked() {
	if len(d.retryAt) < d.o.CodecCache {
		return
	}
	now := d.o.now()
	for id, f := range d.retryAt {
		if !now.Before(f.until) {
			delete(d.retryAt, id)
		}
	}
}

// DecodeKey returns the text a path names record key by when the key is in
// the wire format (KeyText), or the key itself when it does not decode: such
// a key is matched byte for byte, as a plain one.
func (d *Decoder) DecodeKey(ctx context.Context, key []byte) []byte {
	if len(key) <= registry.WireHeaderSize || key[0] != 0 {
		return key
	}
	decoded, problem := d.Decode(ctx, key)
	if problem != "" {
		return key
	}
	text, ok := KeyText(decoded)
	if !ok {
		return key
	}
	return text
}

// KeyText is how the key in a path writes a record key decoded to keyJSON
// (docs/payload-formats.md, "Keys"): a string is the string itself, any other
// value its compact JSON (compacted: protobuf's JSON writer spaces its output
// differently from one build to the next). ok is false for what a path cannot
// hold (an empty string).
func KeyText(keyJSON []byte) (text []byte, ok bool) {
	if len(keyJSON) > 0 && keyJSON[0] == '"' {
		var s string
		if err := json.Unmarshal(keyJSON, &s); err != nil || s == "" {
			return nil, false
		}
		return []byte(s), true
	}
	var b bytes.Buffer
	if err := json.Compact(&b, keyJSON); err != nil || b.Len() == 0 {
		return nil, false
	}
	return b.Bytes(), true
}

// compile fetches and compiles schema id; final tells a failure that retrying
// soon will not mend (a missing id, a schema that does not compile).
func (d *Decoder) compile(ctx context.Context, id int) (Codec, string, bool) {
	s, err := d.o.Registry.SchemaByID(ctx, id)
	switch {
	case errors.Is(err, registry.ErrSchemaNotFound):
		return nil, fmt.Sprintf("schema id %d is not in the registry", id), true
	case err != nil:
		return nil, fmt.Sprintf("schema id %d could not be fetched (%v); resume from before this message to get it decoded once the registry answers", id, err), false
	}
	codec, err := d.o.Compile(ctx, s)
	switch {
	case errors.Is(err, registry.ErrUnavailable): // a reference could not be fetched
		return nil, fmt.Sprintf("schema id %d could not be compiled (%v); resume from before this message to get it decoded once the registry answers", id, err), false
	case err != nil:
		return nil, fmt.Sprintf("schema id %d (%s) cannot be used: %v", id, s.Type, err), true
	}
	return codec, "", false
}

// Backend is a hub.Backend whose records of registry-backed topics come
// decoded (hub.Record's Decoded or Problem set).
type Backend struct {
	hub.Backend
	dec    *Decoder
	topics Topics
}

// NewBackend wraps inner.
func NewBackend(inner hub.Backend, dec *Decoder, topics Topics) *Backend {
	return &Backend{Backend: inner, dec: dec, topics: topics}
}

// Consume decodes each fetch's records before the hub gets them: values to
// Decoded, keys in place (the hub matches keys to paths: a decoded key is
// matched by its text, DecodeKey). What the topic's endpoints read in the
// wire format is asked once per fetch, not per record: a topic without such
// endpoints costs one catalog lookup per fetch and nothing else.
func (b *Backend) Consume(topic string, meta hub.TopicMeta, ev hub.ConsumeEvents) hub.Consumer {
	ctx, cancel := context.WithCancel(context.Background())
	deliver := ev.Deliver
	ev.Deliver = func(recs []hub.Record) {
		values, keys := b.topics.TopicRegistryUse(topic)
		for i := range recs {
			b.decode(ctx, &recs[i], values, keys)
		}
		deliver(recs)
	}
	return &consumer{Consumer: b.Backend.Consume(topic, meta, ev), cancel: cancel}
}

// consumer ends the registry requests of its records when it is stopped.
type consumer struct {
	hub.Consumer
	cancel context.CancelFunc
}

func (c *consumer) Stop() {
	c.cancel()
	c.Consumer.Stop()
}

func (b *Backend) decode(ctx context.Context, r *hub.Record, values, keys bool) {
	if values {
		r.Decoded, r.Problem = b.dec.Decode(ctx, r.Value)
	}
	if keys {
		r.Key = b.dec.DecodeKey(ctx, r.Key)
	}
}

// Read decodes the records read back for a resume the same way.
func (b *Backend) Read(ctx context.Context, topic, epoch string, partition int32, from, until int64, fn func(hub.Record) bool) error {
	values, keys := b.topics.TopicRegistryUse(topic)
	if !values && !keys {
		return b.Backend.Read(ctx, topic, epoch, partition, from, until, fn)
	}
	return b.Backend.Read(ctx, topic, epoch, partition, from, until, func(r hub.Record) bool {
		b.decode(ctx, &r, values, keys)
		return fn(r)
	})
}
