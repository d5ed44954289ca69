/** The README's examples are the formats the code reads: a change to one fails here. */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scriptedSource } from './modules/sandbox/sandbox.plugin.js';

const README = readFileSync(join(import.meta.dirname, '..', 'README.md'), 'utf8');

/** The first fenced block of `lang` after the heading `title`. */
function exampleAfter(title: string, lang: string): string {
  const from = README.indexOf(title);
  expect(from, title).toBeGreaterThan(-1);
  const m = new RegExp('```' + lang + '\\n([\\s\\S]*?)```').exec(README.slice(from));
  expect(m, `${lang} block after ${title}`).not.toBeNull();
  return m![1]!;
}

describe('README examples', () => {
  it('the scripted price file example is read by the scripted price source, tick by tick', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'algodesk-readme-')), 'ticks.json');
    writeFileSync(file, exampleAfter('### Analyzer-mode prices from a file', 'json'));
    const feed = scriptedSource(file);
    expect(feed.advanceTo(1790000000000)).toBe(1);
    expect(feed.latest('NSE:SBIN')).toMatchObject({ ltp: 812.5, bid: 812.45, ask: 812.55 });
    expect(feed.advanceTo(1790000005000)).toBe(1);
    expect(feed.latest('NSE:SBIN')?.ltp).toBe(813.1);
  });
});
