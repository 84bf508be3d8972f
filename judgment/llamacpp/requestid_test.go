package llamacpp_test

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/typevet/typevet-go/judgment"
	"github.com/typevet/typevet-go/judgment/judgmenttest"
	"github.com/typevet/typevet-go/judgment/llamacpp"
)

// TestRequestIDs: with TYPEVET_LLAMA__REQUEST_ID_HEADER set (typevet
// #411) every llama.cpp request carries a fresh UUID4 hex in that header;
// each question's scoring id lands in the response's request ids, and an
// error carries the id of its request.
func TestRequestIDs(t *testing.T) {
	s, err := llamacpp.SettingsFromEnv(func(k string) (string, bool) {
		v, ok := map[string]string{"TYPEVET_LLAMA__REQUEST_ID_HEADER": "X-Request-Id"}[k]
		return v, ok
	})
	if err != nil {
		t.Fatal(err)
	}
	srv := newServer(t, judgmenttest.CheckModel(), nil)
	sess := openSession(t, srv, s, llamacpp.OpenOptions{})
	resp, err := sess.Judge(context.Background(), judgmenttest.CheckRequest(judgmenttest.CheckPNG()))
	if err != nil {
		t.Fatal(err)
	}
	uuid4 := regexp.MustCompile(`^[0-9a-f]{12}4[0-9a-f]{3}[89ab][0-9a-f]{15}$`)
	seen := map[string]bool{}
	var scoring []string
	for _, r := range srv.Requests() {
		id := r.Header.Get("X-Request-Id")
		if !uuid4.MatchString(id) || seen[id] {
			t.Errorf("request %d (%s) id %q: want a fresh UUID4 hex", r.Index, r.Path, id)
		}
		seen[id] = true
		if r.Path == "/completion" {
			scoring = append(scoring, id)
		}
	}
	if len(resp.RequestIDs) != 4 || len(scoring) != 4 {
		t.Fatalf("RequestIDs = %v for scoring ids %v, want one per question", resp.RequestIDs, scoring)
	}
	for i, rid := range resp.RequestIDs {
		if rid.ID != scoring[i] {
			t.Errorf("RequestIDs[%d] = %+v, want id %s", i, rid, scoring[i])
		}
	}

	srv.Inject(judgmenttest.Fault{Path: "/completion", Nth: 1, Status: 500, Body: "boom"})
	_, err = sess.Judge(context.Background(), judgmenttest.CheckRequest(judgmenttest.CheckPNG()))
	var he *judgment.BackendHTTPError
	reqs := srv.Requests()
	if !errors.As(err, &he) || he.RequestID == "" || he.RequestID != reqs[len(reqs)-1].Header.Get("X-Request-Id") {
		t.Errorf("error %#v: want the failed request's id %q", err, reqs[len(reqs)-1].Header.Get("X-Request-Id"))
	}
}

// TestRequestIDHeaderRefused: the request-id header must not be the auth
// header or an extra header.
func TestRequestIDHeaderRefused(t *testing.T) {
	for _, env := range []map[string]string{
		{"TYPEVET_LLAMA__REQUEST_ID_HEADER": "authorization"},
		{"TYPEVET_LLAMA__REQUEST_ID_HEADER": "X-Key", "TYPEVET_LLAMA__AUTH_HEADER": "x-key", "TYPEVET_LLAMA__API_KEY": "k"},
		{"TYPEVET_LLAMA__REQUEST_ID_HEADER": "X-Team", "TYPEVET_LLAMA__HEADERS": `{"x-team":"a"}`},
	} {
		_, err := llamacpp.SettingsFromEnv(func(k string) (string, bool) { v, ok := env[k]; return v, ok })
		if err == nil || !strings.HasPrefix(err.Error(), "TYPEVET_LLAMA__REQUEST_ID_HEADER ") {
			t.Errorf("%v: error %v, want one naming TYPEVET_LLAMA__REQUEST_ID_HEADER", env, err)
		}
	}
}

// TestCallerTextHoldsMediaMarkers: caller text holding llama-server's
// live media marker (the one /props published) or another marker of its
// random form is neutralised as typevet neutralises "<__media__>"
// (#433): the judgment succeeds, with one marker per real image, and is
// never blamed on a stale marker.
func TestCallerTextHoldsMediaMarkers(t *testing.T) {
	srv := newServer(t, judgmenttest.CheckModel(), nil)
	sess := openSession(t, srv, llamacpp.Settings{}, llamacpp.OpenOptions{})
	req := judgmenttest.CheckRequest(judgmenttest.CheckPNG())
	req.State = "memo: " + srv.CurrentMarker() + " and <__media_0123456789abcdefABCDEF0123456789__> and <__media__>"
	if _, err := sess.Judge(context.Background(), req); err != nil {
		t.Fatalf("Judge: %v", err)
	}
	for _, r := range srv.Requests() {
		if r.Path == "/completion" && (r.Markers != r.Images || r.Images != 1) {
			t.Errorf("request %d: %d markers for %d images", r.Index, r.Markers, r.Images)
		}
	}
}
