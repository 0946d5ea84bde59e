package protocol

import (
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxKeyBytes bounds a record key taken from a path.
const MaxKeyBytes = 1024

// Path is a concrete endpoint: a Kafka topic and a record key.
type Path struct {
	Topic string
	Key   string
}

// ParsePath reads an endpoint path such as "/vehicles/1/speed" (topic "vehicles",
// key "1/speed"). Each segment is percent-decoded on its own; see PROTOCOL.md.
func ParsePath(raw string) (Path, *Error) {
	if !strings.HasPrefix(raw, "/") {
		return Path{}, Errorf(CodeBadFrame, "endpoint: %q must start with /", truncate(raw))
	}
	segments := strings.Split(raw[1:], "/")
	if len(segments) < 2 {
		return Path{}, Errorf(CodeBadFrame, "endpoint: %q needs a topic and a key (/topic/key)", truncate(raw))
	}
	decoded := make([]string, len(segments))
	for i, s := range segments {
		d, err := url.PathUnescape(s)
		if err != nil {
			return Path{}, Errorf(CodeBadFrame, "endpoint: segment %d of %q is not valid percent-encoding", i+1, truncate(raw))
		}
		if d == "" {
			return Path{}, Errorf(CodeBadFrame, "endpoint: %q has an empty segment", truncate(raw))
		}
		if strings.Contains(d, "/") {
			return Path{}, Errorf(CodeBadFrame, "endpoint: segment %d of %q encodes a '/'", i+1, truncate(raw))
		}
		decoded[i] = d
	}
	p := Path{Topic: decoded[0], Key: strings.Join(decoded[1:], "/")}
	if err := ValidTopic(p.Topic); err != nil {
		return Path{}, err
	}
	if err := validKey(p.Key); err != nil {
		return Path{}, err
	}
	return p, nil
}

// ValidTopic applies Kafka's rule for topic names.
func ValidTopic(topic string) *Error {
	if topic == "" || len(topic) > 249 || topic == "." || topic == ".." {
		return Errorf(CodeBadFrame, "endpoint: topic %q is not a valid Kafka topic name", truncate(topic))
	}
	for _, r := range topic {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-') {
			return Errorf(CodeBadFrame, "endpoint: topic %q may only hold A-Z a-z 0-9 . _ -", truncate(topic))
		}
	}
	return nil
}

func validKey(key string) *Error {
	if len(key) > MaxKeyBytes {
		return Errorf(CodeBadFrame, "endpoint: key is longer than %d bytes", MaxKeyBytes)
	}
	if !utf8.ValidString(key) {
		return Errorf(CodeBadFrame, "endpoint: key is not valid UTF-8")
	}
	for _, r := range key {
		if unicode.IsControl(r) {
			return Errorf(CodeBadFrame, "endpoint: key holds a control character")
		}
	}
	return nil
}

// String is the canonical path: every segment percent-encoded where needed.
func (p Path) String() string {
	var b strings.Builder
	b.Grow(len(p.Topic) + len(p.Key) + 2)
	b.WriteByte('/')
	b.WriteString(p.Topic) // topic characters never need encoding
	for _, seg := range strings.Split(p.Key, "/") {
		b.WriteByte('/')
		escapeSegment(&b, seg)
	}
	return b.String()
}

// escapeSegment percent-encodes every byte but the unreserved characters, so the
// canonical form is easy to reproduce in any language.
func escapeSegment(b *strings.Builder, seg string) {
	const hex = "0123456789ABCDEF"
	for i := 0; i < len(seg); i++ {
		c := seg[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~' {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
}

func truncate(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}
