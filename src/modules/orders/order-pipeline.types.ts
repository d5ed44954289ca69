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

/** What the route answers: the HTTP status and the JSON body. */
export interface PipelineAnswer {
  status: number;
  body: Record<string, unknown>;
  /**
   * The quantities of the child orders placed (splitting): all of them on success, those placed
   * before the refusal when a split failed part-way (`body.orderids` holds their ids).
   */
  quantities?: number[];
}

/** The message of an order that failed on an exception (the details stay in the log). */
export const INTERNAL_ERROR = 'Internal error while placing the order';
