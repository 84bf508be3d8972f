package lines_test

import (
	"encoding/json"
	"fmt"

	"github.com/typevet/typevet-go/checkmatch/internal/lines"
	"github.com/typevet/typevet-go/checkmatch/journal"
)

// Two shards of one experiment, given out of order, are put in shard
// order; their journals' lines are gathered by slice index.
func ExampleGather() {
	ids := []string{"r00:clean", "r00:unsigned", "r01:clean"}
	entries := map[int][]json.RawMessage{}
	for i, id := range ids {
		s := lines.Of(id, 2)
		entries[s] = append(entries[s], json.RawMessage(fmt.Sprintf(`{"index": %d, "case_id": %q, "part": 1}`, i, id)))
	}
	header := func(s string) journal.Header {
		pin, _ := journal.NewPin(lines.ShardPin, s)
		return journal.Header{Kind: "study", Pins: []journal.Pin{pin}}
	}
	shards := []lines.Shard{
		{Path: "b.json", Header: header("1/2"), Index: 1, Count: 2, Entries: entries[1]},
		{Path: "a.json", Header: header("0/2"), Index: 0, Count: 2, Entries: entries[0]},
	}
	order, err := lines.Order(shards, "study")
	if err != nil {
		fmt.Println(err)
		return
	}
	byIndex := []lines.Shard{shards[order[0]], shards[order[1]]}
	found, err := lines.Gather(byIndex, ids, lines.RawMeta, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(order)
	for _, l := range found {
		fmt.Println(l.Index, l.CaseID)
	}
	_, err = lines.Order(shards[:1], "study")
	fmt.Println(err)
	// Output:
	// [1 0]
	// 0 r00:clean
	// 1 r00:unsigned
	// 2 r01:clean
	// merge refused: shard 0/2 is missing: run it and give its record
}
