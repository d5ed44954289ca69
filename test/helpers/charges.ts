/**
 * What the charges suites share (src/domain/charges*.test.ts): fills priced in rupees, charges
 * read back in rupees, the dates either side of the Finance Act 2026's STT, and the plans.
 */
import {
  DEFAULT_BROKERAGE_PLAN,
  type BrokeragePlan,
  type ChargeableFill,
  type Charges,
} from '../../src/domain/charges.js';
import { moneyToRupees, rupeesToMoney } from '../../src/domain/money.js';

/** 10:00 IST on a date (epoch ms). */
export const ist = (date: string) => Date.parse(`${date}T10:00:00+05:30`);
/** Before the Finance Act 2026's STT (Oct 2024 rates) and after it. */
export const JAN_2026 = ist('2026-01-15');
export const MAY_2026 = ist('2026-05-15');

export const fill = (f: Omit<ChargeableFill, 'price'> & { price: number | string }): ChargeableFill => ({
  ...f,
  price: rupeesToMoney(f.price),
});

/** The charges in rupees, for reading against the hand-worked figures. */
export const rupees = (c: Charges) =>
  Object.fromEntries(Object.entries(c).map(([k, v]) => [k, moneyToRupees(v)])) as Record<
    keyof Charges,
    number
  >;

export const plan = DEFAULT_BROKERAGE_PLAN as BrokeragePlan;
/** 0.03 % or ₹20 whichever is lower, on everything. */
export const PERCENT_ONLY: BrokeragePlan = {
  kind: 'percent',
  percent: 0.03,
  cap: rupeesToMoney(20),
  deliveryFree: false,
  optionsFlat: false,
};
export const flat = (rupees: string, deliveryFree: boolean): BrokeragePlan => ({
  kind: 'flat',
  perOrder: rupeesToMoney(rupees),
  deliveryFree,
});
