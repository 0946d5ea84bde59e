package auth

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/big"
	"slices"
)

// The signing algorithms a token may use (PROTOCOL.md). Everything else,
// notably "none" and the HMAC family, is refused.
const (
	AlgES256 = "ES256"
	AlgEdDSA = "EdDSA"
	AlgRS256 = "RS256"
)

// RSA modulus bounds: below MinRSABits is too weak; above MaxRSABits costs too
// much per verification for a key an attacker might slip into the catalog.
const (
	MinRSABits = 2048
	MaxRSABits = 8192
)

// privateMembers are the JWK members that carry private key material (RFC 7518
// section 6). A JWK with any of them is refused: the catalog must only carry
// public keys, and accepting one would mean a private key travelled in the clear.
var privateMembers = []string{"d", "p", "q", "dp", "dq", "qi", "oth", "k"}

// ParsePublicJWK turns a public JWK (RFC 7517) into a key for alg: ES256 needs
// kty EC crv P-256; EdDSA needs kty OKP crv Ed25519; RS256 needs kty RSA with n,e
// (moduli of MinRSABits to MaxRSABits). It refuses private JWKs (a "d" member or
// any other private member), an "alg" member other than alg, a "use" other than
// "sig" and "key_ops" without "verify". Errors name the bad member and never
// include key material.
//
// The returned key has the type the verifier expects for alg: *ecdsa.PublicKey,
// ed25519.PublicKey or *rsa.PublicKey.
func ParsePublicJWK(alg string, jwk json.RawMessage) (crypto.PublicKey, error) {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(jwk, &members); err != nil || members == nil {
		return nil, fmt.Errorf("jwk: not a JSON object")
	}
	for _, m := range privateMembers {
		if _, ok := members[m]; ok {
			return nil, fmt.Errorf("jwk: member %q is private key material; only public keys are accepted", m)
		}
	}
	if err := checkMetadata(alg, members); err != nil {
		return nil, err
	}
	kty, err := stringMember(members, "kty")
	if err != nil {
		return nil, err
	}
	switch alg {
	case AlgES256:
		if kty != "EC" {
			return nil, fmt.Errorf("jwk: member \"kty\" must be \"EC\" for ES256, got %q", truncate(kty))
		}
		return parseEC(members)
	case AlgEdDSA:
		if kty != "OKP" {
			return nil, fmt.Errorf("jwk: member \"kty\" must be \"OKP\" for EdDSA, got %q", truncate(kty))
		}
		return parseOKP(members)
	case AlgRS256:
		if kty != "RSA" {
			return nil, fmt.Errorf("jwk: member \"kty\" must be \"RSA\" for RS256, got %q", truncate(kty))
		}
		return parseRSA(members)
	}
	return nil, fmt.Errorf("jwk: alg %q is not supported (ES256, EdDSA, RS256)", truncate(alg))
}

// checkMetadata applies the optional members that restrict how a key may be
// used; a key labelled for something else is refused rather than repurposed.
func checkMetadata(alg string, members map[string]json.RawMessage) error {
	if _, ok := members["alg"]; ok {
		a, err := stringMember(members, "alg")
		if err != nil {
			return err
		}
		if a != alg {
			return fmt.Errorf("jwk: member \"alg\" is %q, want %q", truncate(a), truncate(alg))
		}
	}
	if _, ok := members["use"]; ok {
		u, err := stringMember(members, "use")
		if err != nil {
			return err
		}
		if u != "sig" {
			return fmt.Errorf("jwk: member \"use\" is %q, want \"sig\"", truncate(u))
		}
	}
	if raw, ok := members["key_ops"]; ok {
		var ops []string
		if err := json.Unmarshal(raw, &ops); err != nil {
			return fmt.Errorf("jwk: member \"key_ops\" must be an array of strings")
		}
		if !slices.Contains(ops, "verify") {
			return fmt.Errorf("jwk: member \"key_ops\" does not include \"verify\"")
		}
	}
	return nil
}

func parseEC(members map[string]json.RawMessage) (crypto.PublicKey, error) {
	crv, err := stringMember(members, "crv")
	if err != nil {
		return nil, err
	}
	if crv != "P-256" {
		return nil, fmt.Errorf("jwk: member \"crv\" must be \"P-256\" for ES256, got %q", truncate(crv))
	}
	x, err := bytesMember(members, "x")
	if err != nil {
		return nil, err
	}
	y, err := bytesMember(members, "y")
	if err != nil {
		return nil, err
	}
	// RFC 7518 section 6.2.1.2: the coordinates are exactly the field size.
	if len(x) != 32 {
		return nil, fmt.Errorf("jwk: member \"x\" must be 32 bytes for P-256, got %d", len(x))
	}
	if len(y) != 32 {
		return nil, fmt.Errorf("jwk: member \"y\" must be 32 bytes for P-256, got %d", len(y))
	}
	point := make([]byte, 0, 65)
	point = append(point, 4)
	point = append(point, x...)
	point = append(point, y...)
	key, err := ecdsa.ParseUncompressedPublicKey(elliptic.P256(), point)
	if err != nil {
		return nil, fmt.Errorf("jwk: members \"x\",\"y\" are not a point on P-256")
	}
	return key, nil
}

func parseOKP(members map[string]json.RawMessage) (crypto.PublicKey, error) {
	crv, err := stringMember(members, "crv")
	if err != nil {
		return nil, err
	}
	if crv != "Ed25519" {
		return nil, fmt.Errorf("jwk: member \"crv\" must be \"Ed25519\" for EdDSA, got %q", truncate(crv))
	}
	x, err := bytesMember(members, "x")
	if err != nil {
		return nil, err
	}
	if len(x) != ed25519.PublicKeySize {
		return nil, fmt.Errorf("jwk: member \"x\" must be %d bytes for Ed25519, got %d", ed25519.PublicKeySize, len(x))
	}
	return ed25519.PublicKey(x), nil
}

func parseRSA(members map[string]json.RawMessage) (crypto.PublicKey, error) {
	nb, err := bytesMember(members, "n")
	if err != nil {
		return nil, err
	}
	eb, err := bytesMember(members, "e")
	if err != nil {
		return nil, err
	}
	n := new(big.Int).SetBytes(nb)
	if bits := n.BitLen(); bits < MinRSABits || bits > MaxRSABits {
		return nil, fmt.Errorf("jwk: member \"n\" is a %d-bit modulus; RS256 needs %d to %d bits", bits, MinRSABits, MaxRSABits)
	}
	if n.Bit(0) == 0 {
		return nil, fmt.Errorf("jwk: member \"n\" is even, not an RSA modulus")
	}
	if len(eb) > 4 {
		return nil, fmt.Errorf("jwk: member \"e\" is too large")
	}
	var e int64
	for _, b := range eb {
		e = e<<8 | int64(b)
	}
	if e < 3 || e > 1<<31-1 || e%2 == 0 {
		return nil, fmt.Errorf("jwk: member \"e\" must be an odd exponent from 3 to 2^31-1")
	}
	return &rsa.PublicKey{N: n, E: int(e)}, nil
}

// stringMember reads a required string member.
func stringMember(members map[string]json.RawMessage, name string) (string, error) {
	raw, ok := members[name]
	if !ok {
		return "", fmt.Errorf("jwk: member %q is missing", name)
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", fmt.Errorf("jwk: member %q must be a string", name)
	}
	return s, nil
}

// bytesMember reads a required base64url (unpadded, RFC 7515 section 2) member.
// The error never includes the value: it is key material.
func bytesMember(members map[string]json.RawMessage, name string) ([]byte, error) {
	s, err := stringMember(members, name)
	if err != nil {
		return nil, err
	}
	b, err := base64.RawURLEncoding.Strict().DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("jwk: member %q is not unpadded base64url", name)
	}
	if len(b) == 0 {
		return nil, fmt.Errorf("jwk: member %q is empty", name)
	}
	return b, nil
}
