package view_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/typevet/typevet-go/checkmatch"
	"github.com/typevet/typevet-go/checkmatch/stats"
	"github.com/typevet/typevet-go/checkmatch/view"
	"github.com/typevet/typevet-go/internal/golden"
	"github.com/typevet/typevet-go/receipt"
)

// FuzzBuild builds the site of any receipt checkmatch.ReadReceipt accepts
// (its checks not re-rendered):
// Build never panics, and no text of the receipt becomes markup (the pages
// hold exactly the one script element of view.js). The seeds are a few
// hundred bytes to 1.5 KB ([golden.Seed] of typevet's receipt cut to one case): on
// the receipt itself the fuzzer spent the run minimising (8 executions in
// 20 s); TestBuildPropertyOnTypevetReceipt holds the property on it.
func FuzzBuild(f *testing.F) {
	b, err := receipt.Marshal(firstCases(typevetReceipt(f), 1))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(golden.Seed(f, b, 900)) // 1.5 KB with the case
	f.Add([]byte(`{"issue": 316, "model": "<script>x</script>", "pins": {"generator_seed": 0, "register_rows": 1}, "cases": [{"case_id": "r00:clean", "variant": "</td><script>", "verdict": "<img src=x>", "render_sha256": "\"><b>"}]}`))
	f.Fuzz(buildProperty)
}

// TestBuildPropertyOnTypevetReceipt holds FuzzBuild's property on
// typevet's receipt cut to 0, 1 and 7 cases.
func TestBuildPropertyOnTypevetReceipt(t *testing.T) {
	tv := typevetReceipt(t)
	for _, n := range []int{0, 1, 7} {
		b, err := receipt.Marshal(firstCases(tv, n))
		if err != nil {
			t.Fatal(err)
		}
		buildProperty(t, b)
	}
}

// buildProperty is FuzzBuild's property on one input.
func buildProperty(t *testing.T, data []byte) {
	r, err := checkmatch.ReadReceipt(bytes.NewReader(data))
	if err != nil || r.Cases == nil || len(r.Cases) > 40 {
		return
	}
	// No real re-renders: the target is the pages; the renderer has its
	// own tests. Every digest then differs, so no image is made either.
	defer view.SetRender(func(checkmatch.Case) ([]byte, error) { return []byte("not a render"), nil })()
	site, err := view.Build([]view.Input{{Name: "fuzz.json", Receipt: r}}, view.Options{Stats: stats.Options{Resamples: 20}})
	if err != nil {
		return
	}
	html := strings.ToLower(string(site.File("index.html")))
	if n := strings.Count(html, "<script"); n != 1 {
		t.Fatalf("index.html has %d script elements, want 1", n)
	}
	if strings.Contains(html, "<img src=x") || strings.Contains(html, "<b>") {
		t.Fatal("receipt text became markup")
	}
}
