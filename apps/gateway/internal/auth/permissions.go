package auth

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"

	"github.com/sluicehq/sluice/apps/gateway/internal/protocol"
)

// Permissions is a token's permissions claim: the patterns it may subscribe to
// (Sub), publish to (Pub) and both (All). JSON: {"sub":[],"pub":[],"all":[]}.
//
// An entry is a canonical endpoint path ("/orders/eu") or a prefix ending in
// "/*" that matches every path strictly below it ("/prices/*" matches
// "/prices/AAPL" and "/prices/a/b", not "/prices"); "/*" matches everything.
//
// Build a Permissions with NewPermissions or by unmarshalling JSON: both validate
// every entry, store it in canonical form and precompile the matchers, so Allows
// does no allocation. Treat the slices as read-only afterwards: the compiled
// matchers do not follow later changes to them.
type Permissions struct {
	Sub []string `json:"sub"`
	Pub []string `json:"pub"`
	All []string `json:"all"`

	compiled *compiledPermissions
}

// compiledPermissions holds one matcher per operation, each already the union of
// its own list and All, so Allows scans one matcher.
type compiledPermissions struct {
	subscribe, publish matcher
}

// exactSetThreshold is the number of exact entries above which a matcher uses a
// map rather than a linear scan; tokens usually hold a handful of entries.
const exactSetThreshold = 8

// matcher matches canonical paths against exact entries and wildcard prefixes.
type matcher struct {
	exact    []string
	exactSet map[string]struct{}
	prefixes []string // each ends in "/"; "/" alone is the "/*" wildcard
}

func (m *matcher) add(p pattern) {
	if p.prefix != "" {
		m.prefixes = append(m.prefixes, p.prefix)
		return
	}
	m.exact = append(m.exact, p.canonical)
}

func (m *matcher) seal() {
	if len(m.exact) > exactSetThreshold {
		m.exactSet = make(map[string]struct{}, len(m.exact))
		for _, e := range m.exact {
			m.exactSet[e] = struct{}{}
		}
	}
}

func (m *matcher) matches(path string) bool {
	if m.exactSet != nil {
		if _, ok := m.exactSet[path]; ok {
			return true
		}
	} else {
		for _, e := range m.exact {
			if e == path {
				return true
			}
		}
	}
	for _, p := range m.prefixes {
		if strings.HasPrefix(path, p) {
			return true
		}
	}
	return false
}

// NewPermissions validates the three lists, canonicalises every entry and
// precompiles the matchers. An invalid entry is an error naming it (list and
// index), because a token with a pattern the gateway cannot read must not be
// half-honoured.
func NewPermissions(sub, pub, all []string) (Permissions, error) {
	var p Permissions
	var c compiledPermissions
	var err error
	if p.Sub, err = compileList("sub", sub, &c.subscribe); err != nil {
		return Permissions{}, err
	}
	if p.Pub, err = compileList("pub", pub, &c.publish); err != nil {
		return Permissions{}, err
	}
	if p.All, err = compileList("all", all, &c.subscribe, &c.publish); err != nil {
		return Permissions{}, err
	}
	c.subscribe.seal()
	c.publish.seal()
	p.compiled = &c
	return p, nil
}

func compileList(name string, entries []string, into ...*matcher) ([]string, error) {
	if entries == nil {
		return nil, nil
	}
	out := make([]string, len(entries))
	for i, e := range entries {
		p, err := parsePattern(e)
		if err != nil {
			return nil, fmt.Errorf("permissions.%s[%d] %q: %s", name, i, truncate(e), err.Error())
		}
		out[i] = p.canonical
		for _, m := range into {
			m.add(p)
		}
	}
	return out, nil
}

// Allows reports whether the permissions permit op on canonicalPath (a
// protocol.Path.String()). Subscribe is allowed by Sub and All, publish by Pub
// and All; anything else is refused. On Permissions built by NewPermissions or
// JSON it does not allocate. A Permissions assembled by hand is compiled on each
// call and refuses everything if any entry is invalid (fail closed).
func (p Permissions) Allows(op protocol.Op, canonicalPath string) bool {
	c := p.compiled
	if c == nil {
		if len(p.Sub)+len(p.Pub)+len(p.All) == 0 {
			return false
		}
		np, err := NewPermissions(p.Sub, p.Pub, p.All)
		if err != nil {
			return false
		}
		c = np.compiled
	}
	switch op {
	case protocol.OpSubscribe:
		return c.subscribe.matches(canonicalPath)
	case protocol.OpPublish:
		return c.publish.matches(canonicalPath)
	}
	return false
}

// UnmarshalJSON reads {"sub":[...],"pub":[...],"all":[...]} (each list optional)
// and validates it like NewPermissions.
func (p *Permissions) UnmarshalJSON(b []byte) error {
	sub, pub, all, err := decodePermissionLists(b)
	if err != nil {
		return err
	}
	np, err := NewPermissions(sub, pub, all)
	if err != nil {
		return err
	}
	*p = np
	return nil
}

// decodePermissionLists reads the three optional lists of a permissions object.
// It decodes through a map so member names match exactly (encoding/json matches
// struct fields case-insensitively); other members grant nothing and are ignored.
// JSON null reads as no permissions.
func decodePermissionLists(b []byte) (sub, pub, all []string, err error) {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(b, &members); err != nil {
		return nil, nil, nil, fmt.Errorf("permissions must be an object")
	}
	lists := [3]*[]string{&sub, &pub, &all}
	for i, name := range [3]string{"sub", "pub", "all"} {
		raw, ok := members[name]
		if !ok {
			continue
		}
		if err := json.Unmarshal(raw, lists[i]); err != nil {
			return nil, nil, nil, fmt.Errorf("permissions.%s must be an array of strings", name)
		}
	}
	return sub, pub, all, nil
}

// MarshalJSON writes the canonical entries, with [] for an empty list, the shape
// PROTOCOL.md shows.
func (p Permissions) MarshalJSON() ([]byte, error) {
	nonNil := func(s []string) []string {
		if s == nil {
			return []string{}
		}
		return s
	}
	return json.Marshal(struct {
		Sub []string `json:"sub"`
		Pub []string `json:"pub"`
		All []string `json:"all"`
	}{nonNil(p.Sub), nonNil(p.Pub), nonNil(p.All)})
}

// pattern is one validated permission entry.
type pattern struct {
	// canonical is the entry in canonical form ("/prices/BRK.B", "/prices/*").
	canonical string
	// prefix is, for a wildcard entry, the canonical prefix it matches (ending in
	// "/"); empty for an exact entry.
	prefix string
}

// ValidatePattern reports whether entry is a valid permission entry, and why not.
// The portal and tests use it to check entries before minting a token.
func ValidatePattern(entry string) error {
	_, err := parsePattern(entry)
	return err
}

// parsePattern validates one entry and canonicalises it. '*' is a wildcard only
// as the whole last segment; everywhere else it is refused rather than read as a
// literal, because a literal '*' in a canonical path is always "%2A".
func parsePattern(entry string) (pattern, error) {
	if entry == "" {
		return pattern{}, fmt.Errorf("entry is empty")
	}
	if entry[0] != '/' {
		return pattern{}, fmt.Errorf("must start with /")
	}
	if i := strings.IndexByte(entry, '*'); i >= 0 {
		if i != len(entry)-1 || !strings.HasSuffix(entry, "/*") {
			return pattern{}, fmt.Errorf("* is allowed only as the whole last segment (/topic/*)")
		}
		return parsePrefix(entry[:len(entry)-2])
	}
	p, perr := protocol.ParsePath(entry)
	if perr != nil {
		return pattern{}, fmt.Errorf("not an endpoint path: %s", strings.TrimPrefix(perr.Message, "endpoint: "))
	}
	return pattern{canonical: p.String()}, nil
}

// parsePrefix handles the part of a wildcard entry before "/*": nothing (the
// "/*" wildcard), a topic, or a topic followed by key segments.
func parsePrefix(rest string) (pattern, error) {
	if rest == "" {
		return pattern{canonical: "/*", prefix: "/"}, nil
	}
	if !strings.Contains(rest[1:], "/") {
		topic, err := url.PathUnescape(rest[1:])
		if err != nil {
			return pattern{}, fmt.Errorf("topic is not valid percent-encoding")
		}
		if perr := protocol.ValidTopic(topic); perr != nil {
			return pattern{}, fmt.Errorf("%s", strings.TrimPrefix(perr.Message, "endpoint: "))
		}
		return pattern{canonical: "/" + topic + "/*", prefix: "/" + topic + "/"}, nil
	}
	p, perr := protocol.ParsePath(rest)
	if perr != nil {
		return pattern{}, fmt.Errorf("not an endpoint prefix: %s", strings.TrimPrefix(perr.Message, "endpoint: "))
	}
	c := p.String()
	return pattern{canonical: c + "/*", prefix: c + "/"}, nil
}

// truncate bounds a value echoed in an error message.
func truncate(s string) string {
	const max = 80
	if len(s) > max {
		return s[:max] + "…"
	}
	return s
}
