// Minimal SVG charts for the report: lines (time vs threads) and grouped bars. No dependency;
// PNG copies are rendered from these by Chromium (png.mjs).
const WIDTH = 640, HEIGHT = 400;
const MARGIN = { top: 48, right: 150, bottom: 56, left: 72 };
const COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b'];
const FONT = 'font-family="DejaVu Sans, Arial, sans-serif"';

const escapeXml = (text) => String(text).replace(/[<>&"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;' })[c]);

function niceMax(value) {
  if (!(value > 0)) return 1;
  const magnitude = 10 ** Math.floor(Math.log10(value));
  return [1, 2, 2.5, 5, 10].map((step) => step * magnitude).find((candidate) => candidate >= value);
}

const formatTick = (value) => (value >= 10 ? value.toFixed(0) : value === 0 ? "0" : value.toPrecision(2));

function frame(title, yLabel, xLabel, yMax) {
  const plotW = WIDTH - MARGIN.left - MARGIN.right, plotH = HEIGHT - MARGIN.top - MARGIN.bottom;
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" ${FONT} font-size="12">`,
    `<rect width="${WIDTH}" height="${HEIGHT}" fill="white"/>`,
    `<text x="${WIDTH / 2}" y="24" text-anchor="middle" font-size="15" font-weight="bold">${escapeXml(title)}</text>`,
    `<text x="16" y="${MARGIN.top + plotH / 2}" text-anchor="middle" transform="rotate(-90 16 ${MARGIN.top + plotH / 2})">${escapeXml(yLabel)}</text>`,
    `<text x="${MARGIN.left + plotW / 2}" y="${HEIGHT - 12}" text-anchor="middle">${escapeXml(xLabel)}</text>`,
  ];
  for (let i = 0; i <= 5; i++) {
    const value = (yMax * i) / 5, y = MARGIN.top + plotH - (plotH * i) / 5;
    parts.push(`<line x1="${MARGIN.left}" x2="${MARGIN.left + plotW}" y1="${y}" y2="${y}" stroke="#ddd"/>`,
               `<text x="${MARGIN.left - 6}" y="${y + 4}" text-anchor="end">${formatTick(value)}</text>`);
  }
  parts.push(`<line x1="${MARGIN.left}" x2="${MARGIN.left}" y1="${MARGIN.top}" y2="${MARGIN.top + plotH}" stroke="#333"/>`,
             `<line x1="${MARGIN.left}" x2="${MARGIN.left + plotW}" y1="${MARGIN.top + plotH}" y2="${MARGIN.top + plotH}" stroke="#333"/>`);
  return { parts, plotW, plotH };
}

function legend(parts, names) {
  names.forEach((name, i) => {
    const y = MARGIN.top + 10 + i * 20, x = WIDTH - MARGIN.right + 16;
    parts.push(`<rect x="${x}" y="${y - 9}" width="12" height="12" fill="${COLORS[i % COLORS.length]}"/>`,
               `<text x="${x + 18}" y="${y + 2}">${escapeXml(name)}</text>`);
  });
}

// series: [{ name, points: [[x, y], ...] }]; x values are categories (thread counts).
export function lineChart({ title, xLabel, yLabel, series }) {
  const xs = [...new Set(series.flatMap((s) => s.points.map(([x]) => x)))].sort((a, b) => a - b);
  const yMax = niceMax(Math.max(0, ...series.flatMap((s) => s.points.map(([, y]) => y))));
  const { parts, plotW, plotH } = frame(title, yLabel, xLabel, yMax);
  const xAt = (x) => MARGIN.left + (xs.length === 1 ? plotW / 2 : (plotW * xs.indexOf(x)) / (xs.length - 1) * 0.9 + plotW * 0.05);
  const yAt = (y) => MARGIN.top + plotH - (plotH * y) / yMax;
  xs.forEach((x) => parts.push(`<text x="${xAt(x)}" y="${MARGIN.top + plotH + 18}" text-anchor="middle">${x}</text>`));
  series.forEach((s, i) => {
    const color = COLORS[i % COLORS.length];
    const points = s.points.map(([x, y]) => `${xAt(x).toFixed(1)},${yAt(y).toFixed(1)}`);
    parts.push(`<polyline fill="none" stroke="${color}" stroke-width="2.5" points="${points.join(' ')}"/>`);
    s.points.forEach(([x, y]) => parts.push(`<circle cx="${xAt(x).toFixed(1)}" cy="${yAt(y).toFixed(1)}" r="4" fill="${color}"/>`));
  });
  legend(parts, series.map((s) => s.name));
  parts.push('</svg>');
  return parts.join('\n');
}

// groups: [{ name, bars: [{ name, value }] }]; every group has the same bar names.
export function barChart({ title, xLabel, yLabel, groups }) {
  const barNames = [...new Set(groups.flatMap((g) => g.bars.map((b) => b.name)))];
  const yMax = niceMax(Math.max(0, ...groups.flatMap((g) => g.bars.map((b) => b.value))));
  const { parts, plotW, plotH } = frame(title, yLabel, xLabel, yMax);
  const groupW = plotW / Math.max(groups.length, 1), barW = (groupW * 0.7) / Math.max(barNames.length, 1);
  groups.forEach((group, g) => {
    const x0 = MARGIN.left + g * groupW + groupW * 0.15;
    parts.push(`<text x="${x0 + groupW * 0.35}" y="${MARGIN.top + plotH + 18}" text-anchor="middle">${escapeXml(group.name)}</text>`);
    group.bars.forEach((bar) => {
      const i = barNames.indexOf(bar.name), h = (plotH * bar.value) / yMax, x = x0 + i * barW;
      parts.push(`<rect x="${x.toFixed(1)}" y="${(MARGIN.top + plotH - h).toFixed(1)}" width="${(barW - 2).toFixed(1)}" height="${h.toFixed(1)}" fill="${COLORS[i % COLORS.length]}"/>`,
                 `<text x="${(x + barW / 2).toFixed(1)}" y="${(MARGIN.top + plotH - h - 4).toFixed(1)}" text-anchor="middle" font-size="10">${formatTick(bar.value)}</text>`);
    });
  });
  legend(parts, barNames);
  parts.push('</svg>');
  return parts.join('\n');
}
