const IST_OFFSET_MS = 330 * 60_000;
const DAY_MS = 86_400_000;

/**
 * The journey clock's start: the wall clock, unless the IST day is in its last half hour, where a
 * journey's MIS orders would meet the 23:59 square-off; then half an hour earlier.
 */
export function journeyStart(now: number): number {
  const istTimeOfDay = (now + IST_OFFSET_MS) % DAY_MS;
  return istTimeOfDay >= DAY_MS - 30 * 60_000 ? now - 30 * 60_000 : now;
}
