package main

import (
	"crypto/sha256"
	"encoding/hex"
	"os"

	"github.com/typevet/typevet-go/calibration"
	"github.com/typevet/typevet-go/checkmatch"
	"github.com/typevet/typevet-go/examples/internal/cli"
	"github.com/typevet/typevet-go/judgment"
	"github.com/typevet/typevet-go/receipt"
)

// calibrated is a run's -calibration: the maps, checked against the run
// before any request, and the records document they fill.
type calibrated struct {
	judge *calibration.Judgment
	side  *calibration.Sidecar
}

// parseCalibration reads -calibration (QUESTION=PATH@SHA256 items); nil
// when it is not set. It is refused with -resume and -shard: a run keeps
// its calibration records in memory until its receipt is written, so a
// resumed or merged run could not keep them. A calibrated run's journal
// records its -calibration, so a -resume of it arrives here with the maps
// and is refused too, never finished with raw answers.
func parseCalibration(value string, resume bool, shard checkmatch.Shard) ([]calibration.Spec, error) {
	if value == "" {
		return nil, nil
	}
	if resume || shard.Count > 0 {
		return nil, cli.Usagef("-calibration cannot be used with -resume or -shard: a calibrated run's records are kept only until its receipt is written, so a resumed or sharded run would mix raw and calibrated answers; run the whole slice in one process with a new -receipt")
	}
	specs, err := calibration.ParseSpecs(value)
	if err != nil {
		return nil, cli.Usagef("-calibration: %v", err)
	}
	return specs, nil
}

// newCalibrated loads and checks the maps for the run of rc (task
// check_match, its backend and model, the four questions) before any
// request; nil without maps. A map that does not fit is a usage error
// naming -calibration.
func newCalibrated(specs []calibration.Spec, rc checkmatch.RunContext, inner judgment.Port) (*calibrated, error) {
	if len(specs) == 0 {
		return nil, nil
	}
	run := calibration.RunSettings{TaskID: "check_match", Backend: string(rc.Backend), Model: rc.Model, Questions: checkmatch.Questions()}
	j, err := calibration.ForRun(inner, specs, run)
	if err != nil {
		return nil, cli.Usagef("-calibration: %v", err)
	}
	side := &calibration.Sidecar{TaskID: run.TaskID, Backend: run.Backend, Model: run.Model}
	for _, s := range specs {
		m, err := calibration.Load(s.Path, s.SHA256)
		if err != nil {
			return nil, cli.Usagef("-calibration: %v", err)
		}
		side.Maps = append(side.Maps, calibration.SidecarMap{Question: s.Question, Path: s.Path, SHA256: s.SHA256, Method: m.Method})
	}
	return &calibrated{judge: j, side: side}, nil
}

// port returns the calibrating Port that records each case's records,
// keyed by the case its request's image belongs to; inner itself when the
// run has no maps.
func (c *calibrated) port(inner judgment.Port, slice checkmatch.Slice) judgment.Port {
	if c == nil {
		return inner
	}
	cases := make(map[string]string, len(slice.Requests))
	for _, r := range slice.Requests {
		cases[r.ImageDigest()] = r.CaseID()
	}
	return c.judge.Recording(func(req judgment.Request, recs []calibration.Record) {
		if len(req.Media) == 0 {
			return
		}
		sum := sha256.Sum256(req.Media[0].Data)
		c.side.Add(cases[hex.EncodeToString(sum[:])], recs)
	})
}

// write writes the records of the receipt's cases, in its case order, to
// RECEIPT.calibration.json (a new file) and returns its path; "" without
// maps.
func (c *calibrated) write(receiptPath string, rec checkmatch.Receipt) (string, error) {
	if c == nil {
		return "", nil
	}
	keep := make(map[string]bool, len(rec.Cases))
	ids := make([]string, len(rec.Cases))
	for i, cr := range rec.Cases {
		ids[i], keep[cr.CaseID] = cr.CaseID, true
	}
	out := &calibration.Sidecar{TaskID: c.side.TaskID, Backend: c.side.Backend, Model: c.side.Model, Maps: c.side.Maps}
	for _, sc := range c.side.Cases() {
		if keep[sc.CaseID] {
			out.Add(sc.CaseID, sc.Records)
		}
	}
	out.SortCases(ids)
	b, err := out.Encode()
	if err != nil {
		return "", err
	}
	path := receiptPath + ".calibration.json"
	if err := receipt.CheckNew(path); err != nil {
		return "", err
	}
	return path, os.WriteFile(path, b, 0o644)
}
