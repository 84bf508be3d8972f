package backendhttp

import (
	"runtime"
	"testing"
)

// TestBufferPoolKeepsAcrossGC: the first keptBuffers buffers given back
// survive garbage collections (a sync.Pool would have dropped them), each
// given out once.
func TestBufferPoolKeepsAcrossGC(t *testing.T) {
	var p bufferPool
	given := make(map[*[]byte]bool)
	for range keptBuffers + 4 {
		b := make([]byte, 8)
		p.put(&b)
		given[&b] = true
	}
	runtime.GC()
	runtime.GC()
	seen := make(map[*[]byte]bool)
	for i := range keptBuffers {
		b := p.get()
		if b == nil || !given[b] || seen[b] {
			t.Fatalf("get %d after two collections: %p (given back: %v, seen before: %v), want one of the kept buffers", i, b, given[b], seen[b])
		}
		seen[b] = true
	}
	if p.get() != nil && !raceEnabled {
		// The rest went to the sync.Pool, which two collections empty.
		t.Fatal("more than keptBuffers buffers survived two collections")
	}
}
