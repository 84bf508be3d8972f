package wording_test

import (
	"encoding/json"
	"fmt"

	"github.com/typevet/typevet-go/wording"
)

// Example computes the wording_digests of an evolution that changed the
// criteria_true part of a Noul seed.
func Example() {
	seed := wording.Mapping{
		{Name: "instructions", Text: "Is this message a scam?"},
		{Name: "criteria_true", Text: "It is a scam"},
		{Name: "criteria_false", Text: "It is légitimate"},
	}
	evolved := seed.With("criteria_true", "It asks for money")
	parts, err := wording.NewParts([]string{"criteria_true"}, seed, evolved)
	if err != nil {
		fmt.Println(err)
		return
	}
	d, err := wording.DigestsOf(parts)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("seed mapping:   ", d.Seed.Mapping)
	fmt.Println("evolved mapping:", d.Evolved.Mapping)
	fmt.Println("evolved id:     ", d.Evolved.GepaCandidateID)
	b, _ := json.Marshal(d.Evolved.Components)
	fmt.Println(string(b))
	// Output:
	// seed mapping:    14ed70de410cce21bf3a0511d869fb56a9e9fb4213718032062c4c0423d46eda
	// evolved mapping: 86edad43a97f7aa62b25830dd5beeb3b934168a542a7fcf1612ce766afe0ff38
	// evolved id:      ccb61621f752
	// {"instructions":"f14e0bc1d944d6dd23945b83155bab27de75a08a1bcc8d7b8c2b2389ef0baf08","criteria_true":"00ed26a88c739e19e8c4969fb2dcb07877e6a544d95c05e7e4c4d9d2c35dce5f","criteria_false":"ce5b6b7e3b4adea640bd8b1913eff6e3801c05574aaac82edf173bfe8c8f6259"}
}

// ExampleCaps_Check validates gepa-adk proposals against the length cap.
func ExampleCaps_Check() {
	seed := wording.Mapping{{Name: "instructions", Text: "Is this message a scam?"}}
	caps, _ := wording.PartCaps(seed, nil, 0)
	fmt.Println(caps[0].Max)
	fmt.Println(caps.Check("instructions", "Does it ask for money?"))
	fmt.Println(caps.Check("instructions", "Does this message ask the reader to send money?"))
	fmt.Println(caps.Check("criteria_true", "Yes"))
	// Output:
	// 34
	// <nil>
	// proposal has 47 characters; the cap is 34
	// 'criteria_true' is not an evolvable part
}
