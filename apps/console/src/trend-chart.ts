/**
 * The trend chart of one quota (echarts 6.1.0, the library the weekly report draws with; only the line chart, the
 * grid, tooltip, legend, mark line and the SVG renderer are imported, so this chunk stays small). Loaded on demand
 * by chart.tsx: the first paint never waits for it.
 *
 * What it draws, from GET /v1/forecasts/trends alone: the Theil-Sen fit over the history window (used now minus the
 * slope back over the window), its projection to the limit at the p50 exhaustion date, and the p10-p90 band between
 * the projections reaching the limit at the p10 and p90 dates; the limit as a horizontal line.
 */
import { LineChart } from 'echarts/charts';
import { GridComponent, LegendComponent, MarkLineComponent, TooltipComponent } from 'echarts/components';
import * as echarts from 'echarts/core';
import { SVGRenderer } from 'echarts/renderers';
import type { Trend } from './types';

echarts.use([LineChart, GridComponent, TooltipComponent, LegendComponent, MarkLineComponent, SVGRenderer]);

/** `x` rounded up to a multiple of half its power of ten, a round axis end (221 -> 250, 42 -> 45). */
function roundUp(x: number): number {
  if (x <= 0) return 1;
  const step = 10 ** Math.floor(Math.log10(x)) / 2;
  return Math.ceil(x / step) * step;
}

/** Colours that read on light and dark backgrounds. */
function palette(dark: boolean) {
  return {
    text: dark ? '#d0d7de' : '#24292f',
    grid: dark ? '#30363d' : '#d0d7de',
    line: dark ? '#58a6ff' : '#0969da',
    band: dark ? 'rgba(88,166,255,0.25)' : 'rgba(9,105,218,0.18)',
    limit: dark ? '#ff7b72' : '#cf222e',
  };
}

/**
 * Draw `trend` into `el` (replacing what was there).
 * @param windowDays the history window the fit covers (the API's default, 14)
 * @returns a function that disposes of the chart
 */
export function drawTrend(el: HTMLElement, trend: Trend, now: number, windowDays = 14): () => void {
  const dark = window.matchMedia('(prefers-color-scheme: dark)').matches;
  const c = palette(dark);
  const chart = echarts.init(el, undefined, { renderer: 'svg' });
  const slope = trend.slopePerDay ?? 0;
  const start = now - windowDays * 86_400_000;
  const fit: [number, number][] = [
    [start, Math.max(0, trend.used - slope * windowDays)],
    [now, trend.used],
  ];
  const t = (iso: string | null) => (iso ? new Date(iso).getTime() : null);
  const p10 = t(trend.exhaustsAt.p10);
  const p50 = t(trend.exhaustsAt.p50);
  const p90 = t(trend.exhaustsAt.p90);
  const end = p90 ?? p50 ?? now + 14 * 86_400_000;
  const projection: [number, number][] = p50
    ? [
        [now, trend.used],
        [p50, trend.limit],
      ]
    : [
        [now, trend.used],
        [end, trend.used + slope * ((end - now) / 86_400_000)],
      ];
  // The band: the fast projection (reaching the limit at p10) above, the slow one (at p90) below, as a stacked area.
  const at = (x: number, reach: number | null) =>
    reach && reach > now ? trend.used + ((trend.limit - trend.used) * (x - now)) / (reach - now) : trend.used;
  const xs = [now, p10 ?? now, p50 ?? now, end].filter((x, i, a) => a.indexOf(x) === i).sort((a, b) => a - b);
  const lower = xs.map((x) => [x, Math.min(trend.limit, at(x, p90))] as [number, number]);
  const upper = xs.map((x, i) => [x, Math.min(trend.limit, at(x, p10)) - lower[i]![1]] as [number, number]);
  chart.setOption({
    animation: false,
    textStyle: { color: c.text },
    grid: { left: 56, right: 24, top: 40, bottom: 40 },
    legend: { top: 0, textStyle: { color: c.text }, data: ['fit', 'projection (p50)', 'p10–p90'] },
    tooltip: { trigger: 'axis' },
    xAxis: {
      type: 'time',
      axisLine: { lineStyle: { color: c.grid } },
      axisLabel: { color: c.text, hideOverlap: true },
    },
    yAxis: {
      type: 'value',
      min: 0,
      max: (v: { max: number }) => roundUp(Math.max(v.max, trend.limit) * 1.05),
      axisLabel: { color: c.text },
      splitLine: { lineStyle: { color: c.grid } },
    },
    series: [
      {
        name: 'fit',
        type: 'line',
        data: fit,
        showSymbol: false,
        lineStyle: { color: c.line, width: 2 },
        itemStyle: { color: c.line },
      },
      {
        name: 'projection (p50)',
        type: 'line',
        data: projection,
        showSymbol: false,
        lineStyle: { color: c.line, type: 'dashed', width: 2 },
        itemStyle: { color: c.line },
        markLine: {
          symbol: 'none',
          silent: true,
          label: { formatter: `limit ${trend.limit}`, color: c.limit, position: 'insideEndTop' },
          lineStyle: { color: c.limit },
          data: [{ yAxis: trend.limit }],
        },
      },
      {
        name: 'p10–p90 lower',
        type: 'line',
        stack: 'band',
        data: lower,
        showSymbol: false,
        lineStyle: { opacity: 0 },
        areaStyle: { opacity: 0 },
        tooltip: { show: false },
      },
      {
        name: 'p10–p90',
        type: 'line',
        stack: 'band',
        data: upper,
        showSymbol: false,
        lineStyle: { opacity: 0 },
        areaStyle: { color: c.band },
        itemStyle: { color: c.band },
      },
    ],
  });
  const onResize = () => chart.resize();
  window.addEventListener('resize', onResize);
  return () => {
    window.removeEventListener('resize', onResize);
    chart.dispose();
  };
}
