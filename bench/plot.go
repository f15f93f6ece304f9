package bench

import (
	"fmt"
	"image/color"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// PlotFormats are the file name extensions Plot writes.
var PlotFormats = []string{".svg", ".png"}

// CheckPlot checks a plot's file before any timing: a .svg or .png in a directory, not
// anything but a regular file.
func CheckPlot(file string) error {
	if ext := strings.ToLower(file); !strings.HasSuffix(ext, ".svg") && !strings.HasSuffix(ext, ".png") {
		return fmt.Errorf("--plot %s: the plot is written as .svg or .png", file)
	}
	if st, err := os.Stat(filepath.Dir(file)); err != nil || !st.IsDir() {
		return fmt.Errorf("--plot %s: no directory %s", file, filepath.Dir(file))
	}
	if st, err := os.Stat(file); err == nil && !st.Mode().IsRegular() {
		return fmt.Errorf("--plot %s: not a regular file", file)
	}
	return nil
}

// Plot draws the speedup over the baseline of each candidate that is not an anchor, the
// baseline or the A/A control, on each cell (a row per cell, a log-scale axis of speedups, a
// band for the noise floor), to file, whose extension (.svg or .png) picks the format.
func Plot(rep *Report, file string) error {
	ext := strings.ToLower(filepath.Ext(file))
	if !slices.Contains(PlotFormats, ext) {
		return fmt.Errorf("%s: the plot is written as .svg or .png, not %q", file, ext)
	}
	if len(rep.Cells) == 0 {
		return fmt.Errorf("no cell was timed: nothing to plot")
	}
	p := plot.New()
	p.Title.Text = fmt.Sprintf("speedup over %s (median of %d alternating passes; band: A/A noise floor %s)", rep.Baseline, rep.Passes, pct(rep.Floor))
	p.X.Label.Text = fmt.Sprintf("× faster than %s (log scale)", rep.Baseline)
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	p.Legend.Top = true
	p.Add(plotter.NewGrid())

	n := len(rep.Cells)
	names := make([]string, n)
	lo, hi := 1.0, 1.0
	for i, c := range rep.Cells {
		names[n-1-i] = strings.ReplaceAll(c.Name, "/default", "")
	}
	// The floor as a band around 1.
	band, err := plotter.NewPolygon(plotter.XYs{{X: 1 / (1 + rep.Floor), Y: -0.5}, {X: 1 + rep.Floor, Y: -0.5},
		{X: 1 + rep.Floor, Y: float64(n) - 0.5}, {X: 1 / (1 + rep.Floor), Y: float64(n) - 0.5}})
	if err != nil {
		return err
	}
	band.Color = color.NRGBA{R: 200, G: 200, B: 200, A: 160}
	band.LineStyle.Width = 0
	p.Add(band)
	one, err := plotter.NewLine(plotter.XYs{{X: 1, Y: -0.5}, {X: 1, Y: float64(n) - 0.5}})
	if err != nil {
		return err
	}
	one.LineStyle.Dashes = []vg.Length{vg.Points(2), vg.Points(2)}
	p.Add(one)

	k := 0
	for j, name := range rep.Candidates {
		if name == rep.Baseline || name == rep.Control || slices.Contains(rep.Anchors, name) {
			continue
		}
		var pts plotter.XYs
		for i, c := range rep.Cells {
			if s := c.Measures[j].Speedup; s > 0 {
				pts = append(pts, plotter.XY{X: s, Y: float64(n - 1 - i)})
				lo, hi = min(lo, s), max(hi, s) // the axis spans what is drawn
			}
		}
		if len(pts) == 0 {
			continue
		}
		sc, err := plotter.NewScatter(pts)
		if err != nil {
			return err
		}
		sc.GlyphStyle.Color = plotutil.Color(k)
		sc.GlyphStyle.Shape = plotutil.Shape(k)
		sc.GlyphStyle.Radius = vg.Points(3)
		p.Add(sc)
		p.Legend.Add(name, sc)
		k++
	}
	p.NominalY(names...)
	p.X.Min, p.X.Max = lo/1.3, hi*1.3
	p.Y.Min, p.Y.Max = -0.5, float64(n)-0.5
	p.Y.Tick.Label.Font.Size = vg.Points(8)
	return p.Save(8*vg.Inch, vg.Length(2+0.22*float64(n))*vg.Inch, file)
}
