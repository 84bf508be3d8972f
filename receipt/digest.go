package receipt

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/typevet/typevet-go/internal/pyjson"
	"github.com/typevet/typevet-go/judgment"
)

// PromptDigest returns the digest typevet records in
// identity.prompt_digests for the question named name: the SHA-256 hex of
// Python's json.dumps(payload, sort_keys=True) (separators ", " and ": ",
// non-ASCII as \uXXXX, keys sorted at every level) over
//
//	{"name": name, "label_order": [...], "instructions": ..., "criteria": {...}}
//
// where label_order lists the criteria keys in option order and criteria
// maps each key to its description:
//
//   - Noul: keys "true" then "false"; a Noul without criteria has
//     label_order [] and criteria {}.
//   - Choice: the option labels in order.
//   - Score: the levels "0" … "n-1".
//
// Decisions (typevet's run specs are Python dicts; these cases never occur
// in them): an empty instruction or description is Python None and hashed
// as null; a label given twice (which judgment refuses) appears once, at
// its first position with its last description, as in a Python dict; text
// that is not valid UTF-8 is hashed with each run of bad bytes replaced by
// U+FFFD. PromptDigest panics on a nil question.
func PromptDigest(name string, q judgment.Question) string {
	var labels, texts []string
	var instructions string
	switch q := q.(type) {
	case judgment.Noul:
		instructions = q.Instructions
		if !q.Criteria.IsZero() {
			labels = []string{"true", "false"}
			texts = []string{q.Criteria.True, q.Criteria.False}
		}
	case judgment.Choice:
		instructions = q.Instructions
		for _, c := range q.Criteria {
			labels = append(labels, c.Label)
			texts = append(texts, c.Description)
		}
	case judgment.Score:
		instructions = q.Instructions
		for i, text := range q.Criteria {
			labels = append(labels, strconv.Itoa(i))
			texts = append(texts, text)
		}
	default:
		panic(fmt.Sprintf("receipt: PromptDigest of question %T", q))
	}
	criteria := pyjson.Object{}
	order := []string{}
	for i, label := range labels {
		label = validText(label)
		if j := slices.Index(order, label); j >= 0 {
			criteria[j].Value = textOrNull(texts[i]) // as a Python dict keeps the last value
			continue
		}
		order = append(order, label)
		criteria = append(criteria, pyjson.Member{Key: label, Value: textOrNull(texts[i])})
	}
	return canonicalDigest(pyjson.Object{
		{Key: "name", Value: validText(name)},
		{Key: "label_order", Value: order},
		{Key: "instructions", Value: textOrNull(instructions)},
		{Key: "criteria", Value: criteria},
	})
}

// PromptDigests returns the prompt digests of named questions in question
// order, ready for [Identity].PromptDigests.
func PromptDigests(questions []judgment.NamedQuestion) Digests {
	out := make(Digests, 0, len(questions))
	for _, nq := range questions {
		out = append(out, Entry[string]{Name: nq.Name, Value: PromptDigest(nq.Name, nq.Question)})
	}
	return out
}

// CodeDigests returns the code fingerprint of a run
// ([Identity].CodePathDigests): for each logical name of files, sorted by
// name, the SHA-256 hex of that name's source files in fsys. files maps
// each logical name (check match: cases, metrics, pool, render, request,
// runner, serving_metrics, words) to its paths in fsys:
//
//   - one path: the SHA-256 of the file's bytes, as typevet digests its
//     one Python file per name;
//   - several paths: the SHA-256 of, in path order, each path, a NUL byte,
//     the file's bytes and a NUL byte, so moving code between the files of
//     a name, or renaming one, changes the digest.
//
// The paths are sorted here; the caller's slices are not changed. Runs
// embed their own source files with go:embed and pass the embed.FS, so two
// builds with different run code never share digests.
//
// A name with no paths, or an unreadable file, is an error naming the
// logical name (and the path).
func CodeDigests(fsys fs.FS, files map[string][]string) (Digests, error) {
	out := make(Digests, 0, len(files))
	for _, name := range slices.Sorted(maps.Keys(files)) {
		paths := slices.Sorted(slices.Values(files[name]))
		if len(paths) == 0 {
			return nil, fmt.Errorf("receipt: code digest %q: no files", name)
		}
		h := sha256.New()
		for _, p := range paths {
			b, err := fs.ReadFile(fsys, p)
			if err != nil {
				return nil, fmt.Errorf("receipt: code digest %q: %w", name, err)
			}
			if len(paths) == 1 {
				h.Write(b)
				break
			}
			h.Write([]byte(p))
			h.Write([]byte{0})
			h.Write(b)
			h.Write([]byte{0})
		}
		out = append(out, Entry[string]{Name: name, Value: hex.EncodeToString(h.Sum(nil))})
	}
	return out, nil
}

// textOrNull is nil (JSON null, Python None) for "" and the text otherwise.
func textOrNull(s string) any {
	if s == "" {
		return nil
	}
	return validText(s)
}

// validText replaces each run of bytes that is not valid UTF-8 by U+FFFD,
// the nearest a Python str can come to it.
func validText(s string) string {
	return strings.ToValidUTF8(s, "\uFFFD")
}
