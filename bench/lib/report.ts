import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { SideStats } from './load.js';
import type { BenchRequest, Figures, Verdict } from './types.js';

/** A target with its verdict on one run. */
export type TargetResult = { label: string } & Verdict;

const round2 = (n: number): number => Math.round(n * 100) / 100;
const percentileMs = (s: SideStats, p: number): number => round2(s.latencyUs.percentile(p) / 1000);
const rpsOf = (s: SideStats): number => s.responses / (s.elapsedMs / 1000);

/** The figures of a run, rounded as printed (rps to integers, the rest to 2 decimals). */
export function computeFigures(server: SideStats, baseline: SideStats): Figures {
  return {
    ratio: round2(rpsOf(server) / rpsOf(baseline)),
    rps: Math.round(rpsOf(server)),
    baselineRps: Math.round(rpsOf(baseline)),
    p50Ms: percentileMs(server, 50),
    baselineP50Ms: percentileMs(baseline, 50),
    p99Ms: percentileMs(server, 99),
    baselineP99Ms: percentileMs(baseline, 99),
  };
}

/** `403 x1200, 500 x3`: the non-2xx answers of one side. */
export function describeNon2xx(s: SideStats): string {
  return [...s.statusCodes]
    .filter(([code]) => code < 200 || code > 299)
    .map(([code, count]) => `${code} x${count}`)
    .join(', ');
}

export function printTable(figures: Figures, server: SideStats, baseline: SideStats): void {
  const row = (label: string, cells: string[]) =>
    console.log(label.padEnd(18) + cells.map((c) => c.padStart(10)).join(''));
  row('', ['req/s', 'p50 ms', 'p99 ms', 'non-2xx', 'errors']);
  row('baseline', [
    String(figures.baselineRps),
    figures.baselineP50Ms.toFixed(2),
    figures.baselineP99Ms.toFixed(2),
    String(baseline.non2xx),
    String(baseline.errors),
  ]);
  row('server', [
    String(figures.rps),
    figures.p50Ms.toFixed(2),
    figures.p99Ms.toFixed(2),
    String(server.non2xx),
    String(server.errors),
  ]);
  const ratio = (a: number, b: number) => (b > 0 ? (a / b).toFixed(2) : '-');
  row('server/baseline', [
    figures.ratio.toFixed(2),
    ratio(figures.p50Ms, figures.baselineP50Ms),
    ratio(figures.p99Ms, figures.baselineP99Ms),
  ]);
  const cpu = [cpuPerResponse(server), cpuPerResponse(baseline)];
  if (cpu[0] && cpu[1])
    console.log(
      `CPU µs per response (all threads / main thread): server ${cpu[0].all} / ${cpu[0].main}, ` +
        `baseline ${cpu[1].all} / ${cpu[1].main}`,
    );
}

/**
 * A side's CPU time per response in µs (all threads, main thread), from `/proc` while it was
 * measured: it tells a side that ran out of CPU from one that waited. It moves with the
 * machine's speed like requests/s do, so compare it within a run. Undefined without `/proc` or
 * responses.
 */
export function cpuPerResponse(s: SideStats): { all: number; main: number } | undefined {
  if (s.cpu === undefined || s.responses === 0) return undefined;
  return {
    all: Math.round((s.cpu.allMs * 1000) / s.responses),
    main: Math.round((s.cpu.mainMs * 1000) / s.responses),
  };
}

export function printVerdicts(results: TargetResult[]): void {
  console.log('targets (informational):');
  for (const r of results) console.log(`  ${verdictWord(r.met)}  ${r.label}: ${r.actual}`);
}

/** `MET   `, `MISSED` or `n/a   ` (a target that does not apply to this run), padded alike. */
export function verdictWord(met: boolean | null): string {
  return met === null ? 'n/a   ' : met ? 'MET   ' : 'MISSED';
}

/** The one-line summary that ends every successful run; scripts grep for it. */
export function summaryLine(name: string, f: Figures): string {
  return (
    `bench ${name}: ratio ${f.ratio.toFixed(2)} rps ${f.rps} baseline_rps ${f.baselineRps} ` +
    `p99_ms ${f.p99Ms.toFixed(2)} baseline_p99_ms ${f.baselineP99Ms.toFixed(2)}`
  );
}

export interface JsonReport {
  name: string;
  request: BenchRequest;
  figures: Figures;
  server: SideStats;
  baseline: SideStats;
  /** What the baseline server was, `--baseline` (absent where the baseline is not such a server). */
  baselineKind?: 'node' | 'fastify';
  /** Measured seconds per side (warm-up excluded), summed over the rounds. */
  durationS: number;
  warmupS: number;
  rounds: number;
  connections: number;
  targets: TargetResult[];
  /** Bench-specific fields added to the JSON as they are. */
  extra?: Record<string, unknown>;
}

export function writeJson(file: string, r: JsonReport): void {
  const { figures: f } = r;
  const data = {
    name: r.name,
    request: { method: r.request.method, path: r.request.path },
    ratio: f.ratio,
    rps: f.rps,
    baseline_rps: f.baselineRps,
    p50_ms: f.p50Ms,
    baseline_p50_ms: f.baselineP50Ms,
    p99_ms: f.p99Ms,
    baseline_p99_ms: f.baselineP99Ms,
    non2xx: { server: r.server.non2xx, baseline: r.baseline.non2xx },
    errors: { server: r.server.errors, baseline: r.baseline.errors },
    timeouts: { server: r.server.timeouts, baseline: r.baseline.timeouts },
    ...(r.baselineKind ? { baseline_kind: r.baselineKind } : {}),
    cpu_us_per_response: {
      server: cpuPerResponse(r.server) ?? null,
      baseline: cpuPerResponse(r.baseline) ?? null,
    },
    duration_s: r.durationS,
    warmup_s: r.warmupS,
    rounds: r.rounds,
    connections: r.connections,
    pipelining: 1,
    node: process.version,
    timestamp: new Date().toISOString(),
    targets: r.targets,
    ...r.extra,
  };
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(data, null, 2) + '\n');
}
