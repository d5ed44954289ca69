/**
 * bench/profile.ts reads what the bench's profilers write: a CPU profile (`--cpu-prof`) and a
 * sampling heap profile (bench/lib/alloc-profile.mjs). Checked on small profiles whose shares are
 * known, in the files' own formats.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');
const dir = mkdtempSync(join(tmpdir(), 'algodesk-profile-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const frame = (functionName: string, url: string, lineNumber = 0) => ({
  functionName,
  url,
  lineNumber,
  columnNumber: 0,
  scriptId: '0',
});
const SERVICE = 'file:///srv/algodesk/dist/src/modules/orders/order-pipeline.js';
const UNDICI = 'file:///srv/algodesk/node_modules/undici/lib/core/request.js';

async function profile(name: string, content: unknown, ...args: string[]): Promise<string> {
  const file = join(dir, name);
  writeFileSync(file, JSON.stringify(content));
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [join(ROOT, 'node_modules/tsx/dist/cli.mjs'), join(ROOT, 'bench/profile.ts'), file, ...args],
    { cwd: ROOT },
  );
  return stdout;
}

describe('bench/profile.ts', () => {
  // place (the service) calls into undici; the root also allocates in node:buffer directly.
  const heap = {
    head: {
      id: 1,
      callFrame: frame('(root)', ''),
      selfSize: 0,
      children: [
        {
          id: 2,
          callFrame: frame('place', SERVICE, 63),
          selfSize: 3 * 2 ** 20,
          children: [{ id: 3, callFrame: frame('Request', UNDICI, 47), selfSize: 2 ** 20, children: [] }],
        },
        { id: 4, callFrame: frame('allocate', 'node:buffer', 9), selfSize: 6 * 2 ** 20, children: [] },
      ],
    },
    samples: [],
  };

  it('gives the bytes a heap profile sampled, by origin and function', async () => {
    const out = await profile('a.heapprofile', heap);
    expect(out).toContain('allocated 10.0 MB');
    expect(out).toMatch(/60\.0%\s+node:buffer\n/);
    expect(out).toMatch(/30\.0%\s+src\/modules\/orders\/order-pipeline\.js\n/);
    expect(out).toMatch(/10\.0%\s+Request undici:48\n/);
  });

  it("counts a service function's callees in its inclusive share", async () => {
    const out = await profile('b.heapprofile', heap, '--inclusive');
    expect(out).toMatch(/40\.0%\s+place src\/modules\/orders\/order-pipeline\.js:64\n/);
    expect(out).not.toContain('undici');
  });

  it('gives a CPU profile its busy time, idle samples left out, self and inclusive', async () => {
    const cpu = {
      nodes: [
        { id: 1, callFrame: frame('(root)', ''), children: [2, 3] },
        { id: 2, callFrame: frame('(idle)', ''), children: [] },
        { id: 3, callFrame: frame('place', SERVICE, 63), children: [4] },
        { id: 4, callFrame: frame('Request', UNDICI, 47), children: [] },
      ],
      startTime: 0,
      endTime: 4000,
      samples: [3, 4, 4, 2],
      timeDeltas: [1000, 1000, 1000, 1000],
    };
    const self = await profile('c.cpuprofile', cpu);
    expect(self).toContain('busy 3 ms, idle 1 ms');
    expect(self).toMatch(/66\.7%\s+Request undici:48\n/);
    expect(self).toMatch(/33\.3%\s+place src\/modules\/orders\/order-pipeline\.js:64\n/);
    const inclusive = await profile('d.cpuprofile', cpu, '--inclusive');
    expect(inclusive).toMatch(/100\.0%\s+place src\/modules\/orders\/order-pipeline\.js:64\n/);
  });
});
