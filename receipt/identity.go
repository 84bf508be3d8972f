package receipt

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"

	"github.com/typevet/typevet-go/internal/pyjson"
)

// Identity is a run's experiment identity, the receipt's identity block:
// what code, prompts, data and
// server produced the receipt. Two runs with the same IdentityDigest ran the
// same experiment; RunID tells their attempts apart.
//
// Prompt and code digests are taken before any scoring call and not read
// again; ArmCallCounts is filled in after the run.
type Identity struct {
	// RunID is a fresh random UUID4 as 32 lower-case hex digits, unique per
	// attempt ([NewRunID]). It is the one field the identity digest leaves
	// out.
	RunID string `json:"run_id"`
	// BaselineCommit is the commit HEAD named when the run started
	// ([BaselineCommit]): 40 or 64 hex digits, or "unknown".
	BaselineCommit string `json:"baseline_commit"`
	// WorkingTree says whether the tree differed from BaselineCommit
	// ([WorkingTreeFromPorcelain]).
	WorkingTree WorkingTree `json:"working_tree"`
	// PromptDigests maps each question name, in question order, to the
	// digest of its wording ([PromptDigest]).
	PromptDigests Digests `json:"prompt_digests"`
	// CodePathDigests maps the logical names of the run's source files,
	// sorted by name, to the SHA-256 of their bytes ([CodeDigests]).
	CodePathDigests Digests `json:"code_path_digests"`
	// FixtureDigests maps logical names of data files the run read to the
	// SHA-256 of their bytes; {} when the run reads none (check, face).
	FixtureDigests Digests `json:"fixture_digests"`
	// Runtime names the model and server the run judged with.
	Runtime Runtime `json:"runtime"`
	// ArmCallCounts counts the calls of each arm after the run; check and
	// face runs record {"judgments": kept judgments}.
	ArmCallCounts Counts `json:"arm_call_counts"`
	// IdentityDigest is the SHA-256 hex of every field above except RunID
	// ([IdentityDigest]).
	IdentityDigest string `json:"identity_digest"`
}

// Runtime is the identity's runtime block: the model and server a run
// judged with.
type Runtime struct {
	// Model is the session model id sent to the backend.
	Model string `json:"model"`
	// ServedTemplate is the served-template family: the llama.cpp family
	// (e.g. "native_gemma4_turn") or "vllm_chat" on vLLM.
	ServedTemplate string `json:"served_template"`
	// ServerBuild is the server's build_info (pins.server.build_info) as a
	// string, or "unknown".
	ServerBuild string `json:"server_build"`
	// TemplateIdentity identifies the chat template; "unknown" by default.
	TemplateIdentity string `json:"template_identity"`
	// ProjectorIdentity identifies the vision projector; "unknown" by
	// default.
	ProjectorIdentity string `json:"projector_identity"`
	// ConfigIdentity identifies the server configuration; "unknown" by
	// default.
	ConfigIdentity string `json:"config_identity"`
}

// NewRuntime returns the runtime block for a model, served-template family
// and server build, with the three identities "unknown", as typevet's runs
// record them.
func NewRuntime(model, servedTemplate, serverBuild string) Runtime {
	return Runtime{
		Model:             model,
		ServedTemplate:    servedTemplate,
		ServerBuild:       serverBuild,
		TemplateIdentity:  Unknown,
		ProjectorIdentity: Unknown,
		ConfigIdentity:    Unknown,
	}
}

// NewRunID returns a random UUID version 4 as 32 lower-case hex digits
// without dashes (Python uuid4().hex), from crypto/rand.
func NewRunID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])  // crypto/rand.Read never returns an error
	b[6] = b[6]&0x0f | 0x40 // version 4
	b[8] = b[8]&0x3f | 0x80 // RFC 4122 variant
	return hex.EncodeToString(b[:])
}

// IdentityDigest returns the SHA-256 hex of the canonical JSON (Python
// json.dumps(obj, sort_keys=True), see [PromptDigest]) of id without RunID
// and IdentityDigest: arm_call_counts, baseline_commit, code_path_digests,
// fixture_digests, prompt_digests, runtime (six fields) and working_tree
// (dirty, dirty_digest, dirty_paths). It reproduces the identity_digest of
// typevet's receipts.
//
// Text that is not valid UTF-8 (which a Python str cannot hold) is hashed
// with each run of bad bytes replaced by U+FFFD; a name given twice keeps
// its last value, as a Python dict does.
func IdentityDigest(id Identity) string {
	paths := make([]string, len(id.WorkingTree.DirtyPaths))
	for i, p := range id.WorkingTree.DirtyPaths {
		paths[i] = validText(p)
	}
	r := id.Runtime
	return canonicalDigest(pyjson.Object{
		{Key: "arm_call_counts", Value: pyObject(id.ArmCallCounts)},
		{Key: "baseline_commit", Value: validText(id.BaselineCommit)},
		{Key: "code_path_digests", Value: pyObject(id.CodePathDigests)},
		{Key: "fixture_digests", Value: pyObject(id.FixtureDigests)},
		{Key: "prompt_digests", Value: pyObject(id.PromptDigests)},
		{Key: "runtime", Value: pyjson.Object{
			{Key: "model", Value: validText(r.Model)},
			{Key: "served_template", Value: validText(r.ServedTemplate)},
			{Key: "server_build", Value: validText(r.ServerBuild)},
			{Key: "template_identity", Value: validText(r.TemplateIdentity)},
			{Key: "projector_identity", Value: validText(r.ProjectorIdentity)},
			{Key: "config_identity", Value: validText(r.ConfigIdentity)},
		}},
		{Key: "working_tree", Value: pyjson.Object{
			{Key: "dirty", Value: id.WorkingTree.Dirty},
			{Key: "dirty_digest", Value: validText(id.WorkingTree.DirtyDigest)},
			{Key: "dirty_paths", Value: paths},
		}},
	})
}

// pyObject converts an ordered mapping of strings or ints to a pyjson
// object. A repeated name keeps its last value, as a Python dict built from
// the pairs would.
func pyObject[V string | int](o Ordered[V]) pyjson.Object {
	out := pyjson.Object{}
	index := map[string]int{}
	for _, e := range o {
		var v any = e.Value
		if s, ok := v.(string); ok {
			v = validText(s)
		}
		name := validText(e.Name)
		if i, seen := index[name]; seen {
			out[i].Value = v
			continue
		}
		index[name] = len(out)
		out = append(out, pyjson.Member{Key: name, Value: v})
	}
	return out
}

// canonicalDigest is the SHA-256 hex of pyjson.Canonical(v). v holds only
// valid UTF-8 text and supported types, so encoding cannot fail.
func canonicalDigest(v any) string {
	b, err := pyjson.Canonical(v)
	if err != nil {
		panic("receipt: canonical JSON of a digest payload: " + err.Error())
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
