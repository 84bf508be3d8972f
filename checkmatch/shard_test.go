package checkmatch

import (
	"crypto/sha256"
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseShard(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want Shard
		ok   bool
	}{
		{"0/1", Shard{0, 1}, true}, {"2/3", Shard{2, 3}, true}, {" 1/4 ", Shard{1, 4}, true},
		{"3/3", Shard{}, false}, {"-1/3", Shard{}, false}, {"1/0", Shard{}, false}, {"1", Shard{}, false},
		{"a/b", Shard{}, false}, {"0/65537", Shard{}, false}, {"", Shard{}, false},
	} {
		got, err := ParseShard(tt.in, "-shard")
		if !tt.ok {
			require.Error(t, err, tt.in)
			assert.Contains(t, err.Error(), "-shard must be i/n")
			continue
		}
		require.NoError(t, err, tt.in)
		assert.Equal(t, tt.want, got)
		assert.Equal(t, tt.want.String(), got.String())
	}
}

// TestShardOfIsTheDocumentedFunction pins the assignment to SHA-256 of
// the case id, first 8 bytes big-endian, mod n, and checks that every
// case of the full slice is in exactly one shard, about 1/n each.
func TestShardOfIsTheDocumentedFunction(t *testing.T) {
	cases, err := Cases(0, RowCount)
	require.NoError(t, err)
	for _, n := range []int{1, 2, 3, 4, 7, 140} {
		counts := make([]int, n)
		for _, c := range cases {
			sum := sha256.Sum256([]byte(c.ID()))
			want := int(binary.BigEndian.Uint64(sum[:8]) % uint64(n))
			got := shardOf(c.ID(), n)
			require.Equal(t, want, got, c.ID())
			in := 0
			for i := range n {
				if (Shard{Index: i, Count: n}).Has(c.ID()) {
					in++
				}
			}
			require.Equal(t, 1, in, "case %s is in exactly one of %d shards", c.ID(), n)
			counts[got]++
		}
		if n <= 4 {
			for i, k := range counts {
				assert.InDelta(t, float64(len(cases))/float64(n), float64(k), float64(len(cases))/float64(n)/2, "shard %d/%d", i, n)
			}
		}
	}
	// Fixed values, computed independently with Python hashlib.
	require.Equal(t, "r00:clean", cases[0].ID())
	assert.Equal(t, 0, shardOf("r00:clean", 3))
	assert.Equal(t, 0, shardOf("r00:clean", 4))
	assert.True(t, Shard{}.Has(cases[0].ID()), "the zero shard is the whole slice")
}
