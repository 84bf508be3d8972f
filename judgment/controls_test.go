package judgment_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/typevet/typevet-go/judgment"
)

// gatedScorer is a recordingScorer whose Tokenize waits for gate to close
// (or its context to end, returning a TransportError wrapping ctx.Err()).
type gatedScorer struct {
	*recordingScorer
	gate    chan struct{}
	started chan string
}

func (s *gatedScorer) Tokenize(ctx context.Context, model, text string) ([]int, error) {
	s.started <- text
	select {
	case <-s.gate:
	case <-ctx.Done():
		s.recordingScorer.Tokenize(ctx, model, text)
		return nil, &judgment.TransportError{Msg: "vLLM request failed: " + ctx.Err().Error(), Err: ctx.Err()}
	}
	return s.recordingScorer.Tokenize(ctx, model, text)
}

// TestJudgeTokenizeShared: concurrent first judgments make one tokenize
// call per distinct control string, not one per judgment.
func TestJudgeTokenizeShared(t *testing.T) {
	s := &gatedScorer{recordingScorer: &recordingScorer{logprobs: byQuestion(contractProbs)}, gate: make(chan struct{}), started: make(chan string, 1024)}
	j := judgment.NewJudge(s, judgment.JudgeOptions{Family: judgment.FamilyGemma4Turn})
	req := judgment.Request{State: checkState, Questions: checkQuestions(), Model: "m"}
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for range 64 {
		wg.Go(func() {
			_, err := j.Judge(context.Background(), req)
			errs <- err
		})
	}
	<-s.started
	time.Sleep(50 * time.Millisecond) // let every judgment reach the first control
	close(s.gate)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if tok, _ := s.calls(); strings.Join(tok, " ") != "0 1 2 3 4 5" {
		t.Fatalf("tokenize calls %q, want one per distinct control", tok)
	}
}

// TestJudgeTokenizeSharedLeaderCanceled: when the judgment whose call the
// others share is canceled, a waiting judgment with a live context makes
// its own call instead of failing with the other's cancellation; the
// canceled judgment fails as it did without sharing.
func TestJudgeTokenizeSharedLeaderCanceled(t *testing.T) {
	s := &gatedScorer{recordingScorer: &recordingScorer{logprobs: byQuestion(contractProbs)}, gate: make(chan struct{}), started: make(chan string, 64)}
	j := judgment.NewJudge(s, judgment.JudgeOptions{Family: judgment.FamilyGemma4Turn})
	req := judgment.Request{State: checkState, Questions: checkQuestions(), Model: "m"}
	ctx, cancel := context.WithCancel(context.Background())
	leader := make(chan error, 1)
	go func() {
		_, err := j.Judge(ctx, req)
		leader <- err
	}()
	<-s.started // the leader's call is in flight
	follower := make(chan error, 1)
	go func() {
		_, err := j.Judge(context.Background(), req)
		follower <- err
	}()
	time.Sleep(50 * time.Millisecond) // the follower waits on the leader's call
	cancel()
	if err := <-leader; judgment.ErrorClass(err) != "TransportError" {
		t.Fatalf("canceled judgment: %v, want its TransportError", err)
	}
	<-s.started // the follower's own call
	close(s.gate)
	if err := <-follower; err != nil {
		t.Fatalf("live judgment: %v", err)
	}
}
