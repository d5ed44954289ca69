/**
 * Comments a reader can follow: no source file cites an issue, a part or a numbered rule of a
 * document the repository does not hold (the word issue, part or rule followed by a number); rules
 * are cited by name, `docs/rules/<area>.md#<heading>`, and every such citation names a heading that
 * exists.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = import.meta.dirname;
const ROOT = resolve(SRC, '..');
const SELF = relative(SRC, import.meta.filename);

/** A citation by number: issue, part or rule (any case, singular or plural), an optional #, digits. */
const NUMBERED = /\b(?:issue|part|rule)s? ?#?\d+/gi;
/** A citation of an issue by its area: "(orders issue, …)", "the issue's rule". */
const BY_AREA =
  /\b(?:orders|observability|market data|strategies|sandbox|tunnel|mail|auth) issue\b|\bthe issue'?s?\b/gi;
/** A citation by name. */
const BY_NAME = /docs\/rules\/([a-z-]+)\.md#([a-z0-9-]+)/g;

function sources(dir: string, out: string[] = []): string[] {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) sources(p, out);
    else if (e.name.endsWith('.ts')) out.push(p);
  }
  return out;
}

function headingsOf(area: string): Set<string> | undefined {
  const file = join(ROOT, 'docs', 'rules', `${area}.md`);
  if (!existsSync(file)) return undefined;
  return new Set([...readFileSync(file, 'utf8').matchAll(/^## +(\S+)\s*$/gm)].map((m) => m[1]!));
}

describe('comments cite what the repository holds', () => {
  const files = sources(SRC).filter((f) => relative(SRC, f) !== SELF);

  it('no source file cites an issue, part or rule by number, or an issue by its area', () => {
    const found: string[] = [];
    for (const f of files) {
      readFileSync(f, 'utf8')
        .split('\n')
        .forEach((line, i) => {
          for (const m of [...line.matchAll(NUMBERED), ...line.matchAll(BY_AREA)])
            found.push(`${relative(SRC, f)}:${i + 1}: ${m[0]}`);
        });
    }
    expect(found).toEqual([]);
  });

  it('every docs/rules citation names a file and a heading that exist', () => {
    const missing: string[] = [];
    let cited = 0;
    for (const f of files) {
      for (const m of readFileSync(f, 'utf8').matchAll(BY_NAME)) {
        cited++;
        const headings = headingsOf(m[1]!);
        if (!headings?.has(m[2]!)) missing.push(`${relative(SRC, f)}: ${m[0]}`);
      }
    }
    expect(cited).toBeGreaterThan(0);
    expect(missing).toEqual([]);
  });

  it('every docs/architecture.md section a comment names exists', () => {
    const sections = new Set(
      [...readFileSync(join(ROOT, 'docs', 'architecture.md'), 'utf8').matchAll(/^## +(.+?)\s*$/gm)].map((m) =>
        m[1]!.toLowerCase(),
      ),
    );
    const missing = files.flatMap((f) =>
      [
        ...readFileSync(f, 'utf8')
          .replace(/\n \* /g, ' ')
          .matchAll(/docs\/architecture\.md, "([^"]+)"/g),
      ]
        .filter((m) => !sections.has(m[1]!.toLowerCase()))
        .map((m) => `${relative(SRC, f)}: ${m[1]}`),
    );
    expect(missing).toEqual([]);
  });

  it('the scan sees a numbered citation where there is one', () => {
    // Built from words and numbers, so this file does not hold what it forbids.
    const cited = ['issue', 'Part', 'rules', 'issue #'].map(
      (w, i) => `${w}${w.endsWith('#') ? '' : ' '}${i + 6}`,
    );
    expect(`see ${cited.join(', ')}-9`.match(NUMBERED)).toEqual(cited);
    expect('a partial 3-leg order; rule-based'.match(NUMBERED)).toBeNull();
    expect('(orders issue, "Brokers"); the issue\'s rule'.match(BY_AREA)).toEqual([
      'orders issue',
      "the issue's",
    ]);
    expect('issues a new API key'.match(BY_AREA)).toBeNull();
  });
});
