// Command calibrate fits typevet's post-hoc calibration maps on one
// receipt or series file and writes them as typevet.calibration_map/1
// files, one per series and method, with a table of what each fit does on
// the held-out half. No model call; the input is not changed.
//
//	go run ./examples/calibrate receipts/check_match_llama_cpp.json -out maps
//	go run ./examples/calibrate my_series.jsonl -out maps -task fraud -model gemma -backend vllm
//
// The input is a check-match receipt (series verdict, payee_matches and
// amounts_match; the last two are the Noul questions a calibrated run can
// map) or a series file of JSON lines {"id": "...", "p": 0.93, "truth":
// true}. Each fit follows typevet's #343 study: rows whose sha256(id) is
// even fit the map, the others measure it, and the rule (ECE drops by at
// least 0.03, Brier drops, accuracy drops by at most 0.01) is recorded in
// the map. Maps are written as DIR/SERIES_METHOD.json; the table prints
// the SHA-256 a caller pins to load each one. An existing file is never
// overwritten.
//
// Flags:
//
//	-out DIR        directory for the maps (created if missing; required)
//	-method M       temperature, platt, isotonic or all (default all)
//	-task ID        the task id the maps are fitted for (default check_match for a receipt; required for a series file)
//	-model ID       the model id (default: the receipt's; required for a series file)
//	-backend NAME   llama_cpp or vllm (default: the receipt's; required for a series file)
//	-producer V     the producer version written into each map (default typevet-go)
//	-resamples N    bootstrap resamples of the ECE-change interval (default 1000; 0 skips it)
//
// Exit status: 0 when every map is written, 2 on a usage error (nothing is
// done), 1 when the input cannot be read, a map cannot be written or a
// fit cannot be made (the other maps are still written).
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/typevet/typevet-go/calibration"
)

const usageLine = "usage: calibrate RECEIPT_OR_SERIES -out DIR [-method temperature|platt|isotonic|all] [-task ID] [-model ID] [-backend NAME]"

type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func main() {
	err := run(os.Stdout, os.Stderr, os.Args[1:])
	var ue *usageError
	switch {
	case err == nil:
	case errors.Is(err, flag.ErrHelp):
	case errors.As(err, &ue):
		fmt.Fprintf(os.Stderr, "calibrate: %v\n%s\n", err, usageLine)
		os.Exit(2)
	default:
		fmt.Fprintf(os.Stderr, "calibrate: %v\n", err)
		os.Exit(1)
	}
}

// config is what the flags and the input say.
type config struct {
	input     string
	out       string
	methods   []calibration.Method
	opts      calibration.FitOptions
	resamples int
}

func run(stdout, stderr io.Writer, args []string) error {
	cfg, data, err := parseArgs(stderr, args)
	if err != nil {
		return err
	}
	name := strings.TrimSuffix(filepath.Base(cfg.input), filepath.Ext(cfg.input))
	fits, err := calibration.FitAll(data, name, cfg.methods, cfg.opts)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(cfg.out, 0o755); err != nil {
		return err
	}
	return writeAll(stdout, fits, cfg)
}

// parseArgs reads the flags (before or after the input) and the input.
func parseArgs(stderr io.Writer, args []string) (config, []byte, error) {
	fs := flag.NewFlagSet("calibrate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", "", "directory for the maps (required)")
	method := fs.String("method", "all", "temperature, platt, isotonic or all")
	task := fs.String("task", "", "task id (default check_match for a receipt)")
	model := fs.String("model", "", "model id (default: the receipt's)")
	backend := fs.String("backend", "", "serving backend, llama_cpp or vllm (default: the receipt's)")
	producer := fs.String("producer", "typevet-go", "producer version written into each map")
	resamples := fs.Int("resamples", calibration.BootstrapResamples, "bootstrap resamples (0 skips the interval)")
	var inputs []string
	for rest := args; ; rest = fs.Args()[1:] {
		if err := fs.Parse(rest); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return config{}, nil, err
			}
			return config{}, nil, &usageError{err.Error()}
		}
		if fs.NArg() == 0 {
			break
		}
		inputs = append(inputs, fs.Arg(0))
	}
	cfg := config{out: *out, methods: calibration.Methods, resamples: *resamples}
	switch {
	case len(inputs) != 1:
		return cfg, nil, &usageError{"want exactly one receipt or series file"}
	case *out == "":
		return cfg, nil, &usageError{"-out is required"}
	case *resamples < 0:
		return cfg, nil, &usageError{"-resamples must be 0 or more"}
	}
	if *method != "all" {
		m := calibration.Method(*method)
		if m != calibration.Temperature && m != calibration.Platt && m != calibration.Isotonic {
			return cfg, nil, &usageError{fmt.Sprintf("-method %q: want temperature, platt, isotonic or all", *method)}
		}
		cfg.methods = []calibration.Method{m}
	}
	cfg.input = inputs[0]
	data, err := os.ReadFile(cfg.input)
	if err != nil {
		return cfg, nil, err
	}
	_, src, err := calibration.ReadSeries(data, "")
	if err != nil {
		return cfg, nil, fmt.Errorf("%s: %w", cfg.input, err)
	}
	switch {
	case *task == "" && !src.CheckMatch:
		return cfg, nil, &usageError{"-task is required for a series file"}
	case *task == "":
		*task = "check_match"
	case *model == "" && src.Model == "":
		return cfg, nil, &usageError{"-model is required for a series file (the receipt has no model)"}
	case *backend == "" && src.Backend == "":
		return cfg, nil, &usageError{"-backend is required for a series file (the receipt has no backend)"}
	}
	n := *resamples
	if n == 0 {
		n = -1
	}
	cfg.opts = calibration.FitOptions{TaskID: *task, Model: *model, Backend: *backend, Receipt: cfg.input, Producer: *producer, Resamples: n}
	return cfg, data, nil
}

// writeAll writes each fitted map and prints the table.
func writeAll(stdout io.Writer, fits []*calibration.Fitted, cfg config) error {
	var failed []string
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "series\tmethod\tn cal/eval\tECE before\tafter\tchange [95% interval]\tdebiased L2 before\tafter\tBrier before\tafter\taccuracy before\tafter\trule met\tmap\tsha256")
	for _, f := range fits {
		if f.Err != nil {
			fmt.Fprintf(tw, "%s\t%s\tnot fitted: %v\n", f.Series, f.Method, f.Err)
			failed = append(failed, f.Series+"/"+string(f.Method))
			continue
		}
		path := filepath.Join(cfg.out, f.Series+"_"+string(f.Method)+".json")
		digest, err := writeNew(path, f.Map)
		if err != nil {
			return err
		}
		interval := "not drawn"
		if cfg.resamples > 0 {
			interval = fmt.Sprintf("[%+.3f, %+.3f]", f.Interval.Low, f.Interval.High)
		}
		fmt.Fprintf(tw, "%s\t%s\t%d/%d\t%.3f\t%.3f\t%+.3f %s\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%v\t%s\t%s\n",
			f.Series, f.Method, f.Map.FittedOn.NCalibration, f.Map.Evaluation.NEvaluation,
			f.Before.ECE, f.After.ECE, f.ECEChange, interval, f.DebiasedBefore, f.DebiasedAfter,
			f.Before.Brier, f.After.Brier, f.Before.Accuracy, f.After.Accuracy, f.RuleMet, path, digest)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprint(stdout, intervalNote)
	if len(failed) > 0 {
		return fmt.Errorf("not fitted: %s", strings.Join(failed, ", "))
	}
	return nil
}

// intervalNote says what the table's interval covers and what it does not.
const intervalNote = `
ECE is typevet's 10-bin ECE on the evaluation half; the interval is the 95% bootstrap
percentile interval of its change (typevet's, seed 0): the spread of a biased estimate under
resampling, not an interval for the true calibration error, which it can miss entirely on
small halves. The debiased L2 estimate (Kumar et al. 2019) removes the label noise each bin
carries; it is not part of typevet's study and is not written into the maps.
`

// writeNew writes the map to a new file, never over an existing one and
// never as a partial file: the bytes go to a temporary file in the same
// directory, are synced, and are linked to path only if path does not
// exist. It returns the SHA-256 of the bytes, read back from path.
func writeNew(path string, m *calibration.Map) (string, error) {
	data, err := m.Encode()
	if err != nil {
		return "", err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".calibrate-*")
	if err != nil {
		return "", err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return "", err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return "", err
	}
	if err := tmp.Close(); err != nil {
		return "", err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return "", err
	}
	if err := os.Link(tmp.Name(), path); err != nil {
		return "", fmt.Errorf("%s: not written (an existing map is never overwritten): %w", path, err)
	}
	again, err := calibration.Load(path, digestHex(data))
	if err != nil {
		return "", fmt.Errorf("%s: the written map does not read back: %w", path, err)
	}
	return again.SHA256, nil
}
