// Package jsonschemaerr says in one short line what is wrong with a JSON
// value that failed JSON Schema validation (santhosh-tekuri/jsonschema, the
// gateway's one validator), for every place that validates: json endpoints
// (the catalog) and json-schema registry endpoints (package schema). Each
// caller writes the location in its own notation.
package jsonschemaerr

import (
	"encoding/json"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
)

// First returns the first failing location of a validation error (in JSON
// Pointer order, so the answer is stable even though the validator visits
// object members in random order), as the reference tokens of the instance
// location, and a short message saying what is wrong there. ok is false when
// the error holds no failure to name.
func First(ve *jsonschema.ValidationError) (location []string, text string, ok bool) {
	var ls []*jsonschema.ValidationError
	collectLeaves(ve, &ls)
	if len(ls) == 0 {
		return nil, "", false
	}
	type failure struct {
		location []string
		pointer  string
		text     string
	}
	fs := make([]failure, len(ls))
	for i, l := range ls {
		fs[i].location, fs[i].text = describeLeaf(l)
		fs[i].pointer = Pointer(fs[i].location)
	}
	slices.SortStableFunc(fs, func(a, b failure) int { return strings.Compare(a.pointer, b.pointer) })
	return fs[0].location, fs[0].text, true
}

// collectLeaves gathers the errors that say what is wrong. anyOf, oneOf and
// contains are kept whole: the failures inside their alternatives (or items)
// would mislead ("must be string" when a number was fine too).
func collectLeaves(e *jsonschema.ValidationError, out *[]*jsonschema.ValidationError) {
	switch e.ErrorKind.(type) {
	case *kind.AnyOf, *kind.OneOf, *kind.Contains:
		*out = append(*out, e)
		return
	}
	if len(e.Causes) == 0 {
		if _, ok := e.ErrorKind.(*kind.Schema); !ok {
			*out = append(*out, e)
		}
		return
	}
	for _, c := range e.Causes {
		collectLeaves(c, out)
	}
}

// describeLeaf returns the location and a short message for one failure.
func describeLeaf(e *jsonschema.ValidationError) (loc []string, text string) {
	loc = e.InstanceLocation
	switch k := e.ErrorKind.(type) {
	case *kind.Required:
		return append(slices.Clip(loc), k.Missing[0]), "is required"
	case *kind.AdditionalProperties:
		return append(slices.Clip(loc), k.Properties[0]), "is not allowed"
	case *kind.Type:
		return loc, fmt.Sprintf("must be %s, got %s", strings.Join(k.Want, " or "), k.Got)
	case *kind.Minimum:
		return loc, "must be >= " + ratString(k.Want)
	case *kind.Maximum:
		return loc, "must be <= " + ratString(k.Want)
	case *kind.ExclusiveMinimum:
		return loc, "must be > " + ratString(k.Want)
	case *kind.ExclusiveMaximum:
		return loc, "must be < " + ratString(k.Want)
	case *kind.MultipleOf:
		return loc, "must be a multiple of " + ratString(k.Want)
	case *kind.MinLength:
		return loc, fmt.Sprintf("must be at least %d characters long", k.Want)
	case *kind.MaxLength:
		return loc, fmt.Sprintf("must be at most %d characters long", k.Want)
	case *kind.MinItems:
		return loc, fmt.Sprintf("must have at least %d items", k.Want)
	case *kind.MaxItems:
		return loc, fmt.Sprintf("must have at most %d items", k.Want)
	case *kind.MinProperties:
		return loc, fmt.Sprintf("must have at least %d properties", k.Want)
	case *kind.MaxProperties:
		return loc, fmt.Sprintf("must have at most %d properties", k.Want)
	case *kind.Pattern:
		return loc, fmt.Sprintf("must match pattern %q", k.Want)
	case *kind.Const:
		return loc, "must be " + jsonText(k.Want)
	case *kind.Enum:
		if len(k.Want) == 1 {
			return loc, "must be " + jsonText(k.Want[0])
		}
		want := make([]string, len(k.Want))
		for i, w := range k.Want {
			want[i] = jsonText(w)
		}
		return loc, "must be one of " + truncate(strings.Join(want, ", "))
	case *kind.FalseSchema:
		return loc, "is not allowed"
	case *kind.Not:
		return loc, `must not match the "not" schema`
	case *kind.Contains:
		return loc, `must contain an item matching the "contains" schema`
	case *kind.AnyOf:
		if want := typeAlternatives(e); want != nil {
			return loc, fmt.Sprintf("must be %s, got %s", strings.Join(want.Want, " or "), want.Got)
		}
		return loc, "must match at least one schema of anyOf"
	case *kind.OneOf:
		if len(k.Subschemas) >= 2 {
			return loc, fmt.Sprintf("must match exactly one schema of oneOf, matches %d and %d", k.Subschemas[0], k.Subschemas[1])
		}
		if want := typeAlternatives(e); want != nil {
			return loc, fmt.Sprintf("must be %s, got %s", strings.Join(want.Want, " or "), want.Got)
		}
		return loc, "must match exactly one schema of oneOf, matches none"
	}
	return loc, libraryMessage(e.ErrorKind)
}

// typeAlternatives merges anyOf/oneOf alternatives that all failed on "type" at
// the same place ("must be number or null, got string").
func typeAlternatives(e *jsonschema.ValidationError) *kind.Type {
	if len(e.Causes) == 0 {
		return nil
	}
	merged := &kind.Type{}
	for _, c := range e.Causes {
		for len(c.Causes) == 1 { // a $ref around the alternative
			c = c.Causes[0]
		}
		t, ok := c.ErrorKind.(*kind.Type)
		if !ok || len(c.Causes) != 0 || !slices.Equal(c.InstanceLocation, e.InstanceLocation) {
			return nil
		}
		merged.Got = t.Got
		merged.Want = append(merged.Want, t.Want...)
	}
	return merged
}

// libraryMessage is the validator's own English text for a failure. It goes
// through ValidationError.Error so this package needs no printer of its own.
func libraryMessage(k jsonschema.ErrorKind) string {
	s := (&jsonschema.ValidationError{ErrorKind: k}).Error()
	if _, after, ok := strings.Cut(s, ": "); ok {
		s = after
	}
	return strings.TrimPrefix(s, "value ")
}

// jsonText shows a schema value as (shortened) JSON.
func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return truncate(string(b))
}

func ratString(r *big.Rat) string {
	if r == nil {
		return "?"
	}
	if r.IsInt() {
		return r.Num().String()
	}
	f, _ := r.Float64()
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// Pointer writes location tokens as a JSON Pointer (RFC 6901): "/items/2/qty",
// "" for the root.
func Pointer(tokens []string) string {
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		b.WriteString(escapePointer(t))
	}
	return b.String()
}

func escapePointer(tok string) string {
	return strings.ReplaceAll(strings.ReplaceAll(tok, "~", "~0"), "/", "~1")
}

// truncate keeps schema values quoted in a message short.
func truncate(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}
