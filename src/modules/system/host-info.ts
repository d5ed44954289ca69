/**
 * What the machine and the process are (system snapshot sections `host`, `runtime`, `hardware`,
 * `build`). Read from the operating system and the file system only: no environment variables
 * (config.ts is their only reader), no child processes, no secrets.
 */
import { existsSync } from 'node:fs';
import { readFile, stat, statfs } from 'node:fs/promises';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';

const readText = (path: string) => readFile(path, 'utf8').catch(() => undefined);

export interface HostInfo {
  os: string;
  platform: string;
  release: string;
  machine: string;
  hostname: string;
  distro: string | null;
  container: boolean;
  wsl: boolean;
  single_board: boolean;
  board_model: string | null;
  terminal_emulator: boolean;
}

/** `PRETTY_NAME` of /etc/os-release (Linux), else null. */
export function parseOsRelease(text: string | undefined): string | null {
  const m = /^PRETTY_NAME=(?:"([^"]*)"|(.*))$/m.exec(text ?? '');
  return (m?.[1] ?? m?.[2])?.trim() || null;
}

export async function hostInfo(): Promise<HostInfo> {
  const [osRelease, cgroup, model] = await Promise.all([
    readText('/etc/os-release'),
    readText('/proc/1/cgroup'),
    readText('/proc/device-tree/model').then((m) => m ?? readText('/sys/firmware/devicetree/base/model')),
  ]);
  const machine = os.machine();
  const boardModel = model?.replace(/\0/g, '').trim() || null;
  return {
    os: os.type(),
    platform: process.platform,
    release: os.release(),
    machine,
    hostname: os.hostname(),
    distro: parseOsRelease(osRelease),
    container:
      existsSync('/.dockerenv') ||
      existsSync('/run/.containerenv') ||
      /docker|kubepods|containerd|lxc|podman/.test(cgroup ?? ''),
    wsl: /microsoft/i.test(os.release()),
    // A device tree describing a board (ARM and RISC-V single-board computers publish one).
    single_board: boardModel !== null && /arm|aarch64|riscv/i.test(machine),
    board_model: boardModel,
    // Termux on Android: Node runs from the app's private prefix.
    terminal_emulator: process.execPath.includes('/com.termux/') || existsSync('/data/data/com.termux'),
  };
}

/** Event-loop delay, measured continuously and reported over the last full minute. */
export class LoopDelayMonitor {
  private histogram: IntervalHistogram | undefined;
  private timer: NodeJS.Timeout | undefined;
  private last: { mean_ms: number; p50_ms: number; p99_ms: number; max_ms: number } | undefined;

  start(): void {
    if (this.histogram) return;
    this.histogram = monitorEventLoopDelay({ resolution: 20 });
    this.histogram.enable();
    this.timer = setInterval(() => {
      this.last = this.read();
      this.histogram?.reset();
    }, 60_000);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.histogram?.disable();
    this.histogram = undefined;
  }

  /** The last minute's figures, or those since start within the first minute. */
  snapshot() {
    return { window_s: 60, ...(this.last ?? this.read()) };
  }

  private read() {
    const h = this.histogram;
    const ms = (ns: number) => (Number.isFinite(ns) ? Math.round(ns / 1e4) / 100 : 0);
    if (!h || h.count === 0) return { mean_ms: 0, p50_ms: 0, p99_ms: 0, max_ms: 0 };
    return {
      mean_ms: ms(h.mean),
      p50_ms: ms(h.percentile(50)),
      p99_ms: ms(h.percentile(99)),
      max_ms: ms(h.max),
    };
  }
}

export function processInfo() {
  const m = process.memoryUsage();
  return {
    node: process.version,
    pid: process.pid,
    uptime_s: Math.round(process.uptime()),
    memory: {
      rss_bytes: m.rss,
      heap_used_bytes: m.heapUsed,
      heap_total_bytes: m.heapTotal,
      external_bytes: m.external,
    },
  };
}

export async function hardwareInfo(dataDir: string) {
  const cpus = os.cpus();
  const disk = await statfs(dataDir)
    .then((s) => ({
      path: dataDir,
      total_bytes: s.blocks * s.bsize,
      free_bytes: s.bfree * s.bsize,
      available_bytes: s.bavail * s.bsize,
    }))
    .catch(() => ({ path: dataDir, total_bytes: null, free_bytes: null, available_bytes: null }));
  return {
    cpu_model: cpus[0]?.model.trim() ?? null,
    cpu_count: os.availableParallelism(),
    load_average: os.loadavg().map((l) => Math.round(l * 100) / 100),
    memory: { total_bytes: os.totalmem(), free_bytes: os.freemem() },
    disk,
  };
}

export interface BuildInfo {
  version: string | null;
  git_commit: string | null;
  build_time: string | null;
  /** `dist` when running the compiled build, `src` under a TypeScript loader (tests, tsx). */
  source: 'dist' | 'src';
}

/** Nearest ancestor directory of `from` holding `name`, up to six levels up. */
function findUp(from: string, name: string): string | undefined {
  let dir = from;
  for (let i = 0; i < 6; i++) {
    if (existsSync(join(dir, name))) return join(dir, name);
    const up = dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  return undefined;
}

/** The commit HEAD names, read from the `.git` directory (no git process). */
export async function gitCommit(gitDir: string): Promise<string | null> {
  const head = (await readText(join(gitDir, 'HEAD')))?.trim();
  if (!head) return null;
  if (/^[0-9a-f]{40}$/.test(head)) return head;
  const ref = /^ref: (refs\/[\w./-]+)$/.exec(head)?.[1];
  if (!ref || ref.includes('..')) return null;
  const loose = (await readText(join(gitDir, ref)))?.trim();
  if (loose && /^[0-9a-f]{40}$/.test(loose)) return loose;
  const packed = await readText(join(gitDir, 'packed-refs'));
  const line = packed?.split('\n').find((l) => l.endsWith(` ${ref}`));
  return line?.slice(0, 40) ?? null;
}

/**
 * Version (package.json), git commit (.git beside it, when the install is a checkout) and build
 * time (the modification time of this compiled module: when `npm run build` wrote it). The
 * snapshot service reads it once.
 */
export function buildInfo(): Promise<BuildInfo> {
  return (async () => {
    const self = fileURLToPath(import.meta.url);
    const here = dirname(self);
    const pkgFile = findUp(here, 'package.json');
    const pkg = pkgFile ? (JSON.parse((await readText(pkgFile)) ?? '{}') as { version?: string }) : {};
    const gitDir = pkgFile ? join(dirname(pkgFile), '.git') : undefined;
    const compiled = self.endsWith('.js');
    const mtime = compiled
      ? await stat(self).then(
          (s) => s.mtime.toISOString(),
          () => null,
        )
      : null;
    return {
      version: pkg.version ?? null,
      git_commit: gitDir && existsSync(gitDir) ? await gitCommit(gitDir) : null,
      build_time: mtime,
      source: compiled ? 'dist' : 'src',
    };
  })();
}
