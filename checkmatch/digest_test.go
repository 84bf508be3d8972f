package checkmatch

import (
	"crypto/sha256"
	"encoding/hex"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/typevet/typevet-go/judgment"
	"github.com/typevet/typevet-go/judgment/judgmenttest"
)

// TestImageDigestOnce checks that a request hashes its render once, at
// BuildRequest, and that slice_sha256 and render_sha256 are still the
// SHA-256 of the bytes sent, also for a request whose Media changed.
func TestImageDigestOnce(t *testing.T) {
	png := judgmenttest.CheckPNG()
	cases, err := Cases(7, 1)
	require.NoError(t, err)
	r := BuildRequest(cases[0], png)
	want := sha256.Sum256(png)
	assert.Equal(t, hex.EncodeToString(want[:]), r.ImageDigest())
	assert.Equal(t, 0.0, testing.AllocsPerRun(10, func() { r.imageSum() }), "no new hash for BuildRequest's bytes")

	other := append([]byte(nil), png...)
	other[len(other)-1] ^= 1
	changed := r
	changed.Media = []judgment.Image{{Data: other, MIMEType: imageMIMEType}}
	sum := sha256.Sum256(other)
	assert.Equal(t, hex.EncodeToString(sum[:]), changed.ImageDigest(), "changed Media is hashed again")
	literal := Request{Case: r.Case, Media: r.Media}
	assert.Equal(t, r.ImageDigest(), literal.ImageDigest(), "a Request built without BuildRequest is hashed")
	assert.Equal(t, sliceSHA256([]Request{literal}), sliceSHA256([]Request{r}))
}

// BenchmarkImageDigests is the image hashing of a 140-case slice (20 rows × 7) and its
// run (slice_sha256, then render_sha256 per outcome): Twice is the code
// before issue 18, which hashed each render in both places; Once is
// today's, one hash per render in BuildRequest.
func BenchmarkImageDigests(b *testing.B) {
	png := judgmenttest.CheckPNG()
	cases, err := Cases(7, 20)
	require.NoError(b, err)
	images := make([][]byte, len(cases))
	for i := range images {
		images[i] = png
	}
	b.Run("Twice", func(b *testing.B) {
		b.SetBytes(int64(len(png) * len(cases)))
		for b.Loop() {
			s := sha256.New()
			for _, c := range cases {
				s.Write([]byte(c.ID()))
				sum := sha256.Sum256(png)
				s.Write(sum[:])
			}
			for range cases {
				sum := sha256.Sum256(png)
				_ = hex.EncodeToString(sum[:])
			}
		}
	})
	b.Run("Once", func(b *testing.B) {
		b.SetBytes(int64(len(png) * len(cases)))
		for b.Loop() {
			sl := newSlice(7, 20, cases, images)
			for _, r := range sl.Requests {
				_ = r.ImageDigest()
			}
		}
	})
}
