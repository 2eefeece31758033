// The two plots above the list, drawn as inline SVG from the operator API's stats: the deposits
// created over the range, stacked by the status they are in now, and how long the done deposits
// took at each step (median and 90th percentile, on a log scale: a step takes a tenth of a second,
// a cool-down a day).
import { duration, h, svg } from './dom.js';

export const buckets = ['initialized', 'user_input_required', 'outcome_unknown', 'failed', 'done'];

const width = 720;
const height = 180;
const margin = { left: 44, right: 8, top: 10, bottom: 26 };

/** A time as the plot's axis shows it: the hour within a day's range, else the day too (UTC). */
function tick(iso, spanMs) {
  const text = new Date(iso).toISOString();
  return spanMs <= 86_400_000 ? `${text.slice(11, 16)} UTC` : `${text.slice(5, 10)} ${text.slice(11, 16)}`;
}

/** Seconds as the plots read them: tenths while short, else `1h 02m 03s`. */
export function took(seconds) {
  return seconds < 10 ? `${seconds.toFixed(1)}s` : duration(seconds);
}

function legend(counts) {
  return h(
    'ul',
    { class: 'legend' },
    buckets.map((bucket) =>
      h(
        'li',
        {},
        h('span', { class: `swatch bucket-${bucket}` }),
        ` ${bucket}`,
        counts ? ` ${counts[bucket]?.count ?? 0}${counts[bucket]?.capped ? '+' : ''}` : '',
      ),
    ),
  );
}

/** Deposits created in each bin of the range, stacked by their status now. */
export function overTimePlot(overTime, counts) {
  const bins = overTime.bins ?? [];
  const totals = bins.map((bin) => buckets.reduce((sum, bucket) => sum + (bin[bucket] ?? 0), 0));
  const top = Math.max(1, ...totals);
  const plotWidth = width - margin.left - margin.right;
  const plotHeight = height - margin.top - margin.bottom;
  const barWidth = plotWidth / Math.max(1, bins.length);
  const spanMs = Date.parse(overTime.to) - Date.parse(overTime.from);
  const bars = bins.flatMap((bin, index) => {
    let y = margin.top + plotHeight;
    return buckets.flatMap((bucket) => {
      const count = bin[bucket] ?? 0;
      if (count === 0) return [];
      const barHeight = (count / top) * plotHeight;
      y -= barHeight;
      return [
        svg(
          'rect',
          {
            class: `bar bucket-${bucket}`,
            x: (margin.left + index * barWidth + 1).toFixed(1),
            y: y.toFixed(1),
            width: Math.max(1, barWidth - 2).toFixed(1),
            height: barHeight.toFixed(1),
            dataset: { bucket, count },
          },
          svg('title', {}, `${tick(bin.from, spanMs)}: ${count} ${bucket}`),
        ),
      ];
    });
  });
  const total = totals.reduce((sum, count) => sum + count, 0);
  return h(
    'figure',
    { class: 'plot' },
    h('figcaption', {}, 'Deposits by status over time (created in each bin, by their status now)'),
    svg(
      'svg',
      {
        viewBox: `0 0 ${width} ${height}`,
        role: 'img',
        'aria-label': `${total} deposits created from ${overTime.from} to ${overTime.to}`,
        testid: 'plot-over-time',
        dataset: { total },
      },
      svg('line', {
        class: 'axis',
        x1: margin.left,
        y1: margin.top,
        x2: margin.left,
        y2: height - margin.bottom,
      }),
      svg('line', {
        class: 'axis',
        x1: margin.left,
        y1: height - margin.bottom,
        x2: width - margin.right,
        y2: height - margin.bottom,
      }),
      svg('text', { class: 'tick', x: margin.left - 6, y: margin.top + 10, 'text-anchor': 'end' }, top),
      svg('text', { class: 'tick', x: margin.left - 6, y: height - margin.bottom, 'text-anchor': 'end' }, 0),
      svg('text', { class: 'tick', x: margin.left, y: height - 8 }, tick(overTime.from, spanMs)),
      svg(
        'text',
        { class: 'tick', x: width - margin.right, y: height - 8, 'text-anchor': 'end' },
        tick(overTime.to, spanMs),
      ),
      bars,
    ),
    legend(counts),
  );
}

/** How long the done deposits took, in all and at each step: median and 90th percentile. */
export function timeToDonePlot(timeToDone) {
  const rows = [
    ...(timeToDone.total ? [{ step: 'in all', deposits: timeToDone.deposits, ...timeToDone.total }] : []),
    ...(timeToDone.steps ?? []),
  ];
  const caption = h(
    'figcaption',
    {},
    `Time to done by step (the newest ${timeToDone.deposits ?? 0} done deposits: median, and 90th percentile lighter; log scale)`,
  );
  if (rows.length === 0)
    return h(
      'figure',
      { class: 'plot' },
      caption,
      h('p', { class: 'muted', testid: 'time-to-done-empty' }, 'No done deposit in this range yet.'),
    );
  const rowHeight = 22;
  const label = 140;
  const valueWidth = 190;
  const barSpace = width - label - valueWidth;
  const longest = Math.max(...rows.map((row) => row.p90Seconds));
  const scale = (seconds) => (Math.log10(1 + seconds) / Math.log10(1 + Math.max(1, longest))) * barSpace;
  return h(
    'figure',
    { class: 'plot' },
    caption,
    svg(
      'svg',
      {
        viewBox: `0 0 ${width} ${rows.length * rowHeight + 4}`,
        role: 'img',
        'aria-label': 'Time to done by step',
        testid: 'plot-time-to-done',
      },
      rows.map((row, index) => {
        const y = index * rowHeight + 2;
        return svg(
          'g',
          { class: 'step-row', dataset: { step: row.step } },
          svg('text', { class: 'tick', x: label - 6, y: y + 14, 'text-anchor': 'end' }, row.step),
          svg('rect', {
            class: 'bar p90',
            x: label,
            y: y + 3,
            width: Math.max(1, scale(row.p90Seconds)).toFixed(1),
            height: 14,
          }),
          svg('rect', {
            class: 'bar median',
            x: label,
            y: y + 3,
            width: Math.max(1, scale(row.medianSeconds)).toFixed(1),
            height: 14,
          }),
          svg(
            'text',
            { class: 'tick', x: label + barSpace + 6, y: y + 14 },
            `${took(row.medianSeconds)} · p90 ${took(row.p90Seconds)} (${row.deposits})`,
          ),
        );
      }),
    ),
  );
}
