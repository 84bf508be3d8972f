package checkmatch

import (
	"runtime/debug"

	"github.com/typevet/typevet-go/internal/checkform"
	"github.com/typevet/typevet-go/receipt"
)

// modulePath is this module's import path.
const modulePath = "github.com/typevet/typevet-go"

// xImagePath and xImageVersion name the golang.org/x/image module that
// provides the font, rasterizers and rotation; xImageVersion is kept equal
// to go.mod (a test checks) and used when the binary carries no build
// information.
const (
	xImagePath    = "golang.org/x/image"
	xImageVersion = "v0.48.0"
)

// pngKind names how [Render] encodes PNG files (see pngenc.go): 8-bit RGB,
// Up filter on every row, zlib level 1, no metadata chunks.
const pngKind = "rgb8-up-zlib1"

// RendererInfo describes the renderer that drew a slice. A check receipt
// records it (pins.renderer) where typevet records pillow_version: renders,
// and so render and slice digests, are byte-identical only between builds
// with equal RendererInfo.
type RendererInfo struct {
	// Module is this module's path. ModuleVersion is what decides its
	// code: the module version when the binary uses this module as a
	// dependency ("v0.3.0"); when the binary is built from this module's
	// own tree, the tree's commit with "+dirty" when the working tree
	// differs from it ([Snapshot.RendererPin]; the same under go run and
	// go build), "(devel)" when [RendererPin] alone cannot tell, "" when
	// the binary has no build information.
	Module        string `json:"module"`
	ModuleVersion string `json:"module_version"`
	// Font is the bundled font's name and FontSHA256 the SHA-256 of its
	// TrueType bytes.
	Font       string `json:"font"`
	FontSHA256 string `json:"font_sha256"`
	// XImageVersion is the golang.org/x/image version (font rasterizer,
	// vector strokes, bicubic rotation).
	XImageVersion string `json:"x_image_version"`
	// Blur is the blur algorithm of low-legibility faces:
	// "pillow-extended-box-3pass", Pillow's GaussianBlur.
	Blur string `json:"blur"`
	// PNG is the PNG encoding: "rgb8-up-zlib1" (8-bit RGB, Up filter on
	// every row, zlib level 1, no metadata chunks).
	PNG string `json:"png"`
}

// RendererPin returns the [RendererInfo] of this build. Versions come from
// the binary's build information when it has any, else from constants kept
// equal to go.mod. Built from this module's own tree, the build
// information says "(devel)" under go run and a pseudo-version under go
// build; a receipt pins [Snapshot.RendererPin] instead, which names the
// commit and dirty state in both.
func RendererPin() RendererInfo {
	info, _ := rendererPin()
	return info
}

// rendererPin is [RendererPin] and whether the binary is built from this
// module's own tree (the main module), whose version says nothing
// reliable about the code.
func rendererPin() (RendererInfo, bool) {
	info := RendererInfo{
		Module:        modulePath,
		Font:          checkform.FontName,
		FontSHA256:    checkform.FontSHA256,
		XImageVersion: xImageVersion,
		Blur:          blurKind,
		PNG:           pngKind,
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return info, false
	}
	main := bi.Main.Path == modulePath
	if main {
		info.ModuleVersion = bi.Main.Version
	}
	for _, dep := range bi.Deps {
		m := dep
		if m.Replace != nil {
			m = m.Replace
		}
		switch dep.Path {
		case modulePath:
			info.ModuleVersion = m.Version
		case xImagePath:
			info.XImageVersion = m.Version
		}
	}
	return info, main
}

// RendererPin returns the renderer pin a receipt of a run with this
// snapshot records: [RendererPin], except that a binary built from this
// module's own tree pins the snapshot's baseline commit, with "+dirty"
// when its working tree is dirty (or unknown), so go run and go build of
// one tree pin the same text. Outside a git checkout (baseline
// "unknown") the build's own version stays.
func (s Snapshot) RendererPin() RendererInfo {
	info, main := rendererPin()
	if !main || s.BaselineCommit == "" || s.BaselineCommit == receipt.Unknown {
		return info
	}
	info.ModuleVersion = s.BaselineCommit
	if s.WorkingTree.Dirty {
		info.ModuleVersion += "+dirty"
	}
	return info
}

// SameAs reports whether r and o describe renderers that draw the same
// images: every field but ModuleVersion equal (the font and its digest,
// the image library, blur and PNG encoding). ModuleVersion says where the
// code was built (a commit, "+dirty" for an untracked file, "(devel)"
// under a replace) and the code digests decide the rest, so a comparison
// of two runs of one slice names it as a note, not a difference of slice.
// Both nil (typevet's receipts) is the same; one nil is not.
func (r *RendererInfo) SameAs(o *RendererInfo) bool {
	if r == nil || o == nil {
		return r == nil && o == nil
	}
	x, y := *r, *o
	x.ModuleVersion, y.ModuleVersion = "", ""
	return x == y
}
