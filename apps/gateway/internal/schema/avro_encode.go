package schema

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math"
	"math/big"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/hamba/avro/v2"
)

// encode appends the Avro binary of v (a value from decodeJSON) as n. It is
// the inverse of decode, and also takes a number for a decimal and a bare
// value for a union when exactly one branch accepts it.
func (n *avroNode) encode(dst []byte, v any, p *path) ([]byte, error) {
	switch n.typ {
	case avro.Null:
		if v != nil {
			return nil, p.errorf("expected null, got %s", describe(v))
		}
		return dst, nil
	case avro.Boolean:
		b, ok := v.(bool)
		if !ok {
			return nil, p.errorf("expected a boolean, got %s", describe(v))
		}
		if b {
			return append(dst, 1), nil
		}
		return append(dst, 0), nil
	case avro.Int:
		var i int64
		var err error
		switch n.logical {
		case avro.Date:
			i, err = parseDate(v, p)
		case avro.TimeMillis:
			i, err = parseTimeOfDay(v, time.Millisecond, p)
		default:
			i, err = integer(v, math.MinInt32, math.MaxInt32, "an int", p)
		}
		if err != nil {
			return nil, err
		}
		return binary.AppendVarint(dst, i), nil
	case avro.Long:
		var i int64
		var err error
		switch n.logical {
		case avro.TimeMicros:
			i, err = parseTimeOfDay(v, time.Microsecond, p)
		case avro.TimestampMillis:
			i, err = parseTimestamp(v, time.Millisecond, true, p)
		case avro.TimestampMicros:
			i, err = parseTimestamp(v, time.Microsecond, true, p)
		case avro.LocalTimestampMillis:
			i, err = parseTimestamp(v, time.Millisecond, false, p)
		case avro.LocalTimestampMicros:
			i, err = parseTimestamp(v, time.Microsecond, false, p)
		default:
			i, err = integer(v, math.MinInt64, math.MaxInt64, "a long", p)
		}
		if err != nil {
			return nil, err
		}
		return binary.AppendVarint(dst, i), nil
	case avro.Float:
		f, err := float(v, "a float", p)
		if err != nil {
			return nil, err
		}
		return binary.LittleEndian.AppendUint32(dst, math.Float32bits(float32(f))), nil
	case avro.Double:
		f, err := float(v, "a double", p)
		if err != nil {
			return nil, err
		}
		return binary.LittleEndian.AppendUint64(dst, math.Float64bits(f)), nil
	case avro.String:
		s, ok := v.(string)
		if !ok {
			return nil, p.errorf("expected a string, got %s", describe(v))
		}
		return append(binary.AppendVarint(dst, int64(len(s))), s...), nil
	case avro.Bytes:
		var b []byte
		var err error
		if n.logical == avro.Decimal {
			b, err = n.decimalBytes(v, 0, p)
		} else {
			b, err = base64Value(v, p)
		}
		if err != nil {
			return nil, err
		}
		return append(binary.AppendVarint(dst, int64(len(b))), b...), nil
	case avro.Fixed:
		var b []byte
		var err error
		if n.logical == avro.Decimal {
			b, err = n.decimalBytes(v, n.size, p)
		} else {
			b, err = base64Value(v, p)
		}
		if err != nil {
			return nil, err
		}
		if len(b) != n.size {
			return nil, p.errorf("expected %d bytes for fixed %s, got %d", n.size, n.name, len(b))
		}
		return append(dst, b...), nil
	case avro.Enum:
		s, ok := v.(string)
		if !ok {
			return nil, p.errorf("expected a symbol of enum %s, got %s", n.name, describe(v))
		}
		i, ok := n.symbolIndex[s]
		if !ok {
			return nil, p.errorf("%s is not a symbol of enum %s (%s)", describe(v), n.name, strings.Join(n.symbols, ", "))
		}
		return binary.AppendVarint(dst, int64(i)), nil
	case avro.Record:
		obj, ok := v.(map[string]any)
		if !ok {
			return nil, p.errorf("expected an object (record %s), got %s", n.name, describe(v))
		}
		if len(obj) > len(n.fields) || !n.hasFields(obj) {
			// Named in sorted order, so the same message always gets
			// the same error.
			var unknown []string
			for k := range obj {
				if !n.hasField(k) {
					unknown = append(unknown, k)
				}
			}
			sort.Strings(unknown)
			at := p.member(unknown[0])
			err := p.errorf("not a field of record %s", n.name)
			p.up(at)
			return nil, err
		}
		for i := range n.fields {
			f := &n.fields[i]
			at := p.member(f.name)
			fv, present := obj[f.name]
			var err error
			switch {
			case present:
				dst, err = f.node.encode(dst, fv, p)
			case f.hasDef:
				dst = append(dst, f.def...)
			default:
				err = p.errorf("is required")
			}
			if err != nil {
				return nil, err
			}
			p.up(at)
		}
		return dst, nil
	case avro.Array:
		arr, ok := v.([]any)
		if !ok {
			return nil, p.errorf("expected an array, got %s", describe(v))
		}
		if len(arr) > 0 {
			dst = binary.AppendVarint(dst, int64(len(arr)))
			for i, item := range arr {
				at := p.index(i)
				var err error
				if dst, err = n.items.encode(dst, item, p); err != nil {
					return nil, err
				}
				p.up(at)
			}
		}
		return append(dst, 0), nil
	case avro.Map:
		obj, ok := v.(map[string]any)
		if !ok {
			return nil, p.errorf("expected an object (map), got %s", describe(v))
		}
		if len(obj) > 0 {
			// Sorted, so one message always encodes to the same bytes.
			keys := make([]string, 0, len(obj))
			for k := range obj {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			dst = binary.AppendVarint(dst, int64(len(obj)))
			for _, k := range keys {
				dst = append(binary.AppendVarint(dst, int64(len(k))), k...)
				at := p.member(k)
				var err error
				if dst, err = n.items.encode(dst, obj[k], p); err != nil {
					return nil, err
				}
				p.up(at)
			}
		}
		return append(dst, 0), nil
	case avro.Union:
		return n.encodeUnion(dst, v, p)
	}
	return nil, p.errorf("unsupported Avro type %s", n.typ)
}

// hasFields reports whether every member of obj is a field of the record.
func (n *avroNode) hasFields(obj map[string]any) bool {
	for k := range obj {
		if !n.hasField(k) {
			return false
		}
	}
	return true
}

func (n *avroNode) hasField(name string) bool {
	_, ok := n.fieldIndex[name]
	return ok
}

// encodeUnion picks the branch: null for null (when the union has one); for
// a union of null and one type, that type; otherwise the branch a
// {"<branch name>": value} wrapper names, or else the only branch that
// accepts the bare value.
func (n *avroNode) encodeUnion(dst []byte, v any, p *path) ([]byte, error) {
	if v == nil {
		for i, b := range n.branches {
			if b.typ == avro.Null {
				return binary.AppendVarint(dst, int64(i)), nil
			}
		}
		return nil, p.errorf("expected one of %s, got null", n.branchNames())
	}
	if n.nullable {
		return n.branches[n.valueIndex].encode(binary.AppendVarint(dst, int64(n.valueIndex)), v, p)
	}
	if obj, ok := v.(map[string]any); ok && len(obj) == 1 {
		for k, inner := range obj {
			for i, b := range n.branches {
				if b.name == k && b.typ != avro.Null {
					at := p.member(k)
					out, err := b.encode(binary.AppendVarint(dst, int64(i)), inner, p)
					if err != nil {
						return nil, err
					}
					p.up(at)
					return out, nil
				}
			}
		}
	}
	var (
		chosen  []byte
		matches []string
	)
	for i, b := range n.branches {
		if b.typ == avro.Null {
			continue
		}
		out, err := b.encode(binary.AppendVarint(nil, int64(i)), v, newPath())
		if err == nil {
			chosen = out
			matches = append(matches, b.name)
		}
	}
	switch len(matches) {
	case 1:
		return append(dst, chosen...), nil
	case 0:
		return nil, p.errorf("expected one of %s (bare, or as {\"<type>\": value}), got %s", n.branchNames(), describe(v))
	}
	return nil, p.errorf("%s fits several branches of the union (%s): wrap it as {\"<type>\": value}", describe(v), strings.Join(matches, ", "))
}

func (n *avroNode) branchNames() string {
	names := make([]string, len(n.branches))
	for i, b := range n.branches {
		names[i] = b.name
	}
	return "[" + strings.Join(names, ", ") + "]"
}

// integer reads a whole JSON number within [lo, hi].
func integer(v any, lo, hi int64, what string, p *path) (int64, error) {
	num, ok := v.(json.Number)
	if !ok {
		return 0, p.errorf("expected %s, got %s", what, describe(v))
	}
	if i, err := strconv.ParseInt(string(num), 10, 64); err == nil && i >= lo && i <= hi {
		return i, nil
	}
	r, ok := exactNumber(string(num))
	if !ok || !r.IsInt() {
		return 0, p.errorf("expected %s, got %s", what, describe(v))
	}
	if !r.Num().IsInt64() || r.Num().Int64() < lo || r.Num().Int64() > hi {
		return 0, p.errorf("%s is out of range for %s", describe(v), what)
	}
	return r.Num().Int64(), nil
}

// float reads a JSON number, or "NaN", "Infinity", "-Infinity".
func float(v any, what string, p *path) (float64, error) {
	switch x := v.(type) {
	case json.Number:
		f, err := strconv.ParseFloat(string(x), 64)
		if err != nil {
			return 0, p.errorf("%s is out of range for %s", describe(v), what)
		}
		return f, nil
	case string:
		switch x {
		case "NaN":
			return math.NaN(), nil
		case "Infinity":
			return math.Inf(1), nil
		case "-Infinity":
			return math.Inf(-1), nil
		}
	}
	return 0, p.errorf("expected %s, got %s", what, describe(v))
}

func base64Value(v any, p *path) ([]byte, error) {
	s, ok := v.(string)
	if !ok {
		return nil, p.errorf("expected base64 bytes, got %s", describe(v))
	}
	b, err := base64Std.DecodeString(s)
	if err != nil {
		return nil, p.errorf("expected standard base64 (padded), got %s", describe(v))
	}
	return b, nil
}

// decimalText is a number as JSON writes it (math/big would also take
// fractions and hexadecimal), with an exponent of at most three digits: an
// exponent in the millions would have math/big compute a number of millions
// of digits for one message.
var decimalText = regexp.MustCompile(`^-?[0-9]+(\.[0-9]+)?([eE][-+]?0*[0-9]{1,3})?$`)

// exactNumber reads a JSON number's exact value.
func exactNumber(text string) (*big.Rat, bool) {
	if !decimalText.MatchString(text) {
		return nil, false
	}
	return new(big.Rat).SetString(text)
}

// decimalBytes converts a decimal string or number to its two's-complement
// big-endian unscaled bytes: minimal for bytes (size 0), sign-extended to
// size for fixed. A value with more fraction digits than the scale, or more
// digits than the precision, is refused rather than rounded.
func (n *avroNode) decimalBytes(v any, size int, p *path) ([]byte, error) {
	var text string
	switch x := v.(type) {
	case string:
		text = x
	case json.Number:
		text = string(x)
	default:
		return nil, p.errorf("expected a decimal (string such as \"12.30\" or number), got %s", describe(v))
	}
	r, ok := exactNumber(text)
	if !ok {
		return nil, p.errorf("expected a decimal, got %s", describe(v))
	}
	scaled := new(big.Rat).Mul(r, new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n.scale)), nil)))
	if !scaled.IsInt() {
		return nil, p.errorf("%s has more than %d fraction digits", describe(v), n.scale)
	}
	unscaled := scaled.Num()
	if n.precision > 0 && len(new(big.Int).Abs(unscaled).Text(10)) > n.precision && unscaled.Sign() != 0 {
		return nil, p.errorf("%s has more than %d digits (precision)", describe(v), n.precision)
	}
	b := twosComplement(unscaled)
	if size > 0 {
		if len(b) > size {
			return nil, p.errorf("%s does not fit in fixed %s of %d bytes", describe(v), n.name, size)
		}
		pad := byte(0)
		if unscaled.Sign() < 0 {
			pad = 0xFF
		}
		b = append(bytes.Repeat([]byte{pad}, size-len(b)), b...)
	}
	return b, nil
}

// twosComplement is the shortest big-endian two's-complement form of x.
func twosComplement(x *big.Int) []byte {
	if x.Sign() >= 0 {
		b := x.Bytes()
		if len(b) == 0 || b[0]&0x80 != 0 {
			b = append([]byte{0}, b...)
		}
		return b
	}
	// -x-1 has the complement bits of x: invert its bytes.
	m := new(big.Int).Sub(new(big.Int).Neg(x), big.NewInt(1))
	b := m.Bytes()
	if len(b) == 0 || b[0]&0x80 != 0 {
		b = append([]byte{0}, b...)
	}
	for i := range b {
		b[i] = ^b[i]
	}
	return b
}

func parseDate(v any, p *path) (int64, error) {
	s, ok := v.(string)
	if !ok {
		return 0, p.errorf("expected a date \"YYYY-MM-DD\", got %s", describe(v))
	}
	t, err := time.Parse(dateLayout, s)
	if err != nil {
		return 0, p.errorf("expected a date \"YYYY-MM-DD\", got %s", describe(v))
	}
	days := t.Unix() / 86400
	if days < math.MinInt32 || days > math.MaxInt32 {
		return 0, p.errorf("date %s is out of range", describe(v))
	}
	return days, nil
}

func parseTimeOfDay(v any, unit time.Duration, p *path) (int64, error) {
	s, ok := v.(string)
	want := `"HH:MM:SS.sss"`
	if unit == time.Microsecond {
		want = `"HH:MM:SS.ssssss"`
	}
	if !ok {
		return 0, p.errorf("expected a time of day %s, got %s", want, describe(v))
	}
	t, err := time.Parse("15:04:05.999999999", s)
	if err != nil {
		return 0, p.errorf("expected a time of day %s, got %s", want, describe(v))
	}
	d := t.Sub(time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC))
	if d%unit != 0 {
		return 0, p.errorf("%s is more precise than the schema's %s", describe(v), unitName(unit))
	}
	return int64(d / unit), nil
}

// parseTimestamp reads an RFC 3339 timestamp (any offset when utc, none
// for a local timestamp) as a count of units since the epoch.
func parseTimestamp(v any, unit time.Duration, utc bool, p *path) (int64, error) {
	s, ok := v.(string)
	want := "an RFC 3339 timestamp such as \"2024-05-01T12:00:00.000Z\""
	layout := time.RFC3339Nano
	if !utc {
		want = "a local timestamp such as \"2024-05-01T12:00:00.000\""
		layout = "2006-01-02T15:04:05.999999999"
	}
	if !ok {
		return 0, p.errorf("expected %s, got %s", want, describe(v))
	}
	t, err := time.Parse(layout, s)
	if err != nil {
		return 0, p.errorf("expected %s, got %s", want, describe(v))
	}
	if t.Nanosecond()%int(unit) != 0 {
		return 0, p.errorf("%s is more precise than the schema's %s", describe(v), unitName(unit))
	}
	if unit == time.Millisecond {
		return t.UnixMilli(), nil
	}
	return t.UnixMicro(), nil
}

func unitName(unit time.Duration) string {
	if unit == time.Millisecond {
		return "milliseconds"
	}
	return "microseconds"
}

// jsonRoundTrip turns a Go value (a schema default as the Avro library
// parsed it) into the shape decodeJSON gives.
func jsonRoundTrip(v any) (any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return decodeJSON(b)
}
