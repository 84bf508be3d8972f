package judgmenttest

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/typevet/typevet-go/judgment"
)

// childEnv, set in a child's environment, makes a test binary serve the
// handler its TestMain gives [ServeInChild] instead of running tests.
const childEnv = "TYPEVET_TEST_CHILD_SERVER"

// childCPUPath is the child's extra endpoint: its own CPU time in ns.
const childCPUPath = "/__cpu"

// childConnsPath is the child's endpoint of the count of connections it
// has accepted.
const childConnsPath = "/__conns"

// ServeInChild serves h when this process is a child started by
// [StartChild], and then never returns: it prints its URL as the first
// line of stdout, answers GET /__cpu with its CPU time in nanoseconds and
// GET /__conns with the number of connections it has accepted
// ([ChildConns]), and exits when stdin closes. In any other process it returns at once. Call
// it first in TestMain, so a benchmark can read a client's CPU apart from
// its server's.
func ServeInChild(h http.Handler) {
	if os.Getenv(childEnv) == "" {
		return
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	mux := http.NewServeMux()
	mux.Handle("/", h)
	mux.HandleFunc(childCPUPath, func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, int64(ProcessCPU())) })
	var conns atomic.Int64
	mux.HandleFunc(childConnsPath, func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, conns.Load()) })
	srv := &http.Server{Handler: mux, ConnState: func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}}
	go srv.Serve(ln)
	fmt.Println("http://" + ln.Addr().String())
	io.Copy(io.Discard, os.Stdin)
	os.Exit(0)
}

// StartChild starts this test binary again as a child serving the handler
// its TestMain gives [ServeInChild], stopped when tb ends, and returns the
// child's URL and a reader of the child's CPU time.
func StartChild(tb testing.TB) (url string, cpu func() time.Duration) {
	tb.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"=1")
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { stdin.Close(); cmd.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		tb.Fatalf("judgmenttest: child server: %v", err)
	}
	url = strings.TrimSpace(line)
	return url, func() time.Duration { return time.Duration(childCount(tb, url+childCPUPath)) }
}

// ChildConns returns the number of connections the child server at url
// ([StartChild]) has accepted so far, its own reads of /__cpu and
// /__conns included (they reuse one connection of [http.DefaultClient]).
func ChildConns(tb testing.TB, url string) int64 {
	tb.Helper()
	return childCount(tb, url+childConnsPath)
}

// childCount reads a number from a child's endpoint.
func childCount(tb testing.TB, url string) int64 {
	tb.Helper()
	resp, err := http.Get(url)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	n, err := strconv.ParseInt(string(body), 10, 64)
	if err != nil {
		tb.Fatalf("judgmenttest: child server %s: %q: %v", url, body, err)
	}
	return n
}

// BenchJudge runs one [CheckRequest] with [CheckPNG] per iteration through
// port and reports cpu-ns/op, this process's CPU per judgment ([ProcessCPU]);
// with serverCPU non-nil (a server in a child, [StartChild]) it also
// reports server-cpu-ns/op, the child's CPU per judgment.
func BenchJudge(b *testing.B, port judgment.Port, serverCPU func() time.Duration) {
	pngBytes := CheckPNG()
	req := CheckRequest(pngBytes)
	ctx := context.Background()
	b.SetBytes(int64(len(pngBytes)))
	b.ReportAllocs()
	var serverStart time.Duration
	if serverCPU != nil {
		serverStart = serverCPU()
	}
	b.ResetTimer()
	start := ProcessCPU()
	for b.Loop() {
		if _, err := port.Judge(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(ProcessCPU()-start)/float64(b.N), "cpu-ns/op")
	if serverCPU != nil {
		b.ReportMetric(float64(serverCPU()-serverStart)/float64(b.N), "server-cpu-ns/op")
	}
}
