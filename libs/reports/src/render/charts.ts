/**
 * Server-side SVG charts of the HTML report, rendered with Apache ECharts' SSR mode (no DOM, no browser,
 * no network at view time): `echarts.init(null, null, {renderer: 'svg', ssr: true, width, height})`, then
 * `renderToSVGString()` and `dispose()` (ECharts handbook "Server Side Rendering"). Animation is off so
 * the SVG is the final state, and the output is deterministic for the same data.
 */
import * as echarts from 'echarts';
import type { ReportDocument } from '../report.model';

/** Colours per severity (print-safe, colour-blind distinguishable by lightness). */
export const SEVERITY_COLOURS = { critical: '#b3261e', warning: '#d68a00', info: '#5f7d95' } as const;

/**
 * ECharts names CSS classes and clip paths after a per-process instance counter (`zr3-cls-7`), so two
 * renders of the same data differ. Rename every such token, in order of first appearance, to
 * `<prefix>-<n>`: deterministic, and distinct between the charts of one page (the SVG <style> blocks of
 * inline SVGs share the page's scope).
 */
export function stableSvgIds(svg: string, prefix: string): string {
  const names = new Map<string, string>();
  return svg.replace(/zr\d+-[A-Za-z0-9_-]+/g, (token) => {
    let name = names.get(token);
    if (name === undefined) {
      name = `${prefix}-${names.size}`;
      names.set(token, name);
    }
    return name;
  });
}

function render(prefix: string, option: echarts.EChartsCoreOption, width: number, height: number): string {
  const chart = echarts.init(null, null, { renderer: 'svg', ssr: true, width, height });
  try {
    chart.setOption({ animation: false, textStyle: { fontFamily: 'sans-serif' }, ...option });
    return stableSvgIds(chart.renderToSVGString(), prefix);
  } finally {
    chart.dispose();
  }
}

/** 12-week trend: findings per severity per week (stacked area); weeks without a scan are gaps. */
export function trendChart(doc: ReportDocument): string {
  const weeks = doc.trend.map((t) => t.weekEnding.slice(0, 10));
  const series = (['critical', 'warning', 'info'] as const).map((s) => ({
    name: s,
    type: 'line',
    stack: 'findings',
    areaStyle: { opacity: 0.35 },
    symbolSize: 4,
    connectNulls: false,
    color: SEVERITY_COLOURS[s],
    data: doc.trend.map((t) => (t.bySeverity ? t.bySeverity[s] : null)),
  }));
  return render(
    'trend',
    {
      // Stacked areas: a band's height is its severity's count, the top edge the week's total; the title says so,
      // else a reader takes the warning line for the warning count.
      title: { text: 'Findings per week (12 weeks), stacked by severity: the top edge is the total', left: 'left', textStyle: { fontSize: 14 } },
      legend: { top: 24, right: 10 },
      grid: { left: 50, right: 20, top: 56, bottom: 30 },
      xAxis: { type: 'category', data: weeks, boundaryGap: false },
      yAxis: { type: 'value', minInterval: 1 },
      series,
    },
    760,
    260,
  );
}

/** Open and waived findings per check (top 15 by open findings), horizontal bars. */
export function checksChart(doc: ReportDocument): string {
  const rows = doc.summary.byCheck.slice(0, 15).reverse();
  return render(
    'checks',
    {
      title: { text: 'Open and waived findings per check', left: 'left', textStyle: { fontSize: 14 } },
      legend: { top: 4, right: 10 },
      grid: { left: 260, right: 30, top: 40, bottom: 20 },
      xAxis: { type: 'value', minInterval: 1 },
      yAxis: { type: 'category', data: rows.map((r) => r.checkId), axisLabel: { fontSize: 10 } },
      series: [
        { name: 'open', type: 'bar', stack: 'n', color: '#b3261e', data: rows.map((r) => r.open) },
        { name: 'waived', type: 'bar', stack: 'n', color: '#9aa5b1', data: rows.map((r) => r.waived) },
      ],
    },
    760,
    Math.max(140, 60 + rows.length * 22),
  );
}

/** Week-over-week changes: new, resolved, persisting, severity changed, waived. */
export function changesChart(doc: ReportDocument): string {
  const c = doc.summary.changes;
  const labels = ['new', 'resolved', 'persisting', 'severity changed', 'waived'];
  const values = [c.new, c.resolved, c.persisting, c.severityChanged, c.waived];
  const colours = ['#b3261e', '#2e7d32', '#d68a00', '#6a1b9a', '#9aa5b1'];
  return render(
    'changes',
    {
      title: { text: 'Changes since the previous week', left: 'left', textStyle: { fontSize: 14 } },
      grid: { left: 50, right: 20, top: 40, bottom: 30 },
      xAxis: { type: 'category', data: labels },
      yAxis: { type: 'value', minInterval: 1 },
      series: [{ type: 'bar', data: values.map((v, i) => ({ value: v, itemStyle: { color: colours[i] } })), label: { show: true, position: 'top' } }],
    },
    760,
    240,
  );
}
