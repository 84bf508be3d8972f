package receipt_test

import (
	"embed"
	"fmt"
	"os"
	"path/filepath"

	"github.com/typevet/typevet-go/judgment"
	"github.com/typevet/typevet-go/receipt"
)

func ExampleNewThroughput() {
	latencies := []float64{4, 1, 3, 2} // seconds per kept judgment
	th := receipt.NewThroughput(latencies, 2, 2.0, 4, 3, nil)
	b, err := receipt.Marshal(th)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(string(b))
	// Output:
	// {
	//   "concurrency": 4,
	//   "wall_seconds": 2.0,
	//   "judgments": 4,
	//   "images": 8,
	//   "judgments_per_second": 2.0,
	//   "images_per_second": 4.0,
	//   "latency_seconds": {
	//     "n": 4,
	//     "p50": 2.0,
	//     "p95": 4.0,
	//     "p99": 4.0
	//   },
	//   "discarded": 3,
	//   "server": null
	// }
}

func ExamplePromptDigest() {
	q := judgment.Noul{
		Instructions: "Is the sky blue?",
		Criteria:     judgment.NoulCriteria{True: "It is blue.", False: "It is not blue."},
	}
	fmt.Println(receipt.PromptDigest("small", q))
	// Output:
	// e1b0435bffdd600b38d03894eb9a1738bb43e5e692f4c325d4717eac5af9c19b
}

func ExampleRound() {
	fmt.Println(receipt.Round(2.675, 2), receipt.Round(0.125, 2), receipt.Round(1099.5165, 3))
	// Output:
	// 2.67 0.12 1099.516
}

func ExampleWrite() {
	dir, err := os.MkdirTemp("", "receipt-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "runs", "check.json")

	type myReceipt struct {
		Issue    int              `json:"issue"`
		Identity receipt.Identity `json:"identity"`
		Stopped  *string          `json:"stopped"`
	}
	clean := ""
	id := receipt.Identity{
		RunID:          "c0a53e7cb404460d80a32e4d661a034c",
		BaselineCommit: "ce63dddd013445066c0768e5e2049de1e6e50f9a",
		WorkingTree:    receipt.WorkingTreeFromPorcelain(&clean, "ce63dddd013445066c0768e5e2049de1e6e50f9a"),
		Runtime:        receipt.NewRuntime("google/gemma-4-31B-it", "vllm_chat", "0.30.0"),
		ArmCallCounts:  receipt.Counts{{Name: "judgments", Value: 140}},
	}
	id.IdentityDigest = receipt.IdentityDigest(id)

	secrets := judgment.Secrets{Keys: []string{"sk-example-key"}}
	sum, err := receipt.Write(path, myReceipt{Issue: 316, Identity: id}, secrets)
	fmt.Println(len(sum), err)

	_, err = receipt.Write(path, myReceipt{Issue: 316}, secrets)
	fmt.Println(err == nil, receipt.CheckNew(path) != nil)

	leak := "HTTP 401: Authorization: Bearer sk-example-key"
	_, err = receipt.Write(filepath.Join(dir, "leak.json"), myReceipt{Issue: 316, Stopped: &leak}, secrets)
	fmt.Println(err)
	// Output:
	// 64 <nil>
	// false true
	// receipt is not key-free: it holds a key or an auth header
}

// A run embeds its own source files and hashes them under stable logical
// names, so two builds with different run code never share digests.
//
//go:embed round.go throughput.go
var runSources embed.FS

func ExampleCodeDigests() {
	digests, err := receipt.CodeDigests(runSources, map[string][]string{
		"throughput": {"throughput.go", "round.go"}, // several files: path NUL bytes NUL, in path order
		"round":      {"round.go"},                  // one file: its bytes
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, d := range digests { // sorted by name
		fmt.Println(d.Name, len(d.Value))
	}
	// Output:
	// round 64
	// throughput 64
}
