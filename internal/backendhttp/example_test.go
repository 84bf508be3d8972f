package backendhttp_test

import (
	"fmt"

	"github.com/typevet/typevet-go/internal/backendhttp"
	"github.com/typevet/typevet-go/judgment"
)

// Auth settings from the environment never print their secrets.
func ExampleAuthFromEnv() {
	environ := map[string]string{
		"TYPEVET_VLLM__API_KEY": "sk-live-123",
		"TYPEVET_VLLM__HEADERS": `{"X-Team": "team-token"}`,
	}
	a, err := backendhttp.AuthFromEnv(func(k string) (string, bool) { v, ok := environ[k]; return v, ok }, "TYPEVET_VLLM__")
	if err != nil {
		panic(err)
	}
	fmt.Printf("%+v\n", a)
	fmt.Println(len(a.Secrets().Keys), "key,", len(a.Secrets().HeaderValues), "header value")
	// Output:
	// {APIKey:*** AuthHeader: AuthScheme: BareKey:false Headers:[X-Team: ***] UserAgent:}
	// 1 key, 1 header value
}

// An error body is cut to 500 characters after every secret is masked:
// the key in every form (here JSON-escaped), a header value as a whole
// token only.
func ExampleSnippet() {
	body := []byte(`{"error": "bad key: Bearer sk-\"live\"; team 1 over quota, HTTP 501"}`)
	secrets := judgment.Secrets{Keys: []string{`sk-"live"`}, HeaderValues: []string{"1"}}
	fmt.Println(backendhttp.Snippet(body, secrets))
	// Output: {"error": "bad key: Bearer ***; team *** over quota, HTTP 501"}
}
