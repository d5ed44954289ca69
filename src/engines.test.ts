/**
 * The Node.js version the README and `engines` promise is one every installed package supports:
 * `npm install` on the oldest promised Node warns about nothing. A dependency that moves to a
 * newer Node fails here, with its name, instead of as an install warning a user reports.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { engines: { node: string } };
const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { engines?: { node?: unknown } | string[] }>;
};

describe('the promised Node.js version', () => {
  const oldest = semver.minVersion(pkg.engines.node)!.version;

  it('is the one the README names', () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const [major, minor] = oldest.split('.');
    expect(readme).toContain(`Node.js ≥ ${major}.${minor}`);
  });

  it('is supported by every package in the lockfile', () => {
    const refusing = Object.entries(lock.packages)
      .filter(([path]) => path !== '')
      .map(([path, p]) => [path, Array.isArray(p.engines) ? undefined : p.engines?.node] as const)
      .filter(([, range]) => typeof range === 'string' && !semver.satisfies(oldest, range))
      .map(([path, range]) => `${path.replace(/^.*node_modules\//, '')} wants node ${String(range)}`);
    expect(refusing).toEqual([]);
    expect(Object.keys(lock.packages).length).toBeGreaterThan(100); // the lockfile was read
  });
});
