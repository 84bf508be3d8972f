package checkmatch

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	typevet "github.com/typevet/typevet-go"
	"github.com/typevet/typevet-go/judgment"
	"github.com/typevet/typevet-go/receipt"
	"github.com/typevet/typevet-go/serving"
)

// This file is the setup of a run outside the run itself: the settings a
// run command parses, the key-free check of what the caller supplies, and
// the schema helpers that turn a run's context into the receipt's
// identity, pins and server_args blocks. examples/checkmatch,
// examples/throughput and examples/orderings are thin callers of it; a
// user's own eval tool gets the same receipts by calling it too.

// Snapshot is the part of a receipt's identity taken before the first
// scoring call: the baseline commit, the
// working tree, and the prompt and code digests of the code about to run.
type Snapshot struct {
	// BaselineCommit is identity.baseline_commit ([receipt.BaselineCommit]).
	BaselineCommit string
	// WorkingTree is identity.working_tree
	// ([receipt.WorkingTreeFromPorcelain]).
	WorkingTree receipt.WorkingTree
	// PromptDigests is identity.prompt_digests.
	PromptDigests receipt.Digests
	// CodePathDigests is identity.code_path_digests.
	CodePathDigests receipt.Digests
}

// TakeSnapshot snapshots a check-match run (and each level of a throughput
// sweep): the baseline commit of the repository at repoRoot, the working
// tree from porcelain (the text of `git status --porcelain`; nil when the
// caller has none, which records the tree as dirty), the digests of the
// four questions ([Questions]) and the code fingerprint of a check-match
// run (identity.code_path_digests). Take it before the first call.
func TakeSnapshot(repoRoot string, porcelain *string) (Snapshot, error) {
	code, err := checkCodeDigests()
	if err != nil {
		return Snapshot{}, err
	}
	return newSnapshot(repoRoot, porcelain, receipt.PromptDigests(Questions()), code), nil
}

// Study returns the snapshot of a study taken with s (the same baseline
// commit and working tree; take s with [TakeSnapshot] before the study's
// first call): the prompt digests of the questions the study asks and the
// code digests of the logical names of identity.code_path_digests its
// code runs, by [TakeSnapshot]'s rule, so a name the study shares with a
// check-match run ("cases", "render", "request", "words") has the run's
// digest. Each name must be one this build digests: a check-match run's or
// "orderings", the option-order study's own source. orderings.TakeSnapshot
// is TakeSnapshot and Study for the verdict question and "cases",
// "orderings", "render", "request" and "words".
func (s Snapshot) Study(questions []judgment.NamedQuestion, code ...string) (Snapshot, error) {
	paths := make(receipt.Ordered[[]string], 0, len(code))
	for _, name := range code {
		files, ok := codeFilesOf(name)
		if !ok {
			return Snapshot{}, fmt.Errorf("code digest %q: not a name this build digests", name)
		}
		paths = append(paths, receipt.Entry[[]string]{Name: name, Value: files})
	}
	digests, err := codeDigests(typevet.Sources(), paths)
	if err != nil {
		return Snapshot{}, err
	}
	s.PromptDigests, s.CodePathDigests = receipt.PromptDigests(questions), digests
	return s, nil
}

func newSnapshot(repoRoot string, porcelain *string, prompts, code receipt.Digests) Snapshot {
	baseline := receipt.BaselineCommit(repoRoot)
	return Snapshot{
		BaselineCommit:  baseline,
		WorkingTree:     receipt.WorkingTreeFromPorcelain(porcelain, baseline),
		PromptDigests:   prompts,
		CodePathDigests: code,
	}
}

// RunContext is what a receipt records about a run besides the run's own
// results: which backend and model judged, the server entry, the caller's
// statements and the identity snapshot. Its methods are the schema helpers
// of the receipt's identity ([RunContext.Identity]), pins
// ([RunContext.Pins]) and server_args
// ([RunContext.ServerArgs]) blocks, and [RunContext.ReceiptParts] puts
// them together for [BuildReceipt].
type RunContext struct {
	// Backend is the receipt's backend key ("llama_cpp", "vllm", "fake",
	// "reader").
	Backend serving.Backend
	// Model is the model id every request named.
	Model string
	// ServedTemplate is identity.runtime.served_template (the session's
	// template family: "native_gemma4_turn", "vllm_chat", "fake", …).
	ServedTemplate string
	// ServerEntry is pins.server: nil (null) for the fake, the entry the
	// server reports for llama.cpp and vLLM ([serving.ReadServerEntry]),
	// or the built-in reader's pin (build_info its version). Its BuildInfo is
	// identity.runtime.server_build ("unknown" when nil).
	ServerEntry *serving.ServerEntry
	// ModelRevision is pins.model_revision: the served weights revision,
	// required on vLLM, "" (no key) elsewhere.
	ModelRevision string
	// StatedServerArgs is server_args.caller_stated: the server flags the
	// caller says the server runs with, verbatim; nil (null) when not
	// stated.
	StatedServerArgs *string
	// Secrets are the session's secrets (API key, extra header values):
	// [BuildReceipt] withholds a stopped message holding one.
	Secrets judgment.Secrets
	// Snapshot is the identity part taken before the first call
	// ([TakeSnapshot]).
	Snapshot Snapshot
	// Now is the clock of pins.finished_utc; nil means time.Now.
	Now func() time.Time
}

// serverBuild is identity.runtime.server_build.
func (c RunContext) serverBuild() string {
	if c.ServerEntry == nil {
		return receipt.Unknown
	}
	return c.ServerEntry.BuildInfo
}

func (c RunContext) finishedUTC() string {
	now := time.Now
	if c.Now != nil {
		now = c.Now
	}
	return receipt.FinishedUTC(now())
}

// Identity returns the receipt's identity block: a fresh
// run_id, the snapshot, fixtures as fixture_digests ({} when nil), the
// runtime of Model, ServedTemplate and the server build, arms as
// arm_call_counts, and the identity digest over all of it but run_id.
// A check-match run passes arms {"judgments": len(run.Outcomes)}.
func (c RunContext) Identity(arms receipt.Counts, fixtures receipt.Digests) receipt.Identity {
	if fixtures == nil {
		fixtures = receipt.Digests{}
	}
	id := receipt.Identity{
		RunID:           receipt.NewRunID(),
		BaselineCommit:  c.Snapshot.BaselineCommit,
		WorkingTree:     c.Snapshot.WorkingTree,
		PromptDigests:   c.Snapshot.PromptDigests,
		CodePathDigests: c.Snapshot.CodePathDigests,
		FixtureDigests:  fixtures,
		Runtime:         receipt.NewRuntime(c.Model, c.ServedTemplate, c.serverBuild()),
		ArmCallCounts:   arms,
	}
	id.IdentityDigest = receipt.IdentityDigest(id)
	return id
}

// Pins returns a check-match receipt's pins block: the slice
// pins ([Slice.Pins]), finished_utc now, the concurrency the run used,
// this build's renderer ([Snapshot.RendererPin]), pins.server and
// model_revision.
func (c RunContext) Pins(slice Slice, concurrency int) Pins {
	p := slice.Pins()
	p.FinishedUTC = c.finishedUTC()
	p.Concurrency = concurrency
	renderer := c.Snapshot.RendererPin()
	p.Renderer = &renderer
	p.Server = c.ServerEntry
	p.ModelRevision = c.ModelRevision
	return p
}

// ServerArgs returns the server_args block of a check-match run by the
// image-run rule: cache_config from the
// run's first /metrics reading that holds vllm:cache_config_info (before,
// else after) and caller_stated as given. Backends without /metrics
// (llama.cpp, the offline ones) get cache_config null with caller_stated
// still filled, as typevet writes it. A throughput sweep records its own
// block per level (sweep.Result.LevelServerArgs) instead.
func (c RunContext) ServerArgs(run RunResult) *serving.ServerArgsBlock {
	cache, _ := serving.FirstCacheConfig(run.MetricsReadings...)
	b := serving.ServerArgs(cache, c.StatedServerArgs)
	return &b
}

// ReceiptParts returns everything [BuildReceipt] needs besides run, for a
// run of slice: backend, model, [RunContext.Pins] at the run's
// concurrency, [RunContext.Identity] with arm_call_counts {"judgments":
// kept outcomes} and no fixtures, [RunContext.ServerArgs] and the secrets.
func (c RunContext) ReceiptParts(slice Slice, run RunResult) ReceiptParts {
	return ReceiptParts{
		Backend:    c.Backend,
		Model:      c.Model,
		Pins:       c.Pins(slice, run.Concurrency),
		Identity:   c.Identity(receipt.Counts{{Name: "judgments", Value: len(run.Outcomes)}}, nil),
		ServerArgs: c.ServerArgs(run),
		Secrets:    c.Secrets,
	}
}

// Input is one caller-supplied text that a receipt records: the stated
// server arguments, the `git status --porcelain` text, the model name, the
// weights revision, a file name.
type Input struct {
	// Name is how the caller knows the text, such as the environment
	// variable or flag it came from; errors name it.
	Name string
	// Text is the text as the receipt would record it.
	Text string
}

// inputNotKeyFreeError reports a caller-supplied text that would make the
// receipt fail its key-free check ([receipt.CheckKeyFree]). It names the
// input, never its text.
type inputNotKeyFreeError struct {
	// Name is the input's name ([Input].Name).
	Name string
	// Reason is the rule that refused it: "a configured secret",
	// "authorization" or "bearer ".
	Reason string
}

// Error returns "<name> holds a key or an auth header (<reason>); the
// receipt records it, so it would not be key-free: remove it".
func (e *inputNotKeyFreeError) Error() string {
	return fmt.Sprintf("%s holds a key or an auth header (%q); the receipt records it, so it would not be key-free: remove it", e.Name, e.Reason)
}

// CheckInputsKeyFree applies the receipt's key-free rule
// ([receipt.CheckKeyFree]) to each input on its own, in order, with the
// session's secrets (API key and extra header values, known from the
// backend settings before the session opens). Call it before any network
// call: typevet checks only the finished receipt, so a key in the stated
// server arguments cost the whole run; here the run is refused before it
// starts, with an error naming the first such input (never its text).
func CheckInputsKeyFree(secrets judgment.Secrets, inputs ...Input) error {
	for _, in := range inputs {
		b, err := receipt.Marshal(in.Text)
		if err != nil {
			return fmt.Errorf("%s: %w", in.Name, err)
		}
		if err := receipt.CheckKeyFree(b, secrets); err != nil {
			var reason string
			if nk := (*receipt.NotKeyFreeError)(nil); errors.As(err, &nk) {
				reason = nk.Reason
			}
			return &inputNotKeyFreeError{Name: in.Name, Reason: reason}
		}
	}
	return nil
}

// offlineServerEntry returns the pins.server entry of a backend that judges
// without a server, such as the built-in check reader: no served models,
// build_info = version, and backend_pin = pin as a JSON object
// ([serving.ServerEntry].BackendPin; for the reader pass
// reader.Options{}.Pin() and its Version). It fails when pin does not
// marshal to a JSON object.
func offlineServerEntry(version string, pin any) (*serving.ServerEntry, error) {
	b, err := json.Marshal(pin)
	if err != nil {
		return nil, fmt.Errorf("backend pin: %w", err)
	}
	if len(b) == 0 || b[0] != '{' {
		return nil, fmt.Errorf("backend pin: not a JSON object")
	}
	return &serving.ServerEntry{Served: []serving.ServedModel{}, BuildInfo: version, BackendPin: b}, nil
}
