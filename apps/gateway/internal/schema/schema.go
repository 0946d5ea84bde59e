// Package schema turns records of registry-backed topics (Avro, Protobuf,
// JSON Schema in the Confluent wire format) into JSON for subscribers, and
// JSON from publishers back into the registered encoding.
//
// A Codec is compiled once per schema id and then used for every record
// written with that id, by many goroutines at once: compiling does all the
// schema walking, so Decode on the consumer path only reads bytes and appends
// JSON. The JSON mapping of each format is documented for app developers in
// docs/payload-formats.md; this package is its implementation.
package schema

import (
	"context"
	"errors"
	"fmt"

	"github.com/sluicehq/sluice/apps/gateway/internal/registry"
)

// Codec converts one registered schema's data (the bytes after the 5-byte
// wire header, protobuf message indexes included) to JSON and back. A Codec is
// safe for concurrent use.
type Codec interface {
	// Decode returns the JSON text of data, by the documented mapping. An
	// error wraps ErrBadRecord, names the schema id and says what is wrong
	// without quoting the payload.
	Decode(data []byte) ([]byte, error)
	// Encode returns the data (no wire header) for a JSON text. An error
	// wraps ErrBadMessage and names the field as $.a.b[2].
	Encode(jsonText []byte) ([]byte, error)
}

// Resolver returns a referenced schema (protobuf imports, Avro named types,
// JSON Schema $ref) by the subject and version the referring schema names.
type Resolver func(ctx context.Context, ref registry.Reference) (*registry.Schema, error)

var (
	// ErrBadRecord is a record whose data does not decode with the schema its
	// header names. Retrying will not help: the subscriber is told, and later
	// records flow.
	ErrBadRecord = errors.New("record does not decode with its schema")
	// ErrBadMessage is a JSON message that does not fit the schema it is to be
	// published with: the publisher's error, named by field.
	ErrBadMessage = errors.New("message does not fit the schema")
	// ErrUnsupportedSchema is a schema this package cannot compile: an unknown
	// type, a syntax error, a reference that does not resolve. Errors from
	// Resolver are wrapped as they are (a registry.ErrUnavailable stays
	// retryable).
	ErrUnsupportedSchema = errors.New("schema cannot be compiled")
)

// maxReferenceDepth bounds how deep references may nest (a reference cycle
// in the registry must not recurse forever).
const maxReferenceDepth = 32

// Compile returns the Codec for s. References are fetched through resolve
// (which may be nil when s has none). Protobuf schemas encode with the first
// message of the file; CompileMessage chooses another.
func Compile(ctx context.Context, s *registry.Schema, resolve Resolver) (Codec, error) {
	return CompileMessage(ctx, s, resolve, "")
}

// CompileMessage is Compile with the message a protobuf Codec encodes given
// by its full name ("shop.v1.Order", nested messages as "shop.v1.Order.Item");
// "" is the first message of the file. Decoding always uses the message the
// record's indexes name. For Avro and JSON Schema message must be "".
func CompileMessage(ctx context.Context, s *registry.Schema, resolve Resolver, message string) (Codec, error) {
	if s == nil {
		return nil, fmt.Errorf("%w: no schema", ErrUnsupportedSchema)
	}
	if resolve == nil {
		resolve = noReferences
	}
	var (
		c   Codec
		err error
	)
	switch s.Type {
	case registry.TypeAvro, "":
		if message != "" {
			return nil, fmt.Errorf("schema id %d: %w: a message name is only for protobuf schemas", s.ID, ErrUnsupportedSchema)
		}
		c, err = compileAvro(ctx, s, resolve)
	case registry.TypeProtobuf:
		c, err = compileProtobuf(ctx, s, resolve, message)
	case registry.TypeJSONSchema:
		if message != "" {
			return nil, fmt.Errorf("schema id %d: %w: a message name is only for protobuf schemas", s.ID, ErrUnsupportedSchema)
		}
		c, err = compileJSONSchema(ctx, s, resolve)
	default:
		return nil, fmt.Errorf("schema id %d: %w: unknown schema type %q", s.ID, ErrUnsupportedSchema, s.Type)
	}
	if err != nil {
		return nil, fmt.Errorf("schema id %d: %w", s.ID, err)
	}
	return c, nil
}

// RegistryResolver resolves references through a registry client: a
// reference names a subject and a version, fetched with Client.Version. Its
// errors keep the registry's kinds (ErrSchemaNotFound, ErrUnavailable).
func RegistryResolver(c *registry.Client) Resolver {
	return func(ctx context.Context, ref registry.Reference) (*registry.Schema, error) {
		v, err := c.Version(ctx, ref.Subject, ref.Version)
		if err != nil {
			return nil, err
		}
		return v.Schema, nil
	}
}

func noReferences(_ context.Context, ref registry.Reference) (*registry.Schema, error) {
	return nil, fmt.Errorf("%w: reference %q (subject %q version %d) but no resolver", ErrUnsupportedSchema, ref.Name, ref.Subject, ref.Version)
}

// unsupported wraps a library's compile error as ErrUnsupportedSchema.
func unsupported(err error) error {
	return fmt.Errorf("%w: %w", ErrUnsupportedSchema, err)
}
