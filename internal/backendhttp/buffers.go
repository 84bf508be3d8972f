package backendhttp

import "sync"

// keptBuffers is the most buffers a [bufferPool] keeps across garbage
// collections: one per judgment in flight at concurrency 16.
const keptBuffers = 16

// bufferPool holds large buffers given back for reuse. A sync.Pool drops
// what it holds within two garbage collections, and a vLLM session's
// client collects every second or so: reallocating its 64 KiB send
// buffers and 100–200 KB data URI buffers after each (fresh spans to
// zero, pages the scavenger had returned) cost about a tenth of its CPU
// at concurrency 16 (BenchmarkSliceVLLMPair). So the first [keptBuffers]
// given back are kept for good, the rest go to a sync.Pool.
type bufferPool struct {
	mu   sync.Mutex
	kept []*[]byte
	more sync.Pool
}

// get returns a buffer given back, or nil.
func (p *bufferPool) get() *[]byte {
	p.mu.Lock()
	if n := len(p.kept); n > 0 {
		b := p.kept[n-1]
		p.kept = p.kept[:n-1]
		p.mu.Unlock()
		return b
	}
	p.mu.Unlock()
	b, _ := p.more.Get().(*[]byte)
	return b
}

// put gives b back.
func (p *bufferPool) put(b *[]byte) {
	p.mu.Lock()
	if len(p.kept) < keptBuffers {
		p.kept = append(p.kept, b)
		p.mu.Unlock()
		return
	}
	p.mu.Unlock()
	p.more.Put(b)
}
