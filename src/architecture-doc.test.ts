/** docs/architecture.md's plugin table names every module plugin, in src/app.ts's order. */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');

describe("the architecture page's plugin table", () => {
  it('lists every module plugin, in the order src/app.ts registers them', () => {
    // Each module plugin's name, by the variable app.ts registers it as.
    const names = new Map<string, string>();
    for (const file of readdirSync(join(ROOT, 'src', 'modules'), { recursive: true, encoding: 'utf8' })) {
      if (!file.endsWith('.plugin.ts')) continue;
      const text = readFileSync(join(ROOT, 'src', 'modules', file), 'utf8');
      for (const m of text.matchAll(/export const (\w+) = modulePlugin<AppDeps>\(\s*'([a-z-]+)'/g))
        names.set(m[1]!, m[2]!);
    }
    const app = readFileSync(join(ROOT, 'src', 'app.ts'), 'utf8');
    const list = /const MODULES = \[([\s\S]*?)\];/.exec(app)![1]!;
    const order = [...list.matchAll(/^\s*(\w+Plugin),/gm)].map((m) => names.get(m[1]!) ?? m[1]!);
    expect(order.length).toBeGreaterThan(20);
    const doc = readFileSync(join(ROOT, 'docs', 'architecture.md'), 'utf8');
    const rows = [...doc.matchAll(/^\| (\d+)\s+\| ([a-z-]+)\s+\|/gm)].map((m) => m[2]!);
    expect(rows).toEqual(order);
  });
});
