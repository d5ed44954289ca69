/**
 * Times as the console shows them (docs/rules/web.md#times-in-ist): in IST (Asia/Kolkata), the
 * clock of the Indian markets and of the server's messages, whatever the browser's own time zone.
 */

// `hourCycle: 'h23'`, not `hour12: false`: the latter writes the half hour after midnight 24:30.
const SHORT = new Intl.DateTimeFormat('en-IN', {
  timeZone: 'Asia/Kolkata',
  day: 'numeric',
  month: 'short',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  hourCycle: 'h23',
});
const FULL = new Intl.DateTimeFormat('en-IN', {
  timeZone: 'Asia/Kolkata',
  day: 'numeric',
  month: 'short',
  year: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  hourCycle: 'h23',
});

/** A time of today's trading (milliseconds or ISO): day, month and time, in IST. */
export const istTime = (t: number | string) => SHORT.format(new Date(t));

/** A time that may be months old (milliseconds or ISO): with the year, in IST. */
export const istDateTime = (t: number | string) => FULL.format(new Date(t));

/** {@link istDateTime} where no column heading says the zone: "… IST". */
export const istStamp = (t: number | string) => `${istDateTime(t)} IST`;
