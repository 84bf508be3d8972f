package judgmenttest

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// vllmErrorBody is vLLM's OpenAI-style error body (ErrorResponse), keys
// in vLLM's order: message, type, param (null unless a request parameter
// is at fault), code.
type vllmErrorBody struct {
	Error struct {
		Message string  `json:"message"`
		Type    string  `json:"type"`
		Param   *string `json:"param"`
		Code    int     `json:"code"`
	} `json:"error"`
}

// vllmError is the error body of code with msg and typ.
func vllmError(code int, msg, typ string) *vllmErrorBody {
	var e vllmErrorBody
	e.Error.Message, e.Error.Type, e.Error.Code = msg, typ, code
	return &e
}

func (x *exchange) vllmBad(msg string) {
	x.json(http.StatusBadRequest, vllmError(400, msg, "BadRequestError"))
}

// vllmBadParam answers a request whose parameter param holds value as
// vLLM's VLLMValidationError does: the message ends in "(parameter=…,
// value=…)" and the body's param names the parameter.
func (x *exchange) vllmBadParam(msg, param string, value any) {
	e := vllmError(400, fmt.Sprintf("%s (parameter=%s, value=%v)", msg, param, value), "BadRequestError")
	e.Error.Param = &param
	x.json(http.StatusBadRequest, e)
}

// maxLogprobTokenIDs is vLLM's limit on logprob_token_ids.
const maxLogprobTokenIDs = 128

func (s *Server) vllmRoute(x *exchange) {
	type endpoint struct {
		method string
		handle func(*exchange)
	}
	routes := map[string]endpoint{
		"/health":              {http.MethodGet, func(x *exchange) { x.raw(http.StatusOK, "application/json", nil) }},
		"/version":             {http.MethodGet, s.vllmVersion},
		"/metrics":             {http.MethodGet, s.vllmMetrics},
		"/tokenize":            {http.MethodPost, s.vllmTokenize},
		"/v1/models":           {http.MethodGet, s.vllmModels},
		"/v1/chat/completions": {http.MethodPost, s.vllmChat},
	}
	e, ok := routes[x.r.URL.Path]
	switch {
	case !ok:
		x.json(http.StatusNotFound, map[string]string{"detail": "Not Found"})
	case x.r.Method != e.method:
		x.json(http.StatusMethodNotAllowed, map[string]string{"detail": "Method Not Allowed"})
	default:
		e.handle(x)
	}
}

func (s *Server) vllmVersion(x *exchange) {
	v := s.Version
	if v == "" {
		v = defaultVersion
	}
	x.json(http.StatusOK, map[string]string{"version": v})
}

// vllmModels lists one card per served name (Model.ID, then
// Model.Aliases: vllm serve --served-model-name ID ALIAS...), each with
// root the loaded model (ModelPath), as vLLM lists them.
func (s *Server) vllmModels(x *exchange) {
	root := s.ModelPath
	if root == "" {
		root = s.model.ID
	}
	var cards []any
	for _, name := range append([]string{s.model.ID}, s.model.Aliases...) {
		cards = append(cards, map[string]any{
			"id": name, "object": "model", "created": 1767225600, "owned_by": "vllm",
			"root": root, "parent": nil, "max_model_len": s.nCtx(), "permission": []any{},
		})
	}
	x.json(http.StatusOK, map[string]any{"object": "list", "data": cards})
}

func (s *Server) vllmTokenize(x *exchange) {
	m, err := object(x.body)
	if err != nil {
		x.vllmBad(err.Error())
		return
	}
	if !s.knownModel(x, m["model"]) {
		return
	}
	prompt, ok := m["prompt"].(string)
	if !ok {
		x.vllmBad("judgmenttest: /tokenize: field \"prompt\" must be a string")
		return
	}
	toks := s.model.tokens(prompt)
	if add, ok := m["add_special_tokens"].(bool); !ok || add { // vLLM's default is true
		toks = append([]int{bosID}, toks...)
	}
	x.json(http.StatusOK, map[string]any{"count": len(toks), "max_model_len": s.nCtx(), "tokens": toks, "token_strs": nil})
}

// chatRules is the exact scoring body typevet's vLLM client sends (messages and
// logprob_token_ids are checked apart).
var chatRules = []rule{
	{"model", "a string", isString},
	{"messages", "a list", func(v any) bool { _, ok := v.([]any); return ok }},
	{"max_tokens", "1", number(1)},
	{"temperature", "0", number(0)},
	{"logprobs", "true", boolean(true)},
	{"logprob_token_ids", "a list", func(v any) bool { _, ok := v.([]any); return ok }},
	{"return_tokens_as_token_ids", "true", boolean(true)},
	{"add_generation_prompt", "true", boolean(true)},
	{"chat_template_kwargs", `{"enable_thinking": false}`, func(v any) bool {
		m, ok := v.(map[string]any)
		return ok && len(m) == 1 && boolean(false)(m["enable_thinking"])
	}},
}

const mediaMarker = "<__media__>"

// gemma4EmptyThought ends Gemma 4's generation prompt when thinking is
// off: an empty thought channel.
const gemma4EmptyThought = "<|channel>thought\n<channel|>"

func (s *Server) vllmChat(x *exchange) {
	m, err := object(x.body)
	if err != nil {
		x.vllmBad(err.Error())
		return
	}
	if ids, ok := m["logprob_token_ids"].([]any); ok && len(ids) > maxLogprobTokenIDs {
		x.vllmBadParam(fmt.Sprintf("Requested logprob_token_ids of length %d, which is greater than max allowed: %d", len(ids), maxLogprobTokenIDs),
			"logprob_token_ids", len(ids))
		return
	}
	if err := checkFields("/v1/chat/completions", m, chatRules); err != nil {
		x.vllmBad(err.Error())
		return
	}
	if !s.knownModel(x, m["model"]) {
		return
	}
	var ids []int
	for _, v := range m["logprob_token_ids"].([]any) {
		id, ok := integer(v)
		if !ok || id < 0 {
			x.vllmBad("judgmenttest: /v1/chat/completions: logprob_token_ids must hold non-negative integers")
			return
		}
		ids = append(ids, id)
	}
	if len(ids) == 0 {
		x.vllmBad("judgmenttest: /v1/chat/completions: logprob_token_ids is empty")
		return
	}
	msgs := m["messages"].([]any)
	var msg map[string]any
	if len(msgs) == 1 {
		msg, _ = msgs[0].(map[string]any)
	}
	if msg == nil || msg["role"] != "user" || len(msg) != 2 {
		x.vllmBad("judgmenttest: /v1/chat/completions: messages must be one user message {role, content}")
		return
	}
	user, images, err := userContent(msg["content"])
	if err != nil {
		x.vllmBad(err.Error())
		return
	}
	// userContent put one marker per image back; the rest leaked from the
	// client's text blocks.
	x.images, x.markers = len(images), countMarkers(user)-len(images)
	if len(images) > 0 && s.model.TextOnly {
		x.vllmBad(s.model.ID + " is not a multimodal model")
		return
	}
	if s.MaxImagesPerPrompt > 0 && len(images) > s.MaxImagesPerPrompt {
		x.vllmBad(fmt.Sprintf("At most %d image(s) may be provided in one prompt.", s.MaxImagesPerPrompt))
		return
	}
	// The server applies its Gemma 4 chat template with thinking off:
	// the generation prompt ends in an empty thought channel, as
	// typevet's llama.cpp prompt does.
	prompt := "<bos><|turn>user\n" + user + "<turn|>\n<|turn>model\n" + gemma4EmptyThought
	textOnly := s.model.countTokens(strings.ReplaceAll(prompt, mediaMarker, ""), 0)
	promptTokens := textOnly + len(images)*s.model.ImageTokens
	if x.tamper == TamperDropImage {
		images, promptTokens = nil, textOnly
	}
	s.mu.Lock()
	s.counters.Running++
	s.mu.Unlock()
	ok := x.waitModel(prompt)
	s.mu.Lock()
	s.counters.Running--
	s.mu.Unlock()
	if !ok {
		return
	}
	switch x.tamper {
	case TamperFinishError:
		x.json(http.StatusInternalServerError, vllmError(500, "Internal server error", "InternalServerError"))
		return
	case TamperNaNLogprob:
		x.vllmBad("Out of range float values are not JSON compliant: nan")
		return
	}
	d := s.model.distribution(prompt, images)
	body := s.vllmChatBody(d, ids, promptTokens, x.tamper)
	s.mu.Lock()
	s.counters.add(s.model.ID, prompt, promptTokens, images, s.model.Delay)
	s.mu.Unlock()
	x.raw(http.StatusOK, "application/json", body)
}

// userContent returns the user text as the server's template renders it
// (each image block "<__media__>" plus the "\n" the client removed, each
// text block trimmed as Gemma 4's template trims it) and the decoded
// images.
func userContent(v any) (string, [][]byte, error) {
	if s, ok := v.(string); ok {
		return s, nil, nil
	}
	blocks, ok := v.([]any)
	if !ok || len(blocks) == 0 {
		return "", nil, fmt.Errorf("judgmenttest: /v1/chat/completions: content must be a string or a non-empty list of blocks")
	}
	var b strings.Builder
	var images [][]byte
	for i, raw := range blocks {
		blk, _ := raw.(map[string]any)
		switch blk["type"] {
		case "text":
			text, ok := blk["text"].(string)
			if !ok || len(blk) != 2 {
				return "", nil, fmt.Errorf("judgmenttest: content[%d]: a text block is {type, text}", i)
			}
			// Gemma 4's template trims each text block.
			b.WriteString(strings.TrimSpace(text))
		case "image_url":
			iu, _ := blk["image_url"].(map[string]any)
			url, _ := iu["url"].(string)
			img, err := dataURI(url)
			if err != nil || len(blk) != 2 || len(iu) != 1 {
				return "", nil, fmt.Errorf("judgmenttest: content[%d]: an image block is {type, image_url: {url: data:<mime>;base64,<data>}}", i)
			}
			images = append(images, img)
			b.WriteString(mediaMarker + "\n")
		default:
			return "", nil, fmt.Errorf("judgmenttest: content[%d]: unknown block type", i)
		}
	}
	return b.String(), images, nil
}

// dataURI decodes a data:image/(png|jpeg|webp);base64, URI.
func dataURI(url string) ([]byte, error) {
	for _, mime := range []string{"image/png", "image/jpeg", "image/webp"} {
		if rest, ok := strings.CutPrefix(url, "data:"+mime+";base64,"); ok {
			img, err := base64.StdEncoding.DecodeString(rest)
			if err == nil && len(img) == 0 {
				err = fmt.Errorf("empty image")
			}
			return img, err
		}
	}
	return nil, fmt.Errorf("not a data URI of a supported image type")
}

// vllmChatBody writes the chat answer: top_logprobs holds the sampled token
// first, then each requested id once, in request order.
func (s *Server) vllmChatBody(d dist, ids []int, promptTokens int, t Tamper) []byte {
	sampled := entry{s.model.OffToken, d.off}
	for _, id := range ids {
		if e := (entry{id, d.logprob(s.model, id)}); less(e, sampled) {
			sampled = e
		}
	}
	list := []entry{sampled}
	for _, id := range ids {
		dup := false
		for _, e := range list {
			dup = dup || e.id == id
		}
		if !dup {
			list = append(list, entry{id, d.logprob(s.model, id)})
		}
	}
	if s.NoLogprobTokenIDs {
		// An older vLLM ignores logprob_token_ids and asks for the top
		// 0 alternatives: top_logprobs is empty.
		list = nil
	}
	id := fmt.Sprintf("chatcmpl-%032x", s.chatIDs.Add(1))

	tokenEntry := func(b []byte, e entry, lit string) []byte {
		b = append(b, `"token":"token_id:`...)
		b = strconv.AppendInt(b, int64(e.id), 10)
		b = append(b, `","logprob":`...)
		if lit != "" {
			b = append(b, lit...)
		} else {
			b = appendFloat(b, e.logprob)
		}
		b = append(b, `,"bytes":`...)
		return appendBytes(b, s.model.tokenString(e.id))
	}
	b := make([]byte, 0, 512+len(list)*64)
	b = append(b, `{"id":`...)
	b = appendString(b, id)
	b = append(b, `,"object":"chat.completion","created":1767225600,"model":`...)
	b = appendString(b, s.model.ID)
	b = append(b, `,"choices":[{"index":0,"message":{"role":"assistant","content":`...)
	b = appendString(b, s.model.tokenString(sampled.id))
	b = append(b, `,"reasoning_content":null,"tool_calls":[]},"logprobs":{"content":[{`...)
	b = tokenEntry(b, sampled, "")
	b = append(b, `,"top_logprobs":[`...)
	b = appendTopLogprobs(b, list, ids[0], true, t, tokenEntry)
	b = append(b, `]}]},"finish_reason":"length","stop_reason":null}],"usage":{"prompt_tokens":`...)
	b = strconv.AppendInt(b, int64(promptTokens), 10)
	b = append(b, `,"total_tokens":`...)
	b = strconv.AppendInt(b, int64(promptTokens+1), 10)
	b = append(b, `,"completion_tokens":1,"prompt_tokens_details":null},"prompt_logprobs":null}`...)
	return b
}
