package vllm

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/typevet/typevet-go/judgment"
	"github.com/typevet/typevet-go/judgment/judgmenttest"
)

// manyRequest has more candidates than smallSet, so decodeChat finds them
// through its maps.
var manyRequest = func() judgment.ScoringRequest {
	r := judgment.ScoringRequest{Model: fuzzRequest.Model, Prefix: "p"}
	for i := range smallSet + 4 {
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
// bodies at each of scanChat's give-up rules.
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
	var long []int // past idSet's list
	for id := range idListSize + 8 {
		long = append(long, 1000+id)
	}
	seeds = append(seeds, chatAnswerBody(append(long, many...), false), chatAnswerBody(append(long, many...), true),
		chatAnswerBody(append(many, long...), true))
	seeds = append(seeds, chatAnswerBody([]int{236771, 236770, 236778}, false), chatAnswerBody([]int{236771, 236770, 236778}, true),
		chatAnswerBody(many, false), chatAnswerBody(many, true), chatAnswerBody(append(many[:smallSet+1:smallSet+1], 236771, 236770, 236778), false))
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

// FuzzDecodeChatOracle checks today's decoder against the decoder before
// scanChat (oldDecodeChat, kept in olddecode_test.go as the oracle): for
// every body and both requests (three candidates, and more than smallSet)
// both accept or refuse it alike, with the same result or the same error
// class and message.
func FuzzDecodeChatOracle(f *testing.F) {
	for _, s := range chatSeeds(f) {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, body []byte, many bool) {
		req := fuzzRequest
		if many {
			req = manyRequest
		}
		want, werr := oldDecodeChat(body, req)
		got, gerr := decodeChat(body, req)
		if !reflect.DeepEqual(got, want) || fmt.Sprintf("%T %v", gerr, gerr) != fmt.Sprintf("%T %v", werr, werr) {
			t.Fatalf("body %q:\nnew %+v %T %v\nold %+v %T %v", body, got, gerr, gerr, want, werr, werr)
		}
	})
}

// TestScanChatReadsVLLMLayout: the scanner itself (not encoding/json)
// reads an answer in vLLM's full layout, so the fast path is the one taken.
func TestScanChatReadsVLLMLayout(t *testing.T) {
	for _, ids := range [][]int{{236771, 236770, 236778}, {236771, 1, 236770, 2, 236778}} {
		a, ok := scanChat(chatAnswerBody(ids, false))
		if !ok || !a.hasTop || len(a.entries) != len(ids) || a.model != "gemma-4-31b-it" || string(a.prompt) != "412" || string(a.completion) != "1" {
			t.Fatalf("scanChat = %+v, %v", a, ok)
		}
	}
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
// the canned server's answer of BenchmarkSliceVLLM (37 entries). Old is
// encoding/json into ChatResponse (the decoder before scanChat), Scan
// today's.
func BenchmarkDecodeChat(b *testing.B) {
	for _, body := range []struct {
		name string
		b    []byte
	}{{"VLLM", chatAnswerBody([]int{236771, 236770, 236778}, false)}, {"Canned", cannedChatBody()}} {
		for _, d := range []struct {
			name   string
			decode func([]byte, judgment.ScoringRequest) (judgment.ScoringResult, error)
		}{{"Old", oldDecodeChat}, {"Scan", decodeChat}} {
			b.Run(body.name+"/"+d.name, func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(int64(len(body.b)))
				for b.Loop() {
					if _, err := d.decode(body.b, fuzzRequest); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// TestDecodeChatEntryRules compares today's decoder with the oracle on
// entries at each rule of the written-out entry reader and of tokenID:
// repeated, case-folded and unknown keys, nested values, long and
// overflowing ids.
func TestDecodeChatEntryRules(t *testing.T) {
	const head = `{"model":"gemma-4-31b-it","choices":[{"logprobs":{"content":[{"top_logprobs":[{"token":"token_id:236771","logprob":-0.1},{"token":"token_id:236770","logprob":-0.2},`
	for _, e := range []string{
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
		`{"token":"token_id:236778","logprob":NaN}`,
		`{"token":"token_id:236778","logprob":null}`,
		`{"token":null,"logprob":-0.3}`,
		`{"token":"token_id:236778\u0000","logprob":-0.3}`,
		`[]`,
	} {
		body := []byte(head + e + `]}]}}],"usage":{"prompt_tokens":3,"completion_tokens":1}}`)
		for _, req := range []judgment.ScoringRequest{fuzzRequest, manyRequest} {
			want, werr := oldDecodeChat(body, req)
			got, gerr := decodeChat(body, req)
			if !reflect.DeepEqual(got, want) || fmt.Sprintf("%T %v", gerr, gerr) != fmt.Sprintf("%T %v", werr, werr) {
				t.Errorf("entry %s:\nnew %+v %T %v\nold %+v %T %v", e, got, gerr, gerr, want, werr, werr)
			}
		}
	}
}
