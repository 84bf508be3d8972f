// Package backendhttp holds the HTTP plumbing the llama.cpp and vLLM
// backends share, so both follow one set of rules: the auth and extra-header
// settings and their validation, the [http.Client] that sends them
// and never follows a redirect, response-body snippets redacted of every
// secret, Retry-After and rate-limit header reading, and the
// per-judgment image encoding cache that base64-encodes each image once per
// judgment instead of once per question.
//
// It is internal: the types users name live in package judgment
// ([judgment.Auth] and [judgment.Header], embedded in llamacpp.Settings and
// vllm.Settings, and [judgment.SettingError], the error every settings
// parser returns); this package holds their rules.
package backendhttp
