package llamacpp

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"

	"github.com/typevet/typevet-go/judgment"
)

// UnservedModelError reports that [Open] refused a model the server does
// not serve: neither GET /v1/models (ids and aliases) nor GET /props
// (model_alias) lists it. A single-model llama-server ignores the "model"
// field of every request, so without this check a mistyped model name
// would run to the end and the receipt would name a model that never
// answered. It is returned before any scoring request.
type UnservedModelError struct {
	// Model is the requested model id.
	Model string
	// Served lists the names the server does serve, in the order it
	// reported them, without repeats.
	Served []string
}

// Error names the requested model and the served ones.
func (e *UnservedModelError) Error() string {
	quoted := make([]string, len(e.Served))
	for i, s := range e.Served {
		quoted[i] = "'" + s + "'"
	}
	return "llama.cpp server does not serve model '" + e.Model + "'; it serves " + strings.Join(quoted, ", ")
}

// servedNames returns the model names GET /v1/models lists (each entry's
// id, then its aliases) followed by the /props model_alias, without
// repeats. A failed or unreadable /v1/models read lists nothing: the check
// then rests on /props alone.
func (c *Client) servedNames(ctx context.Context, props Props) []string {
	var names []string
	add := func(s string) {
		// A name that echoes a secret is masked as errors are: the key
		// anywhere, a header value as a whole token.
		s = c.secrets.Redact(s)
		if s != "" && !slices.Contains(names, s) {
			names = append(names, s)
		}
	}
	if body, err := c.do(ctx, http.MethodGet, "/v1/models", nil, nil); err == nil {
		var w ModelsResponse
		if json.Unmarshal(body, &w) == nil {
			for _, e := range w.Data {
				add(e.ID)
				for _, a := range e.Aliases {
					add(a)
				}
			}
		}
	}
	add(props.ModelAlias)
	return names
}

// checkServed refuses model when the server names what it serves and
// model is not among it; a server that names nothing is not refused.
func (c *Client) checkServed(ctx context.Context, model string, props Props) error {
	names := c.servedNames(ctx, props)
	if len(names) == 0 || slices.Contains(names, model) {
		return nil
	}
	return &UnservedModelError{Model: model, Served: names}
}

// unknownModel reports whether err is a router's HTTP 400 for a model it
// does not know ("model '<name>' not found").
func unknownModel(err error) bool {
	var he *judgment.BackendHTTPError
	return errors.As(err, &he) && he.StatusCode == http.StatusBadRequest &&
		strings.Contains(he.BodySnippet, "' not found")
}
