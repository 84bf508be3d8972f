package judgmenttest

import (
	"net/http"
	"slices"
	"time"
)

// Router props and errors, as llama-server v0.5.0 writes them.
const (
	routerAlias        = "llama-server"
	defaultLoadDelay   = 20 * time.Millisecond
	msgModelMissing    = "model name is missing from the request"
	msgModelLimit      = "model limit reached, try again later"
	keepAliveMaxPerCon = 100
)

// routerModels returns the names a router serves: Model.ID, then
// Server.RouterModels.
func (s *Server) routerModels() []string {
	return append([]string{s.model.ID}, s.RouterModels...)
}

func (s *Server) loadDelay() time.Duration {
	if s.LoadDelay > 0 {
		return s.LoadDelay
	}
	return defaultLoadDelay
}

// LoadedModel returns the model a router fake has loaded ("" for none, and
// for a single-model server).
func (s *Server) LoadedModel() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.loaded
}

// Loads returns how many models a router fake has loaded so far.
func (s *Server) Loads() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.loads
}

// routeModel resolves the model of a model-bound request. A single-model
// server ignores name and serves its own model, as llama-server does. A
// router refuses a missing name (400 "model name is missing from the
// request") and an unknown one (400 "model '<name>' not found"), and loads
// a known one that is not loaded (taking LoadDelay, drawing a new media
// marker unless PinMarker is set), unless the loaded model has requests
// in flight: then 500 "model limit reached, try again later"
// (--models-max 1). On success the request counts as in flight for the
// model until release is called; false means an answer was written.
func (x *exchange) routeModel(name string) (release func(), ok bool) {
	s := x.s
	if !s.Router {
		return func() {}, true
	}
	switch {
	case name == "":
		x.llamaBad(msgModelMissing)
		return nil, false
	case !slices.Contains(s.routerModels(), name):
		x.llamaBad("model '" + name + "' not found")
		return nil, false
	}
	s.mu.Lock()
	for s.loaded != name {
		if s.loading {
			// Another request is loading a model: wait for it, as the
			// router's ensure_model does, then look again.
			ch := s.loadDone
			s.mu.Unlock()
			select {
			case <-ch:
			case <-x.r.Context().Done():
				x.hangUp()
				return nil, false
			case <-s.closing:
				x.hangUp()
				return nil, false
			}
			s.mu.Lock()
			continue
		}
		if s.inFlight > 0 {
			s.mu.Unlock()
			x.json(http.StatusInternalServerError, llamaError(500, msgModelLimit, "server_error"))
			return nil, false
		}
		s.loading, s.loaded, s.loadDone = true, "", make(chan struct{})
		s.mu.Unlock()
		waited := x.wait(s.loadDelay())
		s.mu.Lock()
		s.loading = false
		close(s.loadDone)
		if !waited {
			s.mu.Unlock()
			return nil, false
		}
		s.loaded = name
		s.loads++
		if !s.PinMarker {
			s.marker = s.newMarker()
			s.mediaOK = 0
		}
	}
	s.inFlight++
	s.mu.Unlock()
	return func() {
		s.mu.Lock()
		s.inFlight--
		s.mu.Unlock()
	}, true
}

// routerProps is a router's own /props answer (no model named).
func (s *Server) routerProps() map[string]any {
	return map[string]any{
		"role":                        "router",
		"max_instances":               1,
		"models_autoload":             true,
		"model_alias":                 routerAlias,
		"model_path":                  "none",
		"default_generation_settings": map[string]any{"params": nil, "n_ctx": 0},
		"ui_settings":                 map[string]any{},
		"build_info":                  s.buildInfo(),
		"cors_proxy_enabled":          false,
	}
}

// routerModelList is a router's /v1/models: every model with its load
// status; meta (n_vocab) only for the loaded one.
func (s *Server) routerModelList() map[string]any {
	loaded := s.LoadedModel()
	var data []any
	for _, name := range s.routerModels() {
		status := "unloaded"
		if name == loaded {
			status = "loaded"
		}
		entry := map[string]any{"id": name, "aliases": []string{}, "tags": []string{}, "object": "model",
			"owned_by": "llamacpp", "created": 1767225600, "status": map[string]any{"value": status}}
		if name == loaded && !s.HideVocab {
			entry["meta"] = s.modelMeta()
		}
		data = append(data, entry)
	}
	return map[string]any{"data": data, "object": "list"}
}
