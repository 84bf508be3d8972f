// Package calibration reads, applies, fits and writes typevet's post-hoc
// calibration maps (typevet.calibration_map/1, typevet issues #343 and
// #352), bit for bit as typevet does.
//
// A judge's raw Noul confidences are often overconfident. A calibration
// map is a small fitted function that changes the probability a caller
// reads, never the model: temperature (sigmoid(logit(p)/T)), Platt
// (sigmoid(a·logit(p)+b)) or isotonic (non-decreasing steps). A map is
// valid for one task, one model and one backend.
//
// # Maps
//
// [Read] and [Load] verify a map file against the SHA-256 the caller pins
// ([DigestError] on a mismatch) and validate it with typevet's rules
// ([MapError] names the field). [Map.Apply] and [Map.ApplyLevels] map
// probabilities as typevet's CalibrationMap does, with CPython's exp and
// log. A loaded map writes back the bytes it was read from ([Map.Bytes]);
// a fitted one is written as typevet's write_calibration_map writes it
// ([Map.Encode], [Map.Write]).
//
// # Fitting
//
// [FitSeries] follows typevet_evals.calibration operation for operation:
// the sha256(id) % 2 split ([Split]), the three fitters ([FitTemperature],
// [FitPlatt], [FitIsotonic]), the evaluation-half ECE, Brier score and
// accuracy before and after, the bootstrap interval of the ECE change
// ([BootstrapECEChange]) and the pre-registered rule ([RuleMet]), with
// Python 3.12's sum and glibc's exp, log, log1p and pow. Series come from
// a check-match receipt or a plain series file ([ReadSeries]). Beside
// typevet's binned ECE and its bootstrap interval, which is an interval
// around a biased estimate, [FitSeries] reports a debiased estimate
// ([DebiasedECE]); it is not part of typevet's study or of a map file.
//
// # Applying
//
// [New] wraps a judgment.Port with typevet's fail-closed rules
// (CalibratedJudgment): maps of another task or backend are refused at
// construction, a Choice question or a map of another kind or level count
// before the inner call, an answer from another model after it.
// [Judgment.JudgeRecords] returns each answer's raw value, calibrated value,
// method and map digest, so judgment.Response keeps its fields. [ForRun]
// loads a run's pinned maps (ParseSpecs reads QUESTION=PATH@SHA256 lists)
// and refuses a map that does not fit the run before any request. typevet
// writes its records into no receipt; a calibrated run writes them to a
// [Sidecar] document with its own schema, and the receipt keeps typevet's
// keys.
package calibration
