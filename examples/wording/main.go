// Command wording prints the wording fields of a typevet wording run, with
// their digests, or checks the digests of a receipt or evolution artifact.
//
//	go run ./examples/wording -seed seed.json -evolved evolved.json [-components a,b] [-ollama URL [-judge NAME]]
//	go run ./examples/wording -verify artifact.json
//
// seed.json and evolved.json each hold one JSON object of part name to
// text, in part order. Without -components every part is selected; an
// empty -components "" is a usage error (it would select nothing, and
// typevet's "components or every part" would silently select everything). The
// output is one JSON object with the keys seed_text, evolved_text,
// components, seed_parts, evolved_parts and wording_digests, in that order,
// plus judge_identity when -ollama names a server: its /api/version and
// /api/tags are read for the judge model (-judge, else
// TYPEVET_WORDING_JUDGE, else nimble).
//
// -verify recomputes every digest of the file's wording fields and prints
// each one that differs; it exits 1 when any does, and when the file is
// not a wording receipt or artifact (a check-match receipt, say). Usage
// errors exit 2 (`go run` reports that as "exit status 2" and exits 1
// itself), other errors 1. `wording -h` lists the flags.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/typevet/typevet-go/examples/internal/cli"
	"github.com/typevet/typevet-go/wording"
)

const (
	prog      = "wording"
	usageLine = "usage: wording -seed SEED.json -evolved EVOLVED.json [-components a,b] [-ollama URL [-judge NAME]] | wording -verify FILE.json"
)

// help is the -h text; its flags are the command's flags.
var help = cli.Help{
	Usage: usageLine,
	About: "Print the wording parts and wording_digests block of a seed and an evolved wording, or check the wording digests of a receipt or artifact.",
	Flags: []cli.Flag{
		{Name: "seed", Arg: "PATH", Usage: "file holding a JSON object of seed part name to text, in part order"},
		{Name: "evolved", Arg: "PATH", Usage: "file holding a JSON object of evolved part name to text"},
		{Name: "components", Arg: "LIST", Default: "every part", Usage: "comma-separated selected parts"},
		{Name: "verify", Arg: "PATH", Usage: "wording receipt or evolution artifact whose digests to check; takes no other flag"},
		{Name: "ollama", Arg: "URL", Usage: "Ollama base URL; adds the judge_identity block"},
		{Name: "judge", Arg: "NAME", Default: "TYPEVET_WORDING_JUDGE, else nimble", Usage: "judge model for -ollama"},
	},
	Vars:  []cli.Var{{Name: "TYPEVET_WORDING_JUDGE", Usage: "the judge model when -judge is not given (default nimble)"}},
	Notes: []string{"Exit status: 0 on success; 2 on a usage error; 1 otherwise (a digest differs, a file\nis unreadable or not a wording file). Under \"go run\" a status of 2 prints\n\"exit status 2\" and go run itself exits 1."},
}

func main() {
	os.Exit(exitCode(run(os.Stdout, os.Stderr, os.Args[1:], os.LookupEnv), os.Stderr))
}

// exitCode prints run's error and maps it to the exit status
// ([cli.ExitCode]).
func exitCode(err error, stderr io.Writer) int {
	return cli.ExitCode(err, stderr, prog, usageLine)
}

// output is the printed object, in key order.
type output struct {
	SeedText       string                 `json:"seed_text"`
	EvolvedText    string                 `json:"evolved_text"`
	Components     []string               `json:"components"`
	SeedParts      wording.Mapping        `json:"seed_parts"`
	EvolvedParts   wording.Mapping        `json:"evolved_parts"`
	WordingDigests wording.WordingDigests `json:"wording_digests"`
	JudgeIdentity  *wording.JudgeIdentity `json:"judge_identity,omitempty"`
}

func run(stdout, stderr io.Writer, args []string, lookup func(string) (string, bool)) error {
	env, rest, ok, err := cli.Parse(help, args, stdout, lookup, nil, true)
	if err != nil || !ok {
		return err
	}
	seedPath, evolvedPath, components := env.Flag("seed"), env.Flag("evolved"), env.Flag("components")
	verifyPath, ollama, judge := env.Flag("verify"), env.Flag("ollama"), env.Flag("judge")
	if !env.Given("components") {
		components = ""
	}
	if !env.Given("judge") {
		judge = ""
	}
	switch {
	case len(rest) > 0:
		return &cli.UsageError{Msg: "unexpected arguments after the flags"}
	case verifyPath != "" && (seedPath != "" || evolvedPath != "" || env.Given("components") || ollama != "" || judge != ""):
		return &cli.UsageError{Msg: "-verify takes no other flag"}
	case verifyPath != "":
		return verify(stdout, verifyPath)
	case seedPath == "" || evolvedPath == "":
		return &cli.UsageError{Msg: "give -seed and -evolved, or -verify"}
	case judge != "" && ollama == "":
		return &cli.UsageError{Msg: "-judge needs -ollama"}
	case env.Given("components") && strings.TrimSpace(components) == "":
		return &cli.UsageError{Msg: "-components names no part; leave it out to select every part"}
	}

	seed, err := readMapping(seedPath)
	if err != nil {
		return err
	}
	evolved, err := readMapping(evolvedPath)
	if err != nil {
		return err
	}
	var sel []string
	if components != "" {
		for _, name := range strings.Split(components, ",") {
			sel = append(sel, strings.TrimSpace(name))
		}
	} else {
		sel = seed.Names()
	}
	parts, err := wording.NewParts(sel, seed, evolved)
	if err != nil {
		return err
	}
	fields, err := wording.NewFields(parts, nil)
	if err != nil {
		return err
	}
	out := output{
		SeedText:       fields.SeedText,
		EvolvedText:    fields.EvolvedText,
		Components:     fields.Components,
		SeedParts:      fields.SeedParts,
		EvolvedParts:   fields.EvolvedParts,
		WordingDigests: fields.WordingDigests,
	}
	if ollama != "" {
		id, err := judgeIdentity(ollama, judge, lookup)
		if err != nil {
			return err
		}
		out.JudgeIdentity = &id
	}
	enc := json.NewEncoder(stdout)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// judgeIdentity reads the Ollama identity of the judge model and returns
// the judge_identity block of a run that has made no calls yet.
func judgeIdentity(base, judge string, lookup func(string) (string, bool)) (wording.JudgeIdentity, error) {
	settings, err := wording.SettingsFromEnv(func(name string) (string, bool) {
		if name == wording.EnvProvider {
			return "ollama", true
		}
		return lookup(name)
	})
	if err != nil {
		return wording.JudgeIdentity{}, err
	}
	settings.OllamaBase = strings.TrimRight(base, "/")
	if judge != "" {
		settings.Judge = judge
	}
	j, err := wording.ResolveOllamaJudge(context.Background(), nil, settings)
	if err != nil {
		return wording.JudgeIdentity{}, err
	}
	return wording.NewJudgeIdentity(j.Model, j.Facts(), nil), nil
}

// readMapping reads a JSON object of part name to text, keeping its order.
func readMapping(path string) (wording.Mapping, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var m wording.Mapping
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

// verify checks the wording digests of a receipt or artifact and prints
// one line per digest that differs.
func verify(stdout io.Writer, path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := isWordingFile(b); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	bad, err := wording.VerifyJSON(b)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if len(bad) == 0 {
		_, err := fmt.Fprintln(stdout, "ok: every wording digest matches")
		return err
	}
	for _, name := range bad {
		if _, err := fmt.Fprintln(stdout, "differs:", name); err != nil {
			return err
		}
	}
	return fmt.Errorf("%d wording fields differ: %s", len(bad), strings.Join(bad, ", "))
}

// wordingKeys are the top-level keys of a wording receipt's or
// artifact's wording fields.
var wordingKeys = []string{"seed_text", "evolved_text", "components", "seed_parts", "evolved_parts", "wording_digests"}

// isWordingFile refuses a JSON object with none of [wordingKeys], naming
// what it looks like instead (a check-match or option-order receipt).
// Text that is not a JSON object is left to [wording.VerifyJSON].
func isWordingFile(b []byte) error {
	var top map[string]json.RawMessage
	if json.Unmarshal(b, &top) != nil {
		return nil
	}
	for _, k := range wordingKeys {
		if _, ok := top[k]; ok {
			return nil
		}
	}
	what := "it has none of the wording fields (" + strings.Join(wordingKeys, ", ") + ")"
	_, cases := top["cases"]
	_, metrics := top["metrics"]
	_, stats := top["statistics"]
	switch {
	case cases && metrics:
		what = "it is a check-match receipt; -verify reads wording receipts and evolution artifacts"
	case cases && stats:
		what = "it is an option-order receipt; -verify reads wording receipts and evolution artifacts"
	}
	return fmt.Errorf("not a wording receipt: %s", what)
}
