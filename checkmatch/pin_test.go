package checkmatch

import (
	"encoding/json"
	"os"
	"regexp"
	"runtime/debug"
	"testing"

	"github.com/typevet/typevet-go/internal/checkform"
	"github.com/typevet/typevet-go/receipt"
)

func TestRendererPin(t *testing.T) {
	pin := RendererPin()
	if pin.Module != "github.com/typevet/typevet-go" || pin.Font != "Go Regular" ||
		pin.FontSHA256 != checkform.FontDigest() || pin.Blur != blurKind || pin.PNG != pngKind {
		t.Errorf("RendererPin() = %+v", pin)
	}
	if pin.XImageVersion != xImageVersion {
		t.Errorf("x/image version %q from build info, constant %q: update xImageVersion", pin.XImageVersion, xImageVersion)
	}
	b, err := json.Marshal(pin)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"module":"github.com/typevet/typevet-go","module_version":"` + pin.ModuleVersion +
		`","font":"Go Regular","font_sha256":"` + checkform.FontSHA256 +
		`","x_image_version":"` + xImageVersion + `","blur":"pillow-extended-box-3pass","png":"rgb8-up-zlib1"}`
	if string(b) != want {
		t.Errorf("JSON = %s\nwant %s", b, want)
	}
}

// TestXImageVersionMatchesGoMod keeps the fallback constant equal to go.mod
// and to the build information of the test binary.
func TestXImageVersionMatchesGoMod(t *testing.T) {
	mod, err := os.ReadFile("../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^\s*golang\.org/x/image (v\S+)`).FindSubmatch(mod)
	if m == nil {
		t.Fatal("go.mod does not require golang.org/x/image")
	}
	if string(m[1]) != xImageVersion {
		t.Errorf("go.mod has golang.org/x/image %s, xImageVersion is %s", m[1], xImageVersion)
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == xImagePath && d.Version != xImageVersion {
				t.Errorf("build info has x/image %s, constant %s", d.Version, xImageVersion)
			}
		}
	}
}

// TestSnapshotRendererPin: a binary built from this module's tree (the
// test binary is one) pins the snapshot's commit and dirty state, the
// same under go run and go build; outside a checkout the build's version
// stays.
func TestSnapshotRendererPin(t *testing.T) {
	const commit = "0123456789abcdef0123456789abcdef01234567"
	build := RendererPin()
	for _, tt := range []struct {
		name string
		snap Snapshot
		want string
	}{
		{"clean", Snapshot{BaselineCommit: commit, WorkingTree: receipt.WorkingTree{DirtyPaths: []string{}}}, commit},
		{"dirty", Snapshot{BaselineCommit: commit, WorkingTree: receipt.WorkingTree{Dirty: true}}, commit + "+dirty"},
		{"no checkout", Snapshot{BaselineCommit: receipt.Unknown, WorkingTree: receipt.WorkingTree{Dirty: true}}, build.ModuleVersion},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.snap.RendererPin()
			if got.ModuleVersion != tt.want {
				t.Errorf("ModuleVersion = %q, want %q", got.ModuleVersion, tt.want)
			}
			got.ModuleVersion = build.ModuleVersion
			if got != build {
				t.Errorf("only module_version changes: %+v vs %+v", got, build)
			}
		})
	}
}

func TestRendererSameAs(t *testing.T) {
	a := RendererPin()
	b := a
	b.ModuleVersion = a.ModuleVersion + "+dirty"
	if !(&a).SameAs(&b) {
		t.Error("a module_version alone makes another renderer")
	}
	b.FontSHA256 = "00"
	if (&a).SameAs(&b) {
		t.Error("another font is the same renderer")
	}
	if !(*RendererInfo)(nil).SameAs(nil) || (&a).SameAs(nil) {
		t.Error("nil renderers")
	}
}
