package receipt

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

func ptr[T any](v T) *T { return &v }

func TestWorkingTreeFromPorcelain(t *testing.T) {
	tests := []struct {
		name      string
		reason    string
		porcelain *string
		baseline  string
		want      WorkingTree
	}{
		{
			name:     "unset",
			reason:   "no porcelain text: the run cannot prove a clean tree",
			baseline: hashA,
			want:     WorkingTree{Dirty: true, DirtyPaths: []string{"dirty-unknown-without-porcelain"}, DirtyDigest: "unknown"},
		},
		{
			name:      "unknown baseline",
			porcelain: ptr(""),
			baseline:  Unknown,
			want:      WorkingTree{Dirty: true, DirtyPaths: []string{".git/HEAD"}, DirtyDigest: "unknown"},
		},
		{
			name:     "unknown baseline and unset",
			reason:   "decision: the baseline rule is checked first",
			baseline: Unknown,
			want:     WorkingTree{Dirty: true, DirtyPaths: []string{".git/HEAD"}, DirtyDigest: "unknown"},
		},
		{
			name:      "empty is clean",
			porcelain: ptr(""),
			baseline:  hashA,
			want:      WorkingTree{DirtyPaths: []string{}},
		},
		{
			name:      "blank lines only are clean",
			porcelain: ptr("\n  \n\t\n"),
			baseline:  hashA,
			want:      WorkingTree{DirtyPaths: []string{}},
		},
		{
			name:      "sorted paths and digest",
			reason:    "paths and lines are sorted; lines keep their leading space",
			porcelain: ptr("?? a.go\n M b.go\n"),
			baseline:  hashA,
			want: WorkingTree{Dirty: true, DirtyPaths: []string{"a.go", "b.go"},
				DirtyDigest: "c890876bb7a0fe0b6331b1fab329c13ea6480c9ad89a4330d488dccb83485efc"},
		},
		{
			name:      "same lines in another order",
			porcelain: ptr(" M b.go\n\n?? a.go"),
			baseline:  hashA,
			want: WorkingTree{Dirty: true, DirtyPaths: []string{"a.go", "b.go"},
				DirtyDigest: "c890876bb7a0fe0b6331b1fab329c13ea6480c9ad89a4330d488dccb83485efc"},
		},
		{
			name:      "rename",
			reason:    "a rename records the destination path",
			porcelain: ptr("R  old.go -> new.go\n M a.go\n"),
			baseline:  hashA,
			want: WorkingTree{Dirty: true, DirtyPaths: []string{"a.go", "new.go"},
				DirtyDigest: "dd347326e85a1907b34f8ba1e08e43104b6b816f2b26fcedfed267695544a56a"},
		},
		{
			name:      "short lines",
			reason:    "lines shorter than four characters give no path but count for the digest",
			porcelain: ptr("?? a\nM\nx\n"),
			baseline:  hashA,
			want: WorkingTree{Dirty: true, DirtyPaths: []string{"a"},
				DirtyDigest: "fd1b05310d87230cccde0bc94675f4d98c71c44374a195e5e93e092165fc95fe"},
		},
		{
			name:      "short lines only",
			porcelain: ptr("M\n"),
			baseline:  hashA,
			want: WorkingTree{Dirty: true, DirtyPaths: []string{},
				DirtyDigest: "08f271887ce94707da822d5263bae19d5519cb3614e0daedc4c7ce5dab7473f1"},
		},
		{
			name:      "unique paths",
			porcelain: ptr("?? x\n M x\n"),
			baseline:  hashA,
			want: WorkingTree{Dirty: true, DirtyPaths: []string{"x"},
				DirtyDigest: "82f8cc71c7a80044d033e56a97d339a4b1ceb19030314e52330ec6622a502a41"},
		},
		{
			name:      "crlf lines",
			reason:    "Python splitlines treats \\r\\n as one boundary",
			porcelain: ptr("?? a.go\r\n M b.go\r\n"),
			baseline:  hashA,
			want: WorkingTree{Dirty: true, DirtyPaths: []string{"a.go", "b.go"},
				DirtyDigest: "c890876bb7a0fe0b6331b1fab329c13ea6480c9ad89a4330d488dccb83485efc"},
		},
		{
			name:      "non-ASCII status columns",
			reason:    "line[3:] counts characters, as Python slices, not bytes",
			porcelain: ptr("üü x.go\n"),
			baseline:  hashA,
			want: WorkingTree{Dirty: true, DirtyPaths: []string{"x.go"},
				DirtyDigest: "8b7f2c1994043c144aaa59802b1b6169695a9934935dcfb8398760ee9bdb2727"},
		},
		{
			name:      "non-ASCII path",
			porcelain: ptr("?? ü.go\n"),
			baseline:  hashA,
			want: WorkingTree{Dirty: true, DirtyPaths: []string{"ü.go"},
				DirtyDigest: "281b919e9c8385f0d103e3462ec1f7bd9e276ce532bcb9dd6259d7a8244afb72"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := WorkingTreeFromPorcelain(tt.porcelain, tt.baseline)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("WorkingTreeFromPorcelain = %#v, want %#v", got, tt.want)
			}
		})
	}
}

func TestWorkingTreeJSON(t *testing.T) {
	tests := []struct {
		name   string
		reason string
		wt     WorkingTree
		want   string
	}{
		{name: "nil paths", reason: "typevet writes [] for a clean tree, never null", wt: WorkingTree{}, want: `{"dirty":false,"dirty_paths":[],"dirty_digest":""}`},
		{name: "html characters", reason: "Python does not escape <, > and &", wt: WorkingTree{Dirty: true, DirtyPaths: []string{"R&D <draft>.md"}, DirtyDigest: "x"},
			want: `{"dirty":true,"dirty_paths":["R&D <draft>.md"],"dirty_digest":"x"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := Marshal(tt.wt)
			if err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			if err := json.Compact(&got, b); err != nil {
				t.Fatal(err)
			}
			if got.String() != tt.want {
				t.Errorf("json = %s, want %s", got.String(), tt.want)
			}
		})
	}
}
