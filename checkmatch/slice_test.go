package checkmatch

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// syntheticSlice builds the slice of seed with image i given by image(i).
func syntheticSlice(t testing.TB, seed uint64, rows int, image func(i int) []byte) Slice {
	t.Helper()
	cases, err := Cases(seed, rows)
	require.NoError(t, err)
	images := make([][]byte, len(cases))
	for i := range images {
		images[i] = image(i)
	}
	return newSlice(seed, rows, cases, images)
}

// TestSliceSHA256Vectors checks slice_sha256 on the synthetic-image
// vectors of typevet's slice tests, which do not depend on rendering.
func TestSliceSHA256Vectors(t *testing.T) {
	tests := []struct {
		name  string
		rows  int
		image func(i int) []byte
		want  string
	}{
		{
			name:  "seed 0, 1 row, one image text",
			rows:  1,
			image: func(int) []byte { return []byte("synthetic check bytes") },
			want:  "3da764cd96fa91683c52e11edf8658c9c12d6ce81140089b69bc3d92b22d8ee2",
		},
		{
			name:  "seed 0, 2 rows, numbered images",
			rows:  2,
			image: func(i int) []byte { return fmt.Appendf(nil, "synthetic image %03d", i) },
			want:  "12bdcbfe5f236a1a80d4609f90a8edca24ce8d8dd0b785c70e69e5c12c7b0658",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := syntheticSlice(t, 0, tt.rows, tt.image)
			assert.Equal(t, tt.want, s.SHA256)
			assert.Len(t, s.Requests, tt.rows*VariantsPerRow)
		})
	}
}

func TestSlicePins(t *testing.T) {
	s := syntheticSlice(t, 3, 1, func(int) []byte { return []byte("x") })
	p := s.Pins()
	assert.Equal(t, dataset, p.Dataset)
	assert.Equal(t, uint64(3), p.GeneratorSeed)
	assert.Equal(t, 1, p.RegisterRows)
	assert.Equal(t, 7, p.VariantsPerRow)
	assert.Equal(t, s.SHA256, p.SliceSHA256)
	// Key order: the slice pins sit in typevet's order among the others.
	b, err := json.Marshal(p)
	require.NoError(t, err)
	keys := []string{`"finished_utc"`, `"dataset"`, `"generator_seed"`, `"register_rows"`, `"variants_per_row"`, `"slice_sha256"`}
	last := -1
	for _, k := range keys {
		i := bytes.Index(b, []byte(k))
		require.Greater(t, i, last, "key %s out of order in %s", k, b)
		last = i
	}
}

// TestBuildSlice renders a one-row slice and checks the properties of
// typevet's slice unit tests: the seed reaches the requests and
// the pins, the requests equal those built directly, the same seed gives
// the same bytes and another seed other images and another digest.
func TestBuildSlice(t *testing.T) {
	s, err := BuildSlice(3, 1, nil)
	require.NoError(t, err)
	cases, err := Cases(3, 1)
	require.NoError(t, err)
	require.Len(t, s.Requests, len(cases))
	for i, c := range cases {
		if raceEnabled && i != 0 && i != len(cases)-1 {
			continue // renders are slow under the race detector
		}
		// Render is deterministic (render tests), so equal requests mean
		// the parallel build gives the sequential result.
		png, err := Render(c)
		require.NoError(t, err)
		assert.Equal(t, BuildRequest(c, png), s.Requests[i], "request %d", i)
	}
	assert.Equal(t, uint64(3), s.Pins().GeneratorSeed)
	assert.Equal(t, 1, s.Pins().RegisterRows)
	assert.Equal(t, sliceSHA256(s.Requests), s.SHA256)
	assert.Len(t, s.SHA256, 64)

	// Another seed: other images (the case ids are the same), so another
	// digest.
	other, err := Cases(4, 1)
	require.NoError(t, err)
	png, err := Render(other[0])
	require.NoError(t, err)
	assert.NotEqual(t, s.Requests[0].Media[0].Data, png)
	images := make([][]byte, len(s.Requests))
	for i, r := range s.Requests {
		images[i] = r.Media[0].Data
	}
	images[0] = png
	assert.NotEqual(t, s.SHA256, newSlice(4, 1, other, images).SHA256)
}

func TestBuildSliceRows(t *testing.T) {
	for _, rows := range []int{0, -1, RowCount + 1} {
		_, err := BuildSlice(0, rows, nil)
		assert.Error(t, err, "rows %d", rows)
	}
}

func BenchmarkBuildSlice(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := BuildSlice(0, RowCount, nil); err != nil {
			b.Fatal(err)
		}
	}
}
