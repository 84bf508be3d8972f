// Package checkmatch builds and scores typevet's synthetic check-match slice:
// generated paper checks judged against a synthetic check register row.
//
// # Generator
//
// [Cases] returns the seeded slice: for each register row ([RegisterRows]),
// seven cases, one per [Variant] in enum order ([Variants]). Every value is
// drawn from SHA-256 streams keyed by the seed, so one seed gives one slice,
// equal case for case to typevet's check_cases (same rows, payees, dates,
// amounts, routing numbers, signature seeds, variants and blur radii). The
// default slice is seed [DefaultSeed] with [RowCount] rows: 140 cases.
//
//	cases, err := checkmatch.Cases(0, checkmatch.RowCount)
//	fmt.Println(cases[0].ID(), cases[0].Row.Text())
//
// prints
//
//	r00:clean check number 1001; date 2025-04-21; payee Lanternfield Electric; amount $1,188.15
//
// [ExpectedLabels] gives the labels a judge's answers are scored against;
// [ParseSeed] parses seed text from a flag or environment variable with
// typevet's accept/refuse rule; [AmountInWords] writes the words line.
//
// Every check is non-negotiable by construction: the routing number fails the
// ABA check digit ([ABAValid]), the account number is all zeros, a SPECIMEN
// mark crosses the face, a VOID mark crosses the signature line on every
// render, the bank name says the bank is not real, and signatures are seeded
// synthetic strokes.
//
// # Renders and contact sheets
//
// [Render] draws one case as a 1000×440 RGB PNG with the layout of typevet's
// renderer (the check stock geometry lives in package internal/checkform);
// [RenderImage] returns the pixels. Renders are byte-identical for one case
// within one build of this module, but never equal to Python's Pillow
// renders; [RendererPin] says what a receipt records about the renderer.
// [WriteContactSheet] writes a grid of renders with their expected labels,
// which is what examples/checksheets writes for each register row.
package checkmatch
