package main

import (
	"go/parser"
	"go/token"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDocFlags checks the flag table of the command's documentation
// against the flags run defines and the variables they override.
func TestDocFlags(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "main.go", nil, parser.ParseComments|parser.PackageClauseOnly)
	require.NoError(t, err)
	doc := f.Doc.Text()
	row := regexp.MustCompile(`(?m)^\t-([a-z-]+) [A-Z ]+?\s{2,}(TYPEVET_[A-Z_]+)`)
	documented := map[string]string{}
	for _, m := range row.FindAllStringSubmatch(doc, -1) {
		documented[m[1]] = m[2]
	}
	want := map[string]string{}
	for _, f := range help.Flags {
		if len(f.Vars) > 0 {
			want[f.Name] = f.Vars[0]
		}
	}
	assert.Equal(t, want, documented)
	assert.True(t, strings.Contains(doc, "go run ./examples/checkmatch -receipt"), "the doc shows the go run line")

	var stdout strings.Builder
	require.NoError(t, run(&stdout, &strings.Builder{}, []string{"-h"}, envOf(nil)))
	for name := range want {
		assert.Contains(t, stdout.String(), "-"+name, "-h lists -%s", name)
	}
}
