package vllm

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/typevet/typevet-go/judgment"
	"github.com/typevet/typevet-go/judgment/judgmenttest"
)

// manyRequest has 20 candidates.
var manyRequest = func() judgment.ScoringRequest {
	r := judgment.ScoringRequest{Model: fuzzRequest.Model, Prefix: "p"}
	for i := range 20 {
		r.Candidates = append(r.Candidates, judgment.Candidate{Label: fmt.Sprint(i), TokenID: 100 + i})
	}
	return r
}()

// chatAnswerBody is a chat-completion answer in vLLM's layout listing
// the given ids (the first one twice when dup), each with logprob -1.5.
func chatAnswerBody(ids []int, dup bool) []byte {
	var b strings.Builder
	b.WriteString(`{"id":"chatcmpl-9","object":"chat.completion","created":1764633600,"model":"gemma-4-31b-it","choices":[{"index":0,"message":{"role":"assistant","content":"0","refusal":null,"annotations":null,"audio":null,"function_call":null,"tool_calls":[],"reasoning_content":null},"logprobs":{"content":[{"token":"token_id:236771","logprob":-0.01,"bytes":[48],"top_logprobs":[`)
	if dup {
		ids = append(ids, ids[0])
	}
	for i, id := range ids {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"token":"token_id:%d","logprob":-1.5,"bytes":[48]}`, id)
	}
	b.WriteString(`]}]},"finish_reason":"length","stop_reason":null,"token_ids":null}],"service_tier":null,"system_fingerprint":null,"usage":{"prompt_tokens":412,"total_tokens":413,"completion_tokens":1,"prompt_tokens_details":null},"prompt_logprobs":null,"prompt_token_ids":null,"kv_transfer_params":null}`)
	return []byte(b.String())
}

// chatSeeds are the testdata answers, answers in vLLM's full layout and
// bodies at each rule of the decoder: missing, null and mistyped parts,
// Python's literals, repeated and case-folded keys, trailing bytes.
func chatSeeds(tb testing.TB) [][]byte {
	paths, _ := filepath.Glob("testdata/chat/*.json")
	var seeds [][]byte
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			tb.Fatal(err)
		}
		seeds = append(seeds, b)
	}
	var many []int
	for _, c := range manyRequest.Candidates {
		many = append(many, c.TokenID)
	}
	var long []int
	for id := range 72 {
		long = append(long, 1000+id)
	}
	seeds = append(seeds, chatAnswerBody(append(long, many...), false), chatAnswerBody(append(long, many...), true),
		chatAnswerBody(append(many, long...), true))
	seeds = append(seeds, chatAnswerBody([]int{236771, 236770, 236778}, false), chatAnswerBody([]int{236771, 236770, 236778}, true),
		chatAnswerBody(many, false), chatAnswerBody(many, true), chatAnswerBody(append(many[:17:17], 236771, 236770, 236778), false))
	for _, s := range []string{
		``, ` `, `null`, `[]`, `{}`, `{"choices":null}`, `{"choices":[]}`, `{"choices":[null]}`, `{"choices":[{}]}`,
		`{"choices":[{"logprobs":null}]}`, `{"choices":[{"logprobs":{"content":null}}]}`, `{"choices":[{"logprobs":{"content":[]}}]}`,
		`{"choices":[{"logprobs":{"content":[{"top_logprobs":null}]}}]}`, `{"choices":[{"logprobs":{"content":[{"top_logprobs":[]}]}}]}`,
		`{"choices":[{"logprobs":{"content":[{"top_logprobs":[null]}]}}]}`, `{"choices":[{"logprobs":{"content":[{"top_logprobs":[{}]}]}}]}`,
		`{"choices":[{"logprobs":{"content":[{"top_logprobs":[{"token":"token_id:236771"}]}]}}]}`,
		`{"choices":[{"logprobs":{"content":[{"top_logprobs":[{"token":"token_id:236771","logprob":"-1"}]}]}}]}`,
		`{"choices":[{"logprobs":{"content":[{"top_logprobs":[{"token":"token_id:236771","logprob":null}]}]}}]}`,
		`{"choices":[{"logprobs":{"content":[{"top_logprobs":[{"token":null,"logprob":-1}]}]}}]}`,
		`{"choices":[{"logprobs":{"content":[{"top_logprobs":[{"token":"x","logprob":-1}]}]}}]}`,
		`{"choices":[{"logprobs":{"content":[{"top_logprobs":[{"token":"token_id:\u0032","logprob":-1}]}]}}]}`,
		`{"choices":[{"logprobs":{"content":[{"top_logprobs":[{"token":"token_id:236771","logprob":-1e400},{"token":"token_id:236770","logprob":-0},{"token":"token_id:236778","logprob":1e-7}]}]}}]}`,
		`{"choices":[{"logprobs":{"content":[{"top_logprobs":[{"token":"token_id:236771","logprob":NaN},{"token":"token_id:236770","logprob":-1},{"token":"token_id:236778","logprob":-1}]}]}}]}`,
		`{"choices":[{"logprobs":{"content":[{"top_logprobs":[{"token":"token_id:236771","logprob":-1,"Logprob":-2},{"token":"token_id:236770","logprob":-1},{"token":"token_id:236778","logprob":-1}]}]}}]}`,
		`{"choices":[{"logprobs":{"content":[{"top_logprobs":[{"token":"token_id:236771","logprob":-1,"logprob":-2},{"token":"token_id:236770","logprob":-1},{"token":"token_id:236778","logprob":-1}]}]}}]}`,
		`{"Model":"other","choices":[{"logprobs":{"content":[{"top_logprobs":[{"token":"token_id:236771","logprob":-1},{"token":"token_id:236770","logprob":-1},{"token":"token_id:236778","logprob":-1}]}]}}]}`,
		`{"model":"other","choices":[{"logprobs":{"content":[{"top_logprobs":[{"token":"token_id:236771","logprob":-1},{"token":"token_id:236770","logprob":-1},{"token":"token_id:236778","logprob":-1}]}]}}]}`,
		`{"model":null,"choices":[{"logprobs":{"content":[{"top_logprobs":[{"token":"token_id:236771","logprob":-1},{"token":"token_id:236770","logprob":-1},{"token":"token_id:236778","logprob":-1}]}]}}],"usage":null}`,
		` { "choices" : [ { "logprobs" : { "content" : [ { "top_logprobs" : [ { "token" : "token_id:236771" , "logprob" : -1 } , {"token":"token_id:236770","logprob":-1},{"token":"token_id:236778","logprob":-1}]}]}}],"usage":{"prompt_tokens":-0,"completion_tokens":1.0}} `,
		`{"choices":[{"logprobs":{"content":[{"top_logprobs":[{"token":"token_id:236771","logprob":-1},{"token":"token_id:236770","logprob":-1},{"token":"token_id:236778","logprob":-1}]}]}},{"logprobs":5}]}`,
		`{"choices":[{"logprobs":{"content":[{"top_logprobs":[{"token":"token_id:236771","logprob":-1},{"token":"token_id:236770","logprob":-1},{"token":"token_id:236778","logprob":-1}]},{"top_logprobs":7}]}}]}`,
		`{"choices":[{"logprobs":{"content":[{"top_logprobs":[{"token":"token_id:236771","logprob":-1},{"token":"token_id:236770","logprob":-1},{"token":"token_id:236778","logprob":-1}]}]}}],"x":[1,-0.5e+3,"\u00e9\n",true,false,null,{"a":{}}]}x`,
		`{"choices":[{"logprobs":{"content":[{"top_logprobs":[{"token":"token_id:236771","logprob":-1},{"token":"token_id:236770","logprob":-1},{"token":"token_id:236778","logprob":-1}]}]}}],"x":01}`,
		`{"choices":[{"logprobs":{"content":[{"top_logprobs":[{"token":"token_id:236771","logprob":-1},{"token":"token_id:236770","logprob":-1},{"token":"token_id:236778","logprob":-1}]}]}}],"usage":{"prompt_tokens":9223372036854775808,"prompt_tokens":3}}`,
		`{"choices":[{"logprobs":{"content":[{"top_logprobs":[{"token":"token_id:236771","logprob":-1},{"token":"token_id:236770","logprob":-1},{"token":"token_id:236778","logprob":-1}]}]}}],"usage":{"prompt_tokens":"3","completion_tokens":{"n":1}}, "k\u0065y":"\ud800"}`,
	} {
		seeds = append(seeds, []byte(s))
	}
	return seeds
}

// TestDecodeChatSeeds pins the decoder's answer (result, or error class
// and message) to every seed body and entry rule, for both requests
// (three candidates, and twenty): testdata/decode.golden, written by
// -update.
func TestDecodeChatSeeds(t *testing.T) {
	var b strings.Builder
	bodies := chatSeeds(t)
	for _, e := range entryRules {
		bodies = append(bodies, entryRuleBody(e))
	}
	for _, body := range bodies {
		for _, req := range []judgment.ScoringRequest{fuzzRequest, manyRequest} {
			res, err := decodeChat(body, req)
			fmt.Fprintf(&b, "%q %d\n\t%s\n", body, len(req.Candidates), decodeLine(res, err))
		}
	}
	golden := filepath.Join("testdata", "decode.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got := b.String(); got != string(want) {
		t.Errorf("decoder answers differ from %s (go test -run TestDecodeChatSeeds -update rewrites it):\n%s", golden, lineDiff(got, string(want)))
	}
}

var update = flag.Bool("update", false, "rewrite testdata/decode.golden")

// decodeLine writes one decoder answer: the candidates and usage, or the
// error's type and message.
func decodeLine(res judgment.ScoringResult, err error) string {
	if err != nil {
		return fmt.Sprintf("error %T %v", err, err)
	}
	var b strings.Builder
	for _, c := range res.Candidates {
		fmt.Fprintf(&b, "%s/%d=%v ", c.Label, c.TokenID, c.Logprob)
	}
	fmt.Fprintf(&b, "model=%s in=%s out=%s off=%v", res.Model, count(res.Usage.InputTokens), count(res.Usage.OutputTokens), res.OffOptionMass)
	return b.String()
}

func count(n *int) string {
	if n == nil {
		return "nil"
	}
	return fmt.Sprint(*n)
}

// lineDiff returns the first line where got and want differ.
func lineDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range min(len(g), len(w)) {
		if g[i] != w[i] {
			return fmt.Sprintf("line %d:\ngot  %s\nwant %s", i+1, g[i], w[i])
		}
	}
	return fmt.Sprintf("got %d lines, want %d", len(g), len(w))
}

// cannedChatBody is the canned server's chat-completion answer: the
// sampled token and every control token of judgmenttest.DefaultVocab (37
// top_logprobs entries, in the map's order of the moment).
func cannedChatBody() []byte {
	entries := []string{`{"token":"token_id:9366","logprob":-0.5}`}
	for _, id := range judgmenttest.DefaultVocab() {
		entries = append(entries, fmt.Sprintf(`{"token":"token_id:%d","logprob":-4.0}`, id))
	}
	return []byte(`{"id":"c","choices":[{"index":0,"logprobs":{"content":[{"token":"token_id:9366","logprob":-0.5,"top_logprobs":[` +
		strings.Join(entries, ",") + `]}]},"finish_reason":"length"}],"usage":{"prompt_tokens":400,"completion_tokens":1}}`)
}

// BenchmarkDecodeChat decodes answers to the three-candidate request:
// VLLM is one in vLLM's full layout listing the three candidates, Canned
// the canned server's answer of BenchmarkSliceVLLM (37 entries).
func BenchmarkDecodeChat(b *testing.B) {
	for _, body := range []struct {
		name string
		b    []byte
	}{{"VLLM", chatAnswerBody([]int{236771, 236770, 236778}, false)}, {"Canned", cannedChatBody()}} {
		b.Run(body.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(body.b)))
			for b.Loop() {
				if _, err := decodeChat(body.b, fuzzRequest); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// entryRules are top_logprobs entries at each rule of the entry reader
// and of tokenID: repeated, case-folded and unknown keys, nested values,
// long and overflowing ids, Python's literals; TestDecodeChatSeeds pins
// the decoder's answer to each as the third entry of an answer.
var entryRules = []string{
	`{"token":"token_id:236778","logprob":-0.3}`,
	`{"logprob":-0.3,"token":"token_id:236778"}`,
	`{"token":"token_id:236778","logprob":-0.3,"bytes":[50,{"a":[]}]}`,
	`{"token":"token_id:236778","token":"token_id:236778","logprob":-0.3}`,
	`{"token":"token_id:236778","logprob":-0.3,"logprob":-0.3}`,
	`{"Token":"token_id:236778","logprob":-0.3}`,
	`{"token":"token_id:236778","LOGPROB":-0.3}`,
	`{"token":"token_id:236778"}`,
	`{"logprob":-0.3}`,
	`{}`,
	`{"token":"token_id:236778","logprob":"-0.3"}`,
	`{"token":"token_id:236778","logprob":-0.3,}`,
	`{"token":"token_id:236778" "logprob":-0.3}`,
	`{"token":"token_id:0000000000000236778","logprob":-0.3}`,
	`{"token":"token_id:99999999999999999999","logprob":-0.3}`,
	`{"token":"token_id:2367781234","logprob":-0.3}`,
	`{"token":"token_id:","logprob":-0.3}`,
	`{"token":"token_id:23a","logprob":-0.3}`,
	`{"token":"token_id:-1","logprob":-0.3}`,
	`{"token":"token_id:+1","logprob":-0.3}`,
	`{"token":"tok_id:1","logprob":-0.3}`,
	`{"token":"token_id:236778","logprob":-1e400}`,
	`{"token":"token_id:236778","logprob":-Infinity}`,
	`{"token":"token_id:236778","logprob":NaN}`,
	`{"token":"token_id:236778","logprob":null}`,
	`{"token":null,"logprob":-0.3}`,
	`{"token":"token_id:236778\u0000","logprob":-0.3}`,
	`[]`,
}

// entryRuleBody is an answer whose third top_logprobs entry is e.
func entryRuleBody(e string) []byte {
	const head = `{"model":"gemma-4-31b-it","choices":[{"logprobs":{"content":[{"top_logprobs":[{"token":"token_id:236771","logprob":-0.1},{"token":"token_id:236770","logprob":-0.2},`
	return []byte(head + e + `]}]}}],"usage":{"prompt_tokens":3,"completion_tokens":1}}`)
}
