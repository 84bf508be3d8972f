package llamacpp_test

import (
	"bytes"
	"context"
	"flag"
	"image"
	"image/color"
	"image/png"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/typevet/typevet-go/judgment"
	"github.com/typevet/typevet-go/judgment/judgmenttest"
	"github.com/typevet/typevet-go/judgment/llamacpp"
)

// checkQuestions is a check judgment's question set: four questions, as
// the check runner asks them about one rendered check.
var checkQuestions = []judgment.NamedQuestion{
	{Name: "amounts_match", Question: judgment.Noul{Instructions: "Do the numeric and written amounts agree?"}},
	{Name: "signature_present", Question: judgment.Noul{Instructions: "Is the check signed?"}},
	{Name: "payee_legible", Question: judgment.Choice{Instructions: "Can the payee be read?", Criteria: []judgment.Criterion{
		{Label: "legible"}, {Label: "partly"}, {Label: "illegible"}}}},
	{Name: "image_quality", Question: judgment.Score{Instructions: "Rate the image quality.", Criteria: []string{"bad", "fair", "good"}}},
}

// update rewrites testdata/check.png.
var update = flag.Bool("update", false, "rewrite testdata/check.png")

// checkPNG returns testdata/check.png: a 1000×440 PNG of about 60–100 KB,
// a white check with seeded noise strokes, so it compresses like a
// rendered check. TestCheckPNG regenerates it with -update.
func checkPNG(tb testing.TB) []byte {
	tb.Helper()
	b, err := os.ReadFile("testdata/check.png")
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// renderCheckPNG draws the image of testdata/check.png.
func renderCheckPNG(tb testing.TB) []byte {
	img := image.NewGray(image.Rect(0, 0, 1000, 440))
	for i := range img.Pix {
		img.Pix[i] = 255
	}
	r := rand.New(rand.NewPCG(1, 2))
	for y := 40; y < 400; y += 36 {
		for x := 40; x < 960; x++ {
			for dy := 0; dy < 14; dy++ {
				if r.IntN(3) == 0 {
					img.SetGray(x, y+dy, color.Gray{Y: uint8(r.IntN(120))})
				}
			}
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		tb.Fatal(err)
	}
	return b.Bytes()
}

// TestCheckPNG checks that testdata/check.png has the size of a rendered
// check; with -update it first renders it again.
func TestCheckPNG(t *testing.T) {
	if *update {
		if err := os.WriteFile("testdata/check.png", renderCheckPNG(t), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got := checkPNG(t)
	cfg, err := png.DecodeConfig(bytes.NewReader(got))
	if err != nil || cfg.Width != 1000 || cfg.Height != 440 || len(got) < 60_000 || len(got) > 100_000 {
		t.Errorf("check.png: %dx%d, %d bytes, %v; want 1000×440, 60–100 KB", cfg.Width, cfg.Height, len(got), err)
	}
}

// smallModel is a scripted model with a small vocabulary (so the full
// distribution is cheap) that answers every question with a fixed
// distribution over its first controls.
func smallModel() *judgmenttest.Model {
	return &judgmenttest.Model{
		NVocab: 64,
		Logprobs: judgmenttest.Script{Text: map[string]map[string]float64{
			"amounts_match":     judgmenttest.Probs(0.2, 0.7),
			"signature_present": judgmenttest.Probs(0.6, 0.3),
			"payee_legible":     judgmenttest.Probs(0.5, 0.3, 0.1),
			"image_quality":     judgmenttest.Probs(0.1, 0.2, 0.6),
		}}.Logprobs,
	}
}

// newServer starts a fake llama-server for m, closed with the test.
func newServer(tb testing.TB, m *judgmenttest.Model, knobs func(*judgmenttest.Server)) *judgmenttest.Server {
	tb.Helper()
	srv := judgmenttest.NewUnstartedLlamaCPP(m)
	if knobs != nil {
		knobs(srv)
	}
	srv.Start()
	tb.Cleanup(srv.Close)
	return srv
}

// openSession opens a session on srv with a short timeout.
func openSession(tb testing.TB, srv *judgmenttest.Server, s llamacpp.Settings, opts llamacpp.OpenOptions) *llamacpp.Session {
	tb.Helper()
	s.BaseURL = srv.URL
	if s.Timeout == 0 {
		s.Timeout = 5e9
	}
	if opts.Model == "" {
		opts.Model = judgmenttest.DefaultModelID
	}
	sess, err := llamacpp.Open(context.Background(), s, opts)
	if err != nil {
		tb.Fatalf("Open: %v", err)
	}
	tb.Cleanup(func() { sess.Close() })
	return sess
}

// checkRequest is one check judgment with one PNG (nil: text only).
func checkRequest(pngBytes []byte) judgment.Request {
	r := judgment.Request{
		State:     `{"case_id": "c-001"}`,
		Questions: checkQuestions,
		Model:     judgmenttest.DefaultModelID,
	}
	if pngBytes != nil {
		r.Media = []judgment.Image{{Data: pngBytes, MIMEType: "image/png"}}
	}
	return r
}
