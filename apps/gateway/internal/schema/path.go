package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
)

// path is the location inside a JSON value that an error names, as $.a.b[2]
// (a member that is not an identifier as $["a b"]). It grows and shrinks as a
// walk descends and returns, so a walk that succeeds builds no strings.
type path struct{ b []byte }

func newPath() *path { return &path{b: append(make([]byte, 0, 64), '$')} }

func (p *path) String() string { return string(p.b) }

// member descends into an object member and returns the length to truncate
// back to.
func (p *path) member(name string) int {
	n := len(p.b)
	if isIdentifier(name) {
		p.b = append(append(p.b, '.'), name...)
	} else {
		p.b = append(strconv.AppendQuote(append(p.b, '['), name), ']')
	}
	return n
}

// index descends into an array item.
func (p *path) index(i int) int {
	n := len(p.b)
	p.b = append(strconv.AppendInt(append(p.b, '['), int64(i), 10), ']')
	return n
}

func (p *path) up(n int) { p.b = p.b[:n] }

// errorf is an ErrBadMessage at the current location.
func (p *path) errorf(format string, args ...any) error {
	return fmt.Errorf("%w: %s: %s", ErrBadMessage, p.b, fmt.Sprintf(format, args...))
}

func isIdentifier(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		if c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9' {
			continue
		}
		return false
	}
	return true
}

// describe shows a decoded JSON value in an error briefly: a string is quoted
// (and shortened), a container is named, never printed whole.
func describe(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return strconv.FormatBool(x)
	case json.Number:
		return shorten(x.String())
	case string:
		return strconv.Quote(shorten(x))
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	}
	return fmt.Sprintf("%T", v)
}

func shorten(s string) string { return truncateUTF8(s, 40) }

// truncateUTF8 cuts s to at most limit bytes, at a rune start, marking the cut with "…".
func truncateUTF8(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	cut := limit
	for cut > 0 && !isRuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

// decodeJSON parses a publisher's JSON text keeping numbers exact
// (json.Number), so a long or a decimal loses no digits on the way.
func decodeJSON(text []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(text))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, fmt.Errorf("%w: not valid JSON: %s", ErrBadMessage, err.Error())
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, fmt.Errorf("%w: not valid JSON: more after the value", ErrBadMessage)
	}
	return v, nil
}
