package llamacpp_test

import (
	"context"
	"testing"

	"github.com/typevet/typevet-go/judgment"
	"github.com/typevet/typevet-go/judgment/judgmenttest"
	"github.com/typevet/typevet-go/judgment/llamacpp"
)

// The llama.cpp session passes the Port conformance suite over a fake
// llama-server scripted with the suite's model.
func TestConformance(t *testing.T) {
	judgmenttest.Run(t, func(t *testing.T) judgment.Port {
		srv := judgmenttest.NewLlamaCPP(judgmenttest.ConformanceModel())
		t.Cleanup(srv.Close)
		sess, err := llamacpp.Open(context.Background(), llamacpp.Settings{BaseURL: srv.URL},
			llamacpp.OpenOptions{Model: judgmenttest.ConformanceModelID, NVocab: 64})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { sess.Close() })
		return sess
	})
}
