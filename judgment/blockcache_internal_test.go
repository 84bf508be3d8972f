package judgment

import "testing"

// TestBlockCacheKeepsEachVariant: the option-order study asks one name with
// its options in several orders; each order is rendered once and then
// found again, and the cache stops growing at maxCachedBlocks.
func TestBlockCacheKeepsEachVariant(t *testing.T) {
	var c blockCache
	parts := compiledParts{}
	ab := Choice{Instructions: "pick", Criteria: []Criterion{{Label: "a"}, {Label: "b"}}}
	ba := Choice{Instructions: "pick", Criteria: []Criterion{{Label: "b"}, {Label: "a"}}}
	for range 3 {
		for _, q := range []Choice{ab, ba} {
			labels, block := c.get(parts, NamedQuestion{Name: "verdict", Question: q})
			if want := parts.optionBlock("verdict", q); block != want {
				t.Fatalf("block %q, want %q", block, want)
			}
			if labels[0] != q.Criteria[0].Label {
				t.Fatalf("labels %v for criteria %v", labels, q.Criteria)
			}
		}
	}
	if got := len(c.m["verdict"]); got != 2 || c.n != 2 {
		t.Fatalf("verdict holds %d entries (%d in all), want 2", got, c.n)
	}
	for i := range 2 * maxCachedBlocks {
		c.get(parts, NamedQuestion{Name: "verdict", Question: Noul{Instructions: string(rune('A' + i))}})
	}
	if c.n != maxCachedBlocks {
		t.Fatalf("the cache holds %d entries, want at most %d", c.n, maxCachedBlocks)
	}
}

// BenchmarkOptionBlock: a question's scoring labels and option block,
// rendered (the baseline, what every judgment did before the cache) and
// from a Judge's cache.
func BenchmarkOptionBlock(b *testing.B) {
	parts := NewJudge(nil, JudgeOptions{Family: FamilyChat}).parts
	nq := NamedQuestion{Name: "payee_legible", Question: Choice{Instructions: "Can the payee be read?", Criteria: []Criterion{
		{Label: "legible"}, {Label: "partly", Description: "some letters"}, {Label: "illegible"}}}}
	b.Run("render", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = ScoringLabels(nq.Question)
			_ = parts.optionBlock(nq.Name, nq.Question)
		}
	})
	b.Run("cached", func(b *testing.B) {
		var c blockCache
		c.get(parts, nq)
		b.ReportAllocs()
		for b.Loop() {
			c.get(parts, nq)
		}
	})
}
