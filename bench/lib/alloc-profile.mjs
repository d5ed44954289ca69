/**
 * What a bench server allocates: loaded into it with
 * `BENCH_SERVER_NODE_ARGS="--import $PWD/bench/lib/alloc-profile.mjs"` (an absolute path: the
 * server runs in a temporary directory), it waits for SIGUSR2, then samples the allocations of the
 * main thread for `ALLOC_PROFILE_SECONDS` (default 3), counting the objects the GC collects
 * meanwhile too (V8's sampling heap profiler, one sample per 8 KiB allocated on average), and
 * writes `alloc-<pid>.heapprofile` to `ALLOC_PROFILE_DIR` (default the system's temporary
 * directory). With `ALLOC_PROFILE_SURVIVORS=1` the objects a young-generation GC collected are left
 * out: what remains is what outlived one (copied, then promoted: the scavenges' work), the objects
 * a full GC collected later still counted. Send the signal once the log says the server's measured round began;
 * `tsx bench/profile.ts <file> [--inclusive]` reads the file.
 */
import { Session } from 'node:inspector';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { join } from 'node:path';

const session = new Session();
session.connect();
const post = (method, params = {}) =>
  new Promise((resolve, reject) =>
    session.post(method, params, (err, r) => (err ? reject(err) : resolve(r))),
  );
await post('HeapProfiler.enable');

const seconds = Number(process.env.ALLOC_PROFILE_SECONDS ?? 3);
const dir = process.env.ALLOC_PROFILE_DIR ?? tmpdir();
const survivors = process.env.ALLOC_PROFILE_SURVIVORS === '1';
let sampling = false;
process.on('SIGUSR2', () => {
  if (sampling) return;
  sampling = true;
  void (async () => {
    await post('HeapProfiler.startSampling', {
      samplingInterval: 8192,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: !survivors,
    });
    await sleep(seconds * 1000);
    const { profile } = await post('HeapProfiler.stopSampling');
    const file = join(dir, `alloc-${process.pid}.heapprofile`);
    writeFileSync(file, JSON.stringify(profile));
    process.stderr.write(`alloc-profile: wrote ${file}\n`);
    sampling = false;
  })();
});
