import { type HTMLValue, html, type SafeHTML } from "./html.js";

// Charts as plain inline SVG: no script, no library, no request. Colours
// come from the stylesheet (`series-1`..`series-4`), so the CSP needs no
// inline style.

/** One line (or the bars) of a chart: a value per point in time, null where there is none. */
export interface ChartSeries {
  readonly label: string;
  readonly values: readonly (number | null)[];
}

const WIDTH = 640;
const HEIGHT = 170;
const LEFT = 46;
const RIGHT = 8;
const TOP = 8;
const BOTTOM = 20;

/** A round number at or above `value` (1, 2, 2.5, 5 times a power of ten), so the axis reads well. */
export function niceCeiling(value: number): number {
  if (!(value > 0) || !Number.isFinite(value)) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 2.5, 5, 10]) if (step * power >= value) return step * power;
  return 10 * power;
}

/** A figure for an axis or a card: `0.42`, `12`, `1,250`, `3.4k`, `2.1M`. */
export function formatFigure(value: number): string {
  const size = Math.abs(value);
  if (size >= 1e6) return `${(value / 1e6).toFixed(size >= 1e7 ? 0 : 1)}M`;
  if (size >= 1e4) return `${(value / 1e3).toFixed(size >= 1e5 ? 0 : 1)}k`;
  if (size >= 100 || Number.isInteger(value)) return Math.round(value).toLocaleString("en-US");
  if (size >= 10) return value.toFixed(1);
  return value.toFixed(2).replace(/\.?0+$/, "") || "0";
}

function clock(ms: number): string {
  return new Date(ms).toISOString().slice(11, 16);
}

/** The colour-keyed names of a chart's series. */
export function legend(series: readonly ChartSeries[]): SafeHTML {
  return html`<div class="legend">${series.map(
    (item, index) => html`<span><i class="s${index + 1}"></i>${item.label}</span>`,
  )}</div>`;
}

/**
 * A chart over `times` (unix ms, one per value, oldest first): lines, or
 * bars for the first series with `bars`. The y axis starts at 0 and ends
 * at a round number above the largest value; the x axis shows the first
 * and last time (UTC). A series' null values leave gaps.
 */
export function chart(input: {
  /** What the chart shows, for screen readers. */
  readonly title: string;
  readonly times: readonly number[];
  readonly series: readonly ChartSeries[];
  /** Appended to the y axis' top figure: `ms`, `/min`, ... */
  readonly unit?: string;
  readonly bars?: boolean;
}): SafeHTML {
  const { times, series, unit = "" } = input;
  const values = series.flatMap((item) => item.values.filter((v): v is number => v !== null));
  const top = niceCeiling(Math.max(0, ...values));
  const plotWidth = WIDTH - LEFT - RIGHT;
  const plotHeight = HEIGHT - TOP - BOTTOM;
  const count = Math.max(1, times.length);
  const step = plotWidth / count;
  const x = (index: number): number => LEFT + step * index + step / 2;
  const y = (value: number): number => TOP + plotHeight - (value / top) * plotHeight;
  const round = (value: number): string => value.toFixed(1);
  const grid = [0, 0.5, 1].map(
    (fraction) =>
      html`<line class="grid" x1="${LEFT}" x2="${WIDTH - RIGHT}" y1="${round(y(top * fraction))}" y2="${round(y(top * fraction))}"/><text class="axis" x="${LEFT - 6}" y="${round(y(top * fraction) + 3)}" text-anchor="end">${formatFigure(top * fraction)}${fraction === 1 ? unit : ""}</text>`,
  );
  const xLabels =
    times.length === 0
      ? undefined
      : html`<text class="axis" x="${LEFT}" y="${HEIGHT - 5}">${clock(times[0] ?? 0)}</text><text class="axis" x="${WIDTH - RIGHT}" y="${HEIGHT - 5}" text-anchor="end">${clock(times.at(-1) ?? 0)} UTC</text>`;
  const drawn: HTMLValue[] = series.map((item, seriesIndex) => {
    const css = seriesIndex + 1;
    if (input.bars === true && seriesIndex === 0) {
      const width = Math.max(1, step * 0.72);
      return item.values.map((value, index) =>
        value === null || value <= 0
          ? undefined
          : html`<rect class="fill-${css}" x="${round(x(index) - width / 2)}" y="${round(y(value))}" width="${round(width)}" height="${round(TOP + plotHeight - y(value))}"><title>${clock(times[index] ?? 0)}: ${formatFigure(value)}${unit}</title></rect>`,
      );
    }
    // A line per run of values; a lone value is a dot.
    const runs: [number, number][][] = [];
    let run: [number, number][] = [];
    item.values.forEach((value, index) => {
      if (value === null) {
        if (run.length > 0) runs.push(run);
        run = [];
        return;
      }
      run.push([x(index), y(value)]);
    });
    if (run.length > 0) runs.push(run);
    return runs.map((points) =>
      points.length === 1
        ? html`<circle class="fill-${css}" cx="${round(points[0]?.[0] ?? 0)}" cy="${round(points[0]?.[1] ?? 0)}" r="2"/>`
        : html`<polyline class="series-${css}" points="${points.map(([px, py]) => `${round(px)},${round(py)}`).join(" ")}"/>`,
    );
  });
  const empty =
    values.length === 0 &&
    html`<text class="empty" x="${LEFT + plotWidth / 2}" y="${TOP + plotHeight / 2}" text-anchor="middle">No data yet</text>`;
  return html`<svg class="chart" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-label="${input.title}"><title>${input.title}</title>${grid}${xLabels}${drawn}${empty}</svg>`;
}
