// Package typevet is the root of typevet-go, a Go library for evaluating
// vision-language-model judges the way the Python project typevet does.
//
// The module generates a seeded slice of synthetic bank checks, renders
// them, asks a served model typed questions about each image through
// llama.cpp or vLLM, scores the answers and writes a self-describing JSON
// receipt that typevet's own tools can read.
//
// See README.md for the quick start and the map of packages.
package typevet
