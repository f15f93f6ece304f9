package mutation

import (
	"cmp"
	"fmt"
	"go/ast"
	"go/build"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"path/filepath"
	"slices"
	"strings"
)

// SchemaVar is the package-level variable a mutant schema switches on: the id of the one
// active mutant, read from the environment variable SchemaEnv when the package initialises (0
// or unset: none, the original code).
//
// With no mutant active, TraceEnv (a comma-separated list of mutant ids) makes the schema
// trace those mutants: wherever one of their expressions is evaluated, its mutated version is
// evaluated too (its panics recovered), and the first time the two differ the mutant's id is
// appended as a line to the file named by DivergedEnv. A traced mutant that never differs on
// a run has executed exactly like the original on that run's inputs.
const (
	SchemaVar   = "difffuzzMutant"
	SchemaEnv   = "DIFFFUZZ_MUTANT"
	TraceEnv    = "DIFFFUZZ_MUTANT_TRACE"
	DivergedEnv = "DIFFFUZZ_MUTANT_DIVERGED"
	RecheckEnv  = "DIFFFUZZ_MUTANT_RECHECK"
)

// Schema is one Go file with many mutants compiled in (a mutant schema): each mutated
// expression becomes a closure that returns the mutant's version of it when SchemaVar holds
// that mutant's id and the original otherwise, so that one build serves every mutant and a
// mutant is chosen per process by the environment.
type Schema struct {
	File string // as given to NewSchema
	// Src is the schema source: the original with every mutant of IDs wrapped in.
	Src []byte
	IDs []int // the mutants compiled in, in source order
	// Traced are the mutants of IDs that the schema can trace (TraceEnv): those whose
	// expression has a comparable type and calls nothing but builtins, conversions and
	// one-expression functions of the file that call nothing themselves.
	Traced map[int]bool
	// spans are, per mutant id, the schema's byte ranges that hold its version of the
	// expression (for mapping a compiler error back to the mutant it concerns).
	spans map[int][][2]int
}

// VarFile is the extra source file of package pkg that declares SchemaVar and the tracing of
// mutant ids up to maxID. With RecheckEnv set (a file name) as well as TraceEnv, it installs
// a hook.Tracer for a per-call recheck: the campaign re-runs each call during which a
// traced mutant diverged with that mutant active and records (in that file, as JSON lines)
// the mutants whose result differed, the calls whose re-run hung (the process then exits with
// status 3) and the mutants that diverged outside a checked call.
func VarFile(pkg string, maxID int) []byte {
	return fmt.Appendf(nil, `package %[1]s

import (
	difffuzzjson "encoding/json"
	difffuzzos "os"
	difffuzzstrconv "strconv"
	difffuzzstrings "strings"
	difffuzzsync "sync"
	difffuzzatomic "sync/atomic"
	difffuzztime "time"

	difffuzzhook "github.com/difffuzz/difffuzz/mutation/hook"
)

// %[2]s is the mutant this process runs (difffuzz mutate): 0 for none.
var %[2]s, _ = difffuzzstrconv.Atoi(difffuzzos.Getenv(%[3]q))

// difffuzzTraced are the mutants traced (%[4]s), difffuzzTracing says whether there are any.
var difffuzzTraced, difffuzzTracing = func() (t [%[5]d]bool, any bool) {
	for _, f := range difffuzzstrings.Split(difffuzzos.Getenv(%[4]q), ",") {
		if id, err := difffuzzstrconv.Atoi(f); err == nil && id > 0 && id < len(t) && %[2]s == 0 {
			t[id], any = true, true
		}
	}
	return t, any
}()

var (
	difffuzzSeen    [%[5]d]difffuzzatomic.Bool
	difffuzzMu      difffuzzsync.Mutex
	difffuzzRecheck = difffuzzos.Getenv(%[7]q) // per-call recheck: the file of its records
	difffuzzOnce    = difffuzzRecheck == ""   // the first divergence of a mutant is all that matters
	difffuzzGen     uint32
	difffuzzLast    [%[5]d]uint32
	difffuzzCall    []int
	difffuzzInCall  bool
	// for the watchdog: what makes the record of the call being re-run, the mutant re-run,
	// and a count of re-run starts and ends (odd while one is under way)
	difffuzzOf       difffuzzatomic.Pointer[func() map[string]any]
	difffuzzRerunID  difffuzzatomic.Int64
	difffuzzRerunSeq difffuzzatomic.Uint64
)

// difffuzzDiverged records that traced mutant id evaluated differently from the original.
func difffuzzDiverged(id int) {
	if !difffuzzOnce {
		if !difffuzzInCall {
			if !difffuzzSeen[id].Swap(true) {
				difffuzzRecord(id, "unattributed", nil) // diverged in a call nobody re-runs
			}
			return
		}
		if difffuzzLast[id] != difffuzzGen {
			difffuzzLast[id] = difffuzzGen
			difffuzzCall = append(difffuzzCall, id)
		}
		return
	}
	if difffuzzSeen[id].Swap(true) {
		return
	}
	difffuzzAppend(difffuzzos.Getenv(%[6]q), difffuzzstrconv.Itoa(id)+"\n")
}

func difffuzzAppend(file, line string) {
	difffuzzMu.Lock()
	defer difffuzzMu.Unlock()
	f, err := difffuzzos.OpenFile(file, difffuzzos.O_APPEND|difffuzzos.O_CREATE|difffuzzos.O_WRONLY, 0o644)
	if err != nil {
		panic("difffuzz mutate: cannot record a mutant: " + err.Error())
	}
	f.WriteString(line)
	f.Close()
}

func difffuzzRecord(id int, kind string, rec map[string]any) {
	m := map[string]any{"id": id, "kind": kind}
	for k, v := range rec {
		m[k] = v
	}
	b, _ := difffuzzjson.Marshal(m)
	difffuzzAppend(difffuzzRecheck, string(b)+"\n")
}

type difffuzzTracer struct{}

func (difffuzzTracer) Begin() {
	difffuzzGen++
	difffuzzCall = difffuzzCall[:0]
	difffuzzInCall = true
}

func (difffuzzTracer) End() {
	difffuzzCall = difffuzzCall[:0]
	difffuzzInCall = false
}

func (difffuzzTracer) Diverged() []int { return difffuzzCall }

func (difffuzzTracer) Rerun(id int) {
	difffuzzTracing, %[2]s = false, id
	difffuzzRerunID.Store(int64(id))
	difffuzzRerunSeq.Add(1) // odd: under way
}

func (difffuzzTracer) Done() {
	difffuzzRerunSeq.Add(1)
	difffuzzTracing, %[2]s = true, 0
}

func (difffuzzTracer) Differs(id int, rec map[string]any) {
	if !difffuzzSeen[id].Swap(true) {
		difffuzzRecord(id, "differs", rec)
	}
}

func (difffuzzTracer) Hang(rec *func() map[string]any) { difffuzzOf.Store(rec) }

func init() {
	if !difffuzzTracing || difffuzzOnce {
		return
	}
	difffuzzhook.Active = difffuzzTracer{}
	go func() {
		// a re-run still under way 20 ticks (10 s) after it was first seen hangs
		var last uint64
		ticks := 0
		for {
			difffuzztime.Sleep(500 * difffuzztime.Millisecond)
			switch seq := difffuzzRerunSeq.Load(); {
			case seq%%2 == 0 || seq != last:
				last, ticks = seq, 0
			case ticks < 20:
				ticks++
			default:
				id := difffuzzRerunID.Load() // stored before the re-run began
				var rec map[string]any
				if of := difffuzzOf.Load(); of != nil {
					rec = (*of)()
				}
				if difffuzzRerunSeq.Load() != seq {
					last, ticks = 0, 0 // it ended while its record was made
					continue
				}
				difffuzzRecord(int(id), "hang", rec)
				difffuzzos.Exit(3)
			}
		}
	}()
}
`, pkg, SchemaVar, SchemaEnv, TraceEnv, maxID+1, DivergedEnv, RecheckEnv)
}

// TypeInfo is the type-checked package of one Go file, for NewSchema: the type of every
// expression, which each mutant's closure returns.
type TypeInfo struct {
	Pkg  *types.Package
	Info *types.Info
	File *ast.File
	Fset *token.FileSet
}

// CheckFileBuild type-checks the package in the directory of file (its Go files for linux,
// goarch and the build tags, comma-separated; imports from source) and returns the
// information on file.
func CheckFileBuild(file, goarch, tags string) (*TypeInfo, error) {
	abs, err := filepath.Abs(file)
	if err != nil {
		return nil, err
	}
	dir := filepath.Dir(abs)
	ctxt := build.Default
	ctxt.GOOS, ctxt.GOARCH = "linux", goarch
	if tags != "" {
		ctxt.BuildTags = strings.Split(tags, ",")
	}
	bp, err := ctxt.ImportDir(dir, 0)
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	var files []*ast.File
	var target *ast.File
	for _, name := range bp.GoFiles {
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
		if name == filepath.Base(abs) {
			target = f
		}
	}
	if target == nil {
		return nil, fmt.Errorf("%s: not one of the package's Go files for linux/%s", file, goarch)
	}
	info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}}
	conf := types.Config{Importer: importer.ForCompiler(fset, "source", nil)}
	pkg, err := conf.Check(bp.ImportPath, fset, files, info)
	if err != nil {
		return nil, fmt.Errorf("type-checking %s: %v", dir, err)
	}
	return &TypeInfo{Pkg: pkg, Info: info, File: target, Fset: fset}, nil
}

// wrap is one expression of the source that a schema replaces by a closure.
type wrap struct {
	off, end int
	typ      string
	mutants  []Mutant
	trace    bool // its type is comparable and its expression pure (pureExpr)
}

// NewSchema writes the mutants ms of file (whose source is src and whose type information
// ti was checked from the same source) into one schema. A mutant whose expression has a type
// the closure cannot name (an untyped constant in a constant context) is left out of IDs: it
// needs a build of its own.
func NewSchema(file string, src []byte, ti *TypeInfo, ms []Mutant) *Schema {
	nodes := exprNodes(ti)
	qual := func(p *types.Package) string {
		if p == ti.Pkg {
			return ""
		}
		return p.Name()
	}
	pure := pureFuncs(ti)
	wraps := map[[2]int]*wrap{}
	s := &Schema{File: file, spans: map[int][][2]int{}, Traced: map[int]bool{}}
	for _, m := range ms {
		best := wrapperOf(nodes, m, ti, pure)
		if best < 0 {
			continue
		}
		n := nodes[best]
		t := n.tv.Type
		if b, ok := t.(*types.Basic); ok && b.Info()&types.IsUntyped != 0 {
			if b.Kind() != types.UntypedBool {
				continue // an untyped constant: its closure could not be typed as the context types it
			}
			t = types.Typ[types.Bool]
		}
		k := [2]int{n.off, n.end}
		w := wraps[k]
		if w == nil {
			w = &wrap{off: n.off, end: n.end, typ: types.TypeString(t, qual),
				trace: types.Comparable(t) && pureExpr(n.expr, ti, pure)}
			wraps[k] = w
		}
		w.mutants = append(w.mutants, m)
		s.IDs = append(s.IDs, m.ID)
		if w.trace && pureMutant(src, m, w, pure) {
			s.Traced[m.ID] = true
		}
	}
	list := make([]*wrap, 0, len(wraps))
	for _, w := range wraps {
		list = append(list, w)
	}
	// outer before inner: by start, then the longer first
	slices.SortFunc(list, func(a, b *wrap) int { return cmp.Or(a.off-b.off, b.end-a.end) })
	r := &schemaWriter{src: src, s: s}
	r.render(0, len(src), list)
	s.Src = r.out
	slices.Sort(s.IDs)
	return s
}

// exprNode is one expression of a file: its byte range, and its type (and value, if constant).
type exprNode struct {
	off, end int
	expr     ast.Expr
	tv       types.TypeAndValue
}

// exprNodes are every value expression of ti's file, to find each mutant's wrapper.
func exprNodes(ti *TypeInfo) []exprNode {
	var nodes []exprNode
	off := func(p token.Pos) int { return ti.Fset.Position(p).Offset }
	ast.Inspect(ti.File, func(n ast.Node) bool {
		e, ok := n.(ast.Expr)
		if !ok {
			return true
		}
		if tv, ok := ti.Info.Types[e]; ok && tv.IsValue() {
			nodes = append(nodes, exprNode{off(e.Pos()), off(e.End()), e, tv})
		}
		return true
	})
	return nodes
}

// wrapperOf is the index in nodes of m's wrapper, -1 if none: the expression its edit replaces,
// widened to the largest constant expression around it so that constant arithmetic stays
// constant (and its overflow a build error), and a constant's pure comparison around it.
func wrapperOf(nodes []exprNode, m Mutant, ti *TypeInfo, pure map[string]bool) int {
	size := func(i int) int { return nodes[i].end - nodes[i].off }
	// the smallest expression that contains the edit (without the text the original and
	// the mutated version share at either end): the binary or unary expression of an
	// operator, the literal of a constant
	moff, mend, _ := m.narrow()
	best := -1
	for i, n := range nodes {
		if n.off <= moff && mend <= n.end && (best < 0 || n.end-n.off < size(best)) {
			best = i
		}
	}
	if best < 0 || nodes[best].tv.Value == nil {
		return best
	}
	// widen to the largest enclosing constant expression
	for i, n := range nodes {
		if n.tv.Value != nil && n.off <= nodes[best].off && nodes[best].end <= n.end && n.end-n.off > size(best) {
			best = i
		}
	}
	// a constant is traced through the comparison around it: the constant itself differs
	// on every evaluation, the comparison only where the change matters
	cmpAt := -1
	for i, n := range nodes {
		b, ok := n.expr.(*ast.BinaryExpr)
		if ok && n.tv.Value == nil && n.off <= nodes[best].off && nodes[best].end <= n.end && (cmpAt < 0 || n.end-n.off < size(cmpAt)) &&
			slices.Contains([]token.Token{token.EQL, token.NEQ, token.LSS, token.LEQ, token.GTR, token.GEQ}, b.Op) {
			cmpAt = i
		}
	}
	if cmpAt >= 0 && pureExpr(nodes[cmpAt].expr, ti, pure) {
		best = cmpAt
	}
	return best
}

// schemaWriter writes a schema's source: src with each wrapper replaced by its closure.
type schemaWriter struct {
	src []byte
	s   *Schema
	out []byte
}

// render appends src[from:to] with each wrapper of ws inside it replaced by its closure,
// and returns the wrappers after to.
func (r *schemaWriter) render(from, to int, ws []*wrap) []*wrap {
	for len(ws) > 0 && ws[0].off < to {
		w := ws[0]
		r.out = append(r.out, r.src[from:w.off]...)
		fmt.Fprintf((*appender)(&r.out), "func() %s { switch %s {", w.typ, SchemaVar)
		for _, m := range w.mutants {
			fmt.Fprintf((*appender)(&r.out), " case %d: return ", m.ID)
			r.mutated(w.mutatedText(r.src, m), m.ID)
			r.out = append(r.out, ';')
		}
		var traced []Mutant
		for _, m := range w.mutants {
			if r.s.Traced[m.ID] {
				traced = append(traced, m)
			}
		}
		if len(traced) == 0 {
			r.out = append(r.out, " }; return "...)
			ws = r.render(w.off, w.end, ws[1:])
			r.out = append(r.out, " }()"...)
		} else {
			fmt.Fprintf((*appender)(&r.out), " }; var difffuzzV %s = ", w.typ)
			ws = r.render(w.off, w.end, ws[1:])
			r.out = append(r.out, "; if difffuzzTracing {"...)
			for _, m := range traced {
				r.traceCheck(w, m)
			}
			r.out = append(r.out, " }; return difffuzzV }()"...)
		}
		from = w.end
	}
	r.out = append(r.out, r.src[from:to]...)
	return ws
}

// mutated appends a mutant's text and records where it stands.
func (r *schemaWriter) mutated(text string, id int) {
	from := len(r.out)
	r.out = append(r.out, text...)
	r.s.spans[id] = append(r.s.spans[id], [2]int{from, len(r.out)})
}

// traceCheck appends the traced run's test of m: its expression evaluated beside the original
// and compared with it (inside a recover where it could panic).
func (r *schemaWriter) traceCheck(w *wrap, m Mutant) {
	// the mutated expression in parentheses: "a && b != v" would compare b alone
	text := w.mutatedText(r.src, m)
	safe := cannotPanic(text)
	if safe {
		fmt.Fprintf((*appender)(&r.out), " if difffuzzTraced[%d] && !difffuzzSeen[%[1]d].Load() && (", m.ID)
	} else {
		fmt.Fprintf((*appender)(&r.out), " if difffuzzTraced[%d] && !difffuzzSeen[%[1]d].Load() { func() { defer func() { if recover() != nil { difffuzzDiverged(%[1]d) } }(); if (", m.ID)
	}
	r.mutated(text, m.ID)
	if safe {
		fmt.Fprintf((*appender)(&r.out), ") != difffuzzV { difffuzzDiverged(%d) };", m.ID)
	} else {
		fmt.Fprintf((*appender)(&r.out), ") != difffuzzV { difffuzzDiverged(%d) } }() };", m.ID)
	}
}

// mutatedText is w's expression with mutant m applied (m.narrow's edit, inside w).
func (w *wrap) mutatedText(src []byte, m Mutant) string {
	off, end, mutated := m.narrow()
	return string(src[w.off:off]) + mutated + string(src[end:w.end])
}

// narrow is the byte range of the edit proper: the mutant's range without the text that the
// original and the mutated version have in common at its start and at its end.
func (m Mutant) narrow() (off, end int, mutated string) {
	a, b := m.Original, m.Mutated
	p := 0
	for p < len(a) && p < len(b) && a[p] == b[p] {
		p++
	}
	q := 0
	for q < len(a)-p && q < len(b)-p && a[len(a)-1-q] == b[len(b)-1-q] {
		q++
	}
	if p+q >= len(a) {
		return m.off, m.end, b // an insertion: the whole site, which is one token or node
	}
	return m.off + p, m.end - q, b[p : len(b)-q]
}

// pureFuncs are the functions of ti's file whose body is one return of a pure expression
// that calls nothing but builtins and conversions (isTrail, isLead): calling them twice
// changes nothing.
func pureFuncs(ti *TypeInfo) map[string]bool {
	out := map[string]bool{}
	for _, d := range ti.File.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Recv != nil || fd.Body == nil || len(fd.Body.List) != 1 {
			continue
		}
		ret, ok := fd.Body.List[0].(*ast.ReturnStmt)
		if !ok || len(ret.Results) != 1 {
			continue
		}
		if pureExpr(ret.Results[0], ti, nil) {
			out[fd.Name.Name] = true
		}
	}
	return out
}

// pureExpr says whether evaluating e has no effect beyond its value (or a panic): it calls
// only builtins without effects, conversions and the functions in pure. Without type
// information (ti nil: a mutant's text, parsed) calls are judged by the callee's name.
func pureExpr(e ast.Expr, ti *TypeInfo, pure map[string]bool) bool {
	ok := true
	ast.Inspect(e, func(n ast.Node) bool {
		// once false, false: a node's siblings are still visited after it says so
		switch x := n.(type) {
		case *ast.FuncLit, *ast.CompositeLit:
			ok = false
		case *ast.UnaryExpr:
			ok = ok && x.Op != token.ARROW && x.Op != token.AND
		case *ast.CallExpr:
			ok = ok && pureCall(x, ti, pure)
		}
		return ok
	})
	return ok
}

// pureCall says whether call x calls a builtin without effects, converts, or calls a function
// in pure.
func pureCall(x *ast.CallExpr, ti *TypeInfo, pure map[string]bool) bool {
	id, isID := ast.Unparen(x.Fun).(*ast.Ident)
	if ti == nil {
		return isID && (pure[id.Name] || slices.Contains(plainCalls, id.Name))
	}
	if tv, found := ti.Info.Types[x.Fun]; found && tv.IsType() {
		return true // a conversion
	}
	if !isID {
		return false
	}
	if tv, found := ti.Info.Types[id]; found && tv.IsBuiltin() {
		return slices.Contains([]string{"len", "cap", "min", "max"}, id.Name)
	}
	return pure[id.Name]
}

// plainCalls are the calls that, judged by name alone (untyped), are pure and cannot panic:
// len, cap, min, max and conversions to the integer types. (A package that redefined one of
// these names would fool the untyped judgement; fast and oracle do not.)
var plainCalls = []string{"len", "cap", "min", "max", "byte", "rune", "int", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64"}

// cannotPanic says whether evaluating the expression text cannot panic, judged by its
// syntax alone: it neither indexes, slices, dereferences, selects a field nor asserts a type,
// divides or shifts only by constants, and calls only len, cap, min, max and conversions to
// integer types. Its divergence is then traced without a deferred recover, which costs more
// than the comparison. (Untyped, it cannot tell a comparison of interfaces holding
// incomparable values, which panics; the mutated packages compare none.)
func cannotPanic(text string) bool {
	e, err := parser.ParseExpr(text)
	if err != nil {
		return false
	}
	ok := true
	ast.Inspect(e, func(n ast.Node) bool {
		// once false, false: a node's siblings are still visited after it says so
		switch x := n.(type) {
		case *ast.IndexExpr, *ast.IndexListExpr, *ast.SliceExpr, *ast.StarExpr, *ast.TypeAssertExpr, *ast.FuncLit, *ast.CompositeLit,
			*ast.SelectorExpr: // a field through a nil pointer
			ok = false
		case *ast.BinaryExpr:
			if _, lit := ast.Unparen(x.Y).(*ast.BasicLit); !lit && slices.Contains([]token.Token{token.QUO, token.REM, token.SHL, token.SHR}, x.Op) {
				ok = false
			}
		case *ast.UnaryExpr:
			ok = ok && x.Op != token.ARROW
		case *ast.CallExpr:
			id, isID := ast.Unparen(x.Fun).(*ast.Ident)
			ok = ok && isID && slices.Contains(plainCalls, id.Name)
		}
		return ok
	})
	return ok
}

// pureMutant says whether mutant m's version of w's expression is pure too.
func pureMutant(src []byte, m Mutant, w *wrap, pure map[string]bool) bool {
	e, err := parser.ParseExpr(w.mutatedText(src, m))
	return err == nil && pureExpr(e, nil, pure)
}

// appender lets fmt.Fprintf append to a byte slice.
type appender []byte

func (a *appender) Write(p []byte) (int, error) { *a = append(*a, p...); return len(p), nil }

// Blame returns the ids of the mutants whose closures hold the 1-based line and column of the
// schema source (where a compiler error points).
func (s *Schema) Blame(line, col int) []int {
	off, l := 0, 1
	for off < len(s.Src) && l < line {
		if s.Src[off] == '\n' {
			l++
		}
		off++
	}
	off += col - 1
	var ids []int
	for id, sps := range s.spans {
		for _, sp := range sps {
			if sp[0] <= off && off <= sp[1] {
				ids = append(ids, id)
				break
			}
		}
	}
	slices.Sort(ids)
	return ids
}

// Without returns the schema rebuilt without the mutants in drop.
func (s *Schema) Without(src []byte, ti *TypeInfo, ms []Mutant, drop map[int]bool) *Schema {
	keep := slices.DeleteFunc(slices.Clone(ms), func(m Mutant) bool { return drop[m.ID] })
	return NewSchema(s.File, src, ti, keep)
}
