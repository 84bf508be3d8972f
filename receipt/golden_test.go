package receipt

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/typevet/typevet-go/serving"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

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
	golden := filepath.Join("testdata", "blocks.golden")
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		gotPath := strings.TrimSuffix(golden, ".golden") + ".got"
		_ = os.WriteFile(gotPath, got, 0o644)
		t.Errorf("blocks differ from %s (got written to %s):\n%s", golden, gotPath, firstDiff(string(want), string(got)))
	}
}

// firstDiff shows the first differing line of two texts.
func firstDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := range max(len(w), len(g)) {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			return fmt.Sprintf("line %d:\n- %s\n+ %s", i+1, wl, gl)
		}
	}
	return "(no line differs)"
}
