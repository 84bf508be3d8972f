package view_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/typevet/typevet-go/checkmatch"
	"github.com/typevet/typevet-go/checkmatch/stats"
	"github.com/typevet/typevet-go/checkmatch/view"
)

// fast keeps the bootstrap of the unit tests short; the statistics
// themselves are package checkmatch/stats' to test.
var fast = view.Options{Stats: stats.Options{Resamples: 200}}

func build(t *testing.T, opts view.Options, inputs ...view.Input) *view.Site {
	t.Helper()
	site, err := view.Build(inputs, opts)
	if err != nil {
		t.Fatal(err)
	}
	return site
}

func page(t *testing.T, site *view.Site, p string) string {
	t.Helper()
	b := site.File(p)
	if b == nil {
		t.Fatalf("the site has no %s", p)
	}
	return string(b)
}

var (
	rowRE = regexp.MustCompile(`<tr data-case="([^"]+)" data-variant="[^"]*" data-result="(right|wrong)" data-falseclear="(true|false)" data-cannottell="(true|false)">`)
	imgRE = regexp.MustCompile(`<img src="(img/[0-9a-f]{64}\.png)" width="(\d+)" height="(\d+)"`)
)

// rows returns the case rows of a receipt page by case id: the row's HTML
// up to the next row.
func rows(t *testing.T, html string) map[string]string {
	t.Helper()
	out := map[string]string{}
	locs := rowRE.FindAllStringSubmatchIndex(html, -1)
	for i, l := range locs {
		end := len(html)
		if i+1 < len(locs) {
			end = locs[i+1][0]
		}
		out[html[l[2]:l[3]]] = html[l[0]:end]
	}
	return out
}

func TestTypevetReceiptImagesNotReproducible(t *testing.T) {
	tv := typevetReceipt(t)
	if raceEnabled || testing.Short() {
		t.Skip("renders 140 checks: too slow for -race and -short")
	}
	site := build(t, fast, view.Input{Name: "check_match_vllm_receipt.json", Receipt: tv})
	rep := site.Receipts[0]
	if rep.Cases != 140 || rep.Reproduced != 0 || rep.NotReproducible != 140 || rep.Wrong != 10 {
		t.Errorf("report %+v: want 140 cases, 10 wrong, 0 reproduced, 140 not reproducible", rep)
	}
	if !strings.Contains(rep.Reason, "Pillow 12.3.0") {
		t.Errorf("reason %q does not name Pillow 12.3.0", rep.Reason)
	}
	html := page(t, site, "index.html")
	if n := strings.Count(html, `<div class="norender"`); n != 140 {
		t.Errorf("%d cases marked not reproducible, want 140", n)
	}
	if strings.Contains(html, "<img") {
		t.Error("the typevet page shows an image")
	}
	for _, f := range site.Files {
		if strings.HasPrefix(f.Path, "img/") {
			t.Errorf("the site has an image %s for a receipt whose renders differ", f.Path)
		}
	}
	// Everything but the images: summary, metrics with intervals, charts.
	for _, want := range []string{
		"google/gemma-4-31B-it", "vllm", "Pillow 12.3.0 (typevet)", "842da3794eaa…", "ce63dddd0134…",
		"18 min 19.5 s", "not recorded; 140 cases in", "92.9%", "130 of 140", "95% Wilson [",
		"95% bootstrap [", "Reliability diagram of payee_matches", "Reliability diagram of amounts_match",
		`data-table="cases"`,
	} {
		if !strings.Contains(html, want) {
			t.Errorf("the typevet page lacks %q", want)
		}
	}
	got := rows(t, html)
	if len(got) != 140 {
		t.Fatalf("%d case rows, want 140", len(got))
	}
	wrong := 0
	for _, c := range tv.Cases {
		row := got[c.CaseID]
		if row == "" {
			t.Errorf("no row for %s", c.CaseID)
			continue
		}
		if !c.Correct {
			wrong++
			if !strings.Contains(row, `data-result="wrong"`) {
				t.Errorf("%s is wrong in the receipt but not marked wrong", c.CaseID)
			}
		}
	}
	if wrong != 10 {
		t.Errorf("the fixture has %d wrong cases, want 10", wrong)
	}
}

func TestOurReceiptImagesReproduced(t *testing.T) {
	r := firstCases(mixedReceipt(t), small)
	for _, full := range []bool{false, true} {
		t.Run(fmt.Sprintf("full=%v", full), func(t *testing.T) {
			opts := fast
			opts.FullImages = full
			site := build(t, opts, view.Input{Name: "ours.json", Receipt: r})
			rep := site.Receipts[0]
			if rep.Reproduced != small || rep.NotReproducible != 0 || rep.Reason != "" {
				t.Fatalf("report %+v: want all %d reproduced", rep, small)
			}
			html := page(t, site, "index.html")
			byID := rows(t, html)
			want := 500
			if full {
				want = 1000
			}
			for _, c := range r.Cases {
				m := imgRE.FindStringSubmatch(byID[c.CaseID])
				if m == nil {
					t.Fatalf("%s has no image", c.CaseID)
				}
				if m[1] != "img/"+c.RenderSHA256+".png" || m[2] != fmt.Sprint(want) {
					t.Errorf("%s: image %s width %s, want img/%s.png width %d", c.CaseID, m[1], m[2], c.RenderSHA256, want)
				}
				data := site.File(m[1])
				cfg, err := png.DecodeConfig(bytes.NewReader(data))
				if err != nil || cfg.Width != want || cfg.Height != want*440/1000 {
					t.Errorf("%s: %v, %dx%d", m[1], err, cfg.Width, cfg.Height)
				}
				if full {
					if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != c.RenderSHA256 {
						t.Errorf("%s: the full image is not the judged PNG", c.CaseID)
					}
				}
			}
		})
	}
}

// TestHalfScaleIsTheJudgedImage checks every pixel of one half-scale view
// against the mean of the judged 2×2 block.
func TestHalfScaleIsTheJudgedImage(t *testing.T) {
	r := firstCases(mixedReceipt(t), 7)
	site := build(t, fast, view.Input{Name: "ours.json", Receipt: r})
	cases, err := checkmatch.Cases(r.Pins.GeneratorSeed, r.Pins.RegisterRows)
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{0, 6} { // sharp and blurred
		b, err := checkmatch.Render(cases[i])
		if err != nil {
			t.Fatal(err)
		}
		if sum := sha256.Sum256(b); hex.EncodeToString(sum[:]) != r.Cases[i].RenderSHA256 {
			t.Fatalf("%s: the render is not the judged PNG", cases[i].ID())
		}
		decoded, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		judged := decoded.(*image.RGBA)
		half, err := png.Decode(bytes.NewReader(site.File("img/" + r.Cases[i].RenderSHA256 + ".png")))
		if err != nil {
			t.Fatal(err)
		}
		h := half.(*image.RGBA)
		for y := range h.Rect.Dy() {
			for x := range h.Rect.Dx() {
				for k := range 4 {
					at := func(dx, dy int) uint { return uint(judged.Pix[(2*y+dy)*judged.Stride+4*(2*x+dx)+k]) }
					want := uint8((at(0, 0) + at(1, 0) + at(0, 1) + at(1, 1) + 2) / 4)
					if got := h.Pix[y*h.Stride+4*x+k]; got != want {
						t.Fatalf("%s: pixel (%d, %d) channel %d is %d, want %d", cases[i].ID(), x, y, k, got, want)
					}
				}
			}
		}
	}
}

func TestTamperedDigestIsMarked(t *testing.T) {
	r := firstCases(mixedReceipt(t), small)
	tampered := r.Cases[3].CaseID
	r.Cases[3].RenderSHA256 = strings.Repeat("ab", 32)
	site := build(t, fast, view.Input{Name: "tampered.json", Receipt: r})
	rep := site.Receipts[0]
	if rep.Reproduced != small-1 || rep.NotReproducible != 1 {
		t.Errorf("report %+v: want %d reproduced, 1 not", rep, small-1)
	}
	if !strings.Contains(rep.Reason, "renderer pin equals this build's") {
		t.Errorf("reason %q", rep.Reason)
	}
	byID := rows(t, page(t, site, "index.html"))
	for id, want := range map[string]string{
		tampered: "the receipt abababababab…",
	} {
		row := byID[id]
		if strings.Contains(row, "<img") || !strings.Contains(row, "render not reproducible here") || !strings.Contains(row, want) {
			t.Errorf("row %s is not marked not reproducible with %q:\n%s", id, want, row)
		}
	}
	if !strings.Contains(byID[r.Cases[5].CaseID], "<img") {
		t.Error("an untouched case lost its image")
	}
}

func TestDeterministic(t *testing.T) {
	inputs := []view.Input{{Name: "a.json", Receipt: firstCases(mixedReceipt(t), small)}, {Name: "b.json", Receipt: firstCases(mixedReceiptB(t), small)}}
	a, b := build(t, fast, inputs...), build(t, fast, inputs...)
	if len(a.Files) != len(b.Files) {
		t.Fatalf("%d files, then %d", len(a.Files), len(b.Files))
	}
	for i := range a.Files {
		if a.Files[i].Path != b.Files[i].Path || !bytes.Equal(a.Files[i].Data, b.Files[i].Data) {
			t.Errorf("file %s differs between two builds", a.Files[i].Path)
		}
	}
}

func TestComparePage(t *testing.T) {
	a, b := firstCases(mixedReceipt(t), small), firstCases(mixedReceiptB(t), small)
	tv := firstCases(typevetReceipt(t), small)
	tv.Pins.RegisterRows = a.Pins.RegisterRows // 3 under the race detector
	site := build(t, fast,
		view.Input{Name: "a.json", Receipt: a},
		view.Input{Name: "b.json", Receipt: b},
		view.Input{Name: "typevet.json", Receipt: tv},
	)
	if want := []string{"compare-1-2.html", "compare-1-3.html", "compare-2-3.html"}; fmt.Sprint(site.Comparisons) != fmt.Sprint(want) {
		t.Errorf("comparisons %v, want %v", site.Comparisons, want)
	}
	cmp, err := stats.Compare(a, b, fast.Stats)
	if err != nil {
		t.Fatal(err)
	}
	html := page(t, site, "compare-1-2.html")
	want := fmt.Sprintf("%d right → wrong, %d wrong → right, two-sided p = %.4g.", cmp.McNemar.B, cmp.McNemar.C, cmp.McNemar.PValue)
	if !strings.Contains(html, want) {
		t.Errorf("the side-by-side page lacks the McNemar line %q", want)
	}
	kinds := regexp.MustCompile(`<tr data-case="([^"]+)" data-variant="[^"]*" data-kind="(\w+)">`).FindAllStringSubmatch(html, -1)
	if len(kinds) != small {
		t.Fatalf("%d rows, want %d", len(kinds), small)
	}
	if len(cmp.Discordant) == 0 {
		t.Fatal("the two test runs have no discordant case")
	}
	// The discordant rows come first, in stats' list of discordant pairs
	// (right → wrong first).
	var wantFirst []string
	for _, d := range cmp.Discordant {
		if d.ACorrect {
			wantFirst = append(wantFirst, d.CaseID)
		}
	}
	for _, d := range cmp.Discordant {
		if !d.ACorrect {
			wantFirst = append(wantFirst, d.CaseID)
		}
	}
	for i, k := range kinds {
		if i < len(wantFirst) {
			if k[1] != wantFirst[i] || k[2] != "discordant" {
				t.Errorf("row %d is %s (%s), want discordant %s", i, k[1], k[2], wantFirst[i])
			}
		} else if k[2] == "discordant" {
			t.Errorf("row %d, %s, is discordant after the discordant block", i, k[1])
		}
	}
	// Across renderers: paired by case id, the test refused with its reason.
	other := page(t, site, "compare-1-3.html")
	if !strings.Contains(other, "No paired statistics: ") || strings.Contains(other, "McNemar test over") {
		t.Error("the side-by-side page of two renders shows a paired test")
	}
	index := page(t, site, "index.html")
	for _, p := range []string{"receipt-1.html", "receipt-2.html", "receipt-3.html", "compare-1-2.html"} {
		if !strings.Contains(index, `href="`+p+`"`) {
			t.Errorf("the index does not link %s", p)
		}
	}
}

// TestEscaping checks that text from a receipt never becomes markup.
func TestEscaping(t *testing.T) {
	r := firstCases(typevetReceipt(t), small)
	r.Model = `<script>alert("model")</script>`
	r.Stopped = &checkmatch.Stopped{Index: small, CaseID: `"><img src=x onerror=alert(1)>`, ErrorClass: "TransportError", Message: `</td><script>alert(2)</script>`}
	site := build(t, fast, view.Input{Name: `<b>name</b>`, Receipt: r})
	html := page(t, site, "index.html")
	for _, bad := range []string{"<script>alert", "<img src=x", "<b>name</b>"} {
		if strings.Contains(html, bad) {
			t.Errorf("receipt text %q reached the page as markup", bad)
		}
	}
	if !strings.Contains(html, "&lt;script&gt;alert(&#34;model&#34;)&lt;/script&gt;") {
		t.Error("the model name is not shown escaped")
	}
}

func TestBuildErrors(t *testing.T) {
	if _, err := view.Build(nil, view.Options{}); !errors.Is(err, view.ErrNoReceipts) {
		t.Errorf("no inputs: %v, want ErrNoReceipts", err)
	}
	head := typevetReceipt(t)
	head.Cases = nil
	_, err := view.Build([]view.Input{{Name: "head.json", Receipt: head}}, view.Options{})
	if err == nil || !strings.Contains(err.Error(), "head.json") || !strings.Contains(err.Error(), "has no cases") {
		t.Errorf("a receipt head: %v", err)
	}
	// Values no run writes are refused (checkmatch.Receipt.Validate and
	// CheckMetrics), not shown: a verdict or variant that is markup, a
	// case of a row the slice does not have, a forged metric.
	for _, tt := range []struct {
		name string
		edit func(r *checkmatch.Receipt)
		want string
	}{
		{"markup verdict", func(r *checkmatch.Receipt) { r.Cases[0].Verdict = `"><img src=x onerror=alert(1)>` }, "verdict: unknown verdict label"},
		{"markup variant", func(r *checkmatch.Receipt) { r.Cases[1].Variant = `</td><script>alert(2)</script>` }, "is not \"rNN:</td>"},
		{"row beyond the slice", func(r *checkmatch.Receipt) { r.Cases[4].CaseID = "r99:wrong_date" }, "row 99 is not below pins.register_rows 20"},
		{"forged accuracy", func(r *checkmatch.Receipt) { r.Metrics.Accuracy = ptr(0.99) }, "metrics: the block is not the one the cases give (accuracy is 0.99"},
	} {
		r := firstCases(typevetReceipt(t), small)
		tt.edit(&r)
		_, err := view.Build([]view.Input{{Name: "bad.json", Receipt: r}}, view.Options{})
		if err == nil || !strings.Contains(err.Error(), "view: receipt 1 (bad.json): ") || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want %q", tt.name, err, tt.want)
		}
	}
}

func TestWriteDir(t *testing.T) {
	site := build(t, fast, view.Input{Name: "typevet.json", Receipt: firstCases(typevetReceipt(t), small)})
	dir := filepath.Join(t.TempDir(), "site")
	if err := site.WriteDir(dir); err != nil {
		t.Fatal(err)
	}
	for _, f := range site.Files {
		got, err := os.ReadFile(filepath.Join(dir, f.Path))
		if err != nil || !bytes.Equal(got, f.Data) {
			t.Errorf("%s: %v or other bytes", f.Path, err)
		}
	}
	if err := site.WriteDir(dir); !errors.Is(err, os.ErrExist) {
		t.Errorf("writing over a site: %v, want an error that the file exists", err)
	}
	if site.Size() < 50_000 {
		t.Errorf("size %d is implausibly small", site.Size())
	}
}

// TestAssetsAreLocal checks that no page or asset reaches the network.
func TestAssetsAreLocal(t *testing.T) {
	site := build(t, fast,
		view.Input{Name: "a.json", Receipt: firstCases(mixedReceipt(t), small)},
		view.Input{Name: "b.json", Receipt: firstCases(mixedReceiptB(t), small)},
	)
	remote := regexp.MustCompile(`(?i)(src|href)\s*=\s*"(https?:)?//|url\(\s*['"]?(https?:)?//|@import`)
	for _, f := range site.Files {
		if strings.HasSuffix(f.Path, ".png") {
			continue
		}
		if m := remote.FindString(string(f.Data)); m != "" {
			t.Errorf("%s loads from the network: %q", f.Path, m)
		}
	}
}

func TestStoppedRunShowsWhy(t *testing.T) {
	r := firstCases(typevetReceipt(t), 5)
	r.Stopped = &checkmatch.Stopped{Index: 5, CaseID: "r00:low_legibility", ErrorClass: "TransportError", Message: "connection refused", Discarded: 2}
	html := page(t, build(t, fast, view.Input{Name: "stopped.json", Receipt: r}), "index.html")
	for _, want := range []string{"The run stopped early", "r00:low_legibility (index 5)", "TransportError", "connection refused", "Discarded in flight"} {
		if !strings.Contains(html, want) {
			t.Errorf("the page of a stopped run lacks %q", want)
		}
	}
	if n := len(rows(t, html)); n != 5 {
		t.Errorf("%d case rows, want the 5 kept", n)
	}
}

// TestCompareSameSliceOtherRendererVersion: two runs of one slice (the
// same slice_sha256) whose renderer pins differ only in module_version,
// as the same code built "+dirty" gives, get the paired tests, with the
// pin named as a note, not "no paired statistics".
func TestCompareSameSliceOtherRendererVersion(t *testing.T) {
	a, b := firstCases(mixedReceipt(t), small), firstCases(mixedReceiptB(t), small)
	dirty := *b.Pins.Renderer
	dirty.ModuleVersion += "+dirty"
	b.Pins.Renderer = &dirty
	site := build(t, fast, view.Input{Name: "a.json", Receipt: a}, view.Input{Name: "b.json", Receipt: b})
	html := page(t, site, "compare-1-2.html")
	for _, want := range []string{
		"Exact McNemar test over the",
		"Mid-p McNemar test",
		"Register-row sign-flip test: net change",
		"Assumes register rows independent; pairs within a row may be correlated.",
		"these differ between the runs and may explain a difference: model, pins.renderer.module_version",
	} {
		if !strings.Contains(html, want) {
			t.Errorf("the side-by-side page lacks %q", want)
		}
	}
	if strings.Contains(html, "No paired statistics") {
		t.Error("a renderer module_version refused the paired statistics")
	}
}
