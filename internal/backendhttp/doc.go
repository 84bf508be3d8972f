// Package backendhttp holds the HTTP plumbing the llama.cpp and vLLM
// backends share, so both follow one set of rules: the auth and extra-header
// settings and their validation, the [http.Client] that sends them
// and never follows a redirect, response-body snippets redacted of every
// secret, Retry-After and rate-limit header reading, and the
// per-judgment image encoding cache that base64-encodes each image once per
// judgment instead of once per question.
//
// Users normally never import this package: [Auth] is embedded in
// llamacpp.Settings and vllm.Settings, and [SettingError] is the error every
// settings parser returns.
package backendhttp
