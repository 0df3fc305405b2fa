/** A trend chart that loads the charts chunk (echarts) when it is first shown, with a text summary for screen readers. */
import { useEffect, useRef, useState } from 'preact/hooks';
import { day } from './format';
import type { Trend } from './types';

export function TrendChart({ trend, title }: { trend: Trend; title: string }) {
  const ref = useRef<HTMLDivElement>(null);
  const [failed, setFailed] = useState<string | undefined>();
  useEffect(() => {
    let dispose: (() => void) | undefined;
    let gone = false;
    import('./trend-chart').then(
      (m) => {
        if (!gone && ref.current) dispose = m.drawTrend(ref.current, trend, Date.now());
      },
      (e: unknown) => setFailed(String(e)),
    );
    return () => {
      gone = true;
      dispose?.();
    };
  }, [trend]);
  const { p10, p50, p90 } = trend.exhaustsAt;
  const summary =
    trend.status === 'exhausted'
      ? `${title}: exhausted (${trend.used} of ${trend.limit}).`
      : p50
        ? `${title}: ${trend.used} of ${trend.limit}, growing ${trend.slopePerDay ?? 0} a day; reaches the limit around ${day(p50)} (between ${day(p10)} and ${day(p90)}).`
        : `${title}: ${trend.used} of ${trend.limit}, ${trend.status.replace('_', ' ')}.`;
  return (
    <figure class="chart-figure">
      <div class="chart" ref={ref} role="img" aria-label={summary} data-testid="trend-chart" />
      <figcaption>{failed ? `The chart could not load: ${failed}` : summary}</figcaption>
    </figure>
  );
}
