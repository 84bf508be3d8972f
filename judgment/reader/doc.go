// Package reader is a built-in judge for the check-match slice: a
// [judgment.Port] that answers the four check-match questions by reading
// the pixels of the check image against the register row in the state
// text, the way a bank's check reader knows its check stock and its font.
// It needs no model and no network (TYPEVET_BACKEND=reader), so a user
// without a GPU server can run the whole main job, and every model receipt
// has a baseline to compare with. It is a baseline, not a model.
//
// # Inputs
//
// The reader sees exactly what a model sees: the state text, from which
// [ParseState] takes the register row (check number, date, payee,
// amount), and the one PNG. It knows the check stock through package
// internal/checkform (field positions, font sizes, colours and the
// bundled Go Regular font) and nothing of the generator: it never imports
// package checkmatch and never sees a case or a face (a test checks the
// import graph).
//
// # Reading
//
// [Read] reads four fields: the payee line, the numeric amount box, the
// words line and the date line. A field's band runs from the ascender line
// of its text position down by the font's ascent plus descent. Pixels
// become ink by their darkness between paper and ink, clamped through
// [Constants.InkLow] and [Constants.InkHigh], which hides the grey
// SPECIMEN mark. The glyphs of the field's alphabet, rendered with the
// bundled font at the field's size, are the templates. A dynamic program
// over pen positions (analysis by synthesis) finds the glyph string whose
// templates, placed at successive advances from the field's pen origin,
// explain the band's ink with the least squared error, with the band
// blank after the string. The bundled font has no kerning, so the pen
// advances by whole-pixel glyph advances, exactly as the renderer's. A
// greedy pass gives an upper bound that prunes the program.
//
// Each field's confidence is 1 − Σ(o − t)²/Σt² between the band's ink o
// and the read string's ink t; the stock confidence is the same measure
// over the static texts of the stock (drawer, bank, labels, caption,
// footer). The check confidence c is the mean of the stock and the four
// fields. The signature test sums the pen share of the pixels in the
// signature box (the share of the way from paper's to the pen's blue
// chroma B − (R+G)/2), which the red VOID and the grey SPECIMEN do not
// have.
//
// The numeric amount parses with [ParseNumeric] ("$ 1,188.15"), the words
// line with [ParseWords] (the inverse of the amount in words, "One
// thousand one hundred eighty-eight and 15/100 DOLLARS"), the date with
// [ParseDate] ("April 21, 2025").
//
// # Answers
//
// [Constants.Weigh] turns a reading and a register row into [Evidence];
// every constant below is a field of [Constants] ([DefaultConstants] for
// [Version]). With σ the logistic function, d a normalised Levenshtein
// distance (edits over the longer length) and trust(q) =
// clamp((q − TrustLow)/(TrustHigh − TrustLow), 0, 1) for a field read
// with confidence q:
//
//   - payee = σ(trust(q)·PayeeSlope·(PayeeTolerance − d(read payee,
//     register payee)));
//   - numeric, words = σ(trust(q)·AmountSlope·(AmountTolerance − d)),
//     where d compares the parsed amount and the register amount, both
//     printed as "1,188.15", and is 1 when the field does not parse;
//   - date = σ(trust(q)·DateSlope·(DateTolerance − d(read date, register
//     date printed as the check prints it)));
//   - signed = σ(SignatureSlope·(pen mass − SignatureMass));
//   - legible = σ(LegibleSlope·(c − LegibleThreshold)).
//
// A field the reader cannot trust leans toward 0.5 rather than a
// mismatch. The answers, each decoded by [judgment.Decode] from the
// logarithms of these probabilities (one decoding path, as every backend):
//
//   - payee_matches: P(true) = payee;
//   - amounts_match: P(true) = amounts = min(numeric, words) (both must
//     match; two unreadable amounts give 0.5, not 0.25);
//   - verdict: weights consistent = legible·payee·amounts·date·signed,
//     payee_mismatch = legible·(1 − payee), amount_mismatch =
//     legible·(1 − amounts), date_mismatch = legible·(1 − date),
//     unsigned = legible·(1 − signed), cannot_tell = 1 − legible, each plus
//     WeightFloor, normalised; the option order of the question does not
//     matter;
//   - legibility: level k weighs exp(−(k − 4c)²/(2·LegibilitySpread²))
//     (+ WeightFloor), normalised.
//
// So a sharp check that matches its row is consistent with P ≈ 0.98; a
// check with a changed field gets that field's mismatch; a blurred, blank
// or foreign image gets cannot_tell and a low legibility.
//
// # Receipts
//
// A reader run's receipt names backend [BackendName] and model "reader";
// [Options.Pin] gives the version, the font digest and the constants, and
// examples/checkmatch records them in pins.server: build_info is [Version]
// and backend_pin the whole [Pin], with an empty served list.
package reader
