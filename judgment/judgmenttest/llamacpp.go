package judgmenttest

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
)

// Template is the chat-template family a fake llama-server renders on
// /apply-template ([judgment.ClassifyTemplate] classifies it).
type Template int

const (
	// TemplateGemma4 renders Gemma 4 turns as llama-server v0.5.0 renders
	// Gemma 4's template on /apply-template: a system turn holding the
	// thinking switch, then "<|turn>user\n…<turn|>\n<|turn>model\n", no
	// "<bos>".
	TemplateGemma4 Template = iota
	// TemplateGemma3 renders Gemma 3 turns: "<start_of_turn>user\n…<end_of_turn>\n<start_of_turn>model\n".
	TemplateGemma3
	// TemplateChatML renders ChatML: "<|im_start|>user\n…<|im_end|>\n<|im_start|>assistant\n".
	TemplateChatML
	// TemplateMixed renders a ChatML system turn before Gemma 3 turns, so
	// two marker sets appear (classified unsupported).
	TemplateMixed
	// TemplatePlain renders "user: …\nassistant: " with no turn markers
	// (classified unsupported).
	TemplatePlain
)

var templateNames = [...]string{"gemma4_turn", "gemma3_turn", "chatml", "mixed", "plain"}

// String returns the template's name.
func (t Template) String() string {
	if t >= 0 && int(t) < len(templateNames) {
		return templateNames[t]
	}
	return "Template(" + strconv.Itoa(int(t)) + ")"
}

// render applies the template to messages (role, content pairs).
func (t Template) render(msgs [][2]string, addGenerationPrompt bool) string {
	var b strings.Builder
	turn := func(open, close string, role string, content string) {
		b.WriteString(open + role + "\n" + content + close + "\n")
	}
	gemmaRole := func(r string) string {
		if r == "assistant" {
			return "model"
		}
		return r
	}
	switch t {
	case TemplateGemma4:
		if len(msgs) == 0 || msgs[0][0] != "system" {
			b.WriteString("<|turn>system\n<|think|><turn|>\n")
		}
		for _, m := range msgs {
			turn("<|turn>", "<turn|>", gemmaRole(m[0]), m[1])
		}
		if addGenerationPrompt {
			b.WriteString("<|turn>model\n")
		}
	case TemplateGemma3, TemplateMixed:
		if t == TemplateMixed {
			b.WriteString("<|im_start|>system\n<|im_end|>\n")
		}
		b.WriteString("<bos>")
		for _, m := range msgs {
			turn("<start_of_turn>", "<end_of_turn>", gemmaRole(m[0]), m[1])
		}
		if addGenerationPrompt {
			b.WriteString("<start_of_turn>model\n")
		}
	case TemplateChatML:
		for _, m := range msgs {
			turn("<|im_start|>", "<|im_end|>", m[0], m[1])
		}
		if addGenerationPrompt {
			b.WriteString("<|im_start|>assistant\n")
		}
	default:
		for _, m := range msgs {
			b.WriteString(m[0] + ": " + m[1] + "\n")
		}
		if addGenerationPrompt {
			b.WriteString("assistant: ")
		}
	}
	return b.String()
}

// llamaError is llama-server's error body.
func llamaError(code int, msg, typ string) map[string]any {
	return map[string]any{"error": map[string]any{"code": code, "message": msg, "type": typ}}
}

func (x *exchange) llamaBad(msg string) {
	x.json(http.StatusBadRequest, llamaError(400, msg, "invalid_request_error"))
}

// llamaNotFound is llama-server's answer to an unknown path or a wrong
// method, byte for byte (its keys in this order).
const llamaNotFound = `{"error":{"message":"File Not Found","type":"not_found_error","code":404}}`

// llamaObject decodes a request body as llama-server does: text that is
// not JSON is HTTP 500 server_error (nlohmann's parse error); JSON that is
// not one object is HTTP 400. false means an answer was written.
func (x *exchange) llamaObject() (map[string]any, bool) {
	if !json.Valid(x.body) {
		x.json(http.StatusInternalServerError, llamaError(500,
			"[json.exception.parse_error.101] parse error: syntax error while parsing the request body", "server_error"))
		return nil, false
	}
	m, err := object(x.body)
	if err != nil {
		x.llamaBad(err.Error())
		return nil, false
	}
	return m, true
}

// Default knob values.
const (
	defaultBuildInfo = "b11277-eae11d221"
	defaultNCtx      = 8192
	defaultVersion   = "0.30.0"
	bosID            = 2
)

func (s *Server) nCtx() int {
	if s.NCtx > 0 {
		return s.NCtx
	}
	return defaultNCtx
}

func (s *Server) llamaRoute(x *exchange) {
	type endpoint struct {
		method string
		handle func(*exchange)
	}
	routes := map[string]endpoint{
		"/health":         {http.MethodGet, s.llamaHealth},
		"/v1/health":      {http.MethodGet, s.llamaHealth},
		"/props":          {http.MethodGet, s.llamaProps},
		"/apply-template": {http.MethodPost, s.llamaApplyTemplate},
		"/tokenize":       {http.MethodPost, s.llamaTokenize},
		"/completion":     {http.MethodPost, s.llamaCompletion},
		"/models":         {http.MethodGet, s.llamaModels},
		"/v1/models":      {http.MethodGet, s.llamaModels},
	}
	e, ok := routes[x.r.URL.Path]
	switch {
	case !ok || x.r.Method != e.method:
		// llama-server answers a wrong method like an unknown path.
		x.raw(http.StatusNotFound, "application/json; charset=utf-8", []byte(llamaNotFound))
	default:
		e.handle(x)
	}
}

func (s *Server) llamaHealth(x *exchange) { x.json(http.StatusOK, map[string]string{"status": "ok"}) }

// knownModel refuses a vLLM request naming a model the server does not
// serve; an empty or absent name is the default model. (llama.cpp:
// [exchange.routeModel].)
func (s *Server) knownModel(x *exchange, v any) bool {
	name, _ := v.(string)
	if v == nil || name == "" || s.model.accepts(name) {
		return true
	}
	x.json(http.StatusNotFound, vllmError(404, "The model `"+name+"` does not exist.", "NotFoundError"))
	return false
}

func (s *Server) buildInfo() string {
	if s.BuildInfo != "" {
		return s.BuildInfo
	}
	return defaultBuildInfo
}

// modelMeta is the /v1/models meta block of the served model.
func (s *Server) modelMeta() map[string]any {
	return map[string]any{"vocab_type": 1, "n_vocab": s.model.NVocab, "n_ctx_train": 262144,
		"n_embd": 5376, "n_params": 30697345024, "size": 18500000000}
}

func (s *Server) llamaProps(x *exchange) {
	name := x.r.URL.Query().Get("model")
	if s.Router && name == "" {
		x.json(http.StatusOK, s.routerProps())
		return
	}
	release, ok := x.routeModel(name)
	if !ok {
		return
	}
	defer release()
	alias := s.model.ID
	if s.Router {
		alias = name
	}
	x.json(http.StatusOK, map[string]any{
		"default_generation_settings": map[string]any{"n_ctx": s.nCtx(), "params": map[string]any{"n_predict": -1, "temperature": 0.8}},
		"total_slots":                 1,
		"model_alias":                 alias,
		"model_path":                  "/models/" + s.model.ID + ".gguf",
		"modalities":                  map[string]bool{"vision": !s.model.TextOnly, "audio": false},
		"chat_template":               "{# " + s.Template.String() + " #}",
		"bos_token":                   "<bos>",
		"eos_token":                   "<eos>",
		"build_info":                  s.buildInfo(),
		"media_marker":                s.CurrentMarker(),
	})
}

func (s *Server) llamaApplyTemplate(x *exchange) {
	m, ok := x.llamaObject()
	if !ok {
		return
	}
	release, ok := x.routeModel(stringField(m, "model"))
	if !ok {
		return
	}
	defer release()
	raw, _ := m["messages"].([]any)
	if len(raw) == 0 {
		x.llamaBad("'messages' is required")
		return
	}
	msgs := make([][2]string, 0, len(raw))
	for _, r := range raw {
		mm, _ := r.(map[string]any)
		role, ok1 := mm["role"].(string)
		content, ok2 := mm["content"].(string)
		if !ok1 || !ok2 {
			x.llamaBad("judgmenttest: /apply-template: each message needs a string role and content")
			return
		}
		msgs = append(msgs, [2]string{role, content})
	}
	add, _ := m["add_generation_prompt"].(bool)
	x.json(http.StatusOK, map[string]string{"prompt": s.Template.render(msgs, add)})
}

func (s *Server) llamaTokenize(x *exchange) {
	m, ok := x.llamaObject()
	if !ok {
		return
	}
	release, ok := x.routeModel(stringField(m, "model"))
	if !ok {
		return
	}
	defer release()
	content, ok := m["content"].(string)
	if !ok {
		x.llamaBad("judgmenttest: /tokenize: field \"content\" must be a string")
		return
	}
	toks := s.model.tokens(content)
	if add, _ := m["add_special"].(bool); add {
		toks = append([]int{bosID}, toks...)
	}
	x.json(http.StatusOK, map[string][]int{"tokens": toks})
}

func (s *Server) llamaModels(x *exchange) {
	if s.Router {
		x.json(http.StatusOK, s.routerModelList())
		return
	}
	aliases := s.model.Aliases
	if aliases == nil {
		aliases = []string{}
	}
	entry := map[string]any{
		"id": s.model.ID, "aliases": aliases, "tags": []string{}, "object": "model",
		"created": 1767225600, "owned_by": "llamacpp",
	}
	if !s.HideVocab {
		entry["meta"] = s.modelMeta()
	}
	x.json(http.StatusOK, map[string]any{"object": "list", "data": []any{entry}})
}

// completionRules is the exact /completion body typevet's llama.cpp
// client sends.
var completionRules = []rule{
	{"prompt", "a string or an object", func(v any) bool {
		_, o := v.(map[string]any)
		return isString(v) || o
	}},
	{"model", "a string", isString},
	{"n_predict", "0", number(0)},
	{"n_probs", "a positive integer", positiveInt},
	{"temperature", "0", number(0)},
	{"top_k", "0", number(0)},
	{"top_p", "1", number(1)},
	{"post_sampling_probs", "false", boolean(false)},
	{"stream", "false", boolean(false)},
	{"cache_prompt", "false", boolean(false)},
}

func (s *Server) llamaCompletion(x *exchange) {
	m, ok := x.llamaObject()
	if !ok {
		return
	}
	// A top-level multimodal_data is accepted and ignored, as the real
	// server does, so it is an allowed extra field.
	if err := checkFields("/completion", m, completionRules, "multimodal_data"); err != nil {
		x.llamaBad(err.Error())
		return
	}
	release, ok := x.routeModel(stringField(m, "model"))
	if !ok {
		return
	}
	defer release()
	nProbs, _ := integer(m["n_probs"])

	var prompt string // what the model reads, markers as "<__media__>"
	var images [][]byte
	textOnly := 0 // prompt tokens without the images
	switch p := m["prompt"].(type) {
	case string:
		if top, ok := m["multimodal_data"].([]any); ok {
			x.images = len(top) // sent, and silently dropped
		}
		x.markers = countMarkers(p)
		prompt = p
		textOnly = s.model.countTokens(p, 0)
	case map[string]any:
		if err := checkFields("/completion prompt", p, []rule{
			{"prompt_string", "a string", isString},
			{"multimodal_data", "a list of base64 strings", func(v any) bool { _, ok := v.([]any); return ok }},
		}); err != nil {
			x.llamaBad(err.Error())
			return
		}
		if _, ok := m["multimodal_data"]; ok {
			x.llamaBad("judgmenttest: /completion: multimodal_data both in the prompt object and at the top level")
			return
		}
		ps := p["prompt_string"].(string)
		data := p["multimodal_data"].([]any)
		x.images, x.markers = len(data), countMarkers(ps)
		for _, d := range data {
			str, _ := d.(string)
			img, err := base64.StdEncoding.DecodeString(str)
			if err != nil || len(img) == 0 {
				x.llamaBad("Failed to load image or audio file")
				return
			}
			images = append(images, img)
		}
		if len(images) > 0 && s.model.TextOnly {
			x.llamaBad("Multimodal data provided, but model does not support multimodal requests.")
			return
		}
		marker := s.CurrentMarker()
		if strings.Count(ps, marker) != len(images) {
			// mtmd finds a different number of markers than bitmaps
			// (llama.cpp #322: a stale router marker).
			x.llamaBad("Failed to tokenize prompt")
			return
		}
		prompt = strings.ReplaceAll(ps, marker, "<__media__>")
		textOnly = s.model.countTokens(strings.ReplaceAll(ps, marker, ""), 0)
	}
	evaluated := textOnly + len(images)*s.model.ImageTokens
	if x.tamper == TamperDropImage {
		images, evaluated = nil, textOnly
	}
	if !x.waitModel(prompt) {
		return
	}
	d := s.model.distribution(prompt, images)
	top := d.top(s.model, nProbs)
	if len(images) > 0 {
		s.mu.Lock()
		s.mediaOK++
		if s.RotateMarkerEvery > 0 && s.mediaOK >= s.RotateMarkerEvery {
			s.marker = s.newMarker()
			s.mediaOK = 0
		}
		s.mu.Unlock()
	}
	served := s.model.ID
	if s.Router {
		served = stringField(m, "model")
	}
	x.raw(http.StatusOK, "application/json", s.model.llamaCompletionBody(d, top, evaluated, x.tamper, served))
}

// llamaCompletionBody writes the /completion answer by hand: with a full
// vocabulary the logprob list is the bulk of the bytes.
func (m *model) llamaCompletionBody(d dist, top []entry, evaluated int, t Tamper, served string) []byte {
	first, hasFirst := m.Vocab["0"]
	b := make([]byte, 0, 256+len(top)*130) // a Gemma-size filler entry is about 125 bytes
	// n_predict 0 still generates one token, the greedy pick (llama-server
	// v0.5.0): tokens_predicted 1, content its text.
	content := ""
	if len(top) > 0 {
		content = m.tokenString(top[0].id)
	}
	b = append(b, `{"index":0,"content":`...)
	b = appendString(b, content)
	b = append(b, `,"tokens":[],"id_slot":0,"stop":true,"model":`...)
	b = appendString(b, served)
	b = append(b, `,"tokens_predicted":1,"tokens_evaluated":`...)
	b = strconv.AppendInt(b, int64(evaluated), 10)
	b = append(b, `,"has_new_line":`...)
	b = strconv.AppendBool(b, strings.Contains(content, "\n"))
	b = append(b, `,"truncated":false,"stop_type":"limit","stopping_word":"","tokens_cached":0,"completion_probabilities":[{`...)
	fillerLP := appendFloat(nil, d.filler) // every filler shares one logprob
	entryBody := func(b []byte, e entry, lit string) []byte {
		if prefix, ok := m.fillerPrefix(e.id); ok && lit == "" {
			b = append(b, prefix...)
			if m.RealShape {
				return appendFloat(b, e.logprob)
			}
			return append(b, fillerLP...)
		}
		b = appendEntryPrefix(b, e.id, m.tokenString(e.id))
		if lit != "" {
			return append(b, lit...)
		}
		return appendFloat(b, e.logprob)
	}
	if len(top) > 0 {
		b = entryBody(b, top[0], "")
		b = append(b, ',')
	}
	b = append(b, `"top_logprobs":[`...)
	b = appendTopLogprobs(b, top, first, hasFirst, t, entryBody)
	return append(b, "]}]}"...)
}

// RealSizeCompletion returns the body of a full-vocabulary /completion
// answer of a real llama-server's size and shape, for benchmarks of a
// decoder: what the fake server answers for prompt with n_probs 262144
// when m has RealShape set (m nil = the zero Model; RealShape is set on a
// copy, and NVocab 0 means 262,144). With the default vocabulary the body
// has 262,144 entries, ids 0..262143 once each in a shuffled order with
// distinct logprobs, a total mass of 1.0000000000010 and about 26 MB, as
// llama-server v0.5.0 answers with Gemma 4's tokenizer. The same
// arguments give the same bytes.
func RealSizeCompletion(m *Model, prompt string) []byte {
	var c Model
	if m != nil {
		c = *m
	}
	c.RealShape = true
	mm := newModel(&c)
	d := mm.distribution(prompt, nil)
	top := d.top(mm, mm.NVocab)
	return mm.llamaCompletionBody(d, top, mm.countTokens(prompt, 0), TamperNone, mm.ID)
}

// appendEntryPrefix appends one llama.cpp logprob entry up to its logprob
// value: "id":N,"token":T,"bytes":[...],"logprob":
func appendEntryPrefix(b []byte, id int, tok string) []byte {
	b = append(b, `"id":`...)
	b = strconv.AppendInt(b, int64(id), 10)
	b = append(b, `,"token":`...)
	b = appendString(b, tok)
	b = append(b, `,"bytes":`...)
	b = appendBytes(b, tok)
	return append(b, `,"logprob":`...)
}

// stringField returns m[key] when it is a string, else "".
func stringField(m map[string]any, key string) string {
	v, _ := m[key].(string)
	return v
}
