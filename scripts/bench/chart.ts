/** A hand-written SVG line chart: seconds against N (log scale), one line per series. */

export interface Series {
  readonly label: string;
  readonly color: string;
  readonly dashed: boolean;
  /** [N, seconds] pairs. */
  readonly points: readonly (readonly [number, number])[];
}

const escape = (text: string): string =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/** A round step for the y axis: 1, 2 or 5 times a power of ten. */
function niceStep(max: number, ticks: number): number {
  const raw = max / ticks;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw);
  return step ?? 10 * power;
}

export function lineChart(title: string, series: readonly Series[]): string {
  const width = 760;
  const height = 440;
  const left = 60;
  const right = 200;
  const top = 40;
  const bottom = 50;
  const plotWidth = width - left - right;
  const plotHeight = height - top - bottom;

  const ns = [...new Set(series.flatMap((s) => s.points.map(([n]) => n)))].sort((a, b) => a - b);
  const maxSeconds = Math.max(0.001, ...series.flatMap((s) => s.points.map(([, y]) => y)));
  const step = niceStep(maxSeconds, 5);
  const yMax = Math.ceil(maxSeconds / step) * step;
  const logMin = Math.log10(ns[0] ?? 1);
  const logMax = Math.log10(ns[ns.length - 1] ?? 10);
  const x = (n: number): number =>
    logMax === logMin
      ? left + plotWidth / 2
      : left + ((Math.log10(n) - logMin) / (logMax - logMin)) * plotWidth;
  const y = (seconds: number): number => top + plotHeight - (seconds / yMax) * plotHeight;
  const fmt = (value: number): string => value.toFixed(1);

  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="${width}" height="${height}" fill="white"/>`,
    `<text x="${left}" y="22" font-size="15" font-weight="bold">${escape(title)}</text>`,
  ];
  for (let value = 0; value <= yMax + step / 2; value += step) {
    const py = fmt(y(value));
    parts.push(
      `<line x1="${left}" y1="${py}" x2="${left + plotWidth}" y2="${py}" stroke="#ddd"/>`,
      `<text x="${left - 8}" y="${py}" text-anchor="end" dominant-baseline="middle">${Number(value.toFixed(3))}</text>`,
    );
  }
  for (const n of ns) {
    const px = fmt(x(n));
    parts.push(
      `<line x1="${px}" y1="${top}" x2="${px}" y2="${top + plotHeight}" stroke="#eee"/>`,
      `<text x="${px}" y="${top + plotHeight + 18}" text-anchor="middle">${n}</text>`,
    );
  }
  parts.push(
    `<line x1="${left}" y1="${top + plotHeight}" x2="${left + plotWidth}" y2="${top + plotHeight}" stroke="black"/>`,
    `<line x1="${left}" y1="${top}" x2="${left}" y2="${top + plotHeight}" stroke="black"/>`,
    `<text x="${left + plotWidth / 2}" y="${height - 12}" text-anchor="middle">resources in the stack (N, log scale)</text>`,
    `<text x="16" y="${top + plotHeight / 2}" text-anchor="middle" transform="rotate(-90 16 ${top + plotHeight / 2})">wall time (s)</text>`,
  );
  series.forEach((s, index) => {
    const dash = s.dashed ? ` stroke-dasharray="6 4"` : "";
    const path = s.points.map(([n, seconds]) => `${fmt(x(n))},${fmt(y(seconds))}`).join(" ");
    parts.push(
      `<polyline points="${path}" fill="none" stroke="${s.color}" stroke-width="2"${dash}/>`,
    );
    for (const [n, seconds] of s.points) {
      parts.push(`<circle cx="${fmt(x(n))}" cy="${fmt(y(seconds))}" r="3" fill="${s.color}"/>`);
    }
    const ly = top + 10 + index * 20;
    const lx = left + plotWidth + 20;
    parts.push(
      `<line x1="${lx}" y1="${ly}" x2="${lx + 30}" y2="${ly}" stroke="${s.color}" stroke-width="2"${dash}/>`,
      `<text x="${lx + 38}" y="${ly}" dominant-baseline="middle">${escape(s.label)}</text>`,
    );
  });
  parts.push("</svg>");
  return parts.join("\n") + "\n";
}
