package reader_test

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"math"
	"math/rand/v2"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"testing"

	"golang.org/x/image/font"
	"golang.org/x/image/math/fixed"

	"github.com/typevet/typevet-go/checkmatch"
	"github.com/typevet/typevet-go/internal/checkform"
	"github.com/typevet/typevet-go/judgment"
	"github.com/typevet/typevet-go/judgment/reader"
)

// judge asks the default reader about one check image and state.
func judge(t *testing.T, state string, pngBytes []byte) judgment.Response {
	t.Helper()
	resp, err := reader.New(reader.Options{}).Judge(context.Background(), judgment.Request{
		State:     state,
		Questions: checkmatch.Questions(),
		Model:     "reader",
		Media:     []judgment.Image{{Data: pngBytes, MIMEType: "image/png"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// answers pulls the four answers out of a response.
func answers(t *testing.T, resp judgment.Response) (payee, amounts float64, verdict judgment.ChoiceAnswer, leg judgment.ScoreAnswer) {
	t.Helper()
	p, ok1 := resp.Noul(checkmatch.QuestionPayeeMatches)
	a, ok2 := resp.Noul(checkmatch.QuestionAmountsMatch)
	v, ok3 := resp.Choice(checkmatch.QuestionVerdict)
	l, ok4 := resp.Score(checkmatch.QuestionLegibility)
	if !ok1 || !ok2 || !ok3 || !ok4 {
		t.Fatalf("response lacks an answer: %+v", resp.Answers)
	}
	return p.Noul, a.Noul, v, l
}

// TestSliceVerdicts judges the slices of seeds 0 and 1 (full, except in
// -short mode; seed 0 alone under the race detector) through checkmatch.Run and
// scores them with checkmatch.BuildReceipt: every verdict is accepted (the
// blurred checks get cannot_tell), no mismatch or unsigned check is
// cleared, both Nouls separate perfectly, and the legibility gap between
// clean and blurred checks is wide. It logs the metrics. The judgments run
// GOMAXPROCS at a time, as a user would run the offline reader.
func TestSliceVerdicts(t *testing.T) {
	seeds := []uint64{0, 1}
	if raceEnabled {
		seeds = seeds[:1]
	}
	for _, seed := range seeds {
		s := sliceOf(t, seed)
		run, err := checkmatch.Run(context.Background(), reader.New(reader.Options{}), "reader", s.Requests,
			checkmatch.RunOptions{Concurrency: runtime.GOMAXPROCS(0)})
		if err != nil {
			t.Fatal(err)
		}
		if run.Stopped != nil {
			t.Fatalf("seed %d: run stopped: %+v", seed, run.Stopped)
		}
		rec, err := checkmatch.BuildReceipt(run, checkmatch.ReceiptParts{})
		if err != nil {
			t.Fatal(err)
		}
		m := rec.Metrics
		t.Logf("seed %d: %d cases, accuracy %v, false-clear %v, cannot_tell %v, payee AUC %v ECE %.4f, amounts AUC %v ECE %.4f, legibility gap %.3f, wall %.2fs",
			seed, m.Cases, *m.Accuracy, *m.FalseClearRate, *m.CannotTellRate,
			*m.Nouls.PayeeMatches.ROCAUC, *m.Nouls.PayeeMatches.ECE,
			*m.Nouls.AmountsMatch.ROCAUC, *m.Nouls.AmountsMatch.ECE,
			*m.LegibilityGapCleanMinusLow, run.WallSeconds)
		for i, o := range run.Outcomes {
			if !rec.Cases[i].Correct {
				t.Errorf("seed %d %s: verdict %s, want one of %v", seed, o.CaseID, o.Verdict, o.Expected.Verdicts)
			}
		}
		if *m.FalseClearRate != 0 {
			t.Errorf("seed %d: false-clear rate %v, want 0", seed, *m.FalseClearRate)
		}
		if *m.Nouls.PayeeMatches.ROCAUC != 1 || *m.Nouls.AmountsMatch.ROCAUC != 1 {
			t.Errorf("seed %d: ROC-AUC payee %v amounts %v, want 1", seed, *m.Nouls.PayeeMatches.ROCAUC, *m.Nouls.AmountsMatch.ROCAUC)
		}
		if gap := *m.LegibilityGapCleanMinusLow; gap < 2 {
			t.Errorf("seed %d: legibility gap %v, want ≥ 2 levels", seed, gap)
		}
	}
}

// TestOtherRowsRegister pairs each clean render of seed 0 with the next
// row's register text (the first row's for the last): the check is fine, but it is not that row's check,
// so the answers must say the payee and amounts differ and the verdict
// must be a mismatch.
func TestOtherRowsRegister(t *testing.T) {
	s := sliceOf(t, 0)
	var clean []checkmatch.Request
	for _, r := range s.Requests {
		if r.Case.Variant == checkmatch.VariantClean {
			clean = append(clean, r)
		}
	}
	for i, r := range clean {
		other := clean[(i+1)%len(clean)].Case.Row
		t.Run(r.CaseID(), func(t *testing.T) {
			payee, amounts, verdict, _ := answers(t, judge(t, checkmatch.State(other), r.Media[0].Data))
			if payee > 0.05 || amounts > 0.05 {
				t.Errorf("payee_matches %.3f, amounts_match %.3f against row %d, want both ≤ 0.05", payee, amounts, other.Index)
			}
			if verdict.Choice != checkmatch.VerdictPayeeMismatch && verdict.Choice != checkmatch.VerdictAmountMismatch &&
				verdict.Choice != checkmatch.VerdictDateMismatch {
				t.Errorf("verdict %s (%.3f), want a mismatch", verdict.Choice, verdict.Confidence)
			}
			if p, _ := verdict.Probabilities.Get(checkmatch.VerdictConsistent); p > 0.01 {
				t.Errorf("P(consistent) = %.3f, want ≤ 0.01", p)
			}
		})
	}
}

// TestRegisterChanges keeps the render of r00:clean and changes one part
// of the register row at a time: each change gives its own verdict.
func TestRegisterChanges(t *testing.T) {
	s := sliceOf(t, 0)
	req := s.Requests[0]
	if req.CaseID() != "r00:clean" {
		t.Fatalf("first request is %s", req.CaseID())
	}
	row := req.Case.Row
	tests := []struct {
		name        string
		edit        func(r *checkmatch.RegisterRow)
		verdict     string
		payee, amts bool
	}{
		{"unchanged", func(*checkmatch.RegisterRow) {}, checkmatch.VerdictConsistent, true, true},
		{"payee", func(r *checkmatch.RegisterRow) { r.Payee = "Lanternfield Electrics" }, checkmatch.VerdictPayeeMismatch, false, true},
		{"amount by one cent", func(r *checkmatch.RegisterRow) { r.AmountCents++ }, checkmatch.VerdictAmountMismatch, true, false},
		{"date by one day", func(r *checkmatch.RegisterRow) { r.Date = r.Date.AddDays(1) }, checkmatch.VerdictDateMismatch, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := row
			tt.edit(&r)
			payee, amounts, verdict, _ := answers(t, judge(t, checkmatch.State(r), req.Media[0].Data))
			if verdict.Choice != tt.verdict || verdict.Confidence < 0.8 {
				t.Errorf("verdict %s (%.3f), want %s with ≥ 0.8", verdict.Choice, verdict.Confidence, tt.verdict)
			}
			if (payee > 0.5) != tt.payee || (amounts > 0.5) != tt.amts {
				t.Errorf("payee_matches %.3f, amounts_match %.3f, want payee %v amounts %v", payee, amounts, tt.payee, tt.amts)
			}
		})
	}
}

// TestEditedRender paints over one field of the r00:clean render with
// paper and draws other text there with the bundled font, or removes the
// pen strokes: the reader reads the new text and the verdict names the
// edit, against the unchanged register row.
func TestEditedRender(t *testing.T) {
	s := sliceOf(t, 0)
	req := s.Requests[0]
	state := req.State
	tests := []struct {
		name    string
		edit    func(img *image.RGBA)
		verdict string
		read    func(r reader.Reading) string
		want    string
	}{
		{"payee", func(img *image.RGBA) { redraw(img, checkform.Payee, 600, "Lanternfeld Electric") },
			checkmatch.VerdictPayeeMismatch, func(r reader.Reading) string { return r.Payee.Text }, "Lanternfeld Electric"},
		{"numeric amount", func(img *image.RGBA) { redraw(img, checkform.NumericAmount, 155, "$ 1,188.16") },
			checkmatch.VerdictAmountMismatch, func(r reader.Reading) string { return r.Numeric.Text }, "$ 1,188.16"},
		{"words amount", func(img *image.RGBA) {
			redraw(img, checkform.WordsAmount, 890, "One thousand one hundred eighty-nine and 15/100 DOLLARS")
		}, checkmatch.VerdictAmountMismatch, func(r reader.Reading) string { return r.Words.Text },
			"One thousand one hundred eighty-nine and 15/100 DOLLARS"},
		{"date", func(img *image.RGBA) { redraw(img, checkform.Date, 240, "April 27, 2025") },
			checkmatch.VerdictDateMismatch, func(r reader.Reading) string { return r.Date.Text }, "April 27, 2025"},
		{"signature removed", removePen, checkmatch.VerdictUnsigned, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			img := decode(t, req.Media[0].Data)
			tt.edit(img)
			if tt.read != nil {
				if got := tt.read(reader.Read(img)); got != tt.want {
					t.Errorf("read %q, want %q", got, tt.want)
				}
			}
			_, _, verdict, _ := answers(t, judge(t, state, encode(t, img)))
			if verdict.Choice != tt.verdict || verdict.Confidence < 0.8 {
				t.Errorf("verdict %s (%.3f), want %s with ≥ 0.8", verdict.Choice, verdict.Confidence, tt.verdict)
			}
		})
	}
}

// TestUnreadableImages: a blank sheet of paper, a white image and noise
// are not checks anyone can read; the reader must say cannot_tell with a
// low legibility, not a confident verdict.
func TestUnreadableImages(t *testing.T) {
	row := sliceOf(t, 0).Requests[0].Case.Row
	canvas := image.Rect(0, 0, checkform.Width, checkform.Height)
	uniform := func(c color.Color) *image.RGBA {
		img := image.NewRGBA(canvas)
		draw.Draw(img, canvas, image.NewUniform(c), image.Point{}, draw.Src)
		return img
	}
	noise := func(seed uint64) *image.RGBA {
		img := image.NewRGBA(canvas)
		rng := rand.New(rand.NewPCG(seed, 1))
		for i := range img.Pix {
			img.Pix[i] = uint8(rng.UintN(256))
			if i%4 == 3 {
				img.Pix[i] = 255
			}
		}
		return img
	}
	tests := []struct {
		name string
		img  *image.RGBA
	}{
		{"paper", uniform(checkform.Paper)},
		{"white", uniform(color.White)},
		{"ink", uniform(checkform.Ink)},
		{"noise", noise(1)},
		{"noise 2", noise(2)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, verdict, leg := answers(t, judge(t, checkmatch.State(row), encode(t, tt.img)))
			if verdict.Choice != checkmatch.VerdictCannotTell || verdict.Confidence < 0.9 {
				t.Errorf("verdict %s (%.3f), want cannot_tell with ≥ 0.9", verdict.Choice, verdict.Confidence)
			}
			if leg.Level() > 1 || leg.Score > 1.5 {
				t.Errorf("legibility level %d (score %.2f), want ≤ 1", leg.Level(), leg.Score)
			}
		})
	}
}

// TestUnsupportedQuestions: any question outside the check-match set, by
// name, kind or options, stops the judgment with an unsupported-capability
// error naming the question.
func TestUnsupportedQuestions(t *testing.T) {
	req := sliceOf(t, 0).Requests[0].Judgment("reader")
	replace := func(name string, q judgment.Question) []judgment.NamedQuestion {
		qs := checkmatch.Questions()
		for i := range qs {
			if qs[i].Name == name {
				qs[i].Question = q
				return qs
			}
		}
		return append(qs, judgment.NamedQuestion{Name: name, Question: q})
	}
	verdict := checkmatch.Questions()[2].Question.(judgment.Choice)
	tests := []struct {
		name, question string
		questions      []judgment.NamedQuestion
	}{
		{"other name", "sky_is_blue", replace("sky_is_blue", judgment.Noul{Instructions: "Is the sky blue?"})},
		{"noul as choice", "payee_matches", replace("payee_matches", verdict)},
		{"verdict with a label fewer", "verdict", replace("verdict", judgment.Choice{Criteria: verdict.Criteria[:5]})},
		{"verdict with another label", "verdict", replace("verdict", judgment.Choice{Criteria: append(
			append([]judgment.Criterion{}, verdict.Criteria[:5]...), judgment.Criterion{Label: "forged"})})},
		{"legibility of 3 levels", "legibility", replace("legibility", judgment.Score{Criteria: []string{"a", "b", "c"}})},
		{"legibility as noul", "legibility", replace("legibility", judgment.Noul{})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := req
			r.Questions = tt.questions
			_, err := reader.New(reader.Options{}).Judge(context.Background(), r)
			var target *judgment.ScoringUnsupportedCapabilityError
			if !errors.As(err, &target) || !judgment.IsGenerationError(err) {
				t.Fatalf("err = %v, want a ScoringUnsupportedCapabilityError", err)
			}
			if !strings.Contains(err.Error(), `"`+tt.question+`"`) {
				t.Errorf("err %q does not name question %q", err, tt.question)
			}
		})
	}
}

// TestVerdictOptionOrder: the option-order study permutes the verdict
// labels; the reader's distribution follows the labels, not the order.
func TestVerdictOptionOrder(t *testing.T) {
	req := sliceOf(t, 0).Requests[1].Judgment("reader") // r00:payee_changed
	qs := checkmatch.Questions()
	v := qs[2].Question.(judgment.Choice)
	rev := make([]judgment.Criterion, len(v.Criteria))
	for i, c := range v.Criteria {
		rev[len(rev)-1-i] = c
	}
	port := reader.New(reader.Options{})
	base, err := port.Judge(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	qs[2].Question = judgment.Choice{Instructions: v.Instructions, Criteria: rev}
	req.Questions = qs
	got, err := port.Judge(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := base.Choice(checkmatch.QuestionVerdict)
	g, _ := got.Choice(checkmatch.QuestionVerdict)
	if g.Choice != b.Choice || g.Choice != checkmatch.VerdictPayeeMismatch {
		t.Errorf("reversed options chose %s, original %s, want payee_mismatch", g.Choice, b.Choice)
	}
	for _, p := range b.Probabilities {
		if q, _ := g.Probabilities.Get(p.Label); math.Abs(q-p.P) > 1e-12 {
			t.Errorf("P(%s) = %v reversed, %v in order", p.Label, q, p.P)
		}
	}
	if g.Probabilities[0].Label != checkmatch.VerdictCannotTell {
		t.Errorf("reversed probabilities start with %s, want the first option cannot_tell", g.Probabilities[0].Label)
	}
}

// TestRequestErrors: every refused request is a generation error of the
// documented class, so a run stops cleanly.
func TestRequestErrors(t *testing.T) {
	good := sliceOf(t, 0).Requests[0].Judgment("reader")
	small := encode(t, image.NewRGBA(image.Rect(0, 0, 500, 220)))
	tests := []struct {
		name  string
		edit  func(r *judgment.Request)
		class string
		msg   string
	}{
		{"no image", func(r *judgment.Request) { r.Media = nil }, "ScoringUnsupportedCapabilityError", "got 0 images"},
		{"two images", func(r *judgment.Request) { r.Media = append(r.Media, r.Media[0]) }, "ScoringUnsupportedCapabilityError", "got 2 images"},
		{"jpeg", func(r *judgment.Request) { r.Media = []judgment.Image{{Data: r.Media[0].Data, MIMEType: "image/jpeg"}} },
			"ScoringUnsupportedCapabilityError", "image/png"},
		{"not a png", func(r *judgment.Request) { r.Media = []judgment.Image{{Data: []byte("GIF89a"), MIMEType: "image/png"}} },
			"ScoringValidationError", "not a readable PNG"},
		{"other size", func(r *judgment.Request) { r.Media = []judgment.Image{{Data: small, MIMEType: "image/png"}} },
			"ScoringUnsupportedCapabilityError", "got 500×220"},
		{"no register row", func(r *judgment.Request) { r.State = "The image shows one paper check." },
			"JudgmentValidationError", "check number is missing"},
		{"blank model", func(r *judgment.Request) { r.Model = " " }, "JudgmentValidationError", "model"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := good
			tt.edit(&r)
			_, err := reader.New(reader.Options{}).Judge(context.Background(), r)
			if !judgment.IsGenerationError(err) || judgment.ErrorClass(err) != tt.class {
				t.Fatalf("err = %v (class %q), want a %s", err, judgment.ErrorClass(err), tt.class)
			}
			if !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("err %q does not hold %q", err, tt.msg)
			}
		})
	}
}

// TestCancelled: a done context stops the judgment with a TransportError
// wrapping the context's error.
func TestCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := reader.New(reader.Options{}).Judge(ctx, sliceOf(t, 0).Requests[0].Judgment("reader"))
	var te *judgment.TransportError
	if !errors.As(err, &te) || !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want a TransportError wrapping context.Canceled", err)
	}
}

// TestDeterministicAndConcurrent: the same request gives the same answers,
// whether judged alone or from many goroutines at once.
func TestDeterministicAndConcurrent(t *testing.T) {
	s := sliceOf(t, 0)
	port := reader.New(reader.Options{})
	reqs := s.Requests[:7]
	want := make([]judgment.Response, len(reqs))
	for i, r := range reqs {
		var err error
		if want[i], err = port.Judge(context.Background(), r.Judgment("reader")); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	got := make([]judgment.Response, len(reqs))
	errs := make([]error, len(reqs))
	for i, r := range reqs {
		wg.Go(func() { got[i], errs[i] = port.Judge(context.Background(), r.Judgment("reader")) })
	}
	wg.Wait()
	for i := range reqs {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Errorf("%s: concurrent answers differ:\n%+v\n%+v", reqs[i].CaseID(), got[i], want[i])
		}
	}
}

// redraw paints the band of field t up to width pixels with paper and
// draws text there in ink with the bundled font, as the renderer would.
func redraw(img *image.RGBA, t checkform.Text, width int, text string) {
	face, err := checkform.NewFace(t.Size)
	if err != nil {
		panic(err)
	}
	asc := checkform.Ascent(face)
	band := image.Rect(t.X, t.Y, t.X+width, t.Y+asc+face.Metrics().Descent.Ceil())
	draw.Draw(img, band, image.NewUniform(checkform.Paper), image.Point{}, draw.Src)
	d := font.Drawer{Dst: img, Src: image.NewUniform(checkform.Ink), Face: face, Dot: fixed.P(t.X, t.Y+asc)}
	d.DrawString(text)
}

// removePen paints every bluish pixel of the signature box with paper.
func removePen(img *image.RGBA) {
	box := checkform.SignatureBox.Rect()
	for y := box.Min.Y; y < box.Max.Y; y++ {
		for x := box.Min.X; x < box.Max.X; x++ {
			c := img.RGBAAt(x, y)
			if int(c.B)-int(c.R) > 10 {
				img.SetRGBA(x, y, checkform.Paper)
			}
		}
	}
}

// decode decodes a render's PNG; renders decode as *image.RGBA.
func decode(t testing.TB, b []byte) *image.RGBA {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	m, ok := img.(*image.RGBA)
	if !ok {
		t.Fatalf("render decodes as %T", img)
	}
	return m
}

// encode writes img as a PNG without compression: the judge decodes the
// same pixels either way, and deflate is the slow part of these tests
// under the race detector (a noise image takes seconds).
func encode(t testing.TB, img image.Image) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := (&png.Encoder{CompressionLevel: png.NoCompression}).Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// FuzzJudge: whatever bytes arrive as the PNG, the reader either refuses
// them with a generation error or answers with finite probabilities that
// sum to 1.
func FuzzJudge(f *testing.F) {
	cases, err := checkmatch.Cases(0, 1)
	if err != nil {
		f.Fatal(err)
	}
	render, err := checkmatch.Render(cases[0])
	if err != nil {
		f.Fatal(err)
	}
	req := checkmatch.BuildRequest(cases[0], render).Judgment("reader")
	// Seeds stay small and cheap: a full render as a seed leaves the
	// fuzzer minimising it for minutes (11 executions in 20 s). A blank
	// form-sized PNG at best compression reaches the reader's whole path.
	var blank bytes.Buffer
	if err := (&png.Encoder{CompressionLevel: png.BestCompression}).Encode(&blank, image.NewGray(image.Rect(0, 0, checkform.Width, checkform.Height))); err != nil {
		f.Fatal(err)
	}
	f.Add(blank.Bytes())
	f.Add([]byte("\x89PNG\r\n\x1a\n"))
	port := reader.New(reader.Options{})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 64<<10 {
			return // larger inputs only slow the fuzzer; the decoder is the image package's
		}
		r := req
		r.Media = []judgment.Image{{Data: data, MIMEType: "image/png"}}
		resp, err := port.Judge(context.Background(), r)
		if err != nil {
			if !judgment.IsGenerationError(err) {
				t.Fatalf("err %v is not a generation error", err)
			}
			return
		}
		v, _ := resp.Choice(checkmatch.QuestionVerdict)
		l, _ := resp.Score(checkmatch.QuestionLegibility)
		sum := 0.0
		for _, p := range v.Probabilities {
			sum += p.P
		}
		lsum := 0.0
		for _, p := range l.Probabilities {
			lsum += p
		}
		for _, name := range []string{checkmatch.QuestionPayeeMatches, checkmatch.QuestionAmountsMatch} {
			n, _ := resp.Noul(name)
			if !(n.Noul >= 0 && n.Noul <= 1) {
				t.Fatalf("%s = %v", name, n.Noul)
			}
		}
		if math.Abs(sum-1) > 1e-9 || math.Abs(lsum-1) > 1e-9 {
			t.Fatalf("verdict probabilities sum to %v, legibility to %v", sum, lsum)
		}
	})
}
