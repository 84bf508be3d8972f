package judgmenttest

import (
	"io"
	"net/http"
	"os"
	"testing"
)

// TestMain runs the tests, or, in a child started by StartChild, serves a
// handler that answers "child".
func TestMain(m *testing.M) {
	ServeInChild(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "child") }))
	os.Exit(m.Run())
}

// TestStartChild: the child serves TestMain's handler on the URL it
// prints, and reports a CPU time that does not go backwards.
func TestStartChild(t *testing.T) {
	url, cpu := StartChild(t)
	resp, err := http.Get(url + "/anything")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(body) != "child" {
		t.Errorf("child answered %q, want the handler's %q", body, "child")
	}
	first := cpu()
	if second := cpu(); second < first || first < 0 {
		t.Errorf("child CPU %v then %v, want non-negative and non-decreasing", first, second)
	}
}

// TestChildConns: the child counts the connections it accepts: a fresh
// client's request adds one.
func TestChildConns(t *testing.T) {
	url, _ := StartChild(t)
	before := ChildConns(t, url)
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Get(url + "/x")
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if after := ChildConns(t, url); after != before+1 {
		t.Errorf("connections %d, then %d after one request on a new connection; want one more", before, after)
	}
}
