package judgmenttest_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/typevet/typevet-go/judgment/judgmenttest"
)

// A fake vLLM server tokenizes the control strings with the Gemma 4 ids.
func ExampleNewVLLM() {
	srv := judgmenttest.NewVLLM(nil)
	defer srv.Close()

	body := `{"model": "gemma-4-31b-it", "prompt": "0", "add_special_tokens": false}`
	resp, err := srv.Client().Post(srv.URL+"/tokenize", "application/json", strings.NewReader(body))
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	var tok struct {
		Count  int   `json:"count"`
		Tokens []int `json:"tokens"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&tok); err != nil {
		panic(err)
	}
	fmt.Println(resp.StatusCode, tok.Count, tok.Tokens)
	// Output: 200 1 [236771]
}

// A llama.cpp router fake whose media marker rotates after every media
// answer, as after a model reload (typevet #322).
func ExampleServer_RotateMarker() {
	srv := judgmenttest.NewUnstartedLlamaCPP(nil)
	srv.MediaMarker = "<__media_NaJbOnuq8__>"
	srv.Start()
	defer srv.Close()

	get := func() string {
		resp, err := http.Get(srv.URL + "/props")
		if err != nil {
			panic(err)
		}
		defer resp.Body.Close()
		var props struct {
			MediaMarker string `json:"media_marker"`
		}
		json.NewDecoder(resp.Body).Decode(&props)
		return props.MediaMarker
	}
	before := get()
	srv.RotateMarker()
	after := get()
	fmt.Println(before, after != before, strings.HasPrefix(after, "<__media_"))
	// Output: <__media_NaJbOnuq8__> true true
}
