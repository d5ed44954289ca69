/** One "N per unit" limit: at most `limit` events in any `windowMs` window. */
export interface RateRule {
  limit: number;
  windowMs: number;
  /** The rule as written, for messages (`5 per minute`). */
  text: string;
}

const UNITS: Record<string, number> = {
  second: 1_000,
  minute: 60_000,
  hour: 3_600_000,
  day: 86_400_000,
};

/**
 * Parses rate strings the way OpenAlgo's settings write them: `10 per second`, `50 per minute`,
 * `10/second`, `10 per 5 minutes`; several limits joined with `;` (or `,`) all apply.
 * Throws with the reason when a part does not parse.
 */
export function parseRateRules(input: string): RateRule[] {
  const parts = input
    .split(/[;,]/)
    .map((p) => p.trim())
    .filter((p) => p.length > 0);
  if (parts.length === 0) throw new Error('expected at least one limit such as "10 per second"');
  return parts.map((part) => {
    const m = /^(\d{1,9})\s*(?:per|\/)\s*(\d{1,6}\s+)?(second|minute|hour|day)s?$/i.exec(part);
    if (!m) throw new Error(`"${part}" is not of the form "<count> per <second|minute|hour|day>"`);
    const limit = Number(m[1]);
    const multiple = m[2] ? Number(m[2].trim()) : 1;
    if (limit < 1) throw new Error(`"${part}" must allow at least 1 request`);
    if (multiple < 1) throw new Error(`"${part}" has an empty window`);
    return { limit, windowMs: multiple * UNITS[m[3]!.toLowerCase()]!, text: part };
  });
}
