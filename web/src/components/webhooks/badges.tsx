/**
 * A webhook delivery's result code and a per-item outcome as badges, the same for every source
 * (strategy, scanner, flow): success green, a de-duplicated delivery grey, an error red, any
 * other refusal orange.
 */
import { Badge } from '@mantine/core';

const nowrap = { textTransform: 'none', minWidth: 'max-content' } as const;

/** A delivery's or run's result (`ok`, `squareoff`, `rejected_dedupe`, `rejected_engine_error`, …). */
export function ResultBadge({ result }: { result: string }) {
  const color =
    result === 'ok' || result === 'squareoff'
      ? 'green'
      : result === 'rejected_dedupe'
        ? 'gray'
        : result === 'failed' || result.includes('error')
          ? 'red'
          : 'orange';
  return (
    <Badge color={color} variant="light" style={nowrap}>
      {result}
    </Badge>
  );
}

/** A per-item outcome (`success`, `error`, `skipped`, `done`, `failed`). */
export function OutcomeBadge({ status }: { status: string }) {
  const color = status === 'success' || status === 'done' ? 'green' : status === 'skipped' ? 'gray' : 'red';
  return (
    <Badge color={color} variant="light" style={nowrap}>
      {status}
    </Badge>
  );
}
