package cli

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
)

func envOf(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func TestRequireLive(t *testing.T) {
	for v, want := range map[string]bool{"1": true, " TRUE ": true, "yes": true, "On": true, "0": false, "": false, "no": false, "y": false} {
		assert.Equal(t, want, RequireLive(envOf(map[string]string{RequireLiveEnv: v})), "%q", v)
	}
	assert.False(t, RequireLive(envOf(nil)), "unset")
}

// TestLiveReceipt runs the rule on a recording testing.TB: set → the path;
// unset → skip; unset with TYPEVET_REQUIRE_LIVE on → fail.
func TestLiveReceipt(t *testing.T) {
	tests := []struct {
		name            string
		env             map[string]string
		path            string
		skipped, failed bool
	}{
		{name: "set", env: map[string]string{"R": " /tmp/r.json "}, path: "/tmp/r.json"},
		{name: "unset", env: nil, skipped: true},
		{name: "blank", env: map[string]string{"R": " "}, skipped: true},
		{name: "required", env: map[string]string{RequireLiveEnv: "yes"}, failed: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recordingTB{TB: t}
			var got string
			done := make(chan struct{})
			go func() { // Skip and Fatal end the goroutine
				defer close(done)
				got = LiveReceipt(rec, "R", envOf(tt.env))
			}()
			<-done
			assert.Equal(t, tt.path, got)
			assert.Equal(t, tt.skipped, rec.skipped)
			assert.Equal(t, tt.failed, rec.failed)
		})
	}
}

type recordingTB struct {
	testing.TB
	skipped, failed bool
}

func (r *recordingTB) Helper()               {}
func (r *recordingTB) Skip(...any)           { r.skipped = true; runtime.Goexit() }
func (r *recordingTB) Fatalf(string, ...any) { r.failed = true; runtime.Goexit() }

func TestRepoRoot(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "a", "b")
	assert.NoError(t, os.MkdirAll(sub, 0o755))
	assert.NoError(t, os.Mkdir(filepath.Join(dir, ".git"), 0o755))
	t.Chdir(sub)
	got, err := filepath.EvalSymlinks(RepoRoot())
	assert.NoError(t, err)
	want, _ := filepath.EvalSymlinks(dir)
	assert.Equal(t, want, got)
}
