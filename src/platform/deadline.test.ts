import { describe, expect, it } from 'vitest';
import { noAnswerWithin, withDeadline } from './deadline.js';

describe('withDeadline', () => {
  it('answers what the promise answers when it is in time', async () => {
    await expect(withDeadline(Promise.resolve(7), 50, noAnswerWithin(50))).resolves.toBe(7);
    await expect(withDeadline(Promise.reject(new Error('no')), 50, noAnswerWithin(50))).rejects.toThrow('no');
  });

  it('rejects with the deadline error even when onTimeout makes the promise reject (its error is swallowed)', async () => {
    const order: string[] = [];
    let fail!: (e: Error) => void;
    const slow = new Promise<number>((_, reject) => (fail = reject));
    const raced = withDeadline(slow, 10, noAnswerWithin(10), () => {
      order.push('timeout');
      fail(new Error('aborted'));
    }).catch((e: Error) => {
      order.push(e.message);
    });
    await raced;
    expect(order).toEqual(['timeout', 'no answer within 10 ms']);
  });
});
