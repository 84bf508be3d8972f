package cli

import (
	"encoding/json"
	"io"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/typevet/typevet-go/checkmatch/journal"
	"github.com/typevet/typevet-go/internal/pytext"
	"github.com/typevet/typevet-go/judgment/backend"
)

// pinFlags maps the journal pins a resume takes a flag's value from to
// the flag.
var pinFlags = []struct{ pin, flag string }{
	{"backend", "backend"}, {"model", "model"}, {"generator_seed", "seed"},
	{"register_rows", "rows"}, {"model_revision", "revision"},
	{"concurrency", "concurrency"}, {"shard", "shard"},
}

// JournalSettings returns what a run records in its journal header's
// settings for a later -resume, by flag name: the base URL (when it holds
// no user name or password) and the timeout of the backend settings s,
// and each flag of flags that was given or whose variable in help is set
// (such as "retries", "metrics-urls", "server-args"). Secrets never come
// here: they stay in the environment.
func JournalSettings(e *Env, help Help, s backend.Settings, flags ...string) []journal.Pin {
	var out []journal.Pin
	add := func(name, v string) {
		p, _ := journal.NewPin(name, v) // a string always marshals
		out = append(out, p)
	}
	var base string
	var timeout float64
	switch s.Backend {
	case backend.LlamaCPP:
		base, timeout = s.LlamaCPP.BaseURL, s.LlamaCPP.Timeout.Seconds()
	case backend.VLLM:
		base, timeout = s.VLLM.BaseURL, s.VLLM.Timeout.Seconds()
	}
	if u, err := url.Parse(base); base != "" && err == nil && u.User == nil {
		add("base-url", base)
	}
	if timeout > 0 {
		add("timeout", strconv.FormatFloat(timeout, 'f', -1, 64))
	}
	for _, f := range flags {
		if e.Given(f) {
			add(f, e.Flag(f))
			continue
		}
		for _, spec := range help.Flags {
			for _, v := range spec.Vars {
				if text, ok := e.Environ(v); spec.Name == f && ok {
					add(f, text)
					break
				}
			}
		}
	}
	return out
}

// ResumeArgs returns args for a -resume run that takes its settings from
// the journal: when args hold -resume and the journal beside the receipt
// (the -receipt flag, else the variable receiptVar) is readable, each
// setting it holds (seed, rows, backend, model, revision, concurrency and
// shard from its pins; base URL, timeout and the recorded flags from its
// settings) is added as a flag of help that args do not give. A flag
// given with another value is refused, naming the flag and both values.
// Without -resume, or when the journal cannot be read (the run then
// reports why), args are returned as they are. Secrets are never in a
// journal: they still come from the environment.
func ResumeArgs(help Help, args []string, lookup func(string) (string, bool), receiptVar string) ([]string, error) {
	env, _, ok, err := Parse(help, args, io.Discard, lookup, nil, true)
	if err != nil || !ok || env.Flag("resume") != "true" {
		return args, nil
	}
	path, _ := env.Lookup(receiptVar)
	path = strings.TrimSpace(path)
	if path == "" {
		return args, nil
	}
	c, err := journal.ReadFile(journal.Path(path))
	if err != nil {
		return args, nil
	}
	vars := map[string][]string{}
	for _, f := range help.Flags {
		vars[f.Name] = f.Vars
	}
	journaledBackend := ""
	if v, ok := c.Header.Pin("backend"); ok {
		journaledBackend, _ = settingText(v)
	}
	var pairs [][2]string
	for _, m := range pinFlags {
		if v, ok := c.Header.Pin(m.pin); ok {
			if s, ok := settingText(v); ok && s != "" {
				pairs = append(pairs, [2]string{m.flag, s})
			}
		}
	}
	for _, p := range c.Header.Settings {
		if s, ok := settingText(p.Value); ok {
			pairs = append(pairs, [2]string{p.Name, s})
		}
	}
	out := slices.Clone(args)
	for _, p := range pairs {
		name, want := p[0], p[1]
		vs, ok := vars[name]
		if !ok {
			continue
		}
		if env.Given(name) {
			if got := env.Flag(name); !sameSetting(got, want) {
				return nil, Usagef("-resume: -%s %q differs from the journaled run's %q (journal %s): a resume takes every setting from its journal; leave -%s out, or start a new run with another -receipt",
					name, got, want, journal.Path(path), name)
			}
			continue
		}
		if v := backendVar(vs, journaledBackend); v != "" {
			if got, ok := env.Environ(v); ok && !sameSetting(got, want) {
				return nil, Usagef("-resume: %s %q differs from the journaled run's %q (journal %s): a resume takes every setting from its journal; unset %s, or start a new run with another receipt path",
					v, got, want, journal.Path(path), v)
			}
		}
		out = append(out, "-"+name+"="+want)
	}
	return out, nil
}

// settingText returns a pin or setting value as flag text: a JSON string's
// text or a number's digits.
func settingText(v json.RawMessage) (string, bool) {
	var s string
	if json.Unmarshal(v, &s) == nil {
		return s, true
	}
	var n json.Number
	if json.Unmarshal(v, &n) == nil {
		return n.String(), true
	}
	return "", false
}

// sameSetting compares a given flag's text with the journal's: equal
// after outer whitespace is removed, or the same number ("03" and "3").
func sameSetting(given, journaled string) bool {
	a, b := pytext.Strip(given), pytext.Strip(journaled)
	if a == b {
		return true
	}
	x, errX := strconv.ParseFloat(a, 64)
	y, errY := strconv.ParseFloat(b, 64)
	return errX == nil && errY == nil && x == y
}

// resumeFlagNote is the -resume flag's help text.
const resumeFlagNote = "finish the run journaled at PATH.journal.jsonl, judging only the cases it lacks; every other setting comes from the journal (a flag given must agree)"

// ResumeFlag is the -resume flag of a resumable run command.
func ResumeFlag() Flag { return Flag{Name: "resume", Bool: true, Usage: resumeFlagNote} }

// backendVar returns the variable of vars that a run on backend b reads:
// the only one, or of a flag with a variable per backend (base URL,
// model, timeout) the vLLM one on vllm and the llama.cpp one elsewhere.
func backendVar(vars []string, b string) string {
	if len(vars) == 1 {
		return vars[0]
	}
	want := "LLAMA"
	if b == backend.VLLM.String() {
		want = "VLLM"
	}
	for _, v := range vars {
		if strings.Contains(v, want) {
			return v
		}
	}
	return ""
}
