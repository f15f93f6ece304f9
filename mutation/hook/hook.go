// Package hook connects a mutant schema (difffuzz mutate, docs/DESIGN.md §7) to the
// campaigns that check it: in a schema build the schema's variable file installs Tracer when
// mutants are traced for a per-call recheck; in every other build Tracer stays nil and
// nothing here runs.
package hook

// Tracer is what a tracing schema offers a campaign. Its methods are called from one
// goroutine only: the active mutant is a package variable.
type Tracer interface {
	// Begin starts a checked call; End ends it (after its re-runs). A traced mutant that
	// diverges outside a checked call is recorded as unattributed: nothing re-ran it.
	Begin()
	End()
	// Diverged are the traced mutants whose expression evaluated differently from the
	// original's since Begin.
	Diverged() []int
	// Rerun makes mutant id active, tracing off, for a re-run of the call; Done ends the
	// re-run. A re-run that does not end within the schema's limit is recorded as a hang
	// (with Hang's record) and the process exits.
	Rerun(id int)
	Done()
	// Differs records that mutant id, re-run on a call where it diverged, returned something
	// else than the original: record is the witness as a JSON object.
	Differs(id int, record map[string]any)
	// Hang sets what describes the call whose re-runs are under way, for the report of a
	// hang: *record is called (from another goroutine, while the re-run hangs) only then,
	// so what it reads must be safe to read from there.
	Hang(record *func() map[string]any)
}

// Active is the installed Tracer, nil when none is.
var Active Tracer
