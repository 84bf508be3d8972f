package receipt

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/typevet/typevet-go/judgment"
	"os"
	"path/filepath"
	"testing"
)

// fullReceipt is typevet's 140-case receipt decoded into typed identity and
// raw metrics and cases: the size of a real check-match receipt.
type fullReceipt struct {
	Issue    int             `json:"issue"`
	Identity Identity        `json:"identity"`
	Metrics  json.RawMessage `json:"metrics"`
	Cases    json.RawMessage `json:"cases"`
}

func loadFullReceipt(b *testing.B) (fullReceipt, []byte) {
	raw, err := os.ReadFile(filepath.Join("testdata", "check_match_vllm_receipt.json"))
	if err != nil {
		b.Fatal(err)
	}
	var r fullReceipt
	if err := json.Unmarshal(raw, &r); err != nil {
		b.Fatal(err)
	}
	return r, raw
}

func BenchmarkCheckKeyFree171KB(b *testing.B) {
	_, raw := loadFullReceipt(b)
	secrets := judgment.Secrets{Keys: []string{"sk-not-in-the-receipt"}, HeaderValues: []string{"x-extra-header-value"}}
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if err := CheckKeyFree(raw, secrets); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkMarshal171KB(b *testing.B) {
	r, raw := loadFullReceipt(b)
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := Marshal(r); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEncodingJSON171KB is the former writer's cost for the same
// receipt (encoding/json with two-space indent and no HTML escaping), the
// baseline BenchmarkMarshal171KB is compared with.
func BenchmarkEncodingJSON171KB(b *testing.B) {
	r, raw := loadFullReceipt(b)
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(r); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkWrite171KB(b *testing.B) {
	r, raw := loadFullReceipt(b)
	dir := b.TempDir()
	secrets := judgment.Secrets{Keys: []string{"sk-not-in-the-receipt"}}
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	b.ResetTimer()
	i := 0
	for b.Loop() {
		i++
		if _, err := Write(filepath.Join(dir, fmt.Sprintf("r%d.json", i)), r, secrets); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkIdentityDigest(b *testing.B) {
	r, _ := loadFullReceipt(b)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if IdentityDigest(r.Identity) != r.Identity.IdentityDigest {
			b.Fatal("digest mismatch")
		}
	}
}

func BenchmarkPromptDigest4(b *testing.B) {
	qs := checkQuestions()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		PromptDigests(qs)
	}
}

func BenchmarkNewThroughput140(b *testing.B) {
	latencies := make([]float64, 140)
	for i := range latencies {
		latencies[i] = float64((37*i)%140) / 10
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		NewThroughput(latencies, 1, 1099.5165, 16, 0, nil)
	}
}
