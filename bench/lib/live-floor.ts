/**
 * `placeorder-live`'s floor (lib/baseline-live-forward.mjs): a bare forwarder that sends the
 * adapter's bytes to a stub of its own and commits the order's log and latency rows before it
 * answers. What it adds over the stub called directly is what any service that forwards an
 * order and keeps its promise adds on this machine, measured in the same run as algodesk.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Child, Workspace } from './processes.js';

const SCRIPT = join(dirname(fileURLToPath(import.meta.url)), 'baseline-live-forward.mjs');

export interface FloorSpec {
  /** The forwarder's own broker stub. */
  brokerPort: number;
  /** The adapter's headers and its form per side, as the stub received them from algodesk. */
  headers: Record<string, string>;
  forms: { BUY: string; SELL: string };
  /** The adapter's keep-alive pool size. */
  connections: number;
}

/**
 * Starts the forwarder on a copy of the server's database (`VACUUM INTO`, a consistent read:
 * the app's migrated schema and pragmas, and no row the server reads is ever written).
 */
export function startLiveFloor(ws: Workspace, spec: FloorSpec): Promise<Child> {
  const dbFile = ws.copyServerDatabase('live-floor.db');
  return ws.startScript(
    'forwarder',
    SCRIPT,
    {
      brokerUrl: `http://127.0.0.1:${spec.brokerPort}`,
      headers: spec.headers,
      forms: spec.forms,
      connections: spec.connections,
      dbFile,
    },
    'forwarder is running at',
  );
}
