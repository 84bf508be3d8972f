package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/typevet/typevet-go/judgment"
)

// Flag is one command-line flag: its name, the word -h shows for its
// argument, the variables it overrides (none for a flag-only setting), its
// default as -h shows it and what it sets.
type Flag struct {
	// Name is the flag without its dash ("rows").
	Name string
	// Arg is the argument word in -h ("N", "PATH"); "" for a bool flag.
	Arg string
	// Vars are the variables the flag overrides, in the order -h shows
	// them; a flag that overrides two (-model) names the one each backend
	// reads.
	Vars []string
	// Default is the default as -h shows it ("" for none).
	Default string
	// Usage says what the flag sets.
	Usage string
	// Bool makes the flag a boolean (-json, -table=false).
	Bool bool
}

// Var is a variable without a flag, as -h lists it.
type Var struct {
	// Name is the variable's name.
	Name string
	// Usage says what it sets and its default.
	Usage string
}

// Help is what a command's -h prints: the usage line, what the command
// does, its flags with their variables and defaults, the variables that
// have no flag, and closing notes (backends, exit status).
type Help struct {
	// Usage is the usage line ("usage: checkmatch -receipt PATH [flags]").
	Usage string
	// About says what the command does.
	About string
	// Flags are the command's flags, in the order -h shows them.
	Flags []Flag
	// Vars are the variables without a flag.
	Vars []Var
	// Notes are further paragraphs (backends, exit status).
	Notes []string
}

// Write writes the help text to w.
func (h Help) Write(w io.Writer) error {
	fmt.Fprintf(w, "%s\n\n%s\n", h.Usage, h.About)
	if len(h.Flags) > 0 {
		wins := ""
		for _, f := range h.Flags {
			if len(f.Vars) > 0 {
				wins = "; a flag wins over its variable"
			}
		}
		fmt.Fprintf(w, "\nFlags (-flag and --flag both work%s):\n", wins)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for _, f := range h.Flags {
			name := "-" + f.Name
			if f.Arg != "" {
				name += " " + f.Arg
			}
			usage := f.Usage
			if f.Default != "" {
				usage += " (default " + f.Default + ")"
			}
			fmt.Fprintf(tw, "  %s\t%s\n", name, usage)
			if len(f.Vars) > 0 {
				fmt.Fprintf(tw, "  \t  variable %s\n", strings.Join(f.Vars, " or "))
			}
		}
		tw.Flush()
	}
	if len(h.Vars) > 0 {
		fmt.Fprintf(w, "\nVariables without a flag:\n")
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for _, v := range h.Vars {
			fmt.Fprintf(tw, "  %s\t%s\n", v.Name, v.Usage)
		}
		tw.Flush()
	}
	for _, n := range h.Notes {
		fmt.Fprintf(w, "\n%s\n", n)
	}
	_, err := fmt.Fprintln(w)
	return err
}

// Env is a command's settings after its flags are parsed: a variable a
// flag gave wins, then the environment, then the command's defaults. It
// remembers which flag gave which variable, so an error names what the
// user set ([Env.Name], [Env.Err]).
type Env struct {
	lookup  func(string) (string, bool) // flags, environment, defaults
	environ func(string) (string, bool) // the environment alone
	flagFor map[string]string           // variable -> "-flag" that overrides it
	byVar   map[string]string           // variable -> "-flag" that gave it
	values  map[string]string           // flag name -> value given or default
	given   map[string]bool             // flag names given
}

// NewEnv returns the settings of a command whose flags gave set (by
// variable), over lookup (the environment) and defaults (filled in only
// when a variable is absent). flagFor names, by variable, the flag that
// overrides it (without its dash).
func NewEnv(set, flagFor map[string]string, lookup func(string) (string, bool), defaults map[string]string) *Env {
	e := &Env{lookup: Overlay(set, lookup, defaults), environ: lookup, flagFor: map[string]string{},
		byVar: map[string]string{}, values: map[string]string{}, given: map[string]bool{}}
	for v, f := range flagFor {
		e.flagFor[v] = "-" + f
		if _, ok := set[v]; ok {
			e.byVar[v] = "-" + f
		}
	}
	return e
}

// Parse parses args for a command described by help, whose flags are all
// defined here. -h (or -help) writes help to stdout and reports ok false
// with no error. A bad flag or a positional argument (unless positional)
// is a [*UsageError]. The returned Env reads a variable through lookup,
// with the flags given winning and defaults (by variable) filling absent
// ones.
func Parse(help Help, args []string, stdout io.Writer, lookup func(string) (string, bool), defaults map[string]string, positional bool) (env *Env, rest []string, ok bool, err error) {
	fset := flag.NewFlagSet("", flag.ContinueOnError)
	fset.SetOutput(io.Discard)
	for _, f := range help.Flags {
		if f.Bool {
			fset.Bool(f.Name, f.Default == "true", f.Usage)
		} else {
			fset.String(f.Name, "", f.Usage)
		}
	}
	if err := fset.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, nil, false, help.Write(stdout)
		}
		return nil, nil, false, Usage(err)
	}
	if fset.NArg() > 0 && !positional {
		return nil, nil, false, Usagef("unexpected arguments: %s", strings.Join(fset.Args(), " "))
	}
	set, flagFor := map[string]string{}, map[string]string{}
	for _, spec := range help.Flags {
		for _, v := range spec.Vars {
			flagFor[v] = spec.Name
		}
	}
	given := map[string]bool{}
	fset.Visit(func(f *flag.Flag) {
		given[f.Name] = true
		for _, spec := range help.Flags {
			if spec.Name == f.Name {
				for _, v := range spec.Vars {
					set[v] = f.Value.String()
				}
			}
		}
	})
	env = NewEnv(set, flagFor, lookup, defaults)
	env.given = given
	for _, spec := range help.Flags {
		env.values[spec.Name] = fset.Lookup(spec.Name).Value.String()
		if !given[spec.Name] && !spec.Bool {
			env.values[spec.Name] = spec.Default
		}
	}
	return env, fset.Args(), true, nil
}

// Lookup returns the value of variable key and whether it is set.
func (e *Env) Lookup(key string) (string, bool) { return e.lookup(key) }

// Name returns the name to put in an error about variable key: the flag
// ("-rows") when a flag gave it; the variable when the environment did;
// both ("-receipt or TYPEVET_CHECK_MATCH_RECEIPT") when neither did and
// the variable has a flag, since the user may set either.
func (e *Env) Name(key string) string {
	if f, ok := e.byVar[key]; ok {
		return f
	}
	if _, ok := e.environ(key); ok {
		return key
	}
	if f, ok := e.flagFor[key]; ok {
		return f + " or " + key
	}
	return key
}

// Flag returns the value of a flag-only setting: the value given, else
// its -h default ("true"/"false" for a bool flag).
func (e *Env) Flag(name string) string { return e.values[name] }

// Given reports whether flag name was on the command line.
func (e *Env) Given(name string) bool { return e.given[name] }

// Environ looks variable key up in the environment itself, leaving out
// the flags and the command's defaults.
func (e *Env) Environ(key string) (string, bool) { return e.environ(key) }

// Err returns err as a [*UsageError] whose message names what the user
// set ([Env.Name]): a [*judgment.SettingError], or a message that
// begins with the name of a variable that has a flag, names the flag when
// the flag gave it and both when neither the flag nor the environment did.
// Nil stays nil.
func (e *Env) Err(err error) error {
	if err == nil {
		return nil
	}
	var se *judgment.SettingError
	if errors.As(err, &se) {
		return Usagef("%s %s", e.Name(se.Variable), se.Rule)
	}
	msg := err.Error()
	vars := make([]string, 0, len(e.flagFor))
	for v := range e.flagFor {
		vars = append(vars, v)
	}
	// The longest name first, so TYPEVET_X_Y is not read as TYPEVET_X.
	slices.SortFunc(vars, func(a, b string) int { return len(b) - len(a) })
	for _, v := range vars {
		if rest, ok := strings.CutPrefix(msg, v); ok && (rest == "" || rest[0] == ' ' || rest[0] == ':') {
			return &UsageError{Msg: e.Name(v) + rest}
		}
	}
	return &UsageError{Msg: msg}
}
