package vllm_test

import (
	"context"
	"testing"

	"github.com/typevet/typevet-go/judgment"
	"github.com/typevet/typevet-go/judgment/judgmenttest"
	"github.com/typevet/typevet-go/judgment/vllm"
)

// The vLLM session passes the Port conformance suite over a fake vLLM
// server scripted with the suite's model.
func TestConformance(t *testing.T) {
	judgmenttest.Run(t, func(t *testing.T) judgment.Port {
		srv := judgmenttest.NewVLLM(judgmenttest.ConformanceModel())
		t.Cleanup(srv.Close)
		sess, err := vllm.Open(context.Background(), vllm.Settings{BaseURL: srv.URL, Model: judgmenttest.ConformanceModelID}, vllm.OpenOptions{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { sess.Close() })
		return sess
	})
}
