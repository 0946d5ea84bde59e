package schema

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/bufbuild/protocompile"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/sluicehq/sluice/apps/gateway/internal/registry"
)

// The Protobuf codec compiles the schema's .proto text (and its imports,
// fetched through the Resolver by the import path each reference names) with
// bufbuild/protocompile, and converts with google.golang.org/protobuf's
// dynamicpb and protojson: protobuf's canonical JSON mapping, done by the
// protobuf project's own implementation. JSON member names are the fields'
// lowerCamelCase JSON names, as protojson and the Java JsonFormat printer
// (what Confluent's tools use) emit by default; Encode accepts those and the
// proto field names.

type protobufCodec struct {
	id   int
	file protoreflect.FileDescriptor
	// message is what Encode writes, and indexes its Confluent message
	// indexes (written once at compile).
	message protoreflect.MessageDescriptor
	indexes []byte

	unmarshal proto.UnmarshalOptions
	toJSON    protojson.MarshalOptions
	fromJSON  protojson.UnmarshalOptions
}

// mainProtoFile is the file name the schema itself compiles under; imports
// keep the names their references give.
const mainProtoFile = "sluice-registry-schema.proto"

func compileProtobuf(ctx context.Context, s *registry.Schema, resolve Resolver, message string) (Codec, error) {
	sources := map[string]string{mainProtoFile: s.Text}
	if err := fetchProtoImports(ctx, s.References, resolve, sources, 0); err != nil {
		return nil, err
	}
	compiler := protocompile.Compiler{
		// Well-known types (google/protobuf/timestamp.proto and the rest)
		// come with the compiler, never from the registry.
		Resolver: protocompile.WithStandardImports(&protocompile.SourceResolver{
			Accessor: protocompile.SourceAccessorFromMap(sources),
		}),
	}
	files, err := compiler.Compile(ctx, mainProtoFile)
	if err != nil {
		return nil, unsupported(err)
	}
	reg := new(protoregistry.Files)
	file, err := registerProtoFile(reg, files[0], sources)
	if err != nil {
		return nil, unsupported(err)
	}
	if file.Messages().Len() == 0 {
		return nil, fmt.Errorf("%w: the .proto file defines no message", ErrUnsupportedSchema)
	}
	types := dynamicpb.NewTypes(reg)

	c := &protobufCodec{
		id:   s.ID,
		file: file,
		// AllowPartial when decoding: a proto2 record missing a required
		// field is still delivered (the field is absent from its JSON)
		// rather than reported undecodable. Publishing stays strict.
		unmarshal: proto.UnmarshalOptions{Resolver: types, AllowPartial: true},
		// EmitDefaultValues: a proto3 scalar left at zero still appears
		// (0, "", false), so every message of a type has the same members;
		// unset messages and oneofs stay out, as the mapping says.
		toJSON:   protojson.MarshalOptions{Resolver: types, EmitDefaultValues: true, AllowPartial: true},
		fromJSON: protojson.UnmarshalOptions{Resolver: types},
	}
	if message == "" {
		c.message = file.Messages().Get(0)
	} else {
		d, _ := reg.FindDescriptorByName(protoreflect.FullName(message))
		md, ok := d.(protoreflect.MessageDescriptor)
		if !ok || md.ParentFile().Path() != file.Path() {
			return nil, fmt.Errorf("%w: the .proto file defines no message %q", ErrUnsupportedSchema, message)
		}
		c.message = md
	}
	c.indexes = appendMessageIndexes(nil, c.message)
	return c, nil
}

// fetchProtoImports adds the text of every referenced file, by import path.
func fetchProtoImports(ctx context.Context, refs []registry.Reference, resolve Resolver, sources map[string]string, depth int) error {
	if depth > maxReferenceDepth {
		return fmt.Errorf("%w: references nest deeper than %d", ErrUnsupportedSchema, maxReferenceDepth)
	}
	for _, ref := range refs {
		if _, ok := sources[ref.Name]; ok {
			continue
		}
		rs, err := resolve(ctx, ref)
		if err != nil {
			return fmt.Errorf("import %q: %w", ref.Name, err)
		}
		sources[ref.Name] = rs.Text
		if err := fetchProtoImports(ctx, rs.References, resolve, sources, depth+1); err != nil {
			return err
		}
	}
	return nil
}

// registerProtoFile adds f and its imports to reg, so google.protobuf.Any
// values can name any message type they can see, and returns f as reg holds
// it. The compiler's descriptors are rebuilt with protodesc: the protobuf
// runtime's own descriptors answer the per-field questions dynamicpb and
// protojson ask for every record (such as field presence) from precomputed
// values, where the compiler's resolve them each time (about a third of the
// decoding time). Well-known types are the runtime's built-in descriptors.
func registerProtoFile(reg *protoregistry.Files, f protoreflect.FileDescriptor, sources map[string]string) (protoreflect.FileDescriptor, error) {
	if have, err := reg.FindFileByPath(f.Path()); err == nil {
		return have, nil
	}
	imports := f.Imports()
	for i := range imports.Len() {
		if _, err := registerProtoFile(reg, imports.Get(i).FileDescriptor, sources); err != nil {
			return nil, err
		}
	}
	// A file the registry did not give came with the compiler: a
	// well-known type, which the runtime has built in.
	var built protoreflect.FileDescriptor
	if _, fromRegistry := sources[f.Path()]; !fromRegistry {
		built, _ = protoregistry.GlobalFiles.FindFileByPath(f.Path())
	}
	if built == nil {
		var err error
		if built, err = protodesc.NewFile(protodesc.ToFileDescriptorProto(f), reg); err != nil {
			return nil, err
		}
	}
	if err := reg.RegisterFile(built); err != nil {
		return nil, err
	}
	return built, nil
}

// appendMessageIndexes writes the Confluent message indexes of md: the path
// of message indexes from the file down to md, as a zigzag varint count and
// zigzag varint indexes, and the single byte 0 for [0] (the first message).
func appendMessageIndexes(dst []byte, md protoreflect.MessageDescriptor) []byte {
	var path []int
	for d := protoreflect.Descriptor(md); ; {
		path = append([]int{d.Index()}, path...)
		parent := d.Parent()
		if _, ok := parent.(protoreflect.MessageDescriptor); !ok {
			break
		}
		d = parent
	}
	if len(path) == 1 && path[0] == 0 {
		return append(dst, 0)
	}
	dst = binary.AppendVarint(dst, int64(len(path)))
	for _, i := range path {
		dst = binary.AppendVarint(dst, int64(i))
	}
	return dst
}

// maxMessageIndexes bounds the nesting a record's indexes may name.
const maxMessageIndexes = 100

// messageFor reads the message indexes at the start of data and returns the
// message they name and the rest of data.
func (c *protobufCodec) messageFor(data []byte) (protoreflect.MessageDescriptor, []byte, error) {
	count, n := binary.Varint(data)
	if n <= 0 {
		return nil, nil, errors.New("message indexes missing or malformed")
	}
	data = data[n:]
	if count == 0 {
		return c.file.Messages().Get(0), data, nil
	}
	if count < 0 || count > maxMessageIndexes {
		return nil, nil, fmt.Errorf("message index count %d", count)
	}
	messages := c.file.Messages()
	var md protoreflect.MessageDescriptor
	indexes := make([]string, 0, count)
	for range count {
		i, n := binary.Varint(data)
		if n <= 0 {
			return nil, nil, errors.New("message indexes malformed")
		}
		data = data[n:]
		indexes = append(indexes, strconv.FormatInt(i, 10))
		if i < 0 || i >= int64(messages.Len()) {
			return nil, nil, fmt.Errorf("message indexes [%s] name no message of the schema", strings.Join(indexes, ","))
		}
		md = messages.Get(int(i))
		messages = md.Messages()
	}
	return md, data, nil
}

func (c *protobufCodec) Decode(data []byte) ([]byte, error) {
	md, body, err := c.messageFor(data)
	if err != nil {
		return nil, fmt.Errorf("schema id %d: %w: %w", c.id, ErrBadRecord, err)
	}
	m := dynamicpb.NewMessage(md)
	if err := c.unmarshal.Unmarshal(body, m); err != nil {
		return nil, fmt.Errorf("schema id %d: %w: message %s: %w", c.id, ErrBadRecord, md.FullName(), err)
	}
	out, err := c.toJSON.Marshal(m)
	if err != nil {
		// A value with no JSON form, such as a string field holding
		// invalid UTF-8 or an Any of an unknown type.
		return nil, fmt.Errorf("schema id %d: %w: message %s: %w", c.id, ErrBadRecord, md.FullName(), err)
	}
	return out, nil
}

func (c *protobufCodec) Encode(jsonText []byte) ([]byte, error) {
	m := dynamicpb.NewMessage(c.message)
	if err := c.fromJSON.Unmarshal(jsonText, m); err != nil {
		return nil, fmt.Errorf("%w: %s", ErrBadMessage, protojsonError(err, jsonText))
	}
	out, err := proto.MarshalOptions{Deterministic: true}.MarshalAppend(append([]byte(nil), c.indexes...), m)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadMessage, err)
	}
	return out, nil
}

// protojsonPosition matches the position protojson gives its errors.
var protojsonPosition = regexp.MustCompile(`^(?:syntax error )?\(line (\d+):(\d+)\): `)

// protojsonError restates a protojson error with the field named as
// $.a.b[2]: protojson says where in the text it stopped (line and column),
// and jsonPathAt finds the member or item there.
func protojsonError(err error, text []byte) string {
	s := strings.ReplaceAll(err.Error(), "\u00a0", " ") // protojson varies its spaces on purpose
	s = strings.TrimSpace(strings.TrimPrefix(s, "proto:"))
	m := protojsonPosition.FindStringSubmatch(s)
	if m == nil {
		return "$: " + shorten(s)
	}
	line, _ := strconv.Atoi(m[1])
	column, _ := strconv.Atoi(m[2])
	return jsonPathAt(text, byteOffset(text, line, column)) + ": " + shortenMessage(s[len(m[0]):])
}

// shortenMessage bounds an error text that may quote a published value.
func shortenMessage(s string) string { return truncateUTF8(s, 200) }

// byteOffset turns a 1-based line and rune column into a byte offset.
func byteOffset(text []byte, line, column int) int {
	off := 0
	for l := 1; l < line; l++ {
		i := bytes.IndexByte(text[off:], '\n')
		if i < 0 {
			return len(text)
		}
		off += i + 1
	}
	for c := 1; c < column && off < len(text); c++ {
		_, size := utf8.DecodeRune(text[off:])
		off += size
	}
	return off
}

// jsonPathAt returns the location ($.a.b[2]) of the JSON token at byte
// offset off of text: the member name or value that starts there.
func jsonPathAt(text []byte, off int) string {
	type frame struct {
		array   bool
		index   int
		base    int  // length of the path at the container
		wantKey bool // an object expecting a member name
	}
	d := json.NewDecoder(bytes.NewReader(text))
	p := newPath()
	var stack []frame
	for {
		tok, err := d.Token()
		if err != nil {
			return p.String()
		}
		end := int(d.InputOffset())
		var top *frame
		if len(stack) > 0 {
			top = &stack[len(stack)-1]
		}
		if delim, ok := tok.(json.Delim); ok && (delim == '}' || delim == ']') {
			stack = stack[:len(stack)-1]
			p.up(top.base)
			if len(stack) > 0 && !stack[len(stack)-1].array {
				stack[len(stack)-1].wantKey = true
			}
			if end > off {
				return p.String()
			}
			continue
		}
		if top != nil && !top.array && top.wantKey {
			p.up(top.base)
			p.member(tok.(string))
			top.wantKey = false
			if end > off {
				return p.String()
			}
			continue
		}
		if top != nil && top.array {
			top.index++
			p.up(top.base)
			p.index(top.index)
		}
		if end > off {
			return p.String()
		}
		if delim, ok := tok.(json.Delim); ok {
			stack = append(stack, frame{array: delim == '[', index: -1, base: len(p.b), wantKey: delim == '{'})
			continue
		}
		if top != nil && !top.array {
			top.wantKey = true
		}
	}
}
