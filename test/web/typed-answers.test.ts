/**
 * No answer of the server is typed by hand in the console (docs/rules/web.md#typed-api): every
 * `api<T>(…)` call names `Answer<path, method>` or `DeskAnswer<call>` — directly or through a type
 * alias that does — so its type is the route's declared schema. A call typed by hand (an interface,
 * an object literal) fails here: give the route a response schema and run `npm run api:types`.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO } from '../helpers/web-build.js';

const ROOT = join(REPO, 'web', 'src');
const sources = readdirSync(ROOT, { recursive: true, encoding: 'utf8' })
  .filter((f) => /\.tsx?$/.test(f) && !f.endsWith('.d.ts'))
  .map((f) => ({ file: f, text: readFileSync(join(ROOT, f), 'utf8') }));
const everything = sources.map((s) => s.text).join('\n');

/** The right-hand side of `type Name = …;` wherever the console declares it. */
function alias(name: string): string | undefined {
  return new RegExp(`(?:^|\\n)\\s*(?:export\\s+)?type\\s+${name}\\s*=\\s*([^;]+);`).exec(everything)?.[1];
}

/** Whether a type argument comes from the generated types (following aliases a few steps). */
function generated(type: string, depth = 0): boolean {
  const t = type.trim();
  if (/^(Answer|DeskAnswer)</.test(t)) return true;
  const name = /^([A-Za-z_]\w*)/.exec(t)?.[1];
  if (!name || depth > 4) return false;
  const rhs = alias(name);
  return rhs !== undefined && generated(rhs, depth + 1);
}

describe('the console’s answers', () => {
  it('every api<T>() call is typed from the generated types, none by hand', () => {
    const calls = sources.flatMap(({ file, text }) =>
      [...text.matchAll(/\bapi<([^>(]+(?:<[^>]*>[^>(]*)*)>\(/g)].map((m) => ({ file, type: m[1]! })),
    );
    // The client's own generic helpers pass their type parameter on.
    const typed = calls.filter((c) => !(c.file.endsWith(join('api', 'client.ts')) && /^T\b/.test(c.type)));
    expect(typed.length).toBeGreaterThan(50);
    expect(typed.filter((c) => !generated(c.type)).map((c) => `${c.file}: api<${c.type}>`)).toEqual([]);
  });

  it('the check catches a hand-typed answer', () => {
    expect(generated('{ data: Row[] }')).toBe(false);
    expect(generated('Unknown')).toBe(false);
    expect(generated("Answer<'/admin/api/users'>")).toBe(true);
  });
});
