/** What the order pipeline takes and answers (order-pipeline.ts). */

/** How one order runs: its API type (logs, events) and what the caller decides for it. */
export interface RunOptions {
  apiType: string;
  /** splitorder's `splitsize`: the most each child order may carry. */
  chunk?: number;
  /** When the request arrived (`performance.now()`), for the latency record. */
  started?: number;
  /** A strategy run's own mode; otherwise the global analyzer/live switch decides. */
  mode?: 'analyze' | 'live';
  /**
   * The caller's reference of the order (a strategy order's): stored with a sandbox order and
   * sent as the broker's order tag instead of the strategy name, so the order can be found again
   * by it after a restart.
   */
  tag?: string;
}

/**
 * placeorder's and splitorder's success (OpenAlgo's shape): the order id, every child's id when
 * the order was split, and `mode: "analyze"` when the sandbox took it.
 */
export type PlacedBody = {
  status: 'success';
  orderid: string;
  orderids?: string[];
  mode?: 'analyze';
};

/**
 * A refusal or failure of an order call: the message; for a split that stopped part-way the ids
 * of the children placed; the mode in analyzer mode.
 */
export type RefusedBody = {
  status: 'error';
  message: string;
  /** The sandbox's id of an order it recorded as rejected (an account rule refused it). */
  orderid?: string;
  orderids?: string[];
  mode?: 'analyze' | 'live';
};

/** A live order call's answer (orderstatus, cancelorder, modifyorder): its success shape or a refusal. */
export interface LiveCallAnswer {
  status: number;
  body: { status: 'success'; [field: string]: unknown } | RefusedBody;
}

/** What the placement routes answer: the HTTP status and one of the documented bodies. */
export interface PipelineAnswer {
  status: number;
  body: PlacedBody | RefusedBody;
  /**
   * The quantities of the child orders placed (splitting): all of them on success, those placed
   * before the refusal when a split failed part-way (`body.orderids` holds their ids).
   */
  quantities?: number[];
  /**
   * Analyzer mode, on success: per child order, whether the sandbox filled it as it placed it (a
   * MARKET order with a quote fills whole in the placement's own transaction), a fact its caller
   * need not ask about again.
   */
  complete?: boolean[];
}

/** The message of an order that failed on an exception (the details stay in the log). */
export const INTERNAL_ERROR = 'Internal error while placing the order';
