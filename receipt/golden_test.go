package receipt

import (
	"bytes"
	"encoding/json"
	"testing"
	"testing/fstest"

	"github.com/typevet/typevet-go/internal/golden"
	"github.com/typevet/typevet-go/serving"
)

// goldenBlocks is every block of this package filled from fixed inputs, the
// shape a check-match receipt gets from them.
type goldenBlocks struct {
	Identity    Identity   `json:"identity"`
	WallSeconds float64    `json:"wall_seconds"`
	Throughput  Throughput `json:"throughput"`
}

func buildGoldenBlocks(t testing.TB) goldenBlocks {
	t.Helper()
	porcelain := " M receipt/write.go\n?? notes/R&D <draft>.md\nR  old.go -> new.go\n"
	code, err := CodeDigests(fstest.MapFS{
		"runner.go": {Data: []byte("package checkmatch\n")},
		"pool.go":   {Data: []byte("package checkmatch // pool\n")},
	}, map[string][]string{"runner": {"runner.go"}, "pool": {"pool.go"}})
	if err != nil {
		t.Fatal(err)
	}
	id := Identity{
		RunID:           "25656473a77c461e9585b4d383e84352",
		BaselineCommit:  hashB,
		WorkingTree:     WorkingTreeFromPorcelain(&porcelain, hashB),
		PromptDigests:   PromptDigests(checkQuestions()),
		CodePathDigests: code,
		Runtime:         NewRuntime("google/gemma-4-31B-it", "vllm_chat", "0.30.0"),
		ArmCallCounts:   Counts{{Name: "judgments", Value: 20}},
	}
	id.IdentityDigest = IdentityDigest(id)

	var server serving.RunDelta
	raw := fixtureBlock(t, "check_match_vllm_throughput_c4.head.json", "throughput")
	var th struct {
		Server json.RawMessage `json:"server"`
	}
	if err := json.Unmarshal(raw, &th); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(th.Server, &server); err != nil {
		t.Fatal(err)
	}
	latencies := make([]float64, 20)
	for i := range latencies {
		latencies[i] = float64(7*i%20+1) + 0.0004
	}
	wall := 210.0125
	return goldenBlocks{
		Identity:    id,
		WallSeconds: Round(wall, 3),
		Throughput:  NewThroughput(latencies, 1, wall, 4, 2, &server),
	}
}

// TestGoldenBlocks pins the exact bytes Write puts on disk for the blocks.
// Run `go test ./receipt -run Golden -update` after an intended change.
func TestGoldenBlocks(t *testing.T) {
	got, err := Marshal(buildGoldenBlocks(t))
	if err != nil {
		t.Fatal(err)
	}
	again, _ := Marshal(buildGoldenBlocks(t))
	if !bytes.Equal(got, again) {
		t.Fatal("Marshal is not deterministic")
	}
	golden.Compare(t, "testdata/blocks.golden", got)
}
