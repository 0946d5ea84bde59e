package catalog

import (
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/sluicehq/sluice/apps/gateway/internal/jsonschemaerr"
)

// describeValidation turns a validation error into one short message naming the
// first failing location as a JSON Pointer ("/qty: must be >= 1", "(root): …").
func describeValidation(ve *jsonschema.ValidationError) string {
	loc, text, ok := jsonschemaerr.First(ve)
	if !ok {
		return "payload does not match the JSON Schema"
	}
	p := jsonschemaerr.Pointer(loc)
	if p == "" {
		p = "(root)"
	}
	return p + ": " + text
}
