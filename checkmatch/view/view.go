package view

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"github.com/typevet/typevet-go/calibration"
	"html/template"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/typevet/typevet-go/checkmatch"
	"github.com/typevet/typevet-go/checkmatch/stats"
)

// Input is one receipt to show.
type Input struct {
	// Name labels the receipt on the pages, usually its file name.
	Name string
	// SHA256 is the lower-case hex SHA-256 of the receipt file; shown when
	// set.
	SHA256 string
	// Receipt is the receipt, as [checkmatch.ReadReceipt] reads it (ours or
	// typevet's). It must have cases (a receipt head has none).
	Receipt checkmatch.Receipt
	// Calibration, for a calibrated run, is its calibration records
	// document (RECEIPT.calibration.json, [calibration.ReadSidecar]);
	// nil otherwise. The receipt page then draws each mapped Noul's
	// reliability diagram raw and calibrated, side by side. Records that
	// are not the receipt's are refused ([stats.ReceiptCalibration]).
	Calibration *calibration.Sidecar
}

// Options tune [Build]. The zero value writes half-scale views of the
// reproduced images.
type Options struct {
	// FullImages writes each reproduced image as the very PNG that was
	// judged (its file's SHA-256 is the receipt's render_sha256, about
	// 85 KB a check), instead of a lossless half-scale view of it (each
	// pixel the mean of a 2×2 block of judged pixels, about 35 KB).
	FullImages bool
	// Stats sets the intervals and the paired comparison's bootstrap
	// (level, resamples, seed, cluster); the zero value is package
	// checkmatch/stats' defaults: 95%, 10,000 resamples, seed 0,
	// clustered by register row.
	Stats stats.Options
	// CasesPerPage is the most case rows one page shows; 0 means
	// [DefaultCasesPerPage]. A receipt with more cases gets further
	// pages of its case table (receipt-1-cases-2.html, …), linked from
	// each, so that a large receipt's first page still loads quickly.
	CasesPerPage int
}

// DefaultCasesPerPage is the number of case rows per page unless
// [Options] say otherwise: a slice's 140 cases fit on one page many
// times over, and 100,000 cases make 200 pages of about 2 MB each.
const DefaultCasesPerPage = 500

// File is one file of a site.
type File struct {
	// Path is the file's slash-separated path inside the site directory,
	// e.g. "index.html" or "img/41ca…86d64.png".
	Path string
	// Data is the file's content.
	Data []byte
}

// Site is a built static site: HTML pages, their style sheet and script,
// and the check images. Every link inside it is relative, and nothing is
// loaded from the network, so it opens from the file system.
type Site struct {
	// Files are the site's files, sorted by path.
	Files []File
	// Receipts reports, per input in order, what its pages show.
	Receipts []ReceiptReport
	// Comparisons lists the side-by-side pages, one per pair of receipts
	// of the same slice, in input order.
	Comparisons []string
}

// ReceiptReport is what a site shows of one receipt.
type ReceiptReport struct {
	// Name is the input's name; Page the path of its page in the site.
	Name, Page string
	// Cases is the number of case rows; Wrong of them have an incorrect
	// verdict.
	Cases, Wrong int
	// Reproduced counts the cases whose image was re-rendered here with
	// the receipt's render_sha256; NotReproducible the others.
	Reproduced, NotReproducible int
	// Reason explains why images were not reproducible; "" when all were.
	Reason string
	// CasePages are the pages of the receipt's case table in order, Page
	// first ([Options.CasesPerPage]).
	CasePages []string
}

// Size returns the total size of the site's files in bytes.
func (s *Site) Size() int64 {
	var n int64
	for _, f := range s.Files {
		n += int64(len(f.Data))
	}
	return n
}

// File returns the content of the file at path p, or nil when the site
// has no such file.
func (s *Site) File(p string) []byte {
	i, ok := slices.BinarySearchFunc(s.Files, p, func(f File, p string) int { return strings.Compare(f.Path, p) })
	if !ok {
		return nil
	}
	return s.Files[i].Data
}

// WriteDir writes the site's files under dir, creating dir and its img
// subdirectory when missing. It never replaces a file: a file that exists
// already is an error, and the files written before it stay.
func (s *Site) WriteDir(dir string) error {
	for _, f := range s.Files {
		p := filepath.Join(dir, filepath.FromSlash(f.Path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		w, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			return err
		}
		_, err = w.Write(f.Data)
		if cerr := w.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
	}
	return nil
}

//go:embed templates/*.html assets/*
var content embed.FS

var pages = template.Must(template.New("").Funcs(funcs).ParseFS(content, "templates/*.html"))

// ErrNoReceipts is the error of [Build] without inputs.
var ErrNoReceipts = errors.New("view: no receipts to show")

// Build builds the site of inputs. With one receipt, index.html is its
// page. With more, index.html lists them, each has its own page
// (receipt-1.html, …) and every pair of receipts of the same slice (same
// dataset, seed and rows) gets a side-by-side page (compare-1-2.html, …).
//
// Every case's check is re-rendered from the receipt's generator seed and
// case id with [checkmatch.Render]; the image is shown only when the
// render's SHA-256 equals the case's render_sha256, and a case whose render
// differs is marked "render not reproducible here", with the reason.
//
// The same inputs give the same bytes. Build reads no file and no
// environment.
func Build(inputs []Input, opts Options) (*Site, error) {
	if len(inputs) == 0 {
		return nil, ErrNoReceipts
	}
	for i, in := range inputs {
		if in.Receipt.Cases == nil {
			return nil, fmt.Errorf("view: receipt %d (%s) has no cases: a receipt head cannot be shown", i+1, in.Name)
		}
		// What ReadReceipt checks, for receipts built in code, and the
		// recorded metrics the page shows beside the cases.
		if err := in.Receipt.Validate(); err != nil {
			return nil, fmt.Errorf("view: receipt %d (%s): %w", i+1, in.Name, err)
		}
		if in.Calibration != nil {
			if _, err := stats.ReceiptCalibration(in.Receipt, in.Calibration); err != nil {
				return nil, fmt.Errorf("view: receipt %d (%s): %w", i+1, in.Name, err)
			}
		}
		if err := in.Receipt.CheckMetrics(); err != nil {
			return nil, fmt.Errorf("view: receipt %d (%s): %w", i+1, in.Name, err)
		}
	}
	// The statistics run beside the renders.
	ivs := make([]intervals, len(inputs))
	cmps := map[[2]int]comparison{}
	var sg errgroup.Group
	for i, in := range inputs {
		sg.Go(func() error { ivs[i] = receiptIntervals(in.Receipt, opts.Stats); return nil })
	}
	var mu sync.Mutex
	for i := range inputs {
		for j := i + 1; j < len(inputs); j++ {
			if sameSlice(inputs[i].Receipt.Pins, inputs[j].Receipt.Pins) {
				sg.Go(func() error {
					c := compareStats(inputs[i].Receipt, inputs[j].Receipt, opts.Stats)
					mu.Lock()
					cmps[[2]int{i, j}] = c
					mu.Unlock()
					return nil
				})
			}
		}
	}
	rs, err := renders(inputs)
	sg.Wait()
	if err != nil {
		return nil, err
	}
	b := &builder{opts: opts, renders: rs, images: map[string]*imageFile{}, questions: questionViews()}
	site := &Site{}
	views := make([]*receiptView, len(inputs))
	for i, in := range inputs {
		page := "index.html"
		if len(inputs) > 1 {
			page = fmt.Sprintf("receipt-%d.html", i+1)
		}
		views[i] = b.receiptView(i+1, page, in, ivs[i])
		site.Receipts = append(site.Receipts, views[i].report)
	}
	if err := b.encodeImages(); err != nil {
		return nil, err
	}
	var nav []link
	if len(inputs) > 1 {
		nav = append(nav, link{Href: "index.html", Text: "All receipts"})
		for _, v := range views {
			nav = append(nav, link{Href: v.Page, Text: fmt.Sprintf("Receipt %d", v.Index)})
		}
	}
	var comparisons []*compareView
	for i := range views {
		for j := i + 1; j < len(views); j++ {
			if sameSlice(inputs[i].Receipt.Pins, inputs[j].Receipt.Pins) {
				c := b.compareView(views[i], views[j], inputs[i], inputs[j], cmps[[2]int{i, j}])
				comparisons = append(comparisons, c)
				site.Comparisons = append(site.Comparisons, c.Page)
				nav = append(nav, link{Href: c.Page, Text: fmt.Sprintf("Compare %d and %d", views[i].Index, views[j].Index)})
			}
		}
	}
	add := func(p string, data []byte) { site.Files = append(site.Files, File{Path: p, Data: data}) }
	exec := func(p, tmpl string, data any) error {
		var buf bytes.Buffer
		if err := pages.ExecuteTemplate(&buf, tmpl, data); err != nil {
			return fmt.Errorf("view: %s: %w", p, err)
		}
		add(p, buf.Bytes())
		return nil
	}
	per := opts.CasesPerPage
	if per <= 0 {
		per = DefaultCasesPerPage
	}
	for i, v := range views {
		pages := casePages(v.Page, len(v.Cases), per)
		site.Receipts[i].CasePages = pages
		for k, p := range pages {
			pv := *v
			pv.First = k*per + 1
			pv.PageCases = v.Cases[k*per : min(len(v.Cases), (k+1)*per)]
			pv.Last = pv.First + len(pv.PageCases) - 1
			if len(pages) > 1 {
				pv.CasePages = make([]link, len(pages))
				for j, q := range pages {
					pv.CasePages[j] = link{Href: q, Text: fmt.Sprintf("%d–%d", j*per+1, min(len(v.Cases), (j+1)*per)), Current: j == k}
				}
			}
			tmpl, title := "receipt.html", v.Title
			if k > 0 {
				tmpl, title = "cases.html", fmt.Sprintf("%s: cases %d–%d", v.Title, pv.First, pv.Last)
			}
			if err := exec(p, tmpl, pageData{Title: title, Nav: markCurrent(nav, v.Page), Receipt: &pv}); err != nil {
				return nil, err
			}
		}
	}
	for _, c := range comparisons {
		if err := exec(c.Page, "compare.html", pageData{Title: c.Title, Nav: markCurrent(nav, c.Page), Compare: c}); err != nil {
			return nil, err
		}
	}
	if len(inputs) > 1 {
		idx := &indexView{Receipts: views, Comparisons: comparisons}
		if err := exec("index.html", "index.html", pageData{Title: "Check-match receipts", Nav: markCurrent(nav, "index.html"), Index: idx}); err != nil {
			return nil, err
		}
	}
	for _, name := range []string{"style.css", "view.js"} {
		data, err := content.ReadFile("assets/" + name)
		if err != nil {
			return nil, err
		}
		add(name, data)
	}
	for _, img := range b.images {
		add(img.path, img.data)
		if img.fullPath != img.path {
			add(img.fullPath, img.png)
		}
	}
	slices.SortFunc(site.Files, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	return site, nil
}

// casePages returns the pages of a case table of n rows, per rows a page:
// page itself first, then page's stem with "-cases-2.html", ….
func casePages(page string, n, per int) []string {
	out := []string{page}
	stem := strings.TrimSuffix(page, ".html")
	for k := 2; (k-1)*per < n; k++ {
		out = append(out, fmt.Sprintf("%s-cases-%d.html", stem, k))
	}
	return out
}

// sameSlice reports whether two receipts judged the same slice: the same
// dataset, generator seed and register rows (their renders, and so their
// slice digests, may still differ).
func sameSlice(a, b checkmatch.Pins) bool {
	return a.Dataset == b.Dataset && a.GeneratorSeed == b.GeneratorSeed && a.RegisterRows == b.RegisterRows
}

// imageFile is one image file of the site, named by the render's SHA-256.
type imageFile struct {
	path     string
	fullPath string // the judged PNG: path itself with Options.FullImages
	c        checkmatch.Case
	png      []byte // the judged PNG
	data     []byte // what is written: png itself or its half-scale view
	w, h     int
}

// builder holds what the pages of one site share.
type builder struct {
	opts      Options
	renders   map[sliceKey]map[string]render
	images    map[string]*imageFile // by render SHA-256
	questions []questionView
}

// image returns the site image of a reproduced render, adding it once.
func (b *builder) image(r render) *imageFile {
	if f, ok := b.images[r.sha256]; ok {
		return f
	}
	f := &imageFile{path: path.Join("img", r.sha256+".png"), c: r.c, png: r.png}
	f.fullPath = f.path
	if !b.opts.FullImages {
		f.fullPath = path.Join("img", "full", r.sha256+".png")
	}
	b.images[r.sha256] = f
	return f
}

// encodeImages fills in every image's data: the judged PNG, or its
// half-scale view, made in parallel.
func (b *builder) encodeImages() error {
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	for _, f := range b.images {
		if b.opts.FullImages {
			f.data = f.png
			continue
		}
		g.Go(func() error {
			var err error
			if f.data, err = halfScaleCase(f.c); err != nil {
				return fmt.Errorf("view: half-scale image of %s: %w", f.c.ID(), err)
			}
			return nil
		})
	}
	return g.Wait()
}

// link is one navigation link; Current marks the page's own.
type link struct {
	Href, Text string
	Current    bool
}

func markCurrent(nav []link, page string) []link {
	out := slices.Clone(nav)
	for i := range out {
		out[i].Current = out[i].Href == page
	}
	return out
}

// pageData is what every page template gets; one of Receipt, Compare and
// Index is set.
type pageData struct {
	Title   string
	Nav     []link
	Receipt *receiptView
	Compare *compareView
	Index   *indexView
}

// indexView is the page listing several receipts.
type indexView struct {
	Receipts    []*receiptView
	Comparisons []*compareView
}
