package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/typevet/typevet-go/checkmatch"
	"github.com/typevet/typevet-go/receipt"
)

// TestMergeRefusesEditedRecord: a shard record whose model, seed, pins or
// identity were edited by hand cannot change the merged receipt (issue
// 25: merge built the receipt from the first record's copies, so an
// edited record gave a receipt with another model, or a seed that did not
// match its slice_sha256, exit 0). The merge is refused naming the field.
func TestMergeRefusesEditedRecord(t *testing.T) {
	t.Parallel() // waits on child processes
	for _, tt := range []struct {
		name, field string
		edit        func(r *checkmatch.ShardRecord)
	}{
		{"another model", "model", func(r *checkmatch.ShardRecord) { r.Model = "another-model" }},
		{"another seed", "pins", func(r *checkmatch.ShardRecord) { r.Pins.GeneratorSeed = 7 }},
		{"another revision", "pins", func(r *checkmatch.ShardRecord) { r.Pins.ModelRevision = "rev-x" }},
		{"another code digest", "receipt_identity", func(r *checkmatch.ShardRecord) { r.ReceiptIdentity.CodePathDigests[0].Value = "00" }},
	} {
		for _, k := range []int{0, 1} {
			t.Run(tt.name, func(t *testing.T) {
				dir := t.TempDir()
				paths := fakeShards(t, dir, 0, 2)
				b, err := os.ReadFile(paths[k])
				require.NoError(t, err)
				var r checkmatch.ShardRecord
				require.NoError(t, json.Unmarshal(b, &r))
				tt.edit(&r)
				b, err = receipt.Marshal(r)
				require.NoError(t, err)
				require.NoError(t, os.WriteFile(paths[k], b, 0o644))

				out := filepath.Join(dir, "merged.json")
				_, err = mergeCmd(t, append(paths, "-receipt", out)...)
				require.Error(t, err, "shard %d edited", k)
				assert.Contains(t, err.Error(), paths[k]+": the record's "+tt.field+" is not its journal's")
				assert.NoFileExists(t, out)
			})
		}
	}
}
