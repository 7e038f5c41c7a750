/** A hand-written SVG of bench/results.json: one small bar chart per figure, each planner topology next to its raw baseline. */

interface Side {
  name: string;
  plans_per_s: number;
  latency_ms: { p50: number; p95: number };
  history: { bytes_per_plan: number };
  worker_rss_mb: { peak_mb: number };
}

export interface ChartInput {
  date: string;
  machine: { cores: number; cpu: string };
  config: { plans: number; concurrency: number; server_db?: string };
  ratio: { latency_p50: number; throughput: number; worker_rss_peak: number };
  ratio_split: { latency_p50: number; throughput: number; worker_rss_peak: number };
  raw: Side;
  planner: Side;
  /** null when the run measured no re-plan (`--replan-plans 0`). */
  replan: Side | null;
  raw_split: Side;
  planner_split: Side;
}

const COLORS = { raw: '#8c8c8c', planner: '#2f6fdf', rawSplit: '#c4c4c4', split: '#2aa876', replan: '#e08a1e' };

function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function fmt(n: number): string {
  return n >= 100 ? n.toFixed(0) : n >= 10 ? n.toFixed(1) : n.toFixed(2);
}

function panel(
  x: number,
  y: number,
  title: string,
  bars: { label: string; value: number; color: string }[],
  limit?: { value: number; label: string },
): string {
  const w = 210;
  const h = 170;
  const top = Math.max(...bars.map((b) => b.value), limit?.value ?? 0) * 1.15 || 1;
  const barW = 30;
  const gap = (w - bars.length * barW) / (bars.length + 1);
  const plotH = h - 40;
  const out = [
    `<g transform="translate(${x},${y})">`,
    `<text x="${w / 2}" y="0" text-anchor="middle" font-weight="bold">${esc(title)}</text>`,
  ];
  out.push(`<line x1="0" y1="${20 + plotH}" x2="${w}" y2="${20 + plotH}" stroke="#444"/>`);
  bars.forEach((b, i) => {
    const bh = (b.value / top) * plotH;
    const bx = gap + i * (barW + gap);
    const by = 20 + plotH - bh;
    out.push(
      `<rect x="${bx.toFixed(1)}" y="${by.toFixed(1)}" width="${barW}" height="${bh.toFixed(1)}" fill="${b.color}"/>`,
    );
    out.push(
      `<text x="${(bx + barW / 2).toFixed(1)}" y="${(by - 4).toFixed(1)}" text-anchor="middle" font-size="11">${fmt(b.value)}</text>`,
    );
    out.push(
      `<text x="${(bx + barW / 2).toFixed(1)}" y="${20 + plotH + 14}" text-anchor="middle" font-size="10">${esc(b.label)}</text>`,
    );
  });
  if (limit) {
    const ly = 20 + plotH - (limit.value / top) * plotH;
    out.push(
      `<line x1="0" y1="${ly.toFixed(1)}" x2="${w}" y2="${ly.toFixed(1)}" stroke="#c0392b" stroke-dasharray="4 3"/>`,
    );
    out.push(
      `<text x="${w}" y="${(ly - 3).toFixed(1)}" text-anchor="end" font-size="10" fill="#c0392b">${esc(limit.label)}</text>`,
    );
  }
  out.push('</g>');
  return out.join('\n');
}

export function renderChart(r: ChartInput): string {
  const all = (pick: (s: Side) => number) => [
    { label: 'raw', value: pick(r.raw), color: COLORS.raw },
    { label: 'planner', value: pick(r.planner), color: COLORS.planner },
    ...(r.replan ? [{ label: 're-plan', value: pick(r.replan), color: COLORS.replan }] : []),
    { label: 'raw 2q', value: pick(r.raw_split), color: COLORS.rawSplit },
    { label: 'split', value: pick(r.planner_split), color: COLORS.split },
  ];
  const panels = [
    panel(
      20,
      70,
      'throughput (plans/s)',
      all((s) => s.plans_per_s),
      { value: r.raw.plans_per_s * 0.85, label: '0.85× raw' },
    ),
    panel(
      250,
      70,
      'latency p50 (ms)',
      all((s) => s.latency_ms.p50),
      { value: r.raw.latency_ms.p50 * 1.2, label: '1.2× raw' },
    ),
    panel(
      480,
      70,
      'latency p95 (ms)',
      all((s) => s.latency_ms.p95),
    ),
    panel(
      20,
      290,
      'history per plan (KB)',
      all((s) => s.history.bytes_per_plan / 1024),
      { value: 200, label: '200 KB' },
    ),
    panel(
      250,
      290,
      'worker peak RSS (MB)',
      all((s) => s.worker_rss_mb.peak_mb),
      { value: r.raw.worker_rss_mb.peak_mb * 1.2, label: '1.2× raw' },
    ),
  ];
  const summary = [
    `default / raw: p50 ${r.ratio.latency_p50}×, throughput ${r.ratio.throughput}×, RSS ${r.ratio.worker_rss_peak}× · split / raw 2 queues: ${r.ratio_split.latency_p50}×, ${r.ratio_split.throughput}×, ${r.ratio_split.worker_rss_peak}×`,
    `${r.config.plans} plans each, ${r.config.concurrency} concurrent, server db: ${r.config.server_db ?? '?'}`,
    `${r.date.slice(0, 10)}, ${r.machine.cores} cores, ${r.machine.cpu}`,
  ];
  return `<svg xmlns="http://www.w3.org/2000/svg" width="720" height="500" font-family="sans-serif" font-size="12">
<rect width="720" height="500" fill="white"/>
<text x="20" y="26" font-size="16" font-weight="bold">durable-planner vs a plain Temporal workflow</text>
<text x="20" y="46" fill="#555">${esc(summary[0]!)}</text>
${panels.join('\n')}
<g transform="translate(480,320)">
${summary
  .slice(1)
  .map(
    (s, i) =>
      `<text x="0" y="${i * 18}" font-size="11" fill="#555">${esc(s.length > 42 ? s.slice(0, 42) + '…' : s)}</text>`,
  )
  .join('\n')}
<rect x="0" y="50" width="12" height="12" fill="${COLORS.raw}"/><text x="18" y="60" font-size="11">raw: activities on its queue</text>
<rect x="0" y="70" width="12" height="12" fill="${COLORS.planner}"/><text x="18" y="80" font-size="11">planner, default (one queue)</text>
${r.replan ? `<rect x="0" y="90" width="12" height="12" fill="${COLORS.replan}"/><text x="18" y="100" font-size="11">planner, one step fails once</text>` : ''}
<rect x="0" y="110" width="12" height="12" fill="${COLORS.rawSplit}"/><text x="18" y="120" font-size="11">raw: activities on a 2nd queue</text>
<rect x="0" y="130" width="12" height="12" fill="${COLORS.split}"/><text x="18" y="140" font-size="11">planner, tools on a 2nd queue</text>
</g>
</svg>
`;
}
