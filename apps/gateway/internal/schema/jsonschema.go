package schema

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/sluicehq/sluice/apps/gateway/internal/jsonschemaerr"
	"github.com/sluicehq/sluice/apps/gateway/internal/protocol"
	"github.com/sluicehq/sluice/apps/gateway/internal/registry"
)

// The JSON Schema codec uses the validator the gateway already uses for json
// endpoints (santhosh-tekuri/jsonschema: drafts 4 to 2020-12, draft 2020-12
// when "$schema" is absent). Records are JSON text already, so Decode only
// checks them; Encode validates and passes the text through.

type jsonSchemaCodec struct {
	id     int
	schema *jsonschema.Schema
}

// jsonSchemaBase is the URL a registry schema compiles under. Not resolvable
// on purpose: a $ref resolves only to the schema itself or to one of its
// registry references (registered at the URL their name resolves to against
// this base); anything else is refused rather than fetched or read from disk.
const jsonSchemaBase = "https://registry.sluice.invalid/schemas/"

type refusingLoader struct{}

func (refusingLoader) Load(u string) (any, error) {
	return nil, fmt.Errorf("$ref %q is neither in the schema nor one of its registry references", u)
}

func compileJSONSchema(ctx context.Context, s *registry.Schema, resolve Resolver) (Codec, error) {
	base, _ := url.Parse(jsonSchemaBase)
	main := base.JoinPath(strconv.Itoa(s.ID) + ".json").String()
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(refusingLoader{})
	if err := addJSONSchemaResource(c, main, s.Text); err != nil {
		return nil, err
	}
	seen := map[string]bool{main: true}
	if err := addJSONSchemaReferences(ctx, c, base, s.References, resolve, seen, 0); err != nil {
		return nil, err
	}
	var (
		sch *jsonschema.Schema
		err error
	)
	if perr := recovered(func() { sch, err = c.Compile(main) }); perr != nil {
		return nil, unsupported(perr)
	}
	if err != nil {
		return nil, unsupported(err)
	}
	return &jsonSchemaCodec{id: s.ID, schema: sch}, nil
}

func addJSONSchemaResource(c *jsonschema.Compiler, u, text string) error {
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(text))
	if err != nil {
		return unsupported(err)
	}
	if err := c.AddResource(u, doc); err != nil {
		return unsupported(err)
	}
	return nil
}

func addJSONSchemaReferences(ctx context.Context, c *jsonschema.Compiler, base *url.URL, refs []registry.Reference, resolve Resolver, seen map[string]bool, depth int) error {
	if depth > maxReferenceDepth {
		return fmt.Errorf("%w: references nest deeper than %d", ErrUnsupportedSchema, maxReferenceDepth)
	}
	for _, ref := range refs {
		ru, err := base.Parse(ref.Name)
		if err != nil {
			return fmt.Errorf("%w: reference name %q: %w", ErrUnsupportedSchema, ref.Name, err)
		}
		ru.Fragment = ""
		u := ru.String()
		if seen[u] {
			continue
		}
		seen[u] = true
		rs, err := resolve(ctx, ref)
		if err != nil {
			return fmt.Errorf("reference %q: %w", ref.Name, err)
		}
		if err := addJSONSchemaResource(c, u, rs.Text); err != nil {
			return fmt.Errorf("reference %q: %w", ref.Name, err)
		}
		if err := addJSONSchemaReferences(ctx, c, base, rs.References, resolve, seen, depth+1); err != nil {
			return err
		}
	}
	return nil
}

// recovered runs f and turns a panic of the validator library into an error
// (a malformed schema must not take the gateway down).
func recovered(f func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	f()
	return nil
}

func (c *jsonSchemaCodec) Decode(data []byte) ([]byte, error) {
	if !protocol.ValidJSON(data) {
		return nil, fmt.Errorf("schema id %d: %w: data is not valid JSON (UTF-8)", c.id, ErrBadRecord)
	}
	return data, nil
}

func (c *jsonSchemaCodec) Encode(jsonText []byte) ([]byte, error) {
	if !protocol.ValidJSON(jsonText) {
		return nil, fmt.Errorf("%w: not valid JSON", ErrBadMessage)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(jsonText))
	if err != nil {
		return nil, fmt.Errorf("%w: not valid JSON", ErrBadMessage)
	}
	var verr error
	if perr := recovered(func() { verr = c.schema.Validate(inst) }); perr != nil {
		return nil, fmt.Errorf("%w: could not be checked against the JSON Schema", ErrBadMessage)
	}
	if verr == nil {
		return jsonText, nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(verr, &ve) {
		return nil, fmt.Errorf("%w: does not match the JSON Schema", ErrBadMessage)
	}
	return nil, fmt.Errorf("%w: %s", ErrBadMessage, describeJSONSchemaError(ve, inst))
}

// describeJSONSchemaError names the first failing location as $.a.b[2], in
// the words json endpoints use (package jsonschemaerr). Numeric location
// tokens are read against the instance: an array index shows as [2], a
// member named "2" as ["2"].
func describeJSONSchemaError(ve *jsonschema.ValidationError, inst any) string {
	loc, text, ok := jsonschemaerr.First(ve)
	if !ok {
		return "$: does not match the JSON Schema"
	}
	p := newPath()
	for _, tok := range loc {
		arr, isArray := inst.([]any)
		if i, err := strconv.Atoi(tok); err == nil && isArray && i >= 0 && i < len(arr) {
			p.index(i)
			inst = arr[i]
			continue
		}
		p.member(tok)
		if obj, isObject := inst.(map[string]any); isObject {
			inst = obj[tok]
		} else {
			inst = nil
		}
	}
	return p.String() + ": " + text
}
