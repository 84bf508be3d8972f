package cli_test

import (
	"errors"
	"fmt"
	"os"

	"github.com/typevet/typevet-go/examples/internal/cli"
)

// ExampleExitCode shows the exit status rule every command shares.
func ExampleExitCode() {
	for _, err := range []error{nil, cli.Usagef("%s must be 1 to 20: %d", "TYPEVET_CHECK_MATCH_ROWS", 21), errors.New("boom")} {
		fmt.Println(cli.ExitCode(err, os.Stdout, "prog", "usage: prog -rows N"))
	}
	// Output:
	// 0
	// usage: prog -rows N
	// prog: error: TYPEVET_CHECK_MATCH_ROWS must be 1 to 20: 21
	// 2
	// prog: boom
	// 1
}

// ExampleOverlay: a flag wins over the environment, which wins over a
// default.
func ExampleOverlay() {
	env := cli.Overlay(map[string]string{"TYPEVET_CHECK_MATCH_ROWS": "3"},
		func(k string) (string, bool) {
			return map[string]string{"TYPEVET_CHECK_MATCH_ROWS": "20"}[k], k == "TYPEVET_CHECK_MATCH_ROWS"
		},
		cli.LiveDefaults)
	rows, _ := env("TYPEVET_CHECK_MATCH_ROWS")
	model, _ := env(cli.EnvLlamaModel)
	fmt.Println(rows, model)
	// Output: 3 gemma-4-31b-kv9-q4km-mm
}

func ExampleParseSeed() {
	seed, err := cli.ParseSeed(" 007 ", "--seed")
	fmt.Println(seed, err)
	_, err = cli.ParseSeed("-1", "--seed")
	fmt.Println(err)
	// Output:
	// 7 <nil>
	// --seed must be a non-negative integer: '-1'
}
