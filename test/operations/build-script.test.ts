/**
 * scripts/build.mjs never removes a file a running server serves: after a console build, what
 * this build and the one before it wrote stays (a page handed out before the build still loads
 * its assets), older builds' files go, the build's own records stay.
 */
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain script of the repository, without type declarations.
import { staleFiles } from '../../scripts/build.mjs';

const prune = staleFiles as (present: string[], previous: string[], current: string[]) => string[];

describe('the console build keeps the previous build’s files and prunes older ones', () => {
  it('deletes only what neither of the last two builds wrote', () => {
    const present = [
      '.build-hash',
      '.build-files.json',
      'index.html',
      'assets/app-old1.js',
      'assets/app-old1.js.br',
      'assets/app-prev.js',
      'assets/app-prev.js.gz',
      'assets/app-new.js',
      'favicon.svg',
    ];
    const previous = ['index.html', 'assets/app-prev.js', 'assets/app-prev.js.gz', 'favicon.svg'];
    const current = ['index.html', 'assets/app-new.js', 'favicon.svg'];
    expect(prune(present, previous, current)).toEqual(['assets/app-old1.js', 'assets/app-old1.js.br']);
  });

  it('after a first build (no previous list) keeps this build’s files only', () => {
    expect(
      prune(['index.html', 'assets/a.js', 'assets/stale.js'], [], ['index.html', 'assets/a.js']),
    ).toEqual(['assets/stale.js']);
  });
});
