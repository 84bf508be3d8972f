package vllm_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/typevet/typevet-go/judgment/judgmenttest"
	"github.com/typevet/typevet-go/judgment/vllm"
)

// TestPooledImagesStayWithTheirJudgment: request bodies reuse pooled
// JSON buffers and each judgment caches its data URIs, so every scoring
// body of 96 concurrent judgments, each with its own image of its own
// size, must carry exactly its judgment's image: the server decodes each
// body's image and checks it against the case named in the body's text.
func TestPooledImagesStayWithTheirJudgment(t *testing.T) {
	canned := cannedVLLMHandler()
	caseText := regexp.MustCompile(`case-(\d+)`)
	var checked atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/chat/completions" {
			body, _ := io.ReadAll(r.Body)
			var in struct {
				Messages []struct {
					Content []struct {
						Text     string
						ImageURL *struct{ URL string } `json:"image_url"`
					}
				}
			}
			if err := json.Unmarshal(body, &in); err != nil || len(in.Messages) != 1 {
				t.Errorf("body: %v", err)
			}
			var text, uri string
			for _, b := range in.Messages[0].Content {
				text += b.Text
				if b.ImageURL != nil {
					uri = b.ImageURL.URL
				}
			}
			m := caseText.FindStringSubmatch(text)
			data, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(uri, "data:image/png;base64,"))
			if m == nil || err != nil || !bytes.Equal(data, caseImage(m[1])) {
				t.Errorf("case %v got an image of %d bytes that is not its own (%v)", m, len(data), err)
			}
			checked.Add(1)
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		canned.ServeHTTP(w, r)
	}))
	defer srv.Close()
	sess, err := vllm.Open(context.Background(), vllm.Settings{BaseURL: srv.URL, Model: judgmenttest.DefaultModelID}, vllm.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	const cases, workers = 96, 8
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for n := next.Add(1); n <= cases; n = next.Add(1) {
				id := fmt.Sprint(n)
				req := judgmenttest.CheckRequest(caseImage(id))
				req.State = "case-" + id
				if _, err := sess.Judge(context.Background(), req); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if got, want := checked.Load(), int64(cases*len(judgmenttest.CheckQuestions())); got != want {
		t.Errorf("%d scoring bodies checked, want %d", got, want)
	}
}

// caseImage is the image of case id: distinct bytes, 20–60 KB.
func caseImage(id string) []byte {
	var n int
	fmt.Sscan(id, &n)
	return bytes.Repeat([]byte("png-"+id+"."), 20000/len(id)+n*250/len(id))
}
