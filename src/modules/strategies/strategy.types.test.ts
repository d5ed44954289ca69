import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { EVENT_KINDS, EVENT_SEVERITY } from './strategy.types.js';

describe('the event kinds are a closed, documented list with fixed severities', () => {
  it('the README’s table lists exactly the kinds of EVENT_SEVERITY, each with its severity', () => {
    const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
    const section = readme.slice(readme.indexOf('### Strategy event kinds'), readme.indexOf('## Layout'));
    const documented = new Map<string, string>();
    for (const row of section.split('\n').filter((l) => l.startsWith('| `'))) {
      const [kinds, severity] = row
        .split('|')
        .slice(1, 3)
        .map((c) => c.trim());
      for (const k of kinds!.match(/`[a-z_]+`/g) ?? []) documented.set(k.slice(1, -1), severity!);
    }
    expect([...documented.keys()].sort()).toEqual([...EVENT_KINDS].sort());
    for (const kind of EVENT_KINDS) expect(documented.get(kind), kind).toBe(EVENT_SEVERITY[kind]);
  });

  it('includes the spec’s six kinds with the severities the spec gives', () => {
    expect(EVENT_SEVERITY).toMatchObject({
      run_stop_requested: expect.any(String),
      run_stopped: expect.any(String),
      run_stop_failed: 'critical',
      order_ack_unrecorded: 'critical',
      flip_outgoing_exit_rejected: 'critical',
      leg_expiry_fallback: 'warn',
    });
  });
});
