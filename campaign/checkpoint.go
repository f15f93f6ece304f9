// Package campaign runs a campaign's spaces against its candidates and keeps its checkpoint,
// and holds the run around them: starting the targets, the shard, the output files, the
// targets' retirement before triage and the verdict.
package campaign

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/difffuzz/difffuzz/fuzz"
	"github.com/difffuzz/difffuzz/report"
)

// checkpointVersion is the version of the --checkpoint file's layout. 3: findings are
// report.FindingRecord of report.Version 2.
const checkpointVersion = 3

// logSuffix names the findings log beside the checkpoint FILE: FILE.findings, and
// FILE.findings.N once a resume compacted it N times.
const logSuffix = ".findings"

// checkpointEvery is how often a running campaign writes its checkpoint (it also writes it
// when it ends, interrupted or not).
const checkpointEvery = 30 * time.Second

// restoredKept is how many findings of each exhaustive space and candidate a resumed run keeps
// for --json's "findings", as a run without a checkpoint does.
const restoredKept = fuzz.DefaultMaxFindings

// SpaceState is the progress of one exhaustive space: the units of work done
// (fuzz.ExhaustiveUnit) and what they counted. A target's space also has its unit size (its
// option sets are those it can take) and counts its cases, those not sent included.
type SpaceState struct {
	Op          fuzz.Op       `json:"op"`
	Len         int           `json:"len"`
	Done        []uint64      `json:"done"` // the units checked, ascending
	Strings     uint64        `json:"strings"`
	Differences uint64        `json:"differences"`
	Elapsed     time.Duration `json:"elapsed_ns"`     // of the runs that ended (the running one adds its own)
	Unit        uint64        `json:"unit,omitempty"` // targets: strings in a unit
	Cases       uint64        `json:"cases,omitempty"`
	NotRun      uint64        `json:"not_run,omitempty"`
	Skipped     uint64        `json:"skipped,omitempty"`
}

// PartState is a finished part of a campaign (a mode, or one target's exhaustive spaces) that a
// resumed run does not run again: its report.
type PartState struct {
	Spaces      []fuzz.SpaceReport     `json:"spaces"`
	Differences uint64                 `json:"differences"`
	Findings    []report.FindingRecord `json:"findings"`
}

// State is the --checkpoint file.
type State struct {
	Version int                    `json:"version"`
	Config  string                 `json:"config"` // ConfigLine: a checkpoint of another is refused
	Shard   string                 `json:"shard"`  // K/N
	Parts   map[string]*PartState  `json:"parts"`
	Spaces  map[string]*SpaceState `json:"spaces"` // by "op/len"
	// Targets are the exhaustive spaces of each --exec target, by part ("exhaustive NAME"),
	// then "op/len".
	Targets map[string]map[string]*SpaceState `json:"targets,omitempty"`
	// Witnesses are each --exec target's crash and hang witnesses (by its name) as of its last
	// unit or part done, so that a resumed run does not send what contains them again.
	Witnesses map[string][]WitnessRecord `json:"witnesses,omitempty"`
	Log       string                     `json:"log"`       // the findings log, beside the checkpoint
	LogBytes  int64                      `json:"log_bytes"` // the part of the log this checkpoint vouches for
	LogLines  uint64                     `json:"log_lines"`
	Written   time.Time                  `json:"written"`
	Elapsed   time.Duration              `json:"elapsed_ns"` // wall time of the runs that wrote it, this one up to Written
	// LogSum is the SHA-256 of the log's first LogBytes bytes, and Sum the SHA-256 of this
	// file written with Sum empty: an edited checkpoint or log is refused, not resumed into a
	// report that does not add up.
	LogSum string `json:"log_sha256"`
	Sum    string `json:"sha256"`
}

// WitnessRecord is a target's crash or hang witness in the checkpoint (fuzz.WitnessState).
type WitnessRecord struct {
	Finding report.FindingRecord `json:"finding"`
	NotRun  uint64               `json:"not_run,omitempty"`
	Again   uint64               `json:"again,omitempty"`
	Line    string               `json:"line,omitempty"`
	HasLine bool                 `json:"has_line,omitempty"`
	Also    []string             `json:"also,omitempty"` // hex
	Exact   bool                 `json:"exact,omitempty"`
	Every   bool                 `json:"every,omitempty"`
}

// Checksum is the SHA-256 of st as saved, with Sum empty.
func (st State) Checksum() (string, []byte, error) {
	st.Sum = ""
	data, err := json.MarshalIndent(st, "", " ")
	if err != nil {
		return "", nil, err
	}
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:]), data, nil
}

// logLine is one line of the findings log: a raw finding, the part that made it and, for an
// exhaustive space, its space and unit, so that a resumed run keeps exactly the findings of
// the work it does not do again.
type logLine struct {
	Part    string               `json:"part"`
	Space   string               `json:"space,omitempty"`
	Unit    uint64               `json:"unit,omitempty"`
	Finding report.FindingRecord `json:"finding"`
}

// checkpoint lets a campaign stop and resume (--checkpoint FILE). It is the campaign's Sink
// (every raw finding goes to the findings log, then to the triage) and the exhaustive spaces'
// UnitTracker, and each --exec target's exhaustive spaces' fuzz.SpaceUnits. The exhaustive
// spaces resume unit by unit; the other parts (boundary, random) resume whole: a part that
// ended is not run again, one that was interrupted is run again from its start.
type Checkpoint struct {
	path   string
	full   bool     // --full-options: the option sets of the escape spaces (optionSets)
	modes  []string // the modes a part may be of
	triage fuzz.Sink

	mu       sync.Mutex
	st       State
	done     map[string]map[uint64]bool // st.Spaces' and st.Targets' Done, for lookups (by unitKey)
	prior    map[string]SpaceState      // st.Spaces as loaded: what earlier runs counted
	restored map[string][]*fuzz.Finding // findings of earlier runs per exhaustive space and candidate (at most restoredKept)
	found    map[string][]*fuzz.Finding // findings of earlier runs per target space (by unitKey), the first restoredKept found
	part     string                     // the part running now
	unit     *ckUnit                    // the target space's unit running now (findings are tagged with it)
	log      *os.File
	logw     *bufio.Writer
	lockFile *os.File // FILE.lock, flocked while this run uses the checkpoint
	closed   bool
	stop     chan struct{}
	stopped  chan struct{}
	logErr   error         // the first write to the findings log that failed: the checkpoint is no longer written
	logSum   hash.Hash     // SHA-256 of the log's bytes written so far (st.LogSum when saved)
	resumed  bool          // the file was there: this run goes on with an earlier one
	earlier  time.Time     // when the earlier run wrote it (ResumeLine)
	opened   time.Time     // when this run opened it
	before   time.Duration // st.Elapsed as loaded: the wall time of earlier runs
	worked   bool          // this run checked something (a unit, or a part that had not ended)
}

func spaceKey(op fuzz.Op, n int) string { return fmt.Sprintf("%s/%d", op, n) }

// unitKey names the units of space (spaceKey) of part: the built-in exhaustive spaces by their
// space, a target's by its part too.
func unitKey(part, space string) string {
	if part == "exhaustive" {
		return space
	}
	return part + "\x00" + space
}

// optionSets is how many option sets the exhaustive space of op checks each string of n bytes
// under (full: --full-options).
func optionSets(op fuzz.Op, n int, full bool) int {
	if op == fuzz.OpEscape {
		return len(fuzz.ExhaustiveCombos(n, full))
	}
	return 1
}

// Open opens the checkpoint at path: a new one when there is no file, else the
// earlier run's, which must be of the same configuration and shard. The findings the earlier
// runs made in the work that is done go to triage again.
func Open(path, config, shard string, full bool, modes []string, triage fuzz.Sink) (*Checkpoint, error) {
	ck := &Checkpoint{path: path, full: full, modes: modes, triage: triage, done: map[string]map[uint64]bool{}, prior: map[string]SpaceState{},
		restored: map[string][]*fuzz.Finding{}, found: map[string][]*fuzz.Finding{}, opened: time.Now()}
	logName := filepath.Base(path) + logSuffix
	if st, err := os.Stat(path); err == nil && !st.Mode().IsRegular() {
		return nil, fmt.Errorf("--checkpoint %s: not a regular file", path)
	}
	data, err := ReadSmall(path, maxCheckpointSize)
	if err == nil || errors.Is(err, fs.ErrNotExist) {
		if lerr := ck.lock(); lerr != nil {
			return nil, lerr
		}
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return ck.create(config, shard, logName)
	case err != nil:
		return nil, fmt.Errorf("--checkpoint: %v", err)
	}
	ok := false
	defer func() {
		if !ok {
			ck.release()
		}
	}()
	err = json.Unmarshal(data, &ck.st) // another version's findings may not decode: its version is named first
	if ck.st.Version != 0 && ck.st.Version != checkpointVersion {
		return nil, fmt.Errorf("--checkpoint %s: checkpoint version %d, this difffuzz reads version %d", path, ck.st.Version, checkpointVersion)
	}
	if err != nil || ck.st.Version == 0 || ck.st.Log == "" {
		return nil, fmt.Errorf("--checkpoint %s: not a difffuzz checkpoint (delete it, or give another file)", path)
	}
	if sum, _, err := ck.st.Checksum(); err != nil || sum != ck.st.Sum {
		return nil, fmt.Errorf("--checkpoint %s: not as difffuzz wrote it (its SHA-256 is %s, it says %s): edited or damaged; delete it to start over", path, sum, ck.st.Sum)
	}
	if ck.st.Config != config || ck.st.Shard != shard {
		return nil, fmt.Errorf("--checkpoint %s: written by another campaign (%s, shard %s), not this one (%s, shard %s): run that command again, or delete the file to start over",
			path, ck.st.Config, ck.st.Shard, config, shard)
	}
	if err := ck.st.check(logName, full, ck.modes); err != nil {
		return nil, fmt.Errorf("--checkpoint %s: not a difffuzz checkpoint: %v (delete it, or give another file)", path, err)
	}
	ck.before = ck.st.Elapsed
	for k, sp := range ck.st.Spaces {
		ck.done[k] = map[uint64]bool{}
		for _, u := range sp.Done {
			ck.done[k][u] = true
		}
		ck.prior[k] = *sp
	}
	for part, spaces := range ck.st.Targets {
		for k, sp := range spaces {
			ck.done[unitKey(part, k)] = map[uint64]bool{}
			for _, u := range sp.Done {
				ck.done[unitKey(part, k)][u] = true
			}
		}
	}
	old, err := ck.replay()
	if err != nil {
		return nil, fmt.Errorf("--checkpoint %s: %v", path, err)
	}
	// The new log holds only what the checkpoint keeps: the checkpoint names it at once (an
	// atomic rename), and only then is the old log removed, so that whatever stops this run the
	// file names a log that agrees with it.
	ck.earlier = ck.st.Written // (save stamps this run's time)
	if err := ck.save(); err != nil {
		os.Remove(ck.logPath())
		return nil, fmt.Errorf("--checkpoint: %v", err)
	}
	os.Remove(old)
	ck.resumed = true
	ok = true
	return ck, nil
}

// create starts a new checkpoint (there was no file), locked, and writes it.
func (ck *Checkpoint) create(config, shard, logName string) (*Checkpoint, error) {
	ck.st = State{Version: checkpointVersion, Config: config, Shard: shard, Parts: map[string]*PartState{},
		Spaces: map[string]*SpaceState{}, Log: logName}
	var err error
	if ck.log, err = os.Create(ck.logPath()); err != nil {
		ck.unlock()
		return nil, fmt.Errorf("--checkpoint: %v", err)
	}
	ck.logw, ck.logSum = bufio.NewWriterSize(ck.log, 1<<16), sha256.New()
	if err := ck.save(); err != nil {
		ck.release()
		return nil, fmt.Errorf("--checkpoint: %v", err)
	}
	return ck, nil
}

// maxCheckpointSize bounds the checkpoint file read (a checkpoint of the largest sweep, every
// unit of every 4-byte space, is a few tens of MB).
const maxCheckpointSize = 1 << 30

// ReadSmall reads a regular file of at most limit bytes.
func ReadSmall(path string, limit int64) ([]byte, error) {
	// Looked at before it is opened: opening a FIFO would wait for a writer.
	if st, err := os.Stat(path); err == nil && !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", path)
	}
	if st.Size() > limit {
		return nil, fmt.Errorf("%s: %d bytes, more than %d", path, st.Size(), limit)
	}
	return io.ReadAll(io.LimitReader(f, limit))
}

// check refuses a checkpoint whose parts do not fit together: spaces under another key than
// their operation and length, units outside their space, more strings than the units done
// hold, findings that are not findings, a log elsewhere than beside the checkpoint.
func (st *State) check(logName string, full bool, modes []string) error {
	if !regexp.MustCompile(`^` + regexp.QuoteMeta(logName) + `(\.[1-9][0-9]{0,8})?$`).MatchString(st.Log) {
		return fmt.Errorf("its findings log is %q, not %s[.N] beside it", st.Log, logName)
	}
	if st.LogBytes < 0 {
		return fmt.Errorf("log_bytes %d", st.LogBytes)
	}
	if st.Parts == nil {
		st.Parts = map[string]*PartState{}
	}
	if st.Spaces == nil {
		st.Spaces = map[string]*SpaceState{}
	}
	// Keys in order, so that a file with several faults always names the same one first.
	for _, k := range slices.Sorted(maps.Keys(st.Parts)) {
		p := st.Parts[k]
		if p == nil {
			return fmt.Errorf("part %q is empty", k)
		}
		if name, _, _ := strings.Cut(k, " "); !slices.Contains(modes, name) {
			return fmt.Errorf("part %q is of no mode difffuzz has", k)
		}
		for i, r := range p.Findings {
			if _, err := r.Finding(); err != nil {
				return fmt.Errorf("part %q, finding %d: %v", k, i+1, err)
			}
		}
	}
	for _, k := range slices.Sorted(maps.Keys(st.Spaces)) {
		sp := st.Spaces[k]
		if sp == nil {
			return fmt.Errorf("space %q is empty", k)
		}
		if _, err := fuzz.ParseOps(string(sp.Op)); err != nil || sp.Op == "" || sp.Len < 1 || sp.Len > 4 || k != spaceKey(sp.Op, sp.Len) {
			return fmt.Errorf("space %q holds op %q, length %d", k, sp.Op, sp.Len)
		}
		sets := optionSets(sp.Op, sp.Len, full)
		size := fuzz.ExhaustiveUnit(sp.Op, sp.Len, sets)
		units := (uint64(1)<<(8*sp.Len) + size - 1) / size
		for _, u := range sp.Done {
			if u >= units {
				return fmt.Errorf("space %q: unit %d of %d", k, u, units)
			}
		}
		if sp.Strings > uint64(len(sp.Done))*size || sp.Differences > sp.Strings*uint64(sets)*64 {
			return fmt.Errorf("space %q: %d strings and %d differences in %d units", k, sp.Strings, sp.Differences, len(sp.Done))
		}
	}
	if err := st.checkWitnesses(); err != nil {
		return err
	}
	return st.checkTargets()
}

// checkWitnesses refuses witnesses that are not findings.
func (st *State) checkWitnesses() error {
	for _, name := range slices.Sorted(maps.Keys(st.Witnesses)) {
		for i, w := range st.Witnesses[name] {
			if _, err := w.Finding.Finding(); err != nil {
				return fmt.Errorf("target %q, witness %d: %v", name, i+1, err)
			}
			for _, a := range w.Also {
				if _, err := hex.DecodeString(a); err != nil {
					return fmt.Errorf("target %q, witness %d: culprit %q is not hex", name, i+1, a)
				}
			}
		}
	}
	return nil
}

// KeepWitnesses records t's witnesses as they are now: called when a unit or part of t is
// done, so that the checkpoint's witnesses are those of the work it vouches for.
func (ck *Checkpoint) KeepWitnesses(t *fuzz.Target) {
	if ck == nil {
		return
	}
	ck.mu.Lock()
	defer ck.mu.Unlock()
	ck.keepWitnesses(t)
}

// keepWitnesses is KeepWitnesses with ck.mu held.
func (ck *Checkpoint) keepWitnesses(t *fuzz.Target) {
	ws := t.WitnessStates()
	if len(ws) == 0 {
		delete(ck.st.Witnesses, t.Name)
		return
	}
	recs := make([]WitnessRecord, len(ws))
	for i, w := range ws {
		recs[i] = WitnessRecord{Finding: report.FactsOf(w.Finding), NotRun: w.NotRun, Again: w.Again, Line: w.Line, HasLine: w.HasLine,
			Exact: w.Exact, Every: w.Every}
		for _, a := range w.Also {
			recs[i].Also = append(recs[i].Also, hex.EncodeToString(a))
		}
	}
	if ck.st.Witnesses == nil {
		ck.st.Witnesses = map[string][]WitnessRecord{}
	}
	ck.st.Witnesses[t.Name] = recs
}

// RestoreWitnesses gives t the witnesses an earlier run of the checkpoint found (none in a
// new one).
func (ck *Checkpoint) RestoreWitnesses(t *fuzz.Target) {
	if ck == nil {
		return
	}
	ck.mu.Lock()
	defer ck.mu.Unlock()
	recs := ck.st.Witnesses[t.Name]
	if len(recs) == 0 {
		return
	}
	ws := make([]fuzz.WitnessState, len(recs))
	for i, r := range recs {
		f, _ := r.Finding.Finding() // cannot fail: checkWitnesses decoded every one
		ws[i] = fuzz.WitnessState{Finding: f, NotRun: r.NotRun, Again: r.Again, Line: r.Line, HasLine: r.HasLine, Exact: r.Exact, Every: r.Every}
		for _, a := range r.Also {
			b, _ := hex.DecodeString(a)
			ws[i].Also = append(ws[i].Also, b)
		}
	}
	t.RestoreWitnesses(ws)
}

// checkTargets refuses targets' spaces that do not fit together (as check does the
// built-ins').
func (st *State) checkTargets() error {
	for _, part := range slices.Sorted(maps.Keys(st.Targets)) {
		if !strings.HasPrefix(part, "exhaustive ") {
			return fmt.Errorf("target part %q is not an exhaustive one", part)
		}
		for _, k := range slices.Sorted(maps.Keys(st.Targets[part])) {
			sp := st.Targets[part][k]
			if sp == nil {
				return fmt.Errorf("part %q, space %q is empty", part, k)
			}
			if _, err := fuzz.ParseOps(string(sp.Op)); err != nil || sp.Op == "" || sp.Len < 1 || sp.Len > 4 || k != spaceKey(sp.Op, sp.Len) || sp.Unit == 0 {
				return fmt.Errorf("part %q, space %q holds op %q, length %d, units of %d", part, k, sp.Op, sp.Len, sp.Unit)
			}
			units := (uint64(1)<<(8*sp.Len) + sp.Unit - 1) / sp.Unit
			for _, u := range sp.Done {
				if u >= units {
					return fmt.Errorf("part %q, space %q: unit %d of %d", part, k, u, units)
				}
			}
		}
	}
	return nil
}

// lock takes the checkpoint for this run alone, through FILE.lock (flock), held until close:
// two runs on one checkpoint would each keep only their own findings.
func (ck *Checkpoint) lock() error {
	f, err := os.OpenFile(ck.path+".lock", os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("--checkpoint %s: %v", ck.path, err)
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			return fmt.Errorf("--checkpoint %s: another difffuzz is using it (%s.lock is locked)", ck.path, ck.path)
		}
		return fmt.Errorf("--checkpoint %s: locking %s.lock: %v", ck.path, ck.path, err)
	}
	ck.lockFile = f
	return nil
}

// unlock lets another run take the checkpoint.
func (ck *Checkpoint) unlock() {
	if ck.lockFile != nil {
		ck.lockFile.Close()
		ck.lockFile = nil
	}
}

// release closes the log and unlocks, for a checkpoint that is not used after all.
func (ck *Checkpoint) release() {
	if ck.log != nil {
		ck.log.Close()
	}
	ck.unlock()
}

// resumeLine says what an earlier run left, for stderr when a run resumes.
func (ck *Checkpoint) ResumeLine() string {
	var units, targetUnits int
	for _, sp := range ck.st.Spaces {
		units += len(sp.Done)
	}
	for _, spaces := range ck.st.Targets {
		for _, sp := range spaces {
			targetUnits += len(sp.Done)
		}
	}
	parts := make([]string, 0, len(ck.st.Parts))
	for p := range ck.st.Parts {
		parts = append(parts, p)
	}
	sort.Strings(parts)
	done := "none"
	if len(parts) > 0 {
		done = strings.Join(parts, ", ")
	}
	spaces := report.Plural(uint64(units), "unit") + " of the built-in exhaustive spaces"
	if targetUnits > 0 {
		spaces += ", " + report.Plural(uint64(targetUnits), "unit") + " of the targets'"
	}
	return fmt.Sprintf("difffuzz: --checkpoint %s: resuming the run written %s: %s done, parts done: %s; %s kept; that work is not checked again",
		ck.path, ck.earlier.Format(time.RFC3339), spaces, done, report.Plural(ck.st.LogLines, "finding"))
}

func (ck *Checkpoint) logPath() string { return filepath.Join(filepath.Dir(ck.path), ck.st.Log) }

// replay reads the findings log up to what the checkpoint vouches for, gives the findings of
// the work that is done to the triage, and writes them alone to the log's next generation
// (FILE.findings.N), which becomes the log; it returns the old log's path, for removal once
// the checkpoint names the new one.
func (ck *Checkpoint) replay() (string, error) {
	oldPath := ck.logPath()
	if st, err := os.Stat(oldPath); err != nil {
		return "", err
	} else if !st.Mode().IsRegular() || st.Size() < ck.st.LogBytes {
		return "", fmt.Errorf("findings log %s: %d bytes, the checkpoint vouches for %d (cut short or replaced)", ck.st.Log, st.Size(), ck.st.LogBytes)
	}
	f, err := os.Open(oldPath)
	if err != nil {
		return "", err
	}
	defer f.Close()
	gen := 0
	if _, n, ok := strings.Cut(strings.TrimPrefix(ck.st.Log, filepath.Base(ck.path)), logSuffix+"."); ok {
		gen, _ = strconv.Atoi(n)
	}
	newLog := fmt.Sprintf("%s%s.%d", filepath.Base(ck.path), logSuffix, gen+1)
	out, err := os.Create(filepath.Join(filepath.Dir(ck.path), newLog))
	if err != nil {
		return "", err
	}
	fail := func(err error) (string, error) {
		out.Close()
		os.Remove(out.Name())
		return "", err
	}
	// Memory stays flat however many findings the earlier runs made.
	kept := bufio.NewWriterSize(out, 1<<16)
	var lines, read uint64
	var size int64
	oldSum, newSum := sha256.New(), sha256.New()
	sc := bufio.NewScanner(io.TeeReader(io.LimitReader(f, ck.st.LogBytes), oldSum))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		read++
		var l logLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			return fail(fmt.Errorf("findings log %s, line %d: %v", ck.st.Log, read, err))
		}
		keep := l.Space != "" && ck.done[unitKey(l.Part, l.Space)][l.Unit] || l.Space == "" && ck.st.Parts[l.Part] != nil
		if !keep {
			continue
		}
		fd, err := l.Finding.Finding()
		if err != nil {
			return fail(fmt.Errorf("findings log %s, line %d: %v", ck.st.Log, read, err))
		}
		switch k := unitKey(l.Part, l.Space); {
		case l.Space != "" && k == l.Space:
			ck.keepRestored(l.Space, fd)
		case l.Space != "" && len(ck.found[k]) < restoredKept:
			ck.found[k] = append(ck.found[k], fd)
		}
		ck.triage.Add(fd)
		kept.Write(sc.Bytes())
		kept.WriteByte('\n')
		newSum.Write(sc.Bytes())
		newSum.Write([]byte{'\n'})
		size += int64(len(sc.Bytes())) + 1
		lines++
	}
	if err := sc.Err(); err != nil {
		return fail(fmt.Errorf("findings log %s: %v", ck.st.Log, err))
	}
	if read != ck.st.LogLines {
		return fail(fmt.Errorf("findings log %s: %d findings where the checkpoint vouches for %d (cut short or replaced)", ck.st.Log, read, ck.st.LogLines))
	}
	if got := hex.EncodeToString(oldSum.Sum(nil)); got != ck.st.LogSum {
		return fail(fmt.Errorf("findings log %s: its first %d bytes are not those the checkpoint vouches for (SHA-256 %s, not %s): edited or damaged", ck.st.Log, ck.st.LogBytes, got, ck.st.LogSum))
	}
	if err := kept.Flush(); err != nil {
		return fail(err)
	}
	ck.log, ck.logw, ck.logSum = out, bufio.NewWriterSize(out, 1<<16), newSum
	ck.st.Log, ck.st.LogBytes, ck.st.LogLines = newLog, size, lines
	return oldPath, nil
}

// keepRestored keeps f among the restoredKept smallest findings of its space and candidate.
func (ck *Checkpoint) keepRestored(space string, f *fuzz.Finding) {
	k := space + "\x00" + f.Impl
	l := ck.restored[k]
	i := sort.Search(len(l), func(i int) bool {
		c := bytes.Compare(f.Input, l[i].Input)
		return c < 0 || c == 0 && f.Flags < l[i].Flags
	})
	if i >= restoredKept {
		return
	}
	l = slices.Insert(l, i, f)
	ck.restored[k] = l[:min(len(l), restoredKept)]
}

// Add is the campaign's Sink: the finding goes to the log, tagged with its part and (built-in
// exhaustive spaces) its unit, then to the triage.
func (ck *Checkpoint) Add(f *fuzz.Finding) {
	ck.mu.Lock()
	part, unit := ck.part, ck.unit
	ck.mu.Unlock()
	// The line is made outside the lock; the part cannot change meanwhile (parts run one after
	// the other, and a part's findings all come before its end).
	l := logLine{Part: part, Finding: report.FactsOf(f)}
	switch {
	case part == "exhaustive" && f.Space == "exhaustive" && !f.External:
		sets := optionSets(f.Op, len(f.Input), ck.full)
		l.Space, l.Unit = spaceKey(f.Op, len(f.Input)), fuzz.UnitOf(f.Op, f.Input, sets)
	case unit != nil && unit.running:
		l.Space, l.Unit = unit.key, unit.now
	}
	line, err := json.Marshal(l)
	ck.mu.Lock()
	first := false
	if ck.logErr == nil {
		if err == nil {
			line = append(line, '\n')
			_, err = ck.logw.Write(line)
		}
		if err == nil {
			ck.st.LogBytes += int64(len(line))
			ck.st.LogLines++
			ck.logSum.Write(line)
		} else {
			// The finding still counts in this run, but a resume could not know it: from
			// here on the checkpoint is not written again (it stays at its last good state).
			ck.logErr, first = err, true
		}
	}
	ck.mu.Unlock()
	if first {
		fmt.Fprintf(os.Stderr, "difffuzz: --checkpoint: findings log: %v: the checkpoint is no longer updated\n", err)
	}
	ck.triage.Add(f)
}

// Resumed reports whether the file was there: this run goes on with an earlier one.
func (ck *Checkpoint) Resumed() bool { return ck != nil && ck.resumed }

// Worked reports whether this run checked something (a unit, or a part that had not ended).
func (ck *Checkpoint) Worked() bool {
	ck.mu.Lock()
	defer ck.mu.Unlock()
	return ck.worked
}

// Done is fuzz.UnitTracker.Done.
func (ck *Checkpoint) Done(op fuzz.Op, n int, u uint64) bool {
	ck.mu.Lock()
	defer ck.mu.Unlock()
	return ck.done[spaceKey(op, n)][u]
}

// Finished is fuzz.UnitTracker.Finished.
func (ck *Checkpoint) Finished(op fuzz.Op, n int, u uint64, strings, differences uint64) {
	ck.mu.Lock()
	defer ck.mu.Unlock()
	k := spaceKey(op, n)
	sp := ck.st.Spaces[k]
	if sp == nil {
		sp = &SpaceState{Op: op, Len: n}
		ck.st.Spaces[k] = sp
		ck.done[k] = map[uint64]bool{}
	}
	ck.done[k][u] = true
	ck.worked = true
	sp.Strings += strings
	sp.Differences += differences
}

// finished returns the report of a part an earlier run ended, or nil.
func (ck *Checkpoint) Ended(part string) *fuzz.Report {
	if ck == nil {
		return nil
	}
	ck.mu.Lock()
	defer ck.mu.Unlock()
	p := ck.st.Parts[part]
	if p == nil {
		return nil
	}
	rep := &fuzz.Report{Spaces: p.Spaces, Differences: p.Differences}
	for _, r := range p.Findings {
		f, _ := r.Finding() // cannot fail: check decoded every one when the checkpoint was read
		rep.Findings = append(rep.Findings, f)
	}
	return rep
}

// targetUnits is the checkpoint of the exhaustive spaces of a target's part (nil without a
// checkpoint), for fuzz.RunTargetUnits.
func (ck *Checkpoint) TargetUnits(part string, t *fuzz.Target) func(fuzz.TargetSpace) fuzz.SpaceUnits {
	if ck == nil {
		return nil
	}
	return func(sp fuzz.TargetSpace) fuzz.SpaceUnits {
		return &ckUnit{ck: ck, t: t, part: part, op: sp.Op, n: sp.Len, size: sp.UnitSize(), key: spaceKey(sp.Op, sp.Len)}
	}
}

// ckUnit is the checkpoint of one target space (fuzz.SpaceUnits).
type ckUnit struct {
	ck      *Checkpoint
	t       *fuzz.Target // whose witnesses are kept with each unit done
	part    string
	op      fuzz.Op
	n       int
	size    uint64
	key     string // spaceKey
	now     uint64 // the unit running (when running)
	running bool
}

// space is the space's progress in the checkpoint (nil: none yet); ck.mu is held.
func (u *ckUnit) space() *SpaceState {
	sp := u.ck.st.Targets[u.part][u.key]
	if sp != nil && sp.Unit != u.size {
		// Cut otherwise (the target announced other options=): its units start over.
		delete(u.ck.st.Targets[u.part], u.key)
		delete(u.ck.done, unitKey(u.part, u.key))
		return nil
	}
	return sp
}

// Prior is fuzz.SpaceUnits.Prior.
func (u *ckUnit) Prior() (fuzz.UnitCounts, []*fuzz.Finding) {
	u.ck.mu.Lock()
	defer u.ck.mu.Unlock()
	sp := u.space()
	if sp == nil {
		return fuzz.UnitCounts{}, nil
	}
	return fuzz.UnitCounts{Cases: sp.Cases, NotRun: sp.NotRun, Skipped: sp.Skipped, Differences: sp.Differences, Elapsed: sp.Elapsed},
		u.ck.found[unitKey(u.part, u.key)]
}

// Done is fuzz.SpaceUnits.Done.
func (u *ckUnit) Done(unit uint64) bool {
	u.ck.mu.Lock()
	defer u.ck.mu.Unlock()
	return u.ck.done[unitKey(u.part, u.key)][unit]
}

// Begin is fuzz.SpaceUnits.Begin: the findings from now on are tagged with unit.
func (u *ckUnit) Begin(unit uint64) {
	u.ck.mu.Lock()
	defer u.ck.mu.Unlock()
	u.ck.unit = &ckUnit{key: u.key, now: unit, running: true}
}

// Finished is fuzz.SpaceUnits.Finished.
func (u *ckUnit) Finished(unit uint64, c fuzz.UnitCounts) {
	ck := u.ck
	ck.mu.Lock()
	defer ck.mu.Unlock()
	sp := u.space()
	if sp == nil {
		sp = &SpaceState{Op: u.op, Len: u.n, Unit: u.size}
		if ck.st.Targets == nil {
			ck.st.Targets = map[string]map[string]*SpaceState{}
		}
		if ck.st.Targets[u.part] == nil {
			ck.st.Targets[u.part] = map[string]*SpaceState{}
		}
		ck.st.Targets[u.part][u.key] = sp
		ck.done[unitKey(u.part, u.key)] = map[uint64]bool{}
	}
	ck.done[unitKey(u.part, u.key)][unit] = true
	ck.worked = true
	sp.Cases += c.Cases
	sp.NotRun += c.NotRun
	sp.Skipped += c.Skipped
	sp.Differences += c.Differences
	sp.Elapsed += c.Elapsed
	if u.t != nil {
		ck.keepWitnesses(u.t)
	}
}

// units is the checkpoint as the exhaustive spaces' UnitTracker (nil without a checkpoint).
func (ck *Checkpoint) Units() fuzz.UnitTracker {
	if ck == nil {
		return nil
	}
	return ck
}

// begin says which part runs now (the findings are tagged with it).
func (ck *Checkpoint) Begin(part string) {
	if ck == nil {
		return
	}
	ck.mu.Lock()
	ck.part, ck.unit = part, nil
	ck.worked = ck.worked || !strings.HasPrefix(part, "exhaustive") // the exhaustive spaces count their units
	ck.mu.Unlock()
}

// end records a part that ran to its end.
func (ck *Checkpoint) End(part string, rep *fuzz.Report) {
	if ck == nil {
		return
	}
	p := &PartState{Spaces: rep.Spaces, Differences: rep.Differences, Findings: []report.FindingRecord{}}
	for _, f := range rep.Findings {
		p.Findings = append(p.Findings, report.FactsOf(f))
	}
	ck.mu.Lock()
	ck.st.Parts[part] = p
	ck.part = ""
	ck.mu.Unlock()
}

// addPrior adds what earlier runs counted in the built-in exhaustive spaces to this run's
// report of them, and their findings to its kept ones; it records this run's time.
func (ck *Checkpoint) AddPrior(rep *fuzz.Report) {
	if ck == nil {
		return
	}
	ck.mu.Lock()
	defer ck.mu.Unlock()
	seen := map[string]bool{}
	for i := range rep.Spaces {
		sr := &rep.Spaces[i]
		k := spaceKey(sr.Op, sr.Len)
		seen[k] = true
		if sp := ck.st.Spaces[k]; sp != nil {
			sp.Elapsed += sr.Elapsed
		}
		p, ok := ck.prior[k]
		if !ok {
			continue
		}
		sr.Strings += p.Strings
		sr.Cases += p.Strings * uint64(sr.OptionSets)
		sr.Differences += p.Differences
		sr.Elapsed += p.Elapsed
		if s := sr.Elapsed.Seconds(); s > 0 {
			sr.CasesPerSec = float64(sr.Cases) / s
		}
		rep.Differences += p.Differences
	}
	for _, k := range slices.Sorted(maps.Keys(ck.prior)) { // in order: reports are compared
		p := ck.prior[k]
		if !seen[k] && p.Strings > 0 { // interrupted again before it reached this space
			sets := optionSets(p.Op, p.Len, ck.full)
			rep.Spaces = append(rep.Spaces, fuzz.SpaceReport{Space: "exhaustive", Op: p.Op, Len: p.Len, Strings: p.Strings,
				OptionSets: sets, Cases: p.Strings * uint64(sets), Differences: p.Differences, Elapsed: p.Elapsed})
			rep.Differences += p.Differences
			rep.Interrupted = true
		}
	}
	var restored []*fuzz.Finding
	for _, l := range ck.restored {
		restored = append(restored, l...)
	}
	rep.Merge(&fuzz.Report{Findings: restored})
	// As a single run keeps them: the first restoredKept of each space and candidate.
	kept := map[string]int{}
	all := rep.Findings
	rep.Findings = nil
	for _, f := range all {
		k := fmt.Sprintf("%s/%d\x00%s", f.Op, len(f.Input), f.Impl)
		if kept[k] < restoredKept {
			kept[k]++
			rep.Findings = append(rep.Findings, f)
		}
	}
	ck.prior = map[string]SpaceState{} // added once
}

// save writes the checkpoint: the findings log is flushed first, and the checkpoint vouches
// for it up to there; the file is replaced at once (written beside it, then renamed).
func (ck *Checkpoint) save() error {
	ck.mu.Lock()
	if ck.logErr == nil {
		ck.logErr = ck.logw.Flush()
	}
	if ck.logErr != nil {
		err := ck.logErr
		ck.mu.Unlock()
		return fmt.Errorf("findings log %s: %v (the checkpoint was last written before it)", ck.st.Log, err)
	}
	for k, sp := range ck.st.Spaces {
		sp.Done = slices.Sorted(maps.Keys(ck.done[k]))
	}
	for part, spaces := range ck.st.Targets {
		for k, sp := range spaces {
			sp.Done = slices.Sorted(maps.Keys(ck.done[unitKey(part, k)]))
		}
	}
	ck.st.Written = time.Now().UTC()
	ck.st.Elapsed = ck.before + time.Since(ck.opened)
	ck.st.LogSum = hex.EncodeToString(ck.logSum.Sum(nil))
	sum, _, err := ck.st.Checksum()
	if err == nil {
		ck.st.Sum = sum
	}
	data, err := json.MarshalIndent(ck.st, "", " ")
	ck.mu.Unlock()
	if err != nil {
		return err
	}
	tmp := ck.path + ".tmp"
	if err := os.WriteFile(tmp, append(data, '\n'), 0o644); err != nil {
		os.Remove(tmp) // a full disk leaves no empty .tmp behind
		return err
	}
	return os.Rename(tmp, ck.path)
}

// earlier is the wall time of the earlier runs this one goes on with (0 without a checkpoint),
// which the summary's total includes, as its rows include their spaces' earlier time.
func (ck *Checkpoint) Earlier() time.Duration {
	if ck == nil {
		return 0
	}
	return ck.before
}

// run writes the checkpoint every checkpointEvery until close.
func (ck *Checkpoint) Start(stderr io.Writer) {
	ck.stop, ck.stopped = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(ck.stopped)
		t := time.NewTicker(checkpointEvery)
		defer t.Stop()
		said := false
		for {
			select {
			case <-ck.stop:
				return
			case <-t.C:
				if err := ck.save(); err != nil && !said {
					said = true // close reports it again
					fmt.Fprintf(stderr, "difffuzz: --checkpoint: %v\n", err)
				}
			}
		}
	}()
}

// close stops the periodic writes, writes the checkpoint a last time, closes the log and
// unlocks; it does nothing the second time.
func (ck *Checkpoint) Close() error {
	if ck == nil || ck.closed {
		return nil
	}
	ck.closed = true
	if ck.stop != nil {
		close(ck.stop)
		<-ck.stopped
		ck.stop = nil
	}
	err := ck.save()
	if cerr := ck.log.Close(); err == nil {
		err = cerr
	}
	ck.unlock()
	return err
}
