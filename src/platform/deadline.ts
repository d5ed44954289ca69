/**
 * `p`, or the error `late()` makes once `ms` have passed without an answer; `onTimeout` then
 * runs (after the rejection, so a caller that aborts `p` there still sees the deadline, not its own
 * abort). A rejection of `p` after the deadline is swallowed; the timer never outlives the race.
 */
export function withDeadline<T>(
  p: Promise<T>,
  ms: number,
  late: () => Error,
  onTimeout?: () => void,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reject(late());
      onTimeout?.();
    }, ms);
  });
  p.catch(() => undefined);
  return Promise.race([p, bound]).finally(() => clearTimeout(timer));
}

/** The usual deadline error: `no answer within <ms> ms`. */
export const noAnswerWithin = (ms: number) => () => new Error(`no answer within ${ms} ms`);
