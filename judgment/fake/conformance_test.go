package fake_test

import (
	"bytes"
	"testing"

	"github.com/typevet/typevet-go/judgment"
	"github.com/typevet/typevet-go/judgment/fake"
	"github.com/typevet/typevet-go/judgment/judgmenttest"
)

// TestConformance runs the judgment.Port conformance suite against the
// offline fake loaded with the suite's distributions, so the fake answers
// the way the llama.cpp and vLLM sessions do over the judgmenttest servers.
func TestConformance(t *testing.T) {
	judgmenttest.Run(t, func(t *testing.T) judgment.Port {
		d, err := fake.ParseDistributions(bytes.NewReader(judgmenttest.ConformanceDistributions()))
		if err != nil {
			t.Fatalf("ParseDistributions(ConformanceDistributions()): %v", err)
		}
		return fake.New(d)
	})
}
