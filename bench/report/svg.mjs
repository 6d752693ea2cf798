/**
 * A small hand-written SVG line chart on log-log axes: enough for "time vs
 * N" with a few series, no dependencies, deterministic output.
 */

const WIDTH = 760;
const PLOT_HEIGHT = 352;
const LEGEND_ROW = 20;
const MARGIN = { top: 48, right: 24, left: 84 };
const PLOT = { width: WIDTH - MARGIN.left - MARGIN.right, height: PLOT_HEIGHT };

function escapeXml(text) {
  return String(text).replace(/[<>&"]/g, (char) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;' })[char]);
}

/** Whole decades enclosing every value. */
function decadeRange(values) {
  return { min: Math.floor(Math.log10(Math.min(...values))), max: Math.ceil(Math.log10(Math.max(...values))) };
}

/** Maps a value onto a pixel coordinate along one log10 axis. */
function logScale({ min, max }, from, to) {
  return (value) => from + ((Math.log10(value) - min) / (max - min)) * (to - from);
}

/** 1, 10, 100 ... as 1, 10, 100, 1k, 10k, 100k (with a unit suffix). */
function decadeLabel(exponent, unit = '') {
  const value = 10 ** exponent;
  if (unit === 'ms' && value >= 1000) return `${value / 1000} s`;
  if (unit === 'ms') return `${value} ms`;
  return value >= 1000 ? `${value / 1000}k` : String(value);
}

function gridAndTicks(xRange, yRange, x, y) {
  const parts = [];
  const bottom = MARGIN.top + PLOT.height;
  for (let exponent = xRange.min; exponent <= xRange.max; exponent += 1) {
    for (const step of [1, 2, 5]) {
      const value = step * 10 ** exponent;
      if (Math.log10(value) > xRange.max) break;
      const px = x(value).toFixed(1);
      const major = step === 1;
      parts.push(`<line x1="${px}" y1="${MARGIN.top}" x2="${px}" y2="${bottom}" class="${major ? 'grid' : 'minor'}"/>`);
      if (major) parts.push(`<text x="${px}" y="${bottom + 18}" text-anchor="middle">${decadeLabel(exponent)}</text>`);
    }
  }
  for (let exponent = yRange.min; exponent <= yRange.max; exponent += 1) {
    const py = y(10 ** exponent).toFixed(1);
    parts.push(`<line x1="${MARGIN.left}" y1="${py}" x2="${MARGIN.left + PLOT.width}" y2="${py}" class="grid"/>`);
    parts.push(`<text x="${MARGIN.left - 8}" y="${py}" text-anchor="end" dominant-baseline="middle">${decadeLabel(exponent, 'ms')}</text>`);
  }
  return parts.join('\n  ');
}

function marker(shape, px, py, color) {
  if (shape === 'square') return `<rect x="${(px - 4).toFixed(1)}" y="${(py - 4).toFixed(1)}" width="8" height="8" fill="${color}"/>`;
  if (shape === 'none') return '';
  return `<circle cx="${px.toFixed(1)}" cy="${py.toFixed(1)}" r="4.5" fill="${color}"/>`;
}

function seriesPath(series, x, y) {
  const points = series.points.map(([n, ms]) => [x(n), y(ms)]);
  const d = points.map(([px, py], index) => `${index === 0 ? 'M' : 'L'}${px.toFixed(1)},${py.toFixed(1)}`).join(' ');
  const dash = series.dashed ? ' stroke-dasharray="6 4"' : '';
  const markers = points.map(([px, py]) => marker(series.marker, px, py, series.color)).join('');
  return `<path d="${d}" fill="none" stroke="${series.color}" stroke-width="2"${dash}/>${markers}`;
}

/** Legend below the axis label, one series per row, so it never hides a data point. */
function legend(seriesList, top) {
  return seriesList
    .map((series, index) => {
      const y = top + index * LEGEND_ROW;
      const left = MARGIN.left;
      const dash = series.dashed ? ' stroke-dasharray="6 4"' : '';
      return (
        `<line x1="${left}" y1="${y}" x2="${left + 28}" y2="${y}" stroke="${series.color}" stroke-width="2"${dash}/>` +
        marker(series.marker, left + 14, y, series.color) +
        `<text x="${left + 36}" y="${y}" dominant-baseline="middle">${escapeXml(series.label)}</text>`
      );
    })
    .join('\n  ');
}

/**
 * Render a log-log line chart.
 * @param {{ title: string, xLabel: string, yLabel: string, note?: string,
 *   series: { label: string, color: string, marker: 'circle'|'square'|'none',
 *   dashed?: boolean, points: [number, number][] }[] }} chart
 * @returns {string} a standalone SVG document
 */
export function logLogChart(chart) {
  const all = chart.series.flatMap((series) => series.points);
  const xRange = decadeRange(all.map(([n]) => n));
  const yRange = decadeRange(all.map(([, ms]) => ms));
  const x = logScale(xRange, MARGIN.left, MARGIN.left + PLOT.width);
  const y = logScale(yRange, MARGIN.top + PLOT.height, MARGIN.top);
  const centerX = MARGIN.left + PLOT.width / 2;
  const centerY = MARGIN.top + PLOT.height / 2;
  const axisLabelY = MARGIN.top + PLOT.height + 40;
  const legendTop = axisLabelY + 28;
  const height = legendTop + chart.series.length * LEGEND_ROW + 8;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="Helvetica, Arial, sans-serif" font-size="12">
  <style>.grid { stroke: #d0d0d0; stroke-width: 1 } .minor { stroke: #ececec; stroke-width: 1 } text { fill: #222 }</style>
  <rect width="${WIDTH}" height="${height}" fill="#ffffff"/>
  <text x="${centerX}" y="24" text-anchor="middle" font-size="15" font-weight="bold">${escapeXml(chart.title)}</text>
  ${gridAndTicks(xRange, yRange, x, y)}
  <rect x="${MARGIN.left}" y="${MARGIN.top}" width="${PLOT.width}" height="${PLOT.height}" fill="none" stroke="#888"/>
  ${chart.series.map((series) => seriesPath(series, x, y)).join('\n  ')}
  <text x="${centerX}" y="${axisLabelY}" text-anchor="middle">${escapeXml(chart.xLabel)}</text>
  ${legend(chart.series, legendTop)}
  <text x="18" y="${centerY}" text-anchor="middle" transform="rotate(-90 18 ${centerY})">${escapeXml(chart.yLabel)}</text>
  ${chart.note === undefined ? '' : `<text x="${MARGIN.left + PLOT.width - 8}" y="${MARGIN.top + PLOT.height - 10}" text-anchor="end" font-size="11" fill="#555">${escapeXml(chart.note)}</text>`}
</svg>
`;
}
