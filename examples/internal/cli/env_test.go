package cli

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestOverlay(t *testing.T) {
	env := Overlay(map[string]string{"A": "flag"}, envOf(map[string]string{"A": "env", "B": "env", "E": ""}),
		map[string]string{"B": "default", "C": "default", "E": "default"})
	for _, tt := range []struct {
		key, want string
		ok        bool
	}{
		{"A", "flag", true}, {"B", "env", true}, {"C", "default", true}, {"D", "", false},
		{"E", "", true}, // set but empty stays set: defaults fill absent variables only
	} {
		v, ok := env(tt.key)
		assert.Equal(t, tt.ok, ok, tt.key)
		assert.Equal(t, tt.want, v, tt.key)
	}
}

func TestNewReceiptPath(t *testing.T) {
	dir := t.TempDir()
	taken := filepath.Join(dir, "taken.json")
	require.NoError(t, os.WriteFile(taken, nil, 0o644))
	fresh := filepath.Join(dir, "new.json")
	for _, tt := range []struct{ name, raw, path, err string }{
		{name: "fresh", raw: " " + fresh + " ", path: fresh},
		{name: "blank", raw: " ", err: "R not set"},
		{name: "taken", raw: taken, err: "R must name a new file: " + taken + " exists"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p, err := NewReceiptPath(envOf(map[string]string{"R": tt.raw}), "R")
			if tt.err != "" {
				var ue *UsageError
				require.ErrorAs(t, err, &ue)
				assert.EqualError(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.path, p)
		})
	}
}
