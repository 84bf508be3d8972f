package checkmatch

import (
	"runtime/debug"

	"github.com/typevet/typevet-go/internal/checkform"
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

// PNGKind names how [Render] encodes PNG files (see pngenc.go): 8-bit RGB,
// Up filter on every row, zlib level 1, no metadata chunks.
const PNGKind = "rgb8-up-zlib1"

// RendererInfo describes the renderer that drew a slice. A check receipt
// records it (pins.renderer) where typevet records pillow_version: renders,
// and so render and slice digests, are byte-identical only between builds
// with equal RendererInfo.
type RendererInfo struct {
	// Module is this module's path; ModuleVersion its version as the
	// running binary was built with it ("(devel)" in a work tree, "" when the
	// binary has no build information).
	Module        string `json:"module"`
	ModuleVersion string `json:"module_version"`
	// Font is the bundled font's name and FontSHA256 the SHA-256 of its
	// TrueType bytes.
	Font       string `json:"font"`
	FontSHA256 string `json:"font_sha256"`
	// XImageVersion is the golang.org/x/image version (font rasterizer,
	// vector strokes, bicubic rotation).
	XImageVersion string `json:"x_image_version"`
	// Blur is the blur algorithm of low-legibility faces ([BlurKind]).
	Blur string `json:"blur"`
	// PNG is the PNG encoding ([PNGKind]).
	PNG string `json:"png"`
}

// RendererPin returns the [RendererInfo] of this build. Versions come from
// the binary's build information when it has any, else from constants kept
// equal to go.mod.
func RendererPin() RendererInfo {
	info := RendererInfo{
		Module:        modulePath,
		Font:          checkform.FontName,
		FontSHA256:    checkform.FontSHA256,
		XImageVersion: xImageVersion,
		Blur:          BlurKind,
		PNG:           PNGKind,
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return info
	}
	if bi.Main.Path == modulePath {
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
	return info
}
