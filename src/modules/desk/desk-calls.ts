/**
 * The console's trader's desk calls (docs/rules/web.md#desk-calls): a signed-in user's books and
 * order management, answered by the `/api/v1` call of the same name, made in-process as the
 * session's user with a one-call key — so the sandbox in analyzer mode, the broker in live mode,
 * and every rule, limit, event and log of the API apply unchanged. Only these calls are open.
 */
export const DESK_CALLS = [
  'orderbook',
  'tradebook',
  'positionbook',
  'holdings',
  'funds',
  'orderstatus',
  'openposition',
  'placeorder',
  'placesmartorder',
  'modifyorder',
  'cancelorder',
  'cancelallorder',
  'closeposition',
  'basketorder',
  'quotes',
  'multiquotes',
  'depth',
  'history',
  'intervals',
  'symbol',
  'expiry',
  'optionchain',
  'multioptiongreeks',
  'margin',
  'placegttorder',
  'modifygttorder',
  'cancelgttorder',
  'gttorderbook',
] as const;

export type DeskCall = (typeof DESK_CALLS)[number];

/** The desk path of an `/api/v1` call. */
export const deskPath = (call: DeskCall): string => `/desk/api/${call}`;
