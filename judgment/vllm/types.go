package vllm

import (
	"encoding/json"

	"github.com/typevet/typevet-go/internal/backendhttp"
)

// TokenizeRequest is the body of POST /tokenize sent by [Client.Tokenize].
type TokenizeRequest struct {
	// Model is the served model name.
	Model string `json:"model"`
	// Prompt is the text to tokenize.
	Prompt string `json:"prompt"`
	// AddSpecialTokens is always false: control strings are tokenized bare.
	AddSpecialTokens bool `json:"add_special_tokens"`
}

// TokenizeResponse is the part of the POST /tokenize answer read by
// [Client.Tokenize] (vLLM also sends count, max_model_len, token_strs).
type TokenizeResponse struct {
	// Tokens are the token ids; nil when missing. Non-integers fail.
	Tokens *[]int `json:"tokens"`
}

// ChatRequest is the body of POST /v1/chat/completions sent by
// [Client.ScoreCandidates], field for field in typevet's order.
// No top_logprobs field is sent.
type ChatRequest struct {
	// Model is the served model name.
	Model string `json:"model"`
	// Messages holds one user message.
	Messages []ChatMessage `json:"messages"`
	// MaxTokens is 1: only the first position matters.
	MaxTokens int `json:"max_tokens"`
	// Temperature is 0.
	Temperature float64 `json:"temperature"`
	// Logprobs is true.
	Logprobs bool `json:"logprobs"`
	// LogprobTokenIDs are the candidate token ids in candidate order (at
	// most 128); vLLM returns the logprobs of exactly these ids.
	LogprobTokenIDs []int `json:"logprob_token_ids"`
	// ReturnTokensAsTokenIDs makes tokens come back as "token_id:N".
	ReturnTokensAsTokenIDs bool `json:"return_tokens_as_token_ids"`
	// AddGenerationPrompt is true: score the assistant's first token.
	AddGenerationPrompt bool `json:"add_generation_prompt"`
	// ChatTemplateKwargs switches thinking off.
	ChatTemplateKwargs ChatTemplateKwargs `json:"chat_template_kwargs"`
}

// ChatTemplateKwargs are the chat-template arguments of a [ChatRequest].
type ChatTemplateKwargs struct {
	// EnableThinking is false.
	EnableThinking bool `json:"enable_thinking"`
}

// ChatMessage is one message of a [ChatRequest].
type ChatMessage struct {
	// Role is "user".
	Role string `json:"role"`
	// Content is the prefix (a string) or, with images, the content blocks
	// ([]ContentBlock). An interface rather than a type with
	// MarshalJSON, so encoding/json writes the image data URIs once instead
	// of re-scanning a marshaler's output.
	Content any `json:"content"`
}

// ContentBlock is one block of a [Content]: a text piece or an image.
type ContentBlock struct {
	// Type is "text" or "image_url".
	Type string `json:"type"`
	// Text is the text of a "text" block.
	Text string `json:"text,omitempty"`
	// ImageURL is the image of an "image_url" block.
	ImageURL *ImageURL `json:"image_url,omitempty"`
}

// ImageURL is the image of a [ContentBlock].
type ImageURL struct {
	// URL is "data:<mime>;base64,<standard base64>".
	URL string `json:"url"`
}

// ChatResponse is the part of the POST /v1/chat/completions answer read by
// [Client.ScoreCandidates].
type ChatResponse struct {
	// Model is the model the server says answered; a non-empty value
	// other than the requested model is refused.
	Model string `json:"model"`
	// Choices holds the completion; choice 0 is read.
	Choices []ChatChoice `json:"choices"`
	// Usage holds the token counts.
	Usage struct {
		// PromptTokens is the prompt token count; not a non-negative
		// integer means unknown.
		PromptTokens json.RawMessage `json:"prompt_tokens"`
		// CompletionTokens is the generated token count.
		CompletionTokens json.RawMessage `json:"completion_tokens"`
	} `json:"usage"`
}

// ChatChoice is one choice of a [ChatResponse].
type ChatChoice struct {
	// Logprobs holds one entry per generated position.
	Logprobs *struct {
		// Content lists the positions; position 0 is read.
		Content []struct {
			// TopLogprobs lists the requested ids and the sampled token.
			TopLogprobs *[]TopLogprob `json:"top_logprobs"`
		} `json:"content"`
	} `json:"logprobs"`
}

// TopLogprob is one token of a [ChatChoice] position.
type TopLogprob struct {
	// Token is "token_id:<decimal>" (return_tokens_as_token_ids); a
	// missing token leaves it nil.
	Token *string `json:"token"`
	// Logprob is the raw logprob; required, a number (not a bool) or one
	// of Python's NaN/Infinity literals.
	Logprob backendhttp.NumberField `json:"logprob"`
}
