import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { ratioAtLeast } from '../lib/targets.js';
import type { Bench } from '../lib/types.js';
import { ping } from './ping.js';

const ROWS = 100_000;

/** A public IPv4 address for row `i` (203.x.y.z style, never loopback or private). */
const ipFor = (i: number, first: number) => `${first}.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;

/**
 * `POST /api/v1/ping` with 100,000 bans and 100,000 tracker rows stored, against the SAME
 * server with the ban check switched off (UNSAFE_DISABLE_BAN_CHECK): the ratio is the cost of
 * the check itself. Target (shield issue): at least 0.9.
 */
export const banCheck: Bench = {
  description: 'ping with 100k bans + 100k tracker rows vs the same server without the ban check',
  async setup(ctx) {
    const plan = await ping.setup(ctx);
    // Rows go straight into the SQLite file the server will open (it is not running yet).
    const db = new SQLite(join(ctx.dataDir, 'algodesk.db'));
    const now = Date.now();
    db.transaction(() => {
      const ban = db.prepare(
        'insert into ip_bans (ip, reason, ban_count, created_by, created_at, expires_at) values (?, ?, 1, ?, ?, ?)',
      );
      const t404 = db.prepare(
        'insert into error_404_tracker (ip, count, paths, first_seen, last_seen) values (?, ?, ?, ?, ?)',
      );
      const tKey = db.prepare(
        'insert into invalid_api_key_tracker (ip, count, key_digests, first_seen, last_seen) values (?, ?, ?, ?, ?)',
      );
      for (let i = 0; i < ROWS; i++) {
        ban.run(ipFor(i, 198), 'bench', 'bench', now, i % 2 === 0 ? null : now + 86_400_000);
        if (i % 2 === 0) t404.run(ipFor(i, 203), 7, '["/wp-login.php"]', now, now);
        else tKey.run(ipFor(i, 203), 3, '["00"]', now, now);
      }
    })();
    db.close();
    return { ...plan, baselineServerEnv: { UNSAFE_DISABLE_BAN_CHECK: 'true' } };
  },
  targets: [ratioAtLeast(0.9)],
};
