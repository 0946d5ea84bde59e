// Package registry reads schemas from a schema registry's Confluent-compatible
// API (Confluent Schema Registry, Karapace, Apicurio's /apis/ccompat/v7), for
// the endpoints whose records carry the Confluent wire format: a zero byte,
// the 4-byte id of the writer's schema, then the encoded data.
//
// A schema id never changes meaning, so a schema fetched by id is kept for the
// life of the process, in a bounded cache. Failures come in two kinds the
// caller treats differently: ErrSchemaNotFound (the registry answered that the
// id does not exist: retrying will not help) and ErrUnavailable (no answer, an
// error status, a refused credential: retry later). Errors name
// SCHEMA_REGISTRY_URL and never carry a credential.
package registry

import (
	"container/list"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Schema types as the registry names them; an empty schemaType in an answer is AVRO.
const (
	TypeAvro       = "AVRO"
	TypeProtobuf   = "PROTOBUF"
	TypeJSONSchema = "JSON"
)

// Schema is one registered schema.
type Schema struct {
	ID int
	// Type is TypeAvro, TypeProtobuf or TypeJSONSchema.
	Type string
	// Text is the schema itself: Avro JSON, a .proto file, or a JSON Schema.
	Text string
	// References are the schemas this one imports (Protobuf imports, Avro
	// named types, JSON Schema $refs), by subject and version.
	References []Reference
}

// Reference is one schema reference of a Schema.
type Reference struct {
	Name    string `json:"name"`
	Subject string `json:"subject"`
	Version int    `json:"version"`
}

var (
	// ErrSchemaNotFound is the registry's answer that a schema id (or subject
	// version) does not exist.
	ErrSchemaNotFound = errors.New("schema not found in the registry")
	// ErrUnavailable is a registry that could not answer: unreachable, an
	// error status, refused credentials.
	ErrUnavailable = errors.New("schema registry unavailable")
)

// Options say where the registry is and how to authenticate.
type Options struct {
	// URL is the base URL of the Confluent-compatible API, without the
	// trailing slash (SCHEMA_REGISTRY_URL).
	URL string
	// Username and Password, when Username is set, are sent as HTTP Basic
	// credentials; BearerToken, when set, as a bearer token.
	Username, Password, BearerToken string
	// HTTPClient makes the requests (its Transport carries the TLS settings);
	// nil is a client with RequestTimeout.
	HTTPClient *http.Client
	// CacheSize bounds the schemas kept by id; 0 is DefaultCacheSize.
	CacheSize int
}

// DefaultCacheSize is how many schemas a Client keeps by id: far more than
// the schema versions a cluster's topics are written with at one time.
const DefaultCacheSize = 1000

// RequestTimeout bounds one request of the default HTTP client.
const RequestTimeout = 10 * time.Second

// Client fetches schemas; safe for concurrent use.
type Client struct {
	opts Options
	http *http.Client

	mu       sync.Mutex
	byID     map[int]*list.Element // of *Schema, most recently used first
	order    *list.List
	inflight map[int]*call
}

// call is one request for an id that concurrent callers share.
type call struct {
	done   chan struct{}
	schema *Schema
	err    error
}

// New returns a Client for o.
func New(o Options) *Client {
	if o.CacheSize <= 0 {
		o.CacheSize = DefaultCacheSize
	}
	o.URL = strings.TrimRight(o.URL, "/")
	hc := o.HTTPClient
	if hc == nil {
		hc = &http.Client{Timeout: RequestTimeout}
	}
	return &Client{opts: o, http: hc, byID: map[int]*list.Element{}, order: list.New(), inflight: map[int]*call{}}
}

// WireHeaderSize is the Confluent wire format's prefix: a zero byte and the
// big-endian 4-byte schema id.
const WireHeaderSize = 5

// SplitWire returns the schema id and the encoded data of a record in the
// Confluent wire format; ok is false when b is not in it.
func SplitWire(b []byte) (id int, data []byte, ok bool) {
	if len(b) < WireHeaderSize || b[0] != 0 {
		return 0, nil, false
	}
	return int(binary.BigEndian.Uint32(b[1:WireHeaderSize])), b[WireHeaderSize:], true
}

// AppendWire appends the wire format's header for schema id to dst.
func AppendWire(dst []byte, id int) []byte {
	return binary.BigEndian.AppendUint32(append(dst, 0), uint32(id))
}

// SchemaByID returns the schema with id, from the cache or the registry.
// Concurrent calls for one id share one request; a failure is not cached.
func (c *Client) SchemaByID(ctx context.Context, id int) (*Schema, error) {
	c.mu.Lock()
	if el, ok := c.byID[id]; ok {
		c.order.MoveToFront(el)
		s := el.Value.(*Schema)
		c.mu.Unlock()
		return s, nil
	}
	if cl, ok := c.inflight[id]; ok {
		c.mu.Unlock()
		select {
		case <-cl.done:
			return cl.schema, cl.err
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	cl := &call{done: make(chan struct{})}
	c.inflight[id] = cl
	c.mu.Unlock()

	cl.schema, cl.err = c.fetchByID(ctx, id)
	c.mu.Lock()
	delete(c.inflight, id)
	if cl.err == nil {
		c.byID[id] = c.order.PushFront(cl.schema)
		for c.order.Len() > c.opts.CacheSize {
			oldest := c.order.Back()
			c.order.Remove(oldest)
			delete(c.byID, oldest.Value.(*Schema).ID)
		}
	}
	c.mu.Unlock()
	close(cl.done)
	return cl.schema, cl.err
}

// schemaAnswer is the body of GET /schemas/ids/{id} and of a subject version.
type schemaAnswer struct {
	ID         int         `json:"id"`
	Version    int         `json:"version"`
	Subject    string      `json:"subject"`
	Schema     string      `json:"schema"`
	SchemaType string      `json:"schemaType"`
	References []Reference `json:"references"`
}

func (a schemaAnswer) toSchema(id int) *Schema {
	t := a.SchemaType
	if t == "" {
		t = TypeAvro
	}
	return &Schema{ID: id, Type: t, Text: a.Schema, References: a.References}
}

func (c *Client) fetchByID(ctx context.Context, id int) (*Schema, error) {
	var a schemaAnswer
	if err := c.get(ctx, "/schemas/ids/"+strconv.Itoa(id), &a); err != nil {
		return nil, fmt.Errorf("schema id %d: %w", id, err)
	}
	return a.toSchema(id), nil
}

// SubjectVersion is one version of a subject: what a publish encodes with.
type SubjectVersion struct {
	Subject string
	Version int
	Schema  *Schema
}

// Version returns version v of subject, or its latest version when v is 0.
// Not cached: "latest" moves when a new version is registered.
func (c *Client) Version(ctx context.Context, subject string, v int) (*SubjectVersion, error) {
	which := "latest"
	if v > 0 {
		which = strconv.Itoa(v)
	}
	var a schemaAnswer
	if err := c.get(ctx, "/subjects/"+url.PathEscape(subject)+"/versions/"+which, &a); err != nil {
		return nil, fmt.Errorf("subject %q version %s: %w", subject, which, err)
	}
	return &SubjectVersion{Subject: subject, Version: a.Version, Schema: a.toSchema(a.ID)}, nil
}

// Subjects lists the registry's subjects.
func (c *Client) Subjects(ctx context.Context) ([]string, error) {
	var out []string
	if err := c.get(ctx, "/subjects", &out); err != nil {
		return nil, fmt.Errorf("subjects: %w", err)
	}
	return out, nil
}

// registryError is the registry's error body: {"error_code": 40403, "message": "..."}.
type registryError struct {
	Code    int    `json:"error_code"`
	Message string `json:"message"`
}

// Error codes of the Confluent API that mean "does not exist".
var notFoundCodes = map[int]bool{40401: true, 40402: true, 40403: true}

func (c *Client) get(ctx context.Context, path string, into any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.opts.URL+path, nil)
	if err != nil {
		return fmt.Errorf("%w: SCHEMA_REGISTRY_URL: %v", ErrUnavailable, err)
	}
	req.Header.Set("Accept", "application/vnd.schemaregistry.v1+json, application/json")
	switch {
	case c.opts.BearerToken != "":
		req.Header.Set("Authorization", "Bearer "+c.opts.BearerToken)
	case c.opts.Username != "":
		req.SetBasicAuth(c.opts.Username, c.opts.Password)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("%w: SCHEMA_REGISTRY_URL %s: %v", ErrUnavailable, c.opts.URL, c.scrub(transportError(err)))
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	if err != nil {
		return fmt.Errorf("%w: SCHEMA_REGISTRY_URL %s: reading the answer: %v", ErrUnavailable, c.opts.URL, err)
	}
	if resp.StatusCode != http.StatusOK {
		var re registryError
		_ = json.Unmarshal(body, &re)
		switch {
		case resp.StatusCode == http.StatusNotFound && (notFoundCodes[re.Code] || re.Code == 0):
			return fmt.Errorf("%w (HTTP 404, error %d)", ErrSchemaNotFound, re.Code)
		case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
			return fmt.Errorf("%w: SCHEMA_REGISTRY_URL %s refused the credentials (HTTP %d): check the registry's user, password or token", ErrUnavailable, c.opts.URL, resp.StatusCode)
		}
		return fmt.Errorf("%w: SCHEMA_REGISTRY_URL %s answered HTTP %d", ErrUnavailable, c.opts.URL, resp.StatusCode)
	}
	if err := json.Unmarshal(body, into); err != nil {
		return fmt.Errorf("%w: SCHEMA_REGISTRY_URL %s: the answer is not the registry API's JSON: %v", ErrUnavailable, c.opts.URL, err)
	}
	return nil
}

// transportError drops the request URL net/http puts in its errors (the
// Client's own URL is named once by the caller).
func transportError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// scrub removes the credentials from an error's text.
func (c *Client) scrub(err error) string {
	s := err.Error()
	for _, secret := range []string{c.opts.Password, c.opts.BearerToken} {
		if secret != "" {
			s = strings.ReplaceAll(s, secret, "[redacted]")
		}
	}
	return s
}
