package llamacpp

import (
	"encoding/json"

	"github.com/typevet/typevet-go/internal/backendhttp"
)

// PropsResponse is the part of the GET /props?model= answer read by
// [Client.Props]. Loosely typed fields stay raw so that an odd type is a
// "no" rather than a decode failure.
type PropsResponse struct {
	// Modalities lists the input kinds the model accepts.
	Modalities struct {
		// Vision must be JSON true for image input.
		Vision json.RawMessage `json:"vision"`
	} `json:"modalities"`
	// MediaMarker is the server's random media marker, drawn per process
	// (and per router load): "<__media_" + 32 letters and digits + "__>";
	// a missing or empty value (older servers) means "<__media__>".
	MediaMarker json.RawMessage `json:"media_marker"`
	// BuildInfo is the server build (e.g. "b11277-eae11d221"), for receipts.
	BuildInfo json.RawMessage `json:"build_info"`
	// ModelAlias is the served alias, for receipts.
	ModelAlias json.RawMessage `json:"model_alias"`
	// DefaultGenerationSettings holds the context size, for receipts.
	DefaultGenerationSettings struct {
		// NCtx is the context window in tokens.
		NCtx json.RawMessage `json:"n_ctx"`
	} `json:"default_generation_settings"`
}

// ApplyTemplateRequest is the body of POST /apply-template sent by
// [Client.ApplyTemplate]: one user turn "hello" with the generation prompt.
type ApplyTemplateRequest struct {
	// Model is the model id.
	Model string `json:"model"`
	// Messages is the chat to render.
	Messages []Message `json:"messages"`
	// AddGenerationPrompt appends the model-turn header.
	AddGenerationPrompt bool `json:"add_generation_prompt"`
}

// Message is one chat turn of an [ApplyTemplateRequest].
type Message struct {
	// Role is "user".
	Role string `json:"role"`
	// Content is the turn text.
	Content string `json:"content"`
}

// ApplyTemplateResponse is the answer to POST /apply-template read by
// [Client.ApplyTemplate].
type ApplyTemplateResponse struct {
	// Prompt is the rendered template; a missing or non-string prompt is
	// an error.
	Prompt *string `json:"prompt"`
}

// TokenizeRequest is the body of POST /tokenize sent by [Client.Tokenize].
type TokenizeRequest struct {
	// Model is the model id.
	Model string `json:"model"`
	// Content is the text to tokenize.
	Content string `json:"content"`
	// AddSpecial is always false: control strings are tokenized bare.
	AddSpecial bool `json:"add_special"`
}

// TokenizeResponse is the answer to POST /tokenize read by
// [Client.Tokenize].
type TokenizeResponse struct {
	// Tokens are the token ids; nil when missing. Non-integers (floats,
	// booleans, strings) fail the decode.
	Tokens *[]int `json:"tokens"`
}

// CompletionRequest is the body of POST /completion sent by
// [Client.ScoreCandidates], field for field in typevet's order.
type CompletionRequest struct {
	// Prompt is the prefix string (a string) or, with images, a
	// *MultimodalPrompt. An interface rather than a type with MarshalJSON,
	// so encoding/json writes the ~100 KB of base64 once instead of
	// re-scanning a marshaler's output.
	Prompt any `json:"prompt"`
	// Model is the model id.
	Model string `json:"model"`
	// NPredict is 0: the answer position's distribution is all typevet
	// reads. llama-server still generates one token (its answer says
	// tokens_predicted 1, content the greedy pick, e.g. "<channel|>").
	NPredict int `json:"n_predict"`
	// NProbs is the vocabulary size, so every control token comes back.
	NProbs int `json:"n_probs"`
	// Temperature is 0.
	Temperature float64 `json:"temperature"`
	// TopK is 0 (no top-k cut).
	TopK int `json:"top_k"`
	// TopP is 1 (no nucleus cut).
	TopP float64 `json:"top_p"`
	// PostSamplingProbs is false: pre-sampling values.
	PostSamplingProbs bool `json:"post_sampling_probs"`
	// Stream is false.
	Stream bool `json:"stream"`
	// CachePrompt is false so a cached KV prefix cannot shift scores
	// (typevet #154/#155).
	CachePrompt bool `json:"cache_prompt"`
}

// MultimodalPrompt is the prompt of a [CompletionRequest] with images: the
// nested form. Never a top-level multimodal_data next to a string prompt:
// the server answers 200 and silently drops the image.
type MultimodalPrompt struct {
	// PromptString is the prefix with its "<__media__>" markers replaced
	// by the server's media marker.
	PromptString string `json:"prompt_string"`
	// MultimodalData holds the standard base64 (no data: URI) of each
	// image, in marker order.
	MultimodalData []string `json:"multimodal_data"`
}

// CompletionResponse is the part of the POST /completion answer read by
// [Client.ScoreCandidates]. It documents the wire shape: the client does
// not decode into it but streams the body in one pass (a full-vocabulary
// answer is about 20 MB), keeping only the candidates' logprobs, the entry
// count, the ids seen and the total mass. Keys match exactly and a
// repeated key keeps its last value, as Python's json.loads reads them.
type CompletionResponse struct {
	// CompletionProbabilities holds one entry per position; entry 0 is the
	// answer position.
	CompletionProbabilities []CompletionProbability `json:"completion_probabilities"`
	// TokensEvaluated is the prompt token count (the only sign an image was
	// really attached); not a non-negative integer means unknown.
	TokensEvaluated json.RawMessage `json:"tokens_evaluated"`
	// TokensPredicted is the generated token count: 1 even with
	// n_predict 0.
	TokensPredicted json.RawMessage `json:"tokens_predicted"`
}

// CompletionProbability is one position of a [CompletionResponse].
type CompletionProbability struct {
	// TopLogprobs is the next-token distribution, missing is an error.
	TopLogprobs *[]TopLogprob `json:"top_logprobs"`
}

// TopLogprob is one token of a [CompletionProbability].
type TopLogprob struct {
	// ID is the token id; required, an integer.
	ID backendhttp.IntField `json:"id"`
	// Logprob is the pre-sampling log-probability; required, a number or
	// one of Python's NaN/Infinity literals.
	Logprob backendhttp.NumberField `json:"logprob"`
}

// ModelsResponse is the GET /v1/models answer read by [Client.NVocab].
type ModelsResponse struct {
	// Data lists the served (for routers: the loaded) models.
	Data []ModelEntry `json:"data"`
}

// ModelEntry is one model of a [ModelsResponse].
type ModelEntry struct {
	// ID is the model id.
	ID string `json:"id"`
	// Aliases are other names of the model.
	Aliases []string `json:"aliases"`
	// Meta holds the vocabulary size once the model is loaded.
	Meta struct {
		// NVocab is the vocabulary size; must be a positive integer.
		NVocab json.RawMessage `json:"n_vocab"`
	} `json:"meta"`
}
