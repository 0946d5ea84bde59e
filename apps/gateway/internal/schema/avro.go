package schema

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"time"
	"unsafe"

	"github.com/hamba/avro/v2"

	"github.com/sluicehq/sluice/apps/gateway/internal/protocol"
	"github.com/sluicehq/sluice/apps/gateway/internal/registry"
)

// The Avro codec parses the schema with hamba/avro (the maintained Go Avro
// library: full spec, named types, logical types, a schema cache for named
// types from other schemas) and compiles it into a tree of avroNodes. Decode
// and Encode walk that tree directly over the binary data: the library's own
// generic decoding yields Go maps and time.Time values that would still need
// a second walk to reach our JSON rules (decimal strings, union shapes, dates
// as text), and would allocate a map per record. The binary primitives are
// Avro's zigzag varints (encoding/binary's Varint), little-endian IEEE floats
// and length-prefixed bytes.

// avroNode is one compiled Avro type.
type avroNode struct {
	typ     avro.Type // primitive or complex type; never avro.Ref
	logical avro.LogicalType
	name    string // full name of a named type; the primitive name otherwise

	scale, precision int // decimal
	size             int // fixed

	fields     []avroField    // record
	fieldIndex map[string]int // record: field by name

	items *avroNode // array items, map values

	symbols     []string       // enum
	symbolIndex map[string]int // enum

	branches []*avroNode // union
	// nullable is set for a union of null and one other type, which maps to
	// null or the other type's JSON; nullIndex and valueIndex are its branches.
	nullable              bool
	nullIndex, valueIndex int
}

type avroField struct {
	name string
	key  []byte // the JSON member name, quoted, with the colon
	node *avroNode
	// def is the field's default in Avro binary, used when a published
	// message leaves the field out; hasDef tells it apart from no default,
	// as the bytes of a default may be none (a field of type null).
	def    []byte
	hasDef bool
}

type avroCodec struct {
	id   int
	root *avroNode
}

func compileAvro(ctx context.Context, s *registry.Schema, resolve Resolver) (Codec, error) {
	// A cache of our own per compile: the library's default cache is global,
	// and two versions of one record name must not meet in it.
	cache := &avro.SchemaCache{}
	seen := map[string]bool{}
	if err := addAvroReferences(ctx, s.References, resolve, cache, seen, 0); err != nil {
		return nil, err
	}
	parsed, err := avro.ParseWithCache(s.Text, "", cache)
	if err != nil {
		return nil, unsupported(err)
	}
	root, err := (&avroCompiler{named: map[string]*avroNode{}}).node(parsed)
	if err != nil {
		return nil, unsupported(err)
	}
	return &avroCodec{id: s.ID, root: root}, nil
}

// addAvroReferences parses the referenced schemas, their own references
// first, into cache, so the named types they define can be used by name.
func addAvroReferences(ctx context.Context, refs []registry.Reference, resolve Resolver, cache *avro.SchemaCache, seen map[string]bool, depth int) error {
	if depth > maxReferenceDepth {
		return fmt.Errorf("%w: references nest deeper than %d", ErrUnsupportedSchema, maxReferenceDepth)
	}
	for _, ref := range refs {
		key := ref.Subject + "\x00" + strconv.Itoa(ref.Version)
		if seen[key] {
			continue
		}
		seen[key] = true
		rs, err := resolve(ctx, ref)
		if err != nil {
			return fmt.Errorf("reference %q: %w", ref.Name, err)
		}
		if err := addAvroReferences(ctx, rs.References, resolve, cache, seen, depth+1); err != nil {
			return err
		}
		if _, err := avro.ParseWithCache(rs.Text, "", cache); err != nil {
			return fmt.Errorf("%w: reference %q: %w", ErrUnsupportedSchema, ref.Name, err)
		}
	}
	return nil
}

type avroCompiler struct {
	named map[string]*avroNode // by full name: recursive types point back
}

func (c *avroCompiler) node(s avro.Schema) (*avroNode, error) {
	if ref, ok := s.(*avro.RefSchema); ok {
		s = ref.Schema()
	}
	if named, ok := s.(avro.NamedSchema); ok {
		if n, ok := c.named[named.FullName()]; ok {
			return n, nil
		}
	}
	n := &avroNode{typ: s.Type(), name: string(s.Type())}
	if lt, ok := s.(avro.LogicalTypeSchema); ok && lt.Logical() != nil {
		n.logical = lt.Logical().Type()
		if d, ok := lt.Logical().(*avro.DecimalLogicalSchema); ok {
			n.scale, n.precision = d.Scale(), d.Precision()
		}
	}
	switch x := s.(type) {
	case *avro.RecordSchema:
		n.name = x.FullName()
		c.named[n.name] = n
		for _, f := range x.Fields() {
			fn, err := c.node(f.Type())
			if err != nil {
				return nil, err
			}
			af := avroField{name: f.Name(), node: fn}
			af.key = append(protocol.AppendString(nil, f.Name()), ':')
			n.fields = append(n.fields, af)
			if n.fieldIndex == nil {
				n.fieldIndex = map[string]int{}
			}
			n.fieldIndex[f.Name()] = len(n.fields) - 1
		}
		// Defaults are compiled once every field's node exists (a default
		// of a recursive type needs its own node complete).
		for i, f := range x.Fields() {
			if f.HasDefault() {
				n.fields[i].def, n.fields[i].hasDef = compileDefault(n.fields[i].node, f.Default())
			}
		}
	case *avro.EnumSchema:
		n.name = x.FullName()
		c.named[n.name] = n
		n.symbols = x.Symbols()
		n.symbolIndex = make(map[string]int, len(n.symbols))
		for i, sym := range n.symbols {
			n.symbolIndex[sym] = i
		}
	case *avro.FixedSchema:
		n.name = x.FullName()
		c.named[n.name] = n
		n.size = x.Size()
	case *avro.ArraySchema:
		items, err := c.node(x.Items())
		if err != nil {
			return nil, err
		}
		n.items = items
	case *avro.MapSchema:
		values, err := c.node(x.Values())
		if err != nil {
			return nil, err
		}
		n.items = values
	case *avro.UnionSchema:
		for _, b := range x.Types() {
			bn, err := c.node(b)
			if err != nil {
				return nil, err
			}
			n.branches = append(n.branches, bn)
		}
		if len(n.branches) == 2 && x.Nullable() {
			n.nullable = true
			n.nullIndex, n.valueIndex = x.Indices()
		}
	case *avro.PrimitiveSchema, *avro.NullSchema:
	default:
		return nil, fmt.Errorf("unsupported Avro type %s", s.Type())
	}
	return n, nil
}

// compileDefault encodes a field default (as the library parsed it from the
// schema's JSON) once, through the same path a published value takes. A
// union's default is of its first branch. A default that does not encode
// leaves the field required.
func compileDefault(n *avroNode, def any) ([]byte, bool) {
	var prefix []byte
	if n.typ == avro.Union {
		prefix = []byte{0} // branch 0, zigzag
		n = n.branches[0]
	}
	v, err := jsonRoundTrip(def)
	if err != nil {
		return nil, false
	}
	b, err := n.encode(prefix, v, newPath())
	if err != nil {
		return nil, false
	}
	return b, true
}

func (c *avroCodec) Decode(data []byte) ([]byte, error) {
	r := avroReader{b: data}
	// JSON of a typical record is two to three times its Avro size.
	out, err := c.root.decode(make([]byte, 0, 3*len(data)+64), &r)
	if err == nil && r.i != len(data) {
		err = fmt.Errorf("%d bytes left over after the value", len(data)-r.i)
	}
	if err != nil {
		return nil, fmt.Errorf("schema id %d: %w: %w", c.id, ErrBadRecord, err)
	}
	return out, nil
}

func (c *avroCodec) Encode(jsonText []byte) ([]byte, error) {
	v, err := decodeJSON(jsonText)
	if err != nil {
		return nil, err
	}
	return c.root.encode(make([]byte, 0, len(jsonText)), v, newPath())
}

// avroReader reads Avro binary primitives from a record's data.
type avroReader struct {
	b     []byte
	i     int
	depth int // records being decoded, outermost included
}

// maxAvroDepth bounds record nesting in a record, as JSON parsers bound
// nesting (encoding/json and protocol.ValidJSON at 10,000).
const maxAvroDepth = 10000

var errTruncated = errors.New("data ends early")

func (r *avroReader) long() (int64, error) {
	v, n := binary.Varint(r.b[r.i:])
	if n <= 0 {
		if n == 0 {
			return 0, errTruncated
		}
		return 0, errors.New("a long takes more than 64 bits")
	}
	r.i += n
	return v, nil
}

func (r *avroReader) int() (int32, error) {
	v, err := r.long()
	if err == nil && (v < math.MinInt32 || v > math.MaxInt32) {
		err = fmt.Errorf("int %d out of range", v)
	}
	return int32(v), err
}

func (r *avroReader) next(n int) ([]byte, error) {
	if n < 0 || n > len(r.b)-r.i {
		return nil, errTruncated
	}
	b := r.b[r.i : r.i+n]
	r.i += n
	return b, nil
}

func (r *avroReader) bytes() ([]byte, error) {
	n, err := r.long()
	if err != nil {
		return nil, err
	}
	if n < 0 || n > int64(len(r.b)-r.i) {
		return nil, fmt.Errorf("length %d beyond the data", n)
	}
	return r.next(int(n))
}

// blockCount reads an array or map block header: the item count (a negative
// count is followed by the block's size in bytes, which we do not need).
func (r *avroReader) blockCount() (int64, error) {
	n, err := r.long()
	if err != nil {
		return 0, err
	}
	if n < 0 {
		if _, err := r.long(); err != nil {
			return 0, err
		}
		n = -n
	}
	// An item takes at least one byte unless it is a null (or an empty
	// record): a larger count than bytes left is corrupt data unless the
	// items are such, and those are bounded so a bad count cannot spin.
	if n > int64(len(r.b)-r.i) && n > 1<<20 {
		return 0, fmt.Errorf("block of %d items beyond the data", n)
	}
	return n, nil
}

var base64Std = base64.StdEncoding

const (
	dateLayout           = "2006-01-02"
	timestampMillisUTC   = "2006-01-02T15:04:05.000Z"
	timestampMicrosUTC   = "2006-01-02T15:04:05.000000Z"
	localTimestampMillis = "2006-01-02T15:04:05.000"
	localTimestampMicros = "2006-01-02T15:04:05.000000"
)

// decode appends the JSON of one value of n read from r.
func (n *avroNode) decode(dst []byte, r *avroReader) ([]byte, error) {
	switch n.typ {
	case avro.Null:
		return append(dst, "null"...), nil
	case avro.Boolean:
		b, err := r.next(1)
		if err != nil {
			return nil, err
		}
		switch b[0] {
		case 0:
			return append(dst, "false"...), nil
		case 1:
			return append(dst, "true"...), nil
		}
		return nil, fmt.Errorf("boolean byte %d", b[0])
	case avro.Int:
		v, err := r.int()
		if err != nil {
			return nil, err
		}
		switch n.logical {
		case avro.Date:
			return appendQuotedTime(dst, time.Unix(int64(v)*86400, 0).UTC(), dateLayout), nil
		case avro.TimeMillis:
			return appendTimeOfDay(dst, int64(v)*int64(time.Millisecond), 3)
		}
		return strconv.AppendInt(dst, int64(v), 10), nil
	case avro.Long:
		v, err := r.long()
		if err != nil {
			return nil, err
		}
		switch n.logical {
		case avro.TimeMicros:
			return appendTimeOfDay(dst, v*int64(time.Microsecond), 6)
		case avro.TimestampMillis:
			return appendQuotedTime(dst, time.UnixMilli(v).UTC(), timestampMillisUTC), nil
		case avro.TimestampMicros:
			return appendQuotedTime(dst, time.UnixMicro(v).UTC(), timestampMicrosUTC), nil
		case avro.LocalTimestampMillis:
			return appendQuotedTime(dst, time.UnixMilli(v).UTC(), localTimestampMillis), nil
		case avro.LocalTimestampMicros:
			return appendQuotedTime(dst, time.UnixMicro(v).UTC(), localTimestampMicros), nil
		}
		return strconv.AppendInt(dst, v, 10), nil
	case avro.Float:
		b, err := r.next(4)
		if err != nil {
			return nil, err
		}
		return appendFloat(dst, float64(math.Float32frombits(binary.LittleEndian.Uint32(b))), 32), nil
	case avro.Double:
		b, err := r.next(8)
		if err != nil {
			return nil, err
		}
		return appendFloat(dst, math.Float64frombits(binary.LittleEndian.Uint64(b)), 64), nil
	case avro.String:
		b, err := r.bytes()
		if err != nil {
			return nil, err
		}
		return protocol.AppendString(dst, bytesAsString(b)), nil
	case avro.Bytes:
		b, err := r.bytes()
		if err != nil {
			return nil, err
		}
		if n.logical == avro.Decimal {
			return appendDecimal(dst, b, n.scale), nil
		}
		return appendBase64(dst, b), nil
	case avro.Fixed:
		b, err := r.next(n.size)
		if err != nil {
			return nil, err
		}
		if n.logical == avro.Decimal {
			return appendDecimal(dst, b, n.scale), nil
		}
		return appendBase64(dst, b), nil
	case avro.Enum:
		i, err := r.int()
		if err != nil {
			return nil, err
		}
		if i < 0 || int(i) >= len(n.symbols) {
			return nil, fmt.Errorf("enum %s has no symbol %d", n.name, i)
		}
		return protocol.AppendString(dst, n.symbols[i]), nil
	case avro.Record:
		// Only a recursive record type nests without bound; the depth
		// limit keeps a crafted record from exhausting the stack.
		if r.depth++; r.depth > maxAvroDepth {
			return nil, fmt.Errorf("records nest deeper than %d", maxAvroDepth)
		}
		dst = append(dst, '{')
		for i := range n.fields {
			f := &n.fields[i]
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, f.key...)
			var err error
			if dst, err = f.node.decode(dst, r); err != nil {
				return nil, within(err, f.name, -1)
			}
		}
		r.depth--
		return append(dst, '}'), nil
	case avro.Array:
		dst = append(dst, '[')
		first := true
		index := 0
		for {
			count, err := r.blockCount()
			if err != nil {
				return nil, err
			}
			if count == 0 {
				return append(dst, ']'), nil
			}
			for ; count > 0; count-- {
				if !first {
					dst = append(dst, ',')
				}
				first = false
				if dst, err = n.items.decode(dst, r); err != nil {
					return nil, within(err, "", index)
				}
				index++
			}
		}
	case avro.Map:
		dst = append(dst, '{')
		first := true
		for {
			count, err := r.blockCount()
			if err != nil {
				return nil, err
			}
			if count == 0 {
				return append(dst, '}'), nil
			}
			for ; count > 0; count-- {
				if !first {
					dst = append(dst, ',')
				}
				first = false
				k, err := r.bytes()
				if err != nil {
					return nil, err
				}
				dst = append(protocol.AppendString(dst, bytesAsString(k)), ':')
				if dst, err = n.items.decode(dst, r); err != nil {
					return nil, within(err, string(k), -1)
				}
			}
		}
	case avro.Union:
		i, err := r.long()
		if err != nil {
			return nil, err
		}
		if i < 0 || i >= int64(len(n.branches)) {
			return nil, fmt.Errorf("union branch %d of %d", i, len(n.branches))
		}
		b := n.branches[i]
		if n.nullable || b.typ == avro.Null {
			return b.decode(dst, r)
		}
		dst = append(protocol.AppendString(append(dst, '{'), b.name), ':')
		if dst, err = b.decode(dst, r); err != nil {
			return nil, within(err, b.name, -1)
		}
		return append(dst, '}'), nil
	}
	return nil, fmt.Errorf("unsupported Avro type %s", n.typ)
}

// decodeError is a decode failure with where it happened, as the JSON
// path of the value being written ($.items[3].price). The path is collected
// on the way out, innermost first, so a record that decodes builds none.
type decodeError struct {
	segments []string // innermost first
	err      error
}

// maxErrorSegments bounds the path an error shows (a record nested ten
// thousand deep must not make a megabyte message).
const maxErrorSegments = 32

func (e *decodeError) Error() string {
	p := newPath()
	shown := e.segments
	if len(shown) > maxErrorSegments {
		shown = shown[len(shown)-maxErrorSegments:]
	}
	for i := len(shown) - 1; i >= 0; i-- {
		p.b = append(p.b, shown[i]...)
	}
	if len(shown) < len(e.segments) {
		p.b = append(p.b, "…"...)
	}
	return p.String() + ": " + e.err.Error()
}

func (e *decodeError) Unwrap() error { return e.err }

// within adds a member (name) or, when index >= 0, an item to the path of a
// decode error.
func within(err error, name string, index int) error {
	var seg string
	if index >= 0 {
		seg = "[" + strconv.Itoa(index) + "]"
	} else {
		var p path
		p.member(shorten(name))
		seg = string(p.b)
	}
	if de, ok := err.(*decodeError); ok {
		de.segments = append(de.segments, seg)
		return de
	}
	return &decodeError{segments: []string{seg}, err: err}
}

// bytesAsString views b as a string without copying it, for
// protocol.AppendString, which only reads its argument during the call (a
// copy per string would be most of Decode's allocations).
func bytesAsString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

func appendQuotedTime(dst []byte, t time.Time, layout string) []byte {
	return append(t.AppendFormat(append(dst, '"'), layout), '"')
}

// appendTimeOfDay writes a time-millis/time-micros value as "HH:MM:SS.fff".
func appendTimeOfDay(dst []byte, d int64, digits int) ([]byte, error) {
	if d < 0 || d >= int64(24*time.Hour) {
		return nil, fmt.Errorf("time of day %s out of range", time.Duration(d))
	}
	layout := "15:04:05.000"
	if digits == 6 {
		layout = "15:04:05.000000"
	}
	return appendQuotedTime(dst, time.Unix(0, d).UTC(), layout), nil
}

// appendFloat writes a float as a JSON number, or NaN and the infinities as
// the strings "NaN", "Infinity", "-Infinity" (JSON has no such numbers).
func appendFloat(dst []byte, f float64, bits int) []byte {
	switch {
	case math.IsNaN(f):
		return append(dst, `"NaN"`...)
	case math.IsInf(f, 1):
		return append(dst, `"Infinity"`...)
	case math.IsInf(f, -1):
		return append(dst, `"-Infinity"`...)
	}
	// Plain notation where it is short, exponent notation for the very
	// large and small, as JavaScript prints numbers (and encoding/json does):
	// 1234567 rather than 1.234567e+06.
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	dst = strconv.AppendFloat(dst, f, format, -1, bits)
	if format == 'e' {
		// "1e-07" → "1e-7"
		if n := len(dst); n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
	}
	return dst
}

func appendBase64(dst []byte, b []byte) []byte {
	dst = append(dst, '"')
	dst = base64Std.AppendEncode(dst, b)
	return append(dst, '"')
}

// appendDecimal writes a decimal's two's-complement big-endian unscaled
// value as a string with exactly scale fraction digits ("-12.30").
func appendDecimal(dst []byte, b []byte, scale int) []byte {
	var digits string
	if len(b) <= 8 {
		// The common case (up to 18 digits) without math/big.
		var v int64
		if len(b) > 0 && b[0]&0x80 != 0 {
			v = -1
		}
		for _, c := range b {
			v = v<<8 | int64(c)
		}
		digits = strconv.FormatInt(v, 10)
	} else {
		var unscaled big.Int
		unscaled.SetBytes(b)
		if b[0]&0x80 != 0 {
			unscaled.Sub(&unscaled, new(big.Int).Lsh(big.NewInt(1), uint(8*len(b))))
		}
		digits = unscaled.Text(10)
	}
	neg := digits[0] == '-'
	if neg {
		digits = digits[1:]
	}
	dst = append(dst, '"')
	if neg {
		dst = append(dst, '-')
	}
	if scale <= 0 {
		dst = append(dst, digits...)
		return append(dst, '"')
	}
	for len(digits) <= scale {
		digits = "0" + digits
	}
	dst = append(dst, digits[:len(digits)-scale]...)
	dst = append(dst, '.')
	dst = append(dst, digits[len(digits)-scale:]...)
	return append(dst, '"')
}
