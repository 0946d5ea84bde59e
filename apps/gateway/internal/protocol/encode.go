package protocol

import (
	"encoding/base64"
	"encoding/json"
	"strconv"
	"unicode/utf8"
	"unsafe"
)

// DataEncoding says how a payload is written into a frame's "data".
type DataEncoding uint8

// How payloads travel (PROTOCOL.md, "Subscribing").
const (
	// DataJSON embeds the payload as a JSON value (it must be valid JSON).
	DataJSON DataEncoding = iota
	// DataText writes the payload as a JSON string.
	DataText
	// DataBase64 writes the payload as a base64 string with "encoding":"base64".
	DataBase64
)

// Message is one record as delivered to subscribers.
type Message struct {
	Endpoint  string // canonical path
	Epoch     string
	Partition int32
	Seq       int64
	TS        int64 // record timestamp, ms
	Data      []byte
	Encoding  DataEncoding
	// Error, when set, says why the record of a schema-registry endpoint
	// travels undecoded (as base64); written last, as "error".
	Error string
}

// AppendMessage writes a "message" frame. It is on the fan-out hot path: the frame
// is built once per record and shared by every subscriber, without reflection.
func AppendMessage(dst []byte, m *Message) []byte {
	dst = append(dst, `{"type":"message","endpoint":`...)
	dst = AppendString(dst, m.Endpoint)
	dst = append(dst, `,"epoch":`...)
	dst = AppendString(dst, m.Epoch)
	dst = append(dst, `,"partition":`...)
	dst = strconv.AppendInt(dst, int64(m.Partition), 10)
	dst = append(dst, `,"seq":`...)
	dst = strconv.AppendInt(dst, m.Seq, 10)
	dst = append(dst, `,"ts":`...)
	dst = strconv.AppendInt(dst, m.TS, 10)
	dst = append(dst, `,"data":`...)
	switch m.Encoding {
	case DataJSON:
		dst = append(dst, m.Data...)
	case DataText:
		// A view of the bytes, not a copy: AppendString keeps nothing of its
		// argument, and string(m.Data) was an allocation per text record.
		dst = AppendString(dst, unsafe.String(unsafe.SliceData(m.Data), len(m.Data)))
	default:
		dst = append(dst, '"')
		dst = base64.StdEncoding.AppendEncode(dst, m.Data)
		dst = append(dst, `","encoding":"base64`...)
		dst = append(dst, '"')
	}
	if m.Error != "" {
		dst = append(dst, `,"error":`...)
		dst = AppendString(dst, m.Error)
	}
	return append(dst, '}')
}

// RegistryFormat reports whether format is one of the schema-registry
// formats, whose records the gateway decodes to JSON (internal/schemawire).
func RegistryFormat(format string) bool {
	return format == "avro" || format == "protobuf" || format == "json-schema"
}

// EncodingFor picks how a record's value travels for an endpoint format: a json
// endpoint embeds valid JSON and falls back to base64 for a record that is not
// JSON (written by some other producer), so nothing is lost or corrupted; text
// falls back to base64 for invalid UTF-8 the same way.
func EncodingFor(format string, value []byte) DataEncoding {
	switch format {
	case "json", "avro", "protobuf", "json-schema": // the registry formats travel decoded, as JSON
		if ValidJSON(value) {
			return DataJSON
		}
	case "text":
		if utf8.Valid(value) {
			return DataText
		}
	}
	return DataBase64
}

// AppendString writes s as a JSON string. Invalid UTF-8 becomes U+FFFD.
func AppendString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i++
			start = i
			continue
		}
		// U+2028/2029 are valid JSON but break JavaScript string literals.
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// The rare server frames are encoded with encoding/json.

// Authenticated answers auth and refresh.
type Authenticated struct {
	Type      string `json:"type"`
	ID        string `json:"id,omitempty"`
	App       string `json:"app"`
	ExpiresAt int64  `json:"expires_at"`
}

// Subscribed answers subscribe. Seq is the position just before the first
// message the subscription can deliver (-1: before offset 0), so a client that
// received nothing yet resumes from {Epoch, Partition, Seq} without loss.
type Subscribed struct {
	Type      string `json:"type"`
	ID        string `json:"id,omitempty"`
	Endpoint  string `json:"endpoint"`
	Epoch     string `json:"epoch"`
	Partition int32  `json:"partition"`
	Seq       int64  `json:"seq"`
}

// Unsubscribed answers unsubscribe, or ends a subscription (Code set).
type Unsubscribed struct {
	Type     string `json:"type"`
	ID       string `json:"id,omitempty"`
	Endpoint string `json:"endpoint"`
	Code     Code   `json:"code,omitempty"`
	Reason   string `json:"reason,omitempty"`
}

// Published answers publish once Kafka acknowledged the record.
type Published struct {
	Type      string `json:"type"`
	ID        string `json:"id,omitempty"`
	Endpoint  string `json:"endpoint"`
	Epoch     string `json:"epoch"`
	Partition int32  `json:"partition"`
	Seq       int64  `json:"seq"`
}

// Gap reports messages that will not be delivered: FromSeq <= seq < ToSeq.
type Gap struct {
	Type      string `json:"type"`
	Endpoint  string `json:"endpoint"`
	Epoch     string `json:"epoch"`
	Partition int32  `json:"partition"`
	FromSeq   int64  `json:"from_seq"`
	ToSeq     int64  `json:"to_seq"`
	Reason    string `json:"reason"`
}

// ErrorFrame reports a failed operation; the connection stays open.
type ErrorFrame struct {
	Type    string `json:"type"`
	ID      string `json:"id,omitempty"`
	Code    Code   `json:"code"`
	Message string `json:"message"`
}

// Closing precedes a close frame with the same code.
type Closing struct {
	Type   string `json:"type"`
	Code   Code   `json:"code"`
	Reason string `json:"reason"`
}

// Pong answers ping.
type Pong struct {
	Type string `json:"type"`
	ID   string `json:"id,omitempty"`
}

// Encode marshals a server frame struct. The structs hold only strings and
// numbers, so marshalling cannot fail.
func Encode(frame any) []byte {
	b, err := json.Marshal(frame)
	if err != nil {
		panic("protocol: unencodable frame: " + err.Error())
	}
	return b
}
