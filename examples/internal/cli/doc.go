// Package cli is the command-line plumbing every command under examples/
// shares: the usage error and exit status rule; the run commands' variables
// and typevet's rules for their text ([SeedEnv], [ParseSeed], [ParseRows],
// [ParseConcurrency], [ParseOrderingsRows]); flags over variables with
// errors that name what the user set ([Parse], [Env]) and the -h text
// ([Help], [BackendFlags]); the git working tree a receipt records
// ([WorkingTreeText]); warnings about settings that do nothing
// ([Warnings]) and hints for an absent or slow server ([Explain]);
// terminal progress ([Progress]) and the summary table ([RunTable]); the
// Ctrl-C context, the repository root for a receipt's baseline commit, the
// session secrets known before a session opens, and the live-test
// skip/fail rule. It is
// internal: a user's own tool calls the library packages directly.
package cli
