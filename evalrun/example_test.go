package evalrun_test

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"

	"github.com/typevet/typevet-go/evalrun"
	"github.com/typevet/typevet-go/judgment"
	"github.com/typevet/typevet-go/judgment/fake"
	"github.com/typevet/typevet-go/receipt"
)

// stopAfter cancels the run's context when the nth judgment starts: a
// Ctrl-C half-way.
type stopAfter struct {
	port   judgment.Port
	n      int
	cancel context.CancelFunc
}

func (s *stopAfter) Judge(ctx context.Context, req judgment.Request) (judgment.Response, error) {
	if s.n--; s.n < 0 {
		s.cancel()
	}
	return s.port.Judge(ctx, req)
}

// An eval of its own: six generated squares, each asked whether it is
// dark (a Noul) and which colour it is (a Choice), judged by the offline
// fake. The first part is stopped half-way; a resume judges only the rest,
// and the receipt records the run's identity.
func Example() {
	questions := []judgment.NamedQuestion{
		{Name: "dark", Question: judgment.Noul{Instructions: "Is the square dark?"}},
		{Name: "colour", Question: judgment.Choice{Instructions: "Which colour is the square?",
			Criteria: []judgment.Criterion{{Label: "red"}, {Label: "green"}, {Label: "blue"}}}},
	}
	var items []evalrun.Item
	for i := range 6 {
		img := image.NewRGBA(image.Rect(0, 0, 16, 16))
		for p := range img.Pix {
			img.Pix[p] = uint8(40 * i)
		}
		img.Set(0, 0, color.RGBA{R: 255, A: 255})
		var b bytes.Buffer
		_ = png.Encode(&b, img)
		items = append(items, evalrun.Item{ID: fmt.Sprintf("square-%d", i), Request: judgment.Request{
			Model: "fake-model", Questions: questions, Media: []judgment.Image{{Data: b.Bytes(), MIMEType: "image/png"}}}})
	}
	// The identity: what decides the answers, pinned in the journal.
	id := receipt.Identity{BaselineCommit: receipt.Unknown, PromptDigests: receipt.PromptDigests(questions),
		CodePathDigests: receipt.Digests{}, FixtureDigests: receipt.Digests{},
		Runtime: receipt.NewRuntime("fake-model", "fake", receipt.Unknown), ArmCallCounts: receipt.Counts{{Name: "judgments", Value: len(items)}}}
	id.IdentityDigest = receipt.IdentityDigest(id)
	pin, _ := evalrun.NewPin("identity_digest", id.IdentityDigest)
	head := evalrun.Header{Kind: "squares", Pins: []evalrun.Pin{pin}}

	dir, _ := os.MkdirTemp("", "squares")
	defer os.RemoveAll(dir)
	files, _ := evalrun.OpenFiles(filepath.Join(dir, "squares.json"), false, nil)
	port := fake.New(fake.Distributions{"dark": {True: ptr(0.25)}})

	// Part 1, stopped when the fourth judgment starts.
	ctx, cancel := context.WithCancel(context.Background())
	j, _ := evalrun.CreateRunJournal(files.Journal, head)
	res, _ := evalrun.Run(ctx, &stopAfter{port: port, n: 3, cancel: cancel}, items, evalrun.Options{Journal: j})
	j.Close()
	fmt.Printf("part 1: %d judged, stopped at %s\n", len(res.Outcomes), res.Stopped.ID)

	// Part 2: the same items and identity resume the journal.
	j, err := evalrun.ResumeRunJournal(files.Journal, head, items, evalrun.Advisory{})
	if err != nil {
		fmt.Println(err)
		return
	}
	res, _ = evalrun.Run(context.Background(), evalrun.Retry(port, evalrun.RetryPolicy{Retries: 2}), items, evalrun.Options{Journal: j, Concurrency: 2})
	j.Close()
	fmt.Printf("part 2: %d from the journal, %d judged, %d parts\n", res.Resumed, len(res.Outcomes)-res.Resumed, len(res.PartSeconds))

	type record struct {
		ID     string  `json:"id"`
		Dark   float64 `json:"dark"`
		Colour string  `json:"colour"`
	}
	out := struct {
		Identity receipt.Identity `json:"identity"`
		Items    []record         `json:"items"`
	}{Identity: id}
	for _, o := range res.Outcomes {
		dark, _ := o.Response.Noul("dark")
		colour, _ := o.Response.Choice("colour")
		out.Items = append(out.Items, record{o.ID, dark.Noul, colour.Choice})
	}
	files.Resume = true
	if _, err := files.WriteReceipt(out, judgment.Secrets{}, res.Stopped == nil); err != nil {
		fmt.Println(err)
		return
	}
	_, err = os.Stat(files.Journal)
	fmt.Printf("receipt: %d items, %s dark %.2f; journal removed: %v\n", len(out.Items), out.Items[5].ID, out.Items[5].Dark, os.IsNotExist(err))
	// Output:
	// part 1: 3 judged, stopped at square-3
	// part 2: 3 from the journal, 3 judged, 2 parts
	// receipt: 6 items, square-5 dark 0.25; journal removed: true
}

func ptr(v float64) *float64 { return &v }
