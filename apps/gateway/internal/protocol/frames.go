package protocol

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"reflect"
	"strconv"
)

// MaxFrameBytes is the largest frame a client may send.
const MaxFrameBytes = 1 << 20

// MaxIDLength bounds the client-chosen frame id echoed in answers.
const MaxIDLength = 64

// maxTokenBytes bounds a token in auth/refresh frames; real ones are < 2 KiB.
const maxTokenBytes = 16 << 10

// FrameType is the "type" of a client frame.
type FrameType string

// The client frame types of PROTOCOL.md.
const (
	FrameAuth        FrameType = "auth"
	FrameRefresh     FrameType = "refresh"
	FrameSubscribe   FrameType = "subscribe"
	FrameUnsubscribe FrameType = "unsubscribe"
	FramePublish     FrameType = "publish"
	FramePing        FrameType = "ping"
)

// FromKind says where a subscription starts.
type FromKind uint8

// Where a subscription starts (PROTOCOL.md, "Subscribing").
const (
	FromLatest FromKind = iota
	FromEarliest
	FromTime
	FromPosition
)

// From is a decoded "from": a kind plus, for FromTime, Time (ms) or, for
// FromPosition, the position of the last message the client saw (or the one a
// "subscribed" answer named; Seq -1 is the position before offset 0).
type From struct {
	Kind      FromKind
	Time      int64
	Epoch     string
	Partition int32
	Seq       int64
}

// ClientFrame is a decoded, validated client frame. Only the fields of its type
// are set.
type ClientFrame struct {
	Type     FrameType
	ID       string
	Token    string
	Endpoint Path
	From     From
	// Data is the payload of a publish, decoded: raw JSON for JSON data, the
	// string's bytes for a JSON string, or the decoded bytes when Encoding is base64.
	Data []byte
	// DataIsString is true when "data" was a JSON string (before any base64 decoding).
	DataIsString bool
	Base64       bool
}

type rawFrame struct {
	Type     *string          `json:"type"`
	ID       *json.RawMessage `json:"id"`
	Token    *string          `json:"token"`
	Endpoint *string          `json:"endpoint"`
	From     json.RawMessage  `json:"from"`
	Data     json.RawMessage  `json:"data"`
	Encoding *string          `json:"encoding"`
}

// DecodeClientFrame parses and validates one client frame. On error the returned
// frame still carries the ID when it could be read, so the error frame can echo it.
func DecodeClientFrame(b []byte) (ClientFrame, *Error) {
	var f ClientFrame
	if len(b) > MaxFrameBytes {
		return f, Errorf(CodeFrameTooLarge, "frame: larger than %d bytes", MaxFrameBytes)
	}
	trimmed := bytes.TrimSpace(b)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return f, Errorf(CodeBadFrame, "frame: not a JSON object")
	}
	var raw rawFrame
	var typeErr *Error
	if err := json.Unmarshal(trimmed, &raw); err != nil {
		// A wrong-typed field still leaves the others decoded, so the id can be echoed.
		var te *json.UnmarshalTypeError
		if !errors.As(err, &te) || te.Field == "" {
			return f, Errorf(CodeBadFrame, "frame: not valid JSON (%s)", jsonErrorText(err))
		}
		typeErr = Errorf(CodeBadFrame, "%s: must be a %s, not a %s", te.Field, jsonTypeName(te.Type.Kind()), te.Value)
	}
	if raw.ID != nil {
		var id string
		if err := json.Unmarshal(*raw.ID, &id); err != nil {
			return f, Errorf(CodeBadFrame, "id: must be a string")
		}
		if len(id) > MaxIDLength {
			return f, Errorf(CodeBadFrame, "id: longer than %d characters", MaxIDLength)
		}
		f.ID = id
	}
	if typeErr != nil {
		return f, typeErr
	}
	if raw.Type == nil {
		return f, Errorf(CodeBadFrame, "type: missing")
	}
	f.Type = FrameType(*raw.Type)
	switch f.Type {
	case FrameAuth, FrameRefresh:
		if raw.Token == nil || *raw.Token == "" {
			return f, Errorf(CodeBadFrame, "token: missing")
		}
		if len(*raw.Token) > maxTokenBytes {
			return f, Errorf(CodeBadFrame, "token: longer than %d bytes", maxTokenBytes)
		}
		f.Token = *raw.Token
	case FrameSubscribe, FrameUnsubscribe, FramePublish:
		if raw.Endpoint == nil {
			return f, Errorf(CodeBadFrame, "endpoint: missing")
		}
		p, err := ParsePath(*raw.Endpoint)
		if err != nil {
			return f, err
		}
		f.Endpoint = p
		if f.Type == FrameSubscribe && raw.From != nil {
			from, err := decodeFrom(raw.From)
			if err != nil {
				return f, err
			}
			f.From = from
		}
		if f.Type == FramePublish {
			if err := decodeData(&f, raw); err != nil {
				return f, err
			}
		}
	case FramePing:
	default:
		return f, Errorf(CodeBadFrame, "type: %q is not one of auth, refresh, subscribe, unsubscribe, publish, ping", truncate(string(f.Type)))
	}
	return f, nil
}

func decodeFrom(raw json.RawMessage) (From, *Error) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		switch s {
		case "latest":
			return From{Kind: FromLatest}, nil
		case "earliest":
			return From{Kind: FromEarliest}, nil
		}
		return From{}, Errorf(CodeBadFrame, `from: %q is not "latest", "earliest", {"time"} or a position`, truncate(s))
	}
	var obj struct {
		Time      *int64  `json:"time"`
		Epoch     *string `json:"epoch"`
		Partition *int64  `json:"partition"`
		Seq       *int64  `json:"seq"`
	}
	if err := json.Unmarshal(raw, &obj); err != nil {
		return From{}, Errorf(CodeBadFrame, "from: must be \"latest\", \"earliest\", {\"time\": ms} or {\"epoch\", \"partition\", \"seq\"} with integer numbers")
	}
	if obj.Time != nil {
		if *obj.Time < 0 {
			return From{}, Errorf(CodeBadFrame, "from.time: must be >= 0")
		}
		return From{Kind: FromTime, Time: *obj.Time}, nil
	}
	switch {
	case obj.Epoch == nil:
		return From{}, Errorf(CodeBadFrame, "from.epoch: missing")
	case obj.Partition == nil:
		return From{}, Errorf(CodeBadFrame, "from.partition: missing")
	case *obj.Partition < 0 || *obj.Partition > 1<<31-1:
		return From{}, Errorf(CodeBadFrame, "from.partition: out of range")
	case obj.Seq == nil:
		return From{}, Errorf(CodeBadFrame, "from.seq: missing")
	case *obj.Seq < -1:
		// -1 is the position before offset 0, as "subscribed" says for an
		// empty partition.
		return From{}, Errorf(CodeBadFrame, "from.seq: must be >= -1")
	}
	return From{Kind: FromPosition, Epoch: *obj.Epoch, Partition: int32(*obj.Partition), Seq: *obj.Seq}, nil
}

func decodeData(f *ClientFrame, raw rawFrame) *Error {
	if raw.Data == nil {
		return Errorf(CodeBadFrame, "data: missing")
	}
	if raw.Encoding != nil {
		if *raw.Encoding != "base64" {
			return Errorf(CodeBadFrame, "encoding: %q is not \"base64\"", truncate(*raw.Encoding))
		}
		f.Base64 = true
	}
	if raw.Data[0] == '"' {
		var s string
		if err := json.Unmarshal(raw.Data, &s); err != nil {
			return Errorf(CodeBadFrame, "data: invalid string")
		}
		f.DataIsString = true
		if f.Base64 {
			decoded, err := decodeBase64(s)
			if err != nil {
				return Errorf(CodeBadFrame, "data: not valid base64")
			}
			f.Data = decoded
			return nil
		}
		f.Data = []byte(s)
		return nil
	}
	if f.Base64 {
		return Errorf(CodeBadFrame, "data: must be a base64 string when encoding is base64")
	}
	f.Data = raw.Data
	return nil
}

func jsonErrorText(err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return "syntax error at byte " + strconv.FormatInt(se.Offset, 10)
	}
	return "invalid"
}

func jsonTypeName(k reflect.Kind) string {
	switch k {
	case reflect.String:
		return "string"
	case reflect.Int64, reflect.Int32, reflect.Int:
		return "number"
	case reflect.Struct, reflect.Map:
		return "object"
	}
	return k.String()
}

// decodeBase64 accepts standard base64 with or without padding.
func decodeBase64(s string) ([]byte, error) {
	if len(s)%4 == 0 {
		return base64.StdEncoding.DecodeString(s)
	}
	return base64.RawStdEncoding.DecodeString(s)
}
