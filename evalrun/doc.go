// Package evalrun runs a list of items through a [judgment.Port] and
// keeps everything a run must not lose: the items are judged in order at
// a chosen concurrency and the run stops at the first failure (typevet's
// rule) unless a [RetryPolicy] retries it ([Retry] wraps a Port); every
// finished item is written to a journal and synced before it counts as
// done, so a run stopped by Ctrl-C, SIGKILL or a lost machine is finished
// by a resume that judges only what never finished, keeping each item's
// latency and the wall time of every part. [Run] does this for any eval
// whose answers are [judgment.Response]s (stored in their JSON form); the
// check-match run, the option-order study and the throughput sweep of
// package checkmatch use the same journal and retry policy with their own
// line types.
//
// A run's identity is what decides its answers (items, prompts, code,
// model, server), written as the journal header's pins: a resume of
// another experiment is refused naming the first pin that differs, both
// values in full, while pins that only say where the code was built (a
// git baseline, a working tree) can be declared [Advisory], a warning.
//
// # Journals
//
// A journal keeps a run's finished work on disk while the run goes,
// so that a run killed by SIGKILL, an OOM kill, a reboot or a lost session
// loses nothing that finished.
//
// A journal is a JSON Lines file beside the receipt ([JournalPath]: the receipt
// path plus ".journal.jsonl"). Its first line is the run's [Header]: the
// document's own schema key and version, the run kind and the pins that
// decide the answers (seed, rows, slice digest, renderer, backend, model,
// server entry, revision, prompt and code digests, identity digest,
// concurrency), in a fixed order. Every further line is one finished entry
// (for a check-match run: one case at full precision and its attempt
// count), written with one write call and made durable (fsync) by
// [JournalWriter.Add] before the run counts the entry as done.
//
// In a version 2 journal every entry line ends with a "chain" key: the
// SHA-256 of the previous line's chain (the header's SHA-256 for the
// first entry) and the entry's own bytes. A line changed by a single
// byte, moved, removed from the middle or copied from another journal
// breaks the chain, and [ReadJournal] refuses it naming the file, the line and
// what to do, before any run uses it. Version 1 journals (no chain) are
// still read and resumed.
//
// [ReadJournal] reads a journal back. A last line that does not end in a newline
// is what a process killed mid-write leaves: it is ignored and reported
// ([JournalContents].Torn), never an error (version 1 also ignores a last line
// that is not valid JSON). Any other bad line is an error. [Header.Check]
// compares the journal's pins with the pins of the run about to resume it
// and names the first that differs ([*MismatchError], both values in
// full), so a resume never mixes two experiments; [Header.Compare] does
// the same under an [Advisory], for pins (a git baseline, a working tree)
// whose difference is a warning, not a refusal.
//
// The journal knows nothing of what an entry holds: callers marshal their
// own entry type (checkmatch's case lines, or [Run]'s item lines) and
// decode [JournalContents].Entries.
package evalrun
