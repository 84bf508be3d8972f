package wording

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// OllamaReadTimeout bounds each identity read, as typevet's 30 s timeout.
const OllamaReadTimeout = 30 * time.Second

// maxIdentityBody bounds the bytes read from /api/version or /api/tags.
const maxIdentityBody = 8 << 20

// OllamaIdentity is what the Ollama identity reads find (ollama_identity).
type OllamaIdentity struct {
	// Version is the "version" field of GET /api/version.
	Version string `json:"ollama_version"`
	// ModelDigest is the "digest" of the first GET /api/tags entry whose
	// name is the model, or the model with ":latest" added.
	ModelDigest string `json:"model_digest"`
}

// ReadOllamaIdentity reads the server version and the judge model's digest,
// before any judge call (ollama_identity): GET <base>/api/version, then GET
// <base>/api/tags, each bounded by [OllamaReadTimeout] and by ctx. A
// trailing "/" of base is removed. The model matches an entry named model
// or model + ":latest" ("nimble" matches "nimble:latest"; "other:7b" only
// "other:7b"); the first match in the list wins. client nil means
// http.DefaultClient.
//
// Every failure is an [*OllamaError] naming the endpoint: a transport
// error, a non-2xx status ("Ollama GET /api/tags: HTTP 500"), a body over
// 8 MiB ("the body is too large"), a body that is not JSON of the expected
// shape, and "the judge model is not listed by Ollama /api/tags". No message holds a response body, the requested model,
// a listed name or a digest.
func ReadOllamaIdentity(ctx context.Context, client *http.Client, base, model string) (OllamaIdentity, error) {
	if client == nil {
		client = http.DefaultClient
	}
	base = strings.TrimRight(base, "/")
	var version struct {
		Version *string `json:"version"`
	}
	if err := getJSON(ctx, client, base, "/api/version", &version); err != nil {
		return OllamaIdentity{}, err
	}
	if version.Version == nil {
		return OllamaIdentity{}, &OllamaError{Endpoint: "/api/version", Msg: "Ollama GET /api/version: the body has no version"}
	}
	var tags struct {
		Models []struct {
			Name   string  `json:"name"`
			Digest *string `json:"digest"`
		} `json:"models"`
	}
	if err := getJSON(ctx, client, base, "/api/tags", &tags); err != nil {
		return OllamaIdentity{}, err
	}
	for _, m := range tags.Models {
		if m.Name != model && m.Name != model+":latest" {
			continue
		}
		if m.Digest == nil {
			return OllamaIdentity{}, &OllamaError{Endpoint: "/api/tags", Msg: "Ollama GET /api/tags: the judge model entry has no digest"}
		}
		return OllamaIdentity{Version: *version.Version, ModelDigest: *m.Digest}, nil
	}
	return OllamaIdentity{}, &OllamaError{Endpoint: "/api/tags", Msg: "the judge model is not listed by Ollama /api/tags"}
}

// getJSON GETs base+path and decodes the JSON body into v.
func getJSON(ctx context.Context, client *http.Client, base, path string, v any) error {
	ctx, cancel := context.WithTimeout(ctx, OllamaReadTimeout)
	defer cancel()
	fail := func(status int, msg string, err error) error {
		return &OllamaError{Endpoint: path, StatusCode: status, Msg: "Ollama GET " + path + ": " + msg, Err: err}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+path, nil)
	if err != nil {
		return fail(0, "the base URL is not a URL", nil)
	}
	resp, err := client.Do(req)
	if err != nil {
		// The message keeps the cause (e.g. "connection refused") but not
		// the *url.Error's URL text; the full error stays in the chain.
		cause := err
		var ue *url.Error
		if errors.As(err, &ue) {
			cause = ue.Err
		}
		return fail(0, "the request failed: "+cause.Error(), err)
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fail(resp.StatusCode, "HTTP "+strconv.Itoa(resp.StatusCode), nil)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxIdentityBody+1))
	if err != nil {
		return fail(0, "reading the body failed", err)
	}
	if len(body) > maxIdentityBody {
		return fail(0, "the body is too large (over 8 MiB)", nil)
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fail(0, "the body is not JSON of the expected shape", nil)
	}
	return nil
}
