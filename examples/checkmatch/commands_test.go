package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/typevet/typevet-go/checkmatch"
	"github.com/typevet/typevet-go/examples/internal/cmdtest"
)

// The tests in this file drive the built commands as a new user meets
// them: each row is a shell command line, run by /bin/sh in a fresh
// directory with the commands on PATH, with the exit status and the words
// the user should (and should not) see.

// commandNames are the commands under examples/: every directory with a
// main.go, so a new command is built and tested without editing a list.
var commandNames = func() []string {
	mains, err := filepath.Glob(filepath.Join("..", "*", "main.go"))
	if err != nil {
		panic(err)
	}
	names := make([]string, len(mains))
	for i, m := range mains {
		names[i] = filepath.Base(filepath.Dir(m))
	}
	return names
}()

var built struct {
	once sync.Once
	dir  string
	err  error
}

// commandsDir builds every command once ([cmdtest.Build]: kept between
// test runs, relinked only when its code changed), with a `go` shim
// beside them that runs `go run ./examples/NAME ARGS` as the built NAME
// (same code, same exit status, no compile per line) and hands anything
// else to the real go.
func commandsDir(t *testing.T) string {
	t.Helper()
	if raceEnabled || testing.Short() {
		t.Skip("builds and runs every command as a child process; the full, non-race run covers it")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go on PATH to build the commands")
	}
	built.once.Do(func() {
		dir, err := cmdtest.Build(commandNames...)
		if err != nil {
			built.err = err
			return
		}
		built.dir = dir
		shim := "#!/bin/sh\nif [ \"$1\" = run ]; then case \"$2\" in ./examples/*) n=${2#./examples/}; shift 2; exec \"" + dir + "/$n\" \"$@\";; esac; fi\nexec \"" + goBin + "\" \"$@\"\n"
		// Written beside and renamed into place: another test binary of
		// this checkout may be running the shim.
		tmp, err := os.CreateTemp(dir, ".go-shim-")
		if err == nil {
			_, err = tmp.WriteString(shim)
			if cerr := tmp.Close(); err == nil {
				err = cerr
			}
			if err == nil {
				err = os.Chmod(tmp.Name(), 0o755)
			}
			if err == nil {
				err = os.Rename(tmp.Name(), filepath.Join(dir, "go"))
			}
			if err != nil {
				os.Remove(tmp.Name())
			}
		}
		built.err = err
	})
	require.NoError(t, built.err)
	return built.dir
}

// userEnv is the environment a row runs with: this process's without any
// TYPEVET_ variable, the commands first on PATH, then extra.
func userEnv(bin string, extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "TYPEVET_") && !strings.HasPrefix(kv, "PATH=") {
			env = append(env, kv)
		}
	}
	env = append(env, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	return append(env, extra...)
}

// cmdRow is one command line and what the user sees.
type cmdRow struct {
	name string
	line string   // the shell command line
	env  []string // extra KEY=value pairs
	dir  string   // working directory; "" means a fresh temporary one
	code int
	want []string // words in stdout+stderr
	not  []string // words that must not appear
	// check runs further assertions in the row's directory.
	check func(t *testing.T, dir, out string)
}

// runRow runs one row and checks its exit status and words.
func runRow(t *testing.T, bin string, r cmdRow) {
	t.Helper()
	dir := r.dir
	if dir == "" {
		dir = t.TempDir()
	}
	cmd := exec.Command("/bin/sh", "-c", r.line)
	cmd.Dir = dir
	cmd.Env = userEnv(bin, r.env...)
	outb, err := cmd.CombinedOutput()
	out := string(outb)
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else {
		require.NoError(t, err)
	}
	assert.Equal(t, r.code, code, "exit status of %s\n%s", r.line, out)
	for _, w := range r.want {
		assert.Contains(t, out, w, "%s", r.line)
	}
	for _, w := range r.not {
		assert.NotContains(t, out, w, "%s", r.line)
	}
	if r.check != nil {
		r.check(t, dir, out)
	}
}

// receiptJSON reads a written receipt as generic JSON.
func receiptJSON(t *testing.T, path string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m))
	return m
}

// dig returns the value at a path of keys in a generic JSON object.
func dig(m map[string]any, keys ...string) any {
	var v any = m
	for _, k := range keys {
		o, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = o[k]
	}
	return v
}

// closedPort returns a local URL where nothing listens.
func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	return "http://" + addr
}

// gitRepo makes a fresh git checkout with one commit and a clean tree.
func gitRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, args := range [][]string{{"init", "-q"}, {"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "--allow-empty", "-m", "init"}} {
		out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput()
		require.NoError(t, err, "git %v: %s", args, out)
	}
	return dir
}

// TestFirstHour is the first hour of a new user, one row per cut the
// issue names: errors that name what the user set, flags that exist, -h,
// git, no server, junk and slow servers, the summary, progress, repeats,
// wording -verify, orderings, go run's exit status, the renderer pin.
func TestFirstHour(t *testing.T) {
	t.Parallel() // waits on child processes
	bin := commandsDir(t)
	junk := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`{"data": 7}`))
	}))
	t.Cleanup(junk.Close) // after the parallel rows
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
	}))
	t.Cleanup(slow.Close)
	none := closedPort(t)
	vllm := "-backend vllm -model m -revision r -receipt r.json"
	_, gitErr := exec.LookPath("git")
	_, scriptErr := exec.LookPath("script")

	rows := []cmdRow{
		// Errors name the flag if the value came from a flag, the
		// variable if from the environment, both if neither set it.
		{name: "rows flag", line: "checkmatch -rows 0 -receipt r.json", code: 2,
			want: []string{"checkmatch: error: -rows must be 1 to 20: 0"}, not: []string{"TYPEVET_CHECK_MATCH_ROWS"}},
		{name: "rows variable", line: "checkmatch -receipt r.json", env: []string{"TYPEVET_CHECK_MATCH_ROWS=0"}, code: 2,
			want: []string{"checkmatch: error: TYPEVET_CHECK_MATCH_ROWS must be 1 to 20: 0"}},
		{name: "receipt missing", line: "checkmatch", code: 2,
			want: []string{"-receipt or TYPEVET_CHECK_MATCH_RECEIPT not set"}},
		{name: "revision missing", line: "checkmatch -backend vllm -base-url " + none + " -model m -receipt r.json", code: 2,
			want: []string{"-revision or TYPEVET_VLLM_MODEL_REVISION must name the served weights revision"}},
		{name: "base-url flag", line: "checkmatch -base-url ftp://x -receipt r.json", code: 2,
			want: []string{"error: -base-url must be an http or https URL"}, not: []string{"flag provided but not defined"}},
		{name: "base-url variable", line: "checkmatch -receipt r.json", env: []string{"TYPEVET_LLAMA__BASE_URL=ftp://x"}, code: 2,
			want: []string{"error: TYPEVET_LLAMA__BASE_URL must be an http or https URL"}},
		{name: "timeout flag", line: "checkmatch -timeout 0 -receipt r.json", code: 2,
			want: []string{"error: -timeout must be a finite number of seconds greater than 0"}},
		{name: "backend flag", line: "checkmatch -backend vlm -receipt r.json", code: 2,
			want: []string{"error: -backend must be one of llama_cpp, vllm, fake, reader"}},
		{name: "throughput rows flag", line: "throughput -rows 0 -receipt-prefix p", code: 2, want: []string{"throughput: error: -rows must be 1 to 20: 0"}},
		{name: "orderings rows flag", line: "orderings -rows 99 -receipt o.json", code: 2, want: []string{"orderings: error: -rows must be an integer from 1 to 20"}},
		{name: "orderings single missing", line: "orderings -backend fake -receipt o.json", code: 2,
			want: []string{"-single or TYPEVET_CHECK_ORDERINGS_SINGLE must name"}},
		{name: "checksheets seed", line: "checksheets -seed x -out s", code: 2,
			want: []string{"checksheets: error: -seed must be a non-negative integer: 'x'"}, not: []string{"argument -seed"}},

		// -h: defaults, backends (the reader too), URL variables, exit status.
		{name: "checkmatch -h", line: "checkmatch -h", want: []string{"-base-url URL", "TYPEVET_LLAMA__BASE_URL or TYPEVET_VLLM__BASE_URL",
			"(default 20)", "(default 900 on llama_cpp, 300 on vllm)", "reader", "the built-in check reader", "TYPEVET_VLLM__API_KEY",
			"Variables without a flag", "exit status 2", "-json"}},
		{name: "throughput -h", line: "throughput -h", want: []string{"-levels LIST", "(default 1,4,16,32)", "-base-url URL", "(default 300 on llama_cpp, 300 on vllm)", "reader"}},
		{name: "orderings -h", line: "orderings -h", want: []string{"-single PATH", "(default 3: 21 cases, 126 requests)", "llama_cpp (default), fake or reader",
			"TYPEVET_LLAMA__BASE_URL"}, not: []string{"vllm "}},
		{name: "wording -h", line: "wording -h", want: []string{"-seed PATH", "file holding a JSON object", "TYPEVET_WORDING_JUDGE", "exit status 2"},
			not: []string{"Usage of wording", "-seed JSON object"}},
		{name: "checksheets -h", line: "checksheets -h", want: []string{"-rows N", "(default 20)", "-out DIR"}},
		{name: "repeats -h", line: "repeats -h", want: []string{"-table", "(default true)", "two or more receipts"}},

		// No server: said at once, with the URL setting and the offline way.
		{name: "no server", line: "checkmatch -base-url " + none + " -receipt r.json", code: 1,
			want: []string{"no llama_cpp server answers at " + none, "point -base-url at it", "-backend reader judges offline"}},
		{name: "no server, variable", line: "checkmatch -receipt r.json", env: []string{"TYPEVET_LLAMA__BASE_URL=" + none}, code: 1,
			want: []string{"point TYPEVET_LLAMA__BASE_URL at it"}},
		{name: "no vllm server", line: "checkmatch -base-url " + none + " " + vllm, code: 1,
			want: []string{"no vllm server answers", "-backend reader"}},
		{name: "throughput no server", line: "throughput -levels 1 -receipt-prefix p -base-url " + none, code: 1,
			want: []string{"no llama_cpp server answers"}, not: []string{"throughput: 140 cases"}},
		{name: "base URL ends in /v1", line: "checkmatch -base-url " + none + "/v1 -receipt r.json", code: 1,
			want: []string{"warning: the base URL ends in /v1", "/v1/v1/", "drop the /v1"}},
		{name: "another backend's settings", line: "checkmatch -backend fake -rows 1 -receipt r.json",
			env:  []string{"TYPEVET_VLLM__BASE_URL=http://127.0.0.1:1", "TYPEVET_VLLM__MODEL=m"},
			want: []string{"warning: TYPEVET_VLLM__BASE_URL, TYPEVET_VLLM__MODEL set, but the backend is fake: they are ignored", "-backend vllm"}},
		{name: "junk JSON", line: "checkmatch -base-url " + junk.URL + " " + vllm, code: 1,
			want: []string{`"data" is a JSON number where the server should send a list`, "is the base URL the server's root?"},
			not:  []string{"Go struct", "json.RawMessage"}},
		{name: "llama.cpp timeout", line: "checkmatch -timeout 0.3 -base-url " + slow.URL + " -receipt r.json", code: 1,
			want: []string{"a request took longer than the timeout, 0.3 s (-timeout, in seconds); raise it"}},
		{name: "flags are no warning", line: "checkmatch -timeout 0.3 -base-url " + none + " -receipt r.json", code: 1,
			not: []string{"warning:"}},
		{name: "timeout", line: "checkmatch -timeout 0.3 -base-url " + slow.URL + " " + vllm, code: 1,
			want: []string{"a request took longer than the timeout, 0.3 s (-timeout, in seconds); raise it"}},

		// The summary: a short table; -json keeps the key-value lines.
		{name: "summary table", line: "checkmatch -backend reader -rows 1 -receipt r.json",
			want: []string{"cases judged", "7 of 7 (reader, reader)", "accuracy ", "false-clear rate", "cannot-tell rate",
				"payee_matches     ROC-AUC", "amounts_match     ROC-AUC", "ECE", "worst variant", "wrong cases       0", "judgments/s", "receipt           r.json", "sha256"},
			not: []string{"accuracy_by_variant {", "throughput {"}},
		{name: "summary -json", line: "checkmatch -backend reader -rows 1 -json -receipt r.json",
			want: []string{"receipt r.json sha256 ", "accuracy 1.0\n", "accuracy_by_variant {", "stopped null", "throughput {"}, not: []string{"cases judged"}},
		// Progress stays off a file or a pipe.
		{name: "no progress in a pipe", line: "checkmatch -backend reader -rows 1 -receipt r.json 2>&1 | cat",
			not: []string{"rendering:", "judging:"}},

		// Repeats of one receipt, wording -verify of a check receipt, an
		// orderings single-order receipt of another judge.
		{name: "repeats of one receipt", line: "checkmatch -backend reader -rows 1 -receipt r.json >/dev/null 2>&1 && repeats r.json >/dev/null",
			want: []string{"stability not judged: 1 included run; it takes two or more"}, not: []string{"\nstable (", "not stable"}},
		{name: "wording -verify of a check receipt", line: "checkmatch -backend fake -rows 1 -receipt r.json >/dev/null 2>&1 && wording -verify r.json", code: 1,
			want: []string{"not a wording receipt: it is a check-match receipt"}, not: []string{"written before #363"}},
		{name: "orderings on another judge's receipt", line: "checkmatch -backend fake -seed 1 -rows 1 -receipt s.json >/dev/null 2>&1 && orderings -backend reader -rows 1 -single s.json -receipt o.json",
			want: []string{`warning: the single-order receipt was judged by fake "fake-model", this study by reader "reader": the accuracy difference mixes two judges`}},
		{name: "orderings on its own judge's receipt", line: "checkmatch -backend reader -seed 1 -rows 1 -receipt s.json >/dev/null 2>&1 && orderings -backend reader -rows 1 -single s.json -receipt o.json",
			not: []string{"warning:"}},

		// Outside a git checkout, say so.
		{name: "outside git", line: "checkmatch -backend fake -rows 1 -receipt r.json",
			want: []string{`is not in a git checkout: the receipt records baseline_commit "unknown"`}},
	}
	if gitErr == nil {
		repo := gitRepo(t)
		rows = append(rows,
			cmdRow{name: "clean clone", line: "checkmatch -backend fake -rows 1 -receipt r.json", dir: repo,
				want: []string{"working tree clean (from git status --porcelain): the receipt records dirty false"},
				check: func(t *testing.T, dir, _ string) {
					assert.Equal(t, false, dig(receiptJSON(t, filepath.Join(dir, "r.json")), "identity", "working_tree", "dirty"))
				}},
			cmdRow{name: "dirty clone", line: "touch new.txt && checkmatch -backend fake -rows 1 -receipt r2.json", dir: repo,
				want: []string{"2 changed paths (from git status --porcelain): the receipt records dirty true (new.txt, r.json)"}},
			cmdRow{name: "porcelain variable", line: "checkmatch -backend fake -rows 1 -receipt r3.json", dir: repo, env: []string{"TYPEVET_GIT_STATUS_PORCELAIN="},
				want: []string{"working tree clean (from TYPEVET_GIT_STATUS_PORCELAIN)"}},
			cmdRow{name: "no git on PATH", line: "PATH=" + bin + " checkmatch -backend fake -rows 1 -receipt r4.json", dir: repo,
				want: []string{"git: not on PATH and TYPEVET_GIT_STATUS_PORCELAIN is unset", `TYPEVET_GIT_STATUS_PORCELAIN="$(git status --porcelain)"`}},
		)
	}
	if scriptErr == nil {
		rows = append(rows, cmdRow{name: "progress on a terminal",
			line: `script -qec "checkmatch -backend reader -rows 1 -receipt r.json" /dev/null`,
			want: []string{"rendering: 7/7 checks", "judging: 7/7 cases, 0 failures"}},
			cmdRow{name: "sweep progress on a terminal",
				line: `script -qec "throughput -backend reader -rows 1 -levels 1,2 -receipt-prefix t" /dev/null`,
				want: []string{"rendering: 7/7 checks", "sweep: 14/14 judgments, 0 failures"}},
			cmdRow{name: "orderings progress on a terminal",
				line: `checkmatch -backend reader -seed 1 -rows 1 -receipt s.json >/dev/null 2>&1 && script -qec "orderings -backend reader -rows 1 -single s.json -receipt o.json" /dev/null`,
				want: []string{"rendering: 7/7 checks", "scoring orderings: 42/42 requests, 0 failures"}},
			cmdRow{name: "sheets progress on a terminal",
				line: `script -qec "checksheets -rows 1 -out s" /dev/null`, want: []string{"drawing: 1/1 sheets"}})
	}
	// Each row waits on its child processes, most in a fresh directory:
	// those run in parallel; the rows in the one git clone run in order.
	var inClone []cmdRow
	for _, r := range rows {
		if r.dir != "" {
			inClone = append(inClone, r)
			continue
		}
		t.Run(r.name, func(t *testing.T) {
			t.Parallel()
			runRow(t, bin, r)
		})
	}
	t.Run("in one clone", func(t *testing.T) {
		t.Parallel()
		for _, r := range inClone {
			t.Run(r.name, func(t *testing.T) { runRow(t, bin, r) })
		}
	})
}

// TestGoRun: go run turns the command's exit status 2 into 1 and prints
// "exit status 2", as README.md says; and go run and go build of one tree
// pin the same renderer module_version (the commit and dirty state).
func TestGoRun(t *testing.T) {
	t.Parallel() // waits on child processes
	bin := commandsDir(t)
	root, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)
	out := t.TempDir()
	runRow(t, bin, cmdRow{name: "go run usage error", dir: root, line: "\"$REALGO\" run ./examples/checkmatch -rows 0 -receipt x.json",
		env: []string{"REALGO=" + realGo(t)}, code: 1, want: []string{"-rows must be 1 to 20: 0", "exit status 2"}})
	runRow(t, bin, cmdRow{name: "built usage error", dir: root, line: bin + "/checkmatch -rows 0 -receipt x.json", code: 2})
	runRow(t, bin, cmdRow{name: "go run pin", dir: root, env: []string{"REALGO=" + realGo(t)},
		line: "\"$REALGO\" run ./examples/checkmatch -backend fake -rows 1 -receipt " + filepath.Join(out, "run.json")})
	runRow(t, bin, cmdRow{name: "go build pin", dir: root, line: bin + "/checkmatch -backend fake -rows 1 -receipt " + filepath.Join(out, "build.json")})
	a := receiptJSON(t, filepath.Join(out, "run.json"))
	b := receiptJSON(t, filepath.Join(out, "build.json"))
	va, vb := dig(a, "pins", "renderer", "module_version"), dig(b, "pins", "renderer", "module_version")
	assert.Equal(t, va, vb, "go run and go build pin the same renderer")
	assert.Regexp(t, `^[0-9a-f]{40}(\+dirty)?$`, va, "the pin is the commit and the dirty state")
	assert.Equal(t, dig(a, "identity", "baseline_commit"), strings.TrimSuffix(va.(string), "+dirty"))
}

// realGo returns the go on PATH.
func realGo(t *testing.T) string {
	p, err := exec.LookPath("go")
	require.NoError(t, err)
	return p
}

// readmeLines returns every command line of a README: the lines of its sh
// blocks (continuations joined, comments left out) and the commands in
// backticks in its table rows.
func readmeLines(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var lines []string
	inSh := false
	var cur string
	cell := regexp.MustCompile("^\\| `(go run [^`]+)` \\|")
	for sc := bufio.NewScanner(f); sc.Scan(); {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "```sh"):
			inSh = true
		case strings.HasPrefix(line, "```"):
			inSh = false
		case inSh:
			text := strings.TrimSpace(line)
			if text == "" || strings.HasPrefix(text, "#") {
				continue
			}
			if more, ok := strings.CutSuffix(text, "\\"); ok {
				cur += strings.TrimSpace(more) + " "
				continue
			}
			lines = append(lines, cur+text)
			cur = ""
		default:
			if m := cell.FindStringSubmatch(line); m != nil {
				lines = append(lines, m[1])
			}
		}
	}
	return lines
}

// readmeRow is what a README command line does when run as written,
// offline.
type readmeRow struct {
	code  int
	want  []string
	llama bool     // expects no llama-server on 127.0.0.1:8090
	env   []string // a short timeout for a line that meets no server, so a network that drops packets fails the test instead of hanging it
	// check runs further assertions in the README's directory.
	check func(t *testing.T, dir, out string)
}

// TestREADMECommands runs every command line of README.md and
// examples/README.md as written, offline, in order, in a fresh directory
// per file (with examples/ linked in for the testdata paths), so the
// READMEs and -h stay true. A command that needs a server is run too: it
// must fail at once with the hint that says what to set. A new command
// line in a README fails this test until it is added here.
func TestREADMECommands(t *testing.T) {
	t.Parallel() // waits on child processes
	bin := commandsDir(t)
	examples, err := filepath.Abs("..")
	require.NoError(t, err)
	noServer := []string{"no llama_cpp server answers at http://127.0.0.1:8090", "TYPEVET_LLAMA__BASE_URL", "-backend reader judges offline"}
	want := map[string]readmeRow{
		"go run ./examples/checkmatch -backend reader -receipt receipts/check_match_reader.json": {
			want:  []string{"cases judged      140 of 140 (reader, reader)", "accuracy          1.0000", "receipts/check_match_reader.json", "git:"},
			check: quickStartReceipt},
		"go run ./examples/checksheets -seed 1 -out sheets": {want: []string{"sheets/seed1_row00.png", "sheets/seed1_row19.png"},
			check: contactSheets},
		"go run ./examples/checkmatch -h": {want: []string{"-base-url URL", "reader", "Variables without a flag"}},
		"TYPEVET_LLAMA__BASE_URL=http://127.0.0.1:8090 TYPEVET_LLAMA__MULTIMODAL_MODEL=gemma-4-31b-kv9-q4km-mm go run ./examples/checkmatch -receipt receipts/check_match_llama_cpp.json": {
			code: 1, want: noServer, llama: true},
		"go run ./examples/checkmatch -base-url http://127.0.0.1:8090 -model gemma-4-31b-kv9-q4km-mm -receipt receipts/check_match_llama_cpp_flags.json": {
			code: 1, want: []string{"no llama_cpp server answers at http://127.0.0.1:8090", "point -base-url at it"}, llama: true},
		"TYPEVET_BACKEND=vllm TYPEVET_VLLM__BASE_URL=https://host:8000 TYPEVET_VLLM__MODEL=google/gemma-4-31B-it TYPEVET_VLLM__API_KEY=... TYPEVET_VLLM_MODEL_REVISION=842da3794eaa0b77d5f08bae87a17459d91ff475 TYPEVET_VLLM_SERVER_ARGS=\"--max-num-seqs 32 --enable-prefix-caching\" TYPEVET_IMAGE_CONCURRENCY=16 go run ./examples/checkmatch -receipt receipts/check_match_vllm.json": {
			code: 1, want: []string{"no vllm server answers at https://host:8000", "TYPEVET_VLLM__BASE_URL"}, env: []string{"TYPEVET_VLLM__TIMEOUT=20"}},
		"go run ./examples/checkmatch -receipt receipts/check_match.json": {code: 1, want: noServer, llama: true},
		"go run ./examples/wording -seed examples/wording/testdata/seed.json -evolved examples/wording/testdata/evolved.json -components criteria_true": {
			want: []string{`"wording_digests": {`, `"components": [`}},
		"go run ./examples/orderings -single receipts/check_match_seed1.json -receipt receipts/orderings_seed1.json": {
			code: 2, want: []string{"orderings: error: -single: open receipts/check_match_seed1.json: no such file"}},
		"go run ./examples/repeats receipts/check_match_llama_cpp_repeat*.json > summary.json": {
			code: 1, want: []string{"repeats: ", "receipts/check_match_llama_cpp_repeat*.json"}},
		"go run ./examples/throughput -levels 1,4,16,32 -rows 20 -receipt-prefix receipts/check_match_vllm_throughput": {
			code: 1, want: noServer, llama: true},
		"go run ./examples/stats receipts/check_match.json > intervals.json": {
			code: 1, want: []string{"stats: open receipts/check_match.json: no such file"}},
		"go run ./examples/merge shards/s0.json shards/s1.json shards/s2.json -receipt receipts/check_match.json": {
			code: 1, want: []string{"open shards/s0.json: no such file"}},
		"go run ./examples/view receipts/check_match_reader.json -out site": {
			want: []string{"site/index.html", "140 cases, 0 wrong; images 140 reproduced, 0 not reproducible"}},
		"go run ./examples/stats receipts/check_match_vllm.json > intervals.json": {
			code: 1, want: []string{"stats: open receipts/check_match_vllm.json: no such file"}},
		"go run ./examples/stats -cluster case -out intervals_cases.json receipts/check_match_vllm.json": {
			code: 1, want: []string{"stats: open receipts/check_match_vllm.json: no such file"}},
		"go run ./examples/compare receipts/run_a.json receipts/run_b.json > comparison.json": {
			code: 1, want: []string{"compare: open receipts/run_a.json: no such file"}},
		"go run ./examples/compare receipts/a.json receipts/b.json > comparison.json": {
			code: 1, want: []string{"compare: open receipts/a.json: no such file"}},
		"go run ./examples/checkmatch -backend fake -seed 1 -rows 3 -receipt receipts/check_seed1.json": {
			want: []string{"cases judged      21 of 21 (fake, fake-model)"}},
		"go run ./examples/orderings -backend fake -single receipts/check_seed1.json -receipt receipts/orderings_fake.json": {
			want: []string{"receipt               receipts/orderings_fake.json", "position spread       "}},
	}
	llamaUp := false
	if c, err := net.DialTimeout("tcp", "127.0.0.1:8090", time.Second); err == nil {
		c.Close()
		llamaUp = true
	}
	// The lines of one README run in order in its directory (a line may
	// read what an earlier one wrote); the two READMEs run in parallel.
	seen := map[string]bool{}
	type file struct {
		readme, dir string
		lines       []string
	}
	var files []file
	for _, readme := range []string{filepath.Join("..", "..", "README.md"), filepath.Join("..", "README.md")} {
		dir := t.TempDir()
		require.NoError(t, os.Symlink(examples, filepath.Join(dir, "examples")))
		lines := readmeLines(t, readme)
		require.NotEmpty(t, lines, readme)
		f := file{readme: readme, dir: dir}
		for _, line := range lines {
			if line == "go test ./..." {
				continue // the README's test line is this run
			}
			if _, ok := want[line]; !assert.True(t, ok, "%s has a command line this test does not know; add it with what it prints:\n%s", readme, line) {
				continue
			}
			if seen[line] {
				continue // shown in both READMEs; its run in the first stands for both
			}
			seen[line] = true
			f.lines = append(f.lines, line)
		}
		files = append(files, f)
	}
	for _, f := range files {
		t.Run(f.readme, func(t *testing.T) {
			t.Parallel()
			for _, line := range f.lines {
				r := want[line]
				t.Run(line, func(t *testing.T) {
					if r.llama && llamaUp {
						t.Skip("something listens on 127.0.0.1:8090; the no-server line cannot run as written")
					}
					env := r.env
					if r.llama {
						env = append(env, "TYPEVET_LLAMA__TIMEOUT=20")
					}
					runRow(t, bin, cmdRow{line: line, dir: f.dir, code: r.code, want: r.want, env: env, check: r.check})
				})
			}
		})
	}
	for line := range want {
		assert.True(t, seen[line], "no README shows %q any more; drop it here", line)
	}
}

// quickStartReceipt checks the README's quick start as written (all 140
// cases; TestREADMEQuickStart runs its line in-process on one row): the
// summary names the receipt with its SHA-256, and the receipt reads back
// with 140 cases and metrics Recompute reproduces.
func quickStartReceipt(t *testing.T, dir, out string) {
	const path = "receipts/check_match_reader.json"
	b, err := os.ReadFile(filepath.Join(dir, path))
	require.NoError(t, err)
	checkSummary(t, out, path, b)
	r, err := checkmatch.ReadReceipt(bytes.NewReader(b))
	require.NoError(t, err)
	assert.Equal(t, 7*checkmatch.RowCount, len(r.Cases), "cases in the receipt")
	checkRecompute(t, r)
}

// contactSheets checks the README's contact-sheet line as written (all 20
// rows; examples/checksheets' TestREADMEContactSheets runs it in-process
// on two): one path per sheet on stdout, in row order, each written.
func contactSheets(t *testing.T, dir, out string) {
	var want []string
	for row := range checkmatch.RowCount {
		p := filepath.Join("sheets", fmt.Sprintf("seed1_row%02d.png", row))
		want = append(want, p)
		_, err := os.Stat(filepath.Join(dir, p))
		assert.NoError(t, err, "sheet %s", p)
	}
	assert.Equal(t, strings.Join(want, "\n"), strings.TrimSuffix(out, "\n"), "one path per sheet, nothing else")
}
