import { relative } from 'node:path';
import type { Reporter } from 'vitest/reporters';

type Files = Parameters<NonNullable<Reporter['onFinished']>>[0];

/**
 * Prints the ten slowest test files when a run ends (import and collection, set-up hooks and
 * tests), so a slow file is seen the day it is added. Timings are shown, never asserted.
 */
export default class SlowestFiles implements Reporter {
  onFinished(files: Files = []): void {
    const rows = files
      .map((f) => ({
        name: relative(process.cwd(), f.filepath),
        collect: f.collectDuration ?? 0,
        run: (f.setupDuration ?? 0) + (f.result?.duration ?? 0),
        tests: countTests(f),
      }))
      .sort((a, b) => b.collect + b.run - (a.collect + a.run))
      .slice(0, 10);
    if (rows.length === 0) return;
    const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`.padStart(8);
    const lines = rows.map(
      (r) =>
        `${s(r.collect + r.run)}  (import ${s(r.collect).trim()}, run ${s(r.run).trim()})  ${r.tests} tests  ${r.name}`,
    );
    console.log(`\nSlowest test files:\n${lines.map((l) => `  ${l}`).join('\n')}\n`);
  }
}

function countTests(task: { type: string; tasks?: unknown[] }): number {
  if (task.type === 'test') return 1;
  return ((task.tasks ?? []) as Array<{ type: string; tasks?: unknown[] }>).reduce(
    (n, t) => n + countTests(t),
    0,
  );
}
