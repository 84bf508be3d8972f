// Package judgment asks a served vision-language model typed questions
// and turns the model's next-token log-probabilities into calibrated
// looking answers, exactly as the Python project typevet does.
//
// # Questions and answers
//
// A [Request] holds a state (the text under evaluation), optional images
// ([Image]) and an ordered list of named questions. There are three
// question types:
//
//   - [Noul]: a yes/no statement; the answer ([NoulAnswer]) is P(true).
//   - [Choice]: one label out of an ordered list; the answer
//     ([ChoiceAnswer]) is the most probable label, its probability and the
//     distribution over all labels in option order.
//   - [Score]: one level of an ordered rubric of n >= 2 levels; the answer
//     ([ScoreAnswer]) is the expected level and the distribution.
//
// The model never writes the answer. Each option is listed behind a
// one-token control string ("0".."9", then "A".."Z"), the prompt prefix ends
// exactly at the answer position, and the backend returns the
// pre-sampling log-probabilities of exactly those control tokens. A softmax
// over the candidates alone gives the distribution. One scoring request is
// sent per question.
//
// # Ports, judges and scorers
//
// Every run talks to a backend through a [Port]. HTTP backends
// (judgment/llamacpp, judgment/vllm) implement the smaller [Scorer]
// interface and wrap it with [NewJudge], which runs the algorithm: request
// validation, control binding through [Scorer.Tokenize] (each distinct
// control once per model for the Judge's life; set
// [JudgeOptions.TokenizeEveryCall] for typevet's once per control per
// question per call), option-block and prefix rendering per
// served-template [Family], result validation, decoding and the
// off-option guard. The offline backend judgment/fake
// feeds its distributions through [Decode], the same decoding code.
//
// [Decode] on its own shows the decoding. Log-probabilities of 0.1, 0.6 and
// 0.3 over a three-option [Choice]:
//
//	q := judgment.Choice{Criteria: []judgment.Criterion{
//		{Label: "consistent"}, {Label: "payee_mismatch"}, {Label: "unsigned"},
//	}}
//	a, _ := judgment.Decode(q, []float64{math.Log(0.1), math.Log(0.6), math.Log(0.3)})
//	c := a.(judgment.ChoiceAnswer)
//	fmt.Printf("%s %.2f\n", c.Choice, c.Confidence)
//
// prints
//
//	payee_mismatch 0.60
//
// # Errors
//
// Every failure of a judgment is one of typevet's typed error classes
// ([JudgmentValidationError], [ScoringValidationError], [TransportError],
// [BackendHTTPError], ...). They all satisfy [IsGenerationError]: a runner
// stops the run on such an error and keeps its earlier outcomes; any other
// error is a bug. [ErrorClass] gives the Python class name a receipt
// records.
//
// # Secrets
//
// [Secrets] holds what a backend must never let out: API keys, masked
// wherever they occur (raw, JSON-escaped and URL-escaped), and extra header
// values, masked where they stand as whole tokens. [Secrets.Mask] returns
// an error of the same class with every occurrence replaced by "***" and no
// cause chain that could hold request headers. [Auth] holds an HTTP
// backend's key and headers and gives their [Auth.Secrets]; the llama.cpp
// and vLLM sessions mask every error of Judge with them, once, and report
// them for the receipt's key-free check.
package judgment
