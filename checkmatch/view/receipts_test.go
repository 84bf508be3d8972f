package view_test

import (
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"sync"
	"testing"

	"github.com/typevet/typevet-go/checkmatch"
	"github.com/typevet/typevet-go/checkmatch/view"
	"github.com/typevet/typevet-go/judgment"
	"github.com/typevet/typevet-go/judgment/fake"
	"github.com/typevet/typevet-go/judgment/reader"
)

// mixedPort judges about a third of the checks (chosen by the image's
// SHA-256) with the fake backend and skewed distributions, which answer
// "consistent" with confidence, and the rest with the reader: an offline
// run with wrong answers, false clears and varied confidences.
type mixedPort struct {
	reader, skewed judgment.Port
	// byte and mod choose the skewed checks: those whose SHA-256 has
	// byte number byte divisible by mod.
	byte, mod int
}

func (p mixedPort) Judge(ctx context.Context, req judgment.Request) (judgment.Response, error) {
	if len(req.Media) > 0 {
		if sum := sha256.Sum256(req.Media[0].Data); int(sum[p.byte])%p.mod == 0 {
			return p.skewed.Judge(ctx, req)
		}
	}
	return p.reader.Judge(ctx, req)
}

func ptr[T any](v T) *T { return &v }

// readerMemo is the reader judge with its answers kept by image and
// question: the two mixed runs judge the same slice, so each check the
// reader judges in both is read once per test binary. The reader is
// deterministic (its own tests hold that); the kept response is returned
// with the asking run's model id.
type readerMemo struct {
	port judgment.Port
	mu   sync.Mutex
	resp map[string]judgment.Response
}

func (m *readerMemo) Judge(ctx context.Context, req judgment.Request) (judgment.Response, error) {
	if len(req.Media) != 1 {
		return m.port.Judge(ctx, req)
	}
	names := make([]string, len(req.Questions))
	for i, q := range req.Questions {
		names[i] = q.Name
	}
	key := fmt.Sprintf("%x %q %q", sha256.Sum256(req.Media[0].Data), req.State, names)
	m.mu.Lock()
	resp, ok := m.resp[key]
	m.mu.Unlock()
	if !ok {
		var err error
		if resp, err = m.port.Judge(ctx, req); err != nil {
			return resp, err
		}
		m.mu.Lock()
		m.resp[key] = resp
		m.mu.Unlock()
	}
	resp.Model = req.Model
	return resp, nil
}

var sharedReader = &readerMemo{port: reader.New(reader.Options{}), resp: map[string]judgment.Response{}}

var slice0 = sync.OnceValues(func() (checkmatch.Slice, error) {
	s, err := checkmatch.BuildSlice(checkmatch.DefaultSeed, testRows(), nil)
	if err == nil {
		for _, r := range s.Requests {
			renderMemo.put(r.Case, r.Media[0].Data)
		}
	}
	return s, err
})

// TestMain runs the tests with view.Build re-rendering through
// renderMemo: every site of the default slice's cases re-renders the
// same checks, and checkmatch.Render's output for a case is fixed (its
// own tests hold that), so each is drawn once per test binary, by
// BuildSlice; and with the half-scale views through halfMemo, each made
// once per test binary. The benchmarks set both back.
func TestMain(m *testing.M) {
	view.SetRender(renderMemo.get)
	view.SetHalfScale(halfMemo.get)
	os.Exit(m.Run())
}

// memo holds the PNG a function of a case (checkmatch.Render, or
// view.HalfScaleOf) made of each face so far; both depend on the face
// alone.
type memo struct {
	make func(checkmatch.Case) ([]byte, error)
	mu   sync.Mutex
	pngs map[string][]byte // by the face, as %#v prints it
}

var (
	renderMemo = &memo{make: checkmatch.Render, pngs: map[string][]byte{}}
	// halfMemo holds the half-scale views: every site of the default
	// slice's cases shows the same ones, each made once per test binary
	// (by the real code, for the first site that shows the case).
	halfMemo = &memo{make: view.HalfScaleOf, pngs: map[string][]byte{}}
)

func (m *memo) put(c checkmatch.Case, png []byte) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.pngs[fmt.Sprintf("%#v", c.Face)] = png
}

// get is m.make through the memo. The bytes are shared: view.Build only
// reads them.
func (m *memo) get(c checkmatch.Case) ([]byte, error) {
	m.mu.Lock()
	png, ok := m.pngs[fmt.Sprintf("%#v", c.Face)]
	m.mu.Unlock()
	if ok {
		return png, nil
	}
	png, err := m.make(c)
	if err == nil {
		m.put(c, png)
	}
	return png, err
}

// testRows is the number of register rows the test runs judge: the whole
// slice, or three under -race and -short.
func testRows() int {
	if raceEnabled || testing.Short() {
		return 3
	}
	return checkmatch.RowCount
}

// mixedRun judges the default slice with a mixedPort.
func mixedRun(model string, byte, mod int) (checkmatch.Receipt, error) {
	slice, err := slice0()
	if err != nil {
		return checkmatch.Receipt{}, err
	}
	port := mixedPort{byte: byte, mod: mod,
		reader: sharedReader,
		skewed: fake.New(fake.Distributions{
			"payee_matches": {True: ptr(0.83)},
			"amounts_match": {True: ptr(0.71)},
			"verdict":       {Weights: map[string]float64{"consistent": 6, "cannot_tell": 2, "amount_mismatch": 1, "payee_mismatch": 1}},
			"legibility":    {Weights: map[string]float64{"2": 1, "3": 3, "4": 2}},
		}),
	}
	seconds := 0.0
	clock := func() float64 { seconds += 0.125; return seconds }
	run, err := checkmatch.Run(context.Background(), port, model, slice.Requests, checkmatch.RunOptions{Clock: clock})
	if err != nil {
		return checkmatch.Receipt{}, err
	}
	pins := slice.Pins()
	pins.FinishedUTC = "2026-12-01T12:00:00.000000+00:00"
	renderer := checkmatch.RendererPin()
	pins.Renderer = &renderer
	pins.Concurrency = 1
	return checkmatch.BuildReceipt(run, checkmatch.ReceiptParts{Backend: "fake", Model: model, Pins: pins})
}

var (
	mixedA = sync.OnceValues(func() (checkmatch.Receipt, error) { return mixedRun("mixed-a", 0, 3) })
	mixedB = sync.OnceValues(func() (checkmatch.Receipt, error) { return mixedRun("mixed-b", 1, 4) })
)

// mixedReceipt returns the receipt of the first mixed run (about a third
// of the checks skewed; built once per test binary).
func mixedReceipt(tb testing.TB) checkmatch.Receipt {
	tb.Helper()
	r, err := mixedA()
	if err != nil {
		tb.Fatal(err)
	}
	return r
}

// mixedReceiptB returns the receipt of a second mixed run of the same
// slice with other checks skewed (about a quarter).
func mixedReceiptB(tb testing.TB) checkmatch.Receipt {
	tb.Helper()
	r, err := mixedB()
	if err != nil {
		tb.Fatal(err)
	}
	return r
}

// typevetReceipt reads typevet's published vLLM receipt.
func typevetReceipt(tb testing.TB) checkmatch.Receipt {
	tb.Helper()
	f, err := os.Open("testdata/check_match_vllm_receipt.json")
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	r, err := checkmatch.ReadReceipt(f)
	if err != nil {
		tb.Fatal(err)
	}
	return r
}

// firstCases returns r with its first n cases only, as a run stopped after
// n cases has (its pins still name the whole slice): a small receipt whose
// site builds in a fraction of the time.
// The metrics block is recomputed from the kept cases, as the run's would
// be.
func firstCases(r checkmatch.Receipt, n int) checkmatch.Receipt {
	r.Cases = append(make([]checkmatch.CaseRecord, 0, n), r.Cases[:n]...)
	m, err := r.Recompute()
	if err != nil {
		panic(err) // the receipts of these tests are valid
	}
	if a, b := r.Metrics.MeanLatencySeconds, m.MeanLatencySeconds; a != nil && b != nil && *a == *b {
		m.Warnings = r.Metrics.Warnings
	}
	r.Metrics = m
	return r
}

// small is the number of cases of the unit tests' receipts: three register
// rows.
const small = 21
