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
// each one that differs; it exits 1 when any does. Usage errors exit 2,
// other errors 1.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/typevet/typevet-go/examples/internal/cli"
	"github.com/typevet/typevet-go/wording"
)

func main() {
	err := run(os.Stdout, os.Stderr, os.Args[1:], os.LookupEnv)
	if err != nil && !errors.Is(err, flag.ErrHelp) {
		fmt.Fprintln(os.Stderr, "wording:", err)
	}
	os.Exit(exitCode(err))
}

// exitCode maps run's error to the process exit code: 0 for success or
// -h, 2 for a usage error, 1 for anything else.
func exitCode(err error) int {
	var ue *cli.UsageError
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &ue):
		return 2
	}
	return 1
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
	fs := flag.NewFlagSet("wording", flag.ContinueOnError)
	fs.SetOutput(stderr)
	seedPath := fs.String("seed", "", "JSON object of seed part name to text, in part order")
	evolvedPath := fs.String("evolved", "", "JSON object of evolved part name to text")
	components := fs.String("components", "", "comma-separated selected parts (default: every part)")
	verifyPath := fs.String("verify", "", "receipt or artifact JSON whose wording digests to check")
	ollama := fs.String("ollama", "", "Ollama base URL; adds the judge_identity block")
	judge := fs.String("judge", "", "judge model for -ollama (default TYPEVET_WORDING_JUDGE, else nimble)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return cli.Usage(err)
	}
	componentsSet := false
	fs.Visit(func(f *flag.Flag) { componentsSet = componentsSet || f.Name == "components" })
	switch {
	case fs.NArg() > 0:
		return &cli.UsageError{Msg: "unexpected arguments after the flags"}
	case *verifyPath != "" && (*seedPath != "" || *evolvedPath != "" || componentsSet || *ollama != "" || *judge != ""):
		return &cli.UsageError{Msg: "-verify takes no other flag"}
	case *verifyPath != "":
		return verify(stdout, *verifyPath)
	case *seedPath == "" || *evolvedPath == "":
		return &cli.UsageError{Msg: "give -seed and -evolved, or -verify"}
	case *judge != "" && *ollama == "":
		return &cli.UsageError{Msg: "-judge needs -ollama"}
	case componentsSet && strings.TrimSpace(*components) == "":
		return &cli.UsageError{Msg: "-components names no part; leave it out to select every part"}
	}

	seed, err := readMapping(*seedPath)
	if err != nil {
		return err
	}
	evolved, err := readMapping(*evolvedPath)
	if err != nil {
		return err
	}
	var sel []string
	if *components != "" {
		for _, name := range strings.Split(*components, ",") {
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
	if *ollama != "" {
		id, err := judgeIdentity(*ollama, *judge, lookup)
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
