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

const CLOCK = new Intl.DateTimeFormat('en-IN', {
  timeZone: 'Asia/Kolkata',
  hour: '2-digit',
  minute: '2-digit',
  hourCycle: 'h23',
});
const DAY = new Intl.DateTimeFormat('en-IN', { timeZone: 'Asia/Kolkata', day: 'numeric', month: 'short' });

/** The IST wall-clock hour and minute of a time (milliseconds or ISO): "09:15". */
export const istClock = (t: number | string) => CLOCK.format(new Date(t));

/** The IST day of a time (milliseconds or ISO): "5 Jan". */
export const istDay = (t: number | string) => DAY.format(new Date(t));

/**
 * The labels of a chart's time axis (uPlot's `axes[0].values`; its splits are epoch seconds):
 * the IST hour and minute, with the day under the first label and under each label that starts
 * a new IST day; only the day when the labels are a day or more apart.
 */
export function istAxisLabels(splits: readonly number[], increment: number): string[] {
  let lastDay = '';
  return splits.map((s) => {
    const ms = s * 1000;
    const day = istDay(ms);
    if (increment >= 86_400) return day;
    const label = day !== lastDay ? `${istClock(ms)}\n${day}` : istClock(ms);
    lastDay = day;
    return label;
  });
}

/**
 * A time as the books write it (OpenAlgo's answers: `YYYY-MM-DD HH:MM:SS`, IST without a zone),
 * written as the console writes times: "17 Aug, 10:00:00". Any other text is shown as it came.
 */
export function bookTime(text: string): string {
  const m = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2})$/.exec(text.trim());
  if (!m) return text;
  const ms = Date.parse(`${m[1]}T${m[2]}+05:30`);
  return Number.isNaN(ms) ? text : istTime(ms);
}
