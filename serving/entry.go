package serving

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"strconv"
	"strings"
)

// Backend names the serving stack of a run, as the receipt's backend key
// spells it.
type Backend string

// The backends whose server entry [ReadServerEntry] reads.
const (
	LlamaCPP Backend = "llama_cpp"
	VLLM     Backend = "vllm"
)

// String returns the receipt spelling.
func (b Backend) String() string { return string(b) }

// ServerEntry is the server entry of a receipt's pins (pins.server): what the server says it serves, read once after the session
// opens and before the run. JSON key order: served, build_info, then on
// llama.cpp only model_alias, n_ctx (and http_keepalive in an entry read
// from an older receipt: [LlamaCPPFacts]), or for a backend with no server
// only backend_pin.
type ServerEntry struct {
	// Served lists the GET /v1/models data entries whose id equals the
	// model, in the server's order (empty, not null, when none does).
	Served []ServedModel
	// BuildInfo is the server build: vLLM's GET /version "version", or
	// llama.cpp's GET /props?model=<model> "build_info"; "unknown" when
	// not given.
	BuildInfo string
	// LlamaCPP holds the facts only llama.cpp's entry has; nil on vLLM,
	// whose entry then has no such keys.
	LlamaCPP *LlamaCPPFacts
	// BackendPin is this port's own key "backend_pin", absent from
	// typevet's entries: the pin of a backend that judges without a server
	// (the built-in check reader: its version, font and constants, from
	// judgment/reader's Pin), one JSON object. Served is then empty and
	// BuildInfo holds the backend's version string. nil (no key) for
	// servers.
	BackendPin json.RawMessage
}

// LlamaCPPFacts are the llama.cpp-only keys of a [ServerEntry].
type LlamaCPPFacts struct {
	// ModelAlias is /props "model_alias"; nil (null) when /props has no
	// string there.
	ModelAlias *string
	// NCtx is /props default_generation_settings.n_ctx, the context size;
	// nil (null) when /props has no integer there.
	NCtx *int64
	// HTTPKeepalive is typevet's "http_keepalive" key, which typevet
	// writes only in face-match receipts: [ReadServerEntry] leaves it
	// false and the key is then not written. It is true only in an entry
	// read back from an older check-match receipt of this port, which
	// wrote it, so that such an entry writes back as it was read.
	HTTPKeepalive bool
}

// ServedModel is one served model, reduced to the keys typevet keeps. A key
// the server did not send (or sent as null or with another JSON type) is
// left out.
type ServedModel struct {
	// ID is the model id, equal to the run's model.
	ID string `json:"id"`
	// Root is the model the server loaded (vLLM: the weights path or hub
	// id).
	Root *string `json:"root,omitempty"`
	// MaxModelLen is the context length vLLM serves the model with.
	MaxModelLen *int64 `json:"max_model_len,omitempty"`
}

type entryWire struct {
	Served        []ServedModel    `json:"served"`
	BuildInfo     string           `json:"build_info"`
	ModelAlias    *json.RawMessage `json:"model_alias,omitempty"`
	NCtx          *json.RawMessage `json:"n_ctx,omitempty"`
	HTTPKeepalive *bool            `json:"http_keepalive,omitempty"`
	BackendPin    json.RawMessage  `json:"backend_pin,omitempty"`
}

// MarshalJSON writes the entry in its key order.
func (e ServerEntry) MarshalJSON() ([]byte, error) {
	w := entryWire{Served: e.Served, BuildInfo: e.BuildInfo, BackendPin: e.BackendPin}
	if w.Served == nil {
		w.Served = []ServedModel{}
	}
	if f := e.LlamaCPP; f != nil {
		alias, err := marshalNoHTMLEscape(f.ModelAlias)
		if err != nil {
			return nil, err
		}
		nctx, _ := json.Marshal(f.NCtx) // a number or null
		w.ModelAlias, w.NCtx = (*json.RawMessage)(&alias), (*json.RawMessage)(&nctx)
		if f.HTTPKeepalive {
			w.HTTPKeepalive = &f.HTTPKeepalive
		}
	}
	return marshalNoHTMLEscape(w)
}

// UnmarshalJSON reads an entry; any of model_alias, n_ctx or
// http_keepalive makes it a llama.cpp entry. A backend_pin that is not a
// JSON object is an error.
func (e *ServerEntry) UnmarshalJSON(b []byte) error {
	var w entryWire
	if err := json.Unmarshal(b, &w); err != nil {
		return fmt.Errorf("serving: server entry: %w", err)
	}
	if string(w.BackendPin) == "null" {
		w.BackendPin = nil
	}
	if w.BackendPin != nil {
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(w.BackendPin, &obj); err != nil || obj == nil {
			return fmt.Errorf("serving: server entry: backend_pin is not a JSON object")
		}
	}
	*e = ServerEntry{Served: w.Served, BuildInfo: w.BuildInfo, BackendPin: w.BackendPin}
	// A null model_alias or n_ctx leaves its pointer nil: look for the
	// keys themselves.
	var keys map[string]json.RawMessage
	_ = json.Unmarshal(b, &keys)
	_, hasAlias := keys["model_alias"]
	_, hasNCtx := keys["n_ctx"]
	if !hasAlias && !hasNCtx && w.HTTPKeepalive == nil {
		return nil
	}
	f := &LlamaCPPFacts{}
	if w.ModelAlias != nil {
		f.ModelAlias = rawString(*w.ModelAlias)
	}
	if w.NCtx != nil {
		f.NCtx = rawInt(*w.NCtx)
	}
	if w.HTTPKeepalive != nil {
		f.HTTPKeepalive = *w.HTTPKeepalive
	}
	e.LlamaCPP = f
	return nil
}

// AliasError is [ReadServerEntry]'s refusal of a vLLM model named by one
// of the server's later served names (vllm serve --served-model-name
// FIRST ALIAS...: /v1/models lists a card per name, all with the same
// root): vLLM answers every request for any of them under the first
// name, so every answer would name another model than the one asked for.
// The run is refused before its first scoring call.
type AliasError struct {
	// Model is the model the run names.
	Model string
	// First is the server's first served name of the same model.
	First string
}

// Error says which name to use.
func (e *AliasError) Error() string {
	return fmt.Sprintf("the vLLM server serves %q as another name of %q and answers every request for it as %q; name the model %q",
		e.Model, e.First, e.First, e.First)
}

// ReadServerEntry reads the server entry of model from the server at
// baseURL with client (nil means [http.DefaultClient]; redirects are not
// followed):
//
//   - GET /v1/models: the data entries whose id equals model. A transport
//     error, a status other than 200 (an [*HTTPError]) or a body that is not
//     a JSON object with a data list is an error; on vLLM so is a model
//     that is a later served name of a model ([*AliasError]).
//   - vLLM: GET /version "version". Decision: every failure there
//     (transport, non-200, not JSON, no string version) gives "unknown"
//     unless ctx is done, where typevet only maps a non-200 status to
//     "unknown".
//   - llama.cpp: GET /props?model=<model> gives build_info (default
//     "unknown"), model_alias and default_generation_settings.n_ctx; a
//     failed /props read is an error, as it is in typevet's session.
func ReadServerEntry(ctx context.Context, client *http.Client, baseURL string, backend Backend, model string) (ServerEntry, error) {
	if backend != LlamaCPP && backend != VLLM {
		return ServerEntry{}, fmt.Errorf("serving: backend %q has no server entry (want %q or %q)", backend, LlamaCPP, VLLM)
	}
	var models struct {
		Data *[]struct {
			ID          json.RawMessage `json:"id"`
			Root        json.RawMessage `json:"root"`
			MaxModelLen json.RawMessage `json:"max_model_len"`
		} `json:"data"`
	}
	if err := getJSON(ctx, client, baseURL, "/v1/models", &models); err != nil {
		return ServerEntry{}, err
	}
	if models.Data == nil {
		return ServerEntry{}, errors.New("serving: GET /v1/models: no data list")
	}
	e := ServerEntry{Served: []ServedModel{}, BuildInfo: Unknown}
	firstOfRoot := map[string]string{} // the first served name of each root
	for _, m := range *models.Data {
		id, root := rawString(m.ID), rawString(m.Root)
		if id != nil && root != nil {
			if first, ok := firstOfRoot[*root]; !ok {
				firstOfRoot[*root] = *id
			} else if backend == VLLM && *id == model {
				return ServerEntry{}, &AliasError{Model: model, First: first}
			}
		}
		if id != nil && *id == model {
			e.Served = append(e.Served, ServedModel{ID: *id, Root: root, MaxModelLen: rawInt(m.MaxModelLen)})
		}
	}
	if backend == VLLM {
		var version struct {
			Version json.RawMessage `json:"version"`
		}
		if err := getJSON(ctx, client, baseURL, "/version", &version); err != nil {
			if ctx.Err() != nil {
				return ServerEntry{}, err
			}
		} else if v := rawString(version.Version); v != nil {
			e.BuildInfo = *v
		}
		return e, nil
	}
	var props struct {
		BuildInfo  json.RawMessage `json:"build_info"`
		ModelAlias json.RawMessage `json:"model_alias"`
		Settings   struct {
			NCtx json.RawMessage `json:"n_ctx"`
		} `json:"default_generation_settings"`
	}
	if err := getJSON(ctx, client, baseURL, "/props?"+url.Values{"model": {model}}.Encode(), &props); err != nil {
		return ServerEntry{}, err
	}
	if v := rawString(props.BuildInfo); v != nil {
		e.BuildInfo = *v
	}
	e.LlamaCPP = &LlamaCPPFacts{ModelAlias: rawString(props.ModelAlias), NCtx: rawInt(props.Settings.NCtx)}
	return e, nil
}

// getJSON gets pathAndQuery and decodes a 200 JSON body into v.
func getJSON(ctx context.Context, client *http.Client, baseURL, pathAndQuery string, v any) error {
	status, body, err := get(ctx, client, baseURL, pathAndQuery)
	if err != nil {
		return err
	}
	path, _, _ := strings.Cut(pathAndQuery, "?")
	if status != http.StatusOK {
		return &HTTPError{Path: path, StatusCode: status}
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("serving: GET %s: %s; is the base URL the server's root?", path, jsonMismatch(err))
	}
	return nil
}

// jsonMismatch says in a reader's words why a body did not decode: which
// field held which JSON kind where another was expected, or that the body
// is not JSON at all. It never quotes the body.
func jsonMismatch(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		want := "a " + te.Type.Kind().String()
		switch te.Type.Kind() {
		case reflect.Slice, reflect.Array:
			want = "a list"
		case reflect.Struct, reflect.Map:
			want = "an object"
		case reflect.Pointer:
			want = "an object or a list"
		}
		field := "the body"
		if te.Field != "" {
			field = strconv.Quote(te.Field)
		}
		return fmt.Sprintf("%s is a JSON %s where the server should send %s", field, te.Value, want)
	}
	return "the body is not JSON"
}

// rawString returns the JSON string in raw, or nil when raw is absent or
// not a string.
func rawString(raw json.RawMessage) *string {
	var s string
	if len(raw) == 0 || raw[0] != '"' || json.Unmarshal(raw, &s) != nil {
		return nil
	}
	return &s
}

// rawInt returns the JSON integer in raw, or nil when raw is absent or not
// an integer.
func rawInt(raw json.RawMessage) *int64 {
	var n int64
	if len(raw) == 0 || json.Unmarshal(raw, &n) != nil {
		return nil
	}
	return &n
}
