package protocol

import "unicode/utf8"

// maxJSONDepth is the nesting encoding/json accepts; ValidJSON agrees with it.
const maxJSONDepth = 10000

// ValidJSON reports whether b is one JSON value (RFC 8259, surrounding
// whitespace allowed) that is also valid UTF-8, nested at most 10,000 deep: what
// may be embedded as is in a WebSocket text frame. encoding/json.Valid accepts
// invalid UTF-8 inside strings, and a browser fails the whole connection on a
// text frame holding it, so one such record would cut off every browser client
// of its endpoint, again at each resume.
//
// It runs once per record on json endpoints: one pass, no recursion (a record
// of nested brackets costs no stack), and a table-driven scan of string bytes,
// about four times the speed of encoding/json.Valid on typical payloads
// (BenchmarkValidJSON). FuzzValidJSON checks it against
// json.Valid && utf8.Valid.
func ValidJSON(b []byte) bool {
	// kinds is a stack of one bit per open container: 1 for an object.
	var kinds [maxJSONDepth/64 + 1]uint64
	depth := 0
	i := skipSpace(b, 0)
	for {
		// A value starts at i.
		if i >= len(b) {
			return false
		}
		switch c := b[i]; {
		case c == '{' || c == '[':
			if depth == maxJSONDepth {
				return false
			}
			if c == '{' {
				kinds[depth/64] |= 1 << (depth % 64)
			} else {
				kinds[depth/64] &^= 1 << (depth % 64)
			}
			depth++
			i = skipSpace(b, i+1)
			if i < len(b) && (b[i] == '}' && c == '{' || b[i] == ']' && c == '[') {
				depth--
				i++
				break // an empty container is a whole value
			}
			if c == '{' {
				if i = member(b, i); i < 0 {
					return false
				}
			}
			continue // its first value
		case c == '"':
			if i = scanString(b, i+1); i < 0 {
				return false
			}
		case c == '-' || c >= '0' && c <= '9':
			if i = scanNumber(b, i); i < 0 {
				return false
			}
		case c == 't':
			if i = literal(b, i, "true"); i < 0 {
				return false
			}
		case c == 'f':
			if i = literal(b, i, "false"); i < 0 {
				return false
			}
		case c == 'n':
			if i = literal(b, i, "null"); i < 0 {
				return false
			}
		default:
			return false
		}
		// A value ended before i: close containers until one goes on.
		for {
			i = skipSpace(b, i)
			if depth == 0 {
				return i == len(b)
			}
			if i >= len(b) {
				return false
			}
			object := kinds[(depth-1)/64]&(1<<((depth-1)%64)) != 0
			if b[i] == ',' {
				i = skipSpace(b, i+1)
				if object {
					if i = member(b, i); i < 0 {
						return false
					}
				}
				break // the next value
			}
			if object && b[i] == '}' || !object && b[i] == ']' {
				depth--
				i++
				continue
			}
			return false
		}
	}
}

// member checks `"name" :` at i and returns where the member's value starts.
func member(b []byte, i int) int {
	if i >= len(b) || b[i] != '"' {
		return -1
	}
	if i = scanString(b, i+1); i < 0 {
		return -1
	}
	i = skipSpace(b, i)
	if i >= len(b) || b[i] != ':' {
		return -1
	}
	return skipSpace(b, i+1)
}

func skipSpace(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// plainStringByte marks the bytes a string may hold as they are: printable
// ASCII other than '"' and '\'.
var plainStringByte = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// scanString checks a string's body from i (just after the opening quote) and
// returns the index after the closing quote, or -1.
func scanString(b []byte, i int) int {
	for {
		for i < len(b) && plainStringByte[b[i]] {
			i++
		}
		if i >= len(b) {
			return -1
		}
		switch c := b[i]; {
		case c == '"':
			return i + 1
		case c == '\\':
			if i+1 >= len(b) {
				return -1
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(b) || !isHex(b[i+2]) || !isHex(b[i+3]) || !isHex(b[i+4]) || !isHex(b[i+5]) {
					return -1
				}
				i += 6
			default:
				return -1
			}
		case c < 0x20:
			return -1 // control characters must be escaped
		default: // c >= 0x80: a multi-byte UTF-8 sequence
			r, size := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && size == 1 {
				return -1
			}
			i += size
		}
	}
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// scanNumber checks -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? at i and
// returns the index after it, or -1.
func scanNumber(b []byte, i int) int {
	if b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		i = digits(b, i+1)
	default:
		return -1
	}
	if i < len(b) && b[i] == '.' {
		j := digits(b, i+1)
		if j == i+1 {
			return -1
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := digits(b, i)
		if j == i {
			return -1
		}
		i = j
	}
	return i
}

func digits(b []byte, i int) int {
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	return i
}

func literal(b []byte, i int, word string) int {
	if len(b)-i < len(word) || string(b[i:i+len(word)]) != word {
		return -1
	}
	return i + len(word)
}
