package catalog

import (
	"crypto"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// The record kinds of CATALOG.md: a record key is "<kind>/<id>".
const (
	kindEndpoint = "endpoint"
	kindKey      = "key"
	kindApp      = "app"
	kindRevoked  = "revoked"
)

// splitKey splits a record key into kind and id at the first '/'. Ids may hold
// further slashes; the kind never does.
func splitKey(key string) (kind, id string) {
	kind, id, _ = strings.Cut(key, "/")
	return kind, id
}

// decodeValue unmarshals a record value into v, turning encoding/json's errors
// into ones that name the bad field.
func decodeValue(value []byte, v any) error {
	err := json.Unmarshal(value, v)
	if err == nil {
		return nil
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		if te.Field == "" {
			return fmt.Errorf("value: must be a JSON object, got JSON %s", te.Value)
		}
		return fmt.Errorf("%s: wrong type (JSON %s)", te.Field, te.Value)
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("value: not valid JSON (byte %d: %v)", se.Offset, se)
	}
	return fmt.Errorf("value: %v", err)
}

// checkVersion accepts version 1, the only one this gateway knows.
func checkVersion(v *int64) error {
	if v == nil {
		return errors.New("v: missing")
	}
	if *v != 1 {
		return fmt.Errorf("v: unknown version %d (this gateway reads version 1)", *v)
	}
	return nil
}

// checkID requires the id inside the value to be the id of the record key: a
// mismatch means the record is damaged, and trusting either would be a guess.
func checkID(field string, got *string, want string) error {
	if got == nil {
		return fmt.Errorf("%s: missing", field)
	}
	if *got != want {
		return fmt.Errorf("%s: %q does not match the record key's id %q", field, truncate(*got), truncate(want))
	}
	return nil
}

func truncate(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

// verificationKey is a parsed key record.
type verificationKey struct {
	alg    string
	status string // "active" or "retired": both verify tokens
	key    crypto.PublicKey
}

// keyValue is the JSON of a key record.
type keyValue struct {
	V      *int64          `json:"v"`
	Kid    *string         `json:"kid"`
	Alg    *string         `json:"alg"`
	JWK    json.RawMessage `json:"jwk"`
	Status *string         `json:"status"`
}

// parseKey reads a key record and parses its JWK with parseJWK (injected: the
// auth package owns JWK parsing).
func parseKey(kid string, value []byte, parseJWK func(alg string, jwk json.RawMessage) (crypto.PublicKey, error)) (verificationKey, error) {
	var v keyValue
	if err := decodeValue(value, &v); err != nil {
		return verificationKey{}, err
	}
	if err := checkVersion(v.V); err != nil {
		return verificationKey{}, err
	}
	if err := checkID("kid", v.Kid, kid); err != nil {
		return verificationKey{}, err
	}
	if v.Alg == nil {
		return verificationKey{}, errors.New("alg: missing")
	}
	switch *v.Alg {
	case "ES256", "EdDSA", "RS256":
	default:
		return verificationKey{}, fmt.Errorf("alg: %q is not ES256, EdDSA or RS256", truncate(*v.Alg))
	}
	if v.Status == nil {
		return verificationKey{}, errors.New("status: missing")
	}
	switch *v.Status {
	case "active", "retired":
	default:
		return verificationKey{}, fmt.Errorf("status: %q is not active or retired", truncate(*v.Status))
	}
	jwk := json.RawMessage(strings.TrimSpace(string(v.JWK)))
	if len(jwk) == 0 || jwk[0] != '{' {
		return verificationKey{}, errors.New("jwk: must be a JSON object")
	}
	if parseJWK == nil {
		return verificationKey{}, errors.New("jwk: cannot be parsed: the catalog has no JWK parser (Options.ParseJWK)")
	}
	var pub crypto.PublicKey
	var perr error
	if err := safely(func() error { pub, perr = parseJWK(*v.Alg, jwk); return nil }); err != nil {
		return verificationKey{}, fmt.Errorf("jwk: %v", err)
	}
	if perr != nil {
		return verificationKey{}, fmt.Errorf("jwk: %v", perr)
	}
	if pub == nil {
		return verificationKey{}, errors.New("jwk: the parser returned no key")
	}
	return verificationKey{alg: *v.Alg, status: *v.Status, key: pub}, nil
}

// appValue is the JSON of an app record.
type appValue struct {
	V               *int64          `json:"v"`
	ID              *string         `json:"id"`
	Name            *string         `json:"name"`
	TokensNotBefore json.RawMessage `json:"tokens_not_before"`
	Limits          []limitValue    `json:"limits"`
}

type limitValue struct {
	Plan                    *string  `json:"plan"`
	Name                    string   `json:"name"`
	Patterns                []string `json:"patterns"`
	Connections             *int64   `json:"connections"`
	SubscriptionsPerConn    *int64   `json:"subscriptions_per_connection"`
	PublishPerSecond        *int64   `json:"publish_per_second"`
	DeliveredPerSecond      *int64   `json:"delivered_per_second"`
	DeliveredBytesPerSecond *int64   `json:"delivered_bytes_per_second"`
}

// app is what the catalog keeps of an app record.
type app struct {
	tokensNotBefore int64
	limits          []Limit
}

// Limit is one plan of an app (CATALOG.md, app records): the limits that
// govern what the app does on the endpoints its patterns match. A zero limit
// is no limit.
type Limit struct {
	Plan, Name string
	// Patterns are endpoint paths or prefixes ending in "/*", as in token
	// permissions.
	Patterns                []string
	Connections             int64
	SubscriptionsPerConn    int64
	PublishPerSecond        int64
	DeliveredPerSecond      int64
	DeliveredBytesPerSecond int64
}

// maxLimits bounds an app's plans; maxLimitPatterns the patterns of one.
const maxLimits, maxLimitPatterns = 64, 1024

// parseApp reads an app record: its tokens_not_before (null → 0) and limits.
func parseApp(id string, value []byte) (app, error) {
	var v appValue
	if err := decodeValue(value, &v); err != nil {
		return app{}, err
	}
	if err := checkVersion(v.V); err != nil {
		return app{}, err
	}
	if err := checkID("id", v.ID, id); err != nil {
		return app{}, err
	}
	limits, err := parseLimits(v.Limits)
	if err != nil {
		return app{}, err
	}
	raw := strings.TrimSpace(string(v.TokensNotBefore))
	if raw == "" || raw == "null" {
		return app{limits: limits}, nil
	}
	var n json.Number
	if err := json.Unmarshal([]byte(raw), &n); err != nil {
		return app{}, errors.New("tokens_not_before: must be a number of seconds or null")
	}
	nbf, err := n.Int64()
	if err != nil || nbf < 0 {
		return app{}, fmt.Errorf("tokens_not_before: %s is not a non-negative whole number of seconds", truncate(raw))
	}
	return app{tokensNotBefore: nbf, limits: limits}, nil
}

func parseLimits(vs []limitValue) ([]Limit, error) {
	if len(vs) > maxLimits {
		return nil, fmt.Errorf("limits: %d plans, at most %d", len(vs), maxLimits)
	}
	var out []Limit
	for i, v := range vs {
		at := fmt.Sprintf("limits[%d]", i)
		if v.Plan == nil || *v.Plan == "" || len(*v.Plan) > 64 {
			return nil, fmt.Errorf("%s.plan: must be a string of 1 to 64 bytes", at)
		}
		if len(v.Patterns) == 0 || len(v.Patterns) > maxLimitPatterns {
			return nil, fmt.Errorf("%s.patterns: must hold 1 to %d endpoint paths or prefixes", at, maxLimitPatterns)
		}
		for j, p := range v.Patterns {
			if !strings.HasPrefix(p, "/") || len(p) > 1024 {
				return nil, fmt.Errorf("%s.patterns[%d]: %q is not an endpoint path or a prefix ending in /*", at, j, truncate(p))
			}
		}
		l := Limit{Plan: *v.Plan, Name: truncate(v.Name), Patterns: v.Patterns}
		for _, f := range []struct {
			name string
			v    *int64
			dst  *int64
		}{
			{"connections", v.Connections, &l.Connections},
			{"subscriptions_per_connection", v.SubscriptionsPerConn, &l.SubscriptionsPerConn},
			{"publish_per_second", v.PublishPerSecond, &l.PublishPerSecond},
			{"delivered_per_second", v.DeliveredPerSecond, &l.DeliveredPerSecond},
			{"delivered_bytes_per_second", v.DeliveredBytesPerSecond, &l.DeliveredBytesPerSecond},
		} {
			if f.v == nil {
				continue
			}
			if *f.v < 1 || *f.v > 1<<40 {
				return nil, fmt.Errorf("%s.%s: %d is not a positive limit (null for none)", at, f.name, *f.v)
			}
			*f.dst = *f.v
		}
		out = append(out, l)
	}
	return out, nil
}

// revokedValue is the JSON of a revocation record. Only expires_at is kept: the
// jti is the record key's, and the app is informational.
type revokedValue struct {
	V         *int64  `json:"v"`
	JTI       *string `json:"jti"`
	App       *string `json:"app"`
	ExpiresAt *int64  `json:"expires_at"`
}

// parseRevoked reads a revocation. It returns what it could read and an error
// describing what it could not: the caller revokes the jti either way.
func parseRevoked(jti string, value []byte) (expiresAt int64, err error) {
	var v revokedValue
	if err := decodeValue(value, &v); err != nil {
		return 0, err
	}
	if err := checkVersion(v.V); err != nil {
		return 0, err
	}
	if v.JTI != nil && *v.JTI != jti {
		return 0, fmt.Errorf("jti: %q does not match the record key's jti %q", truncate(*v.JTI), truncate(jti))
	}
	if v.ExpiresAt != nil {
		expiresAt = *v.ExpiresAt
	}
	return expiresAt, nil
}
