/**
 * Run states, modes and severities in words (docs/rules/web.md#field-messages); a webhook
 * delivery's result is the webhook pages' badge (components/webhooks/badges.tsx).
 */
import { Badge } from '@mantine/core';
import type { Severity } from '../../../../src/modules/strategies/strategy.types';
import type { RunStatus } from '../../features/strategies/api/types';

const nowrap = { textTransform: 'none', minWidth: 'max-content' } as const;

/** `stop_pending` stays visible as "Stopping" until the run's own fills prove it flat. */
export function RunStateBadge({ status }: { status: RunStatus }) {
  if (status === 'running')
    return (
      <Badge color="teal" variant="light" style={nowrap}>
        Running
      </Badge>
    );
  if (status === 'stop_pending')
    return (
      <Badge
        color="orange"
        variant="filled"
        style={nowrap}
        title="Stop requested: waiting for the exits to fill"
      >
        Stopping (stop_pending)
      </Badge>
    );
  return (
    <Badge color="gray" variant="light" style={nowrap}>
      Stopped
    </Badge>
  );
}

export function ModeBadge({ mode }: { mode: 'sandbox' | 'live' }) {
  return mode === 'live' ? (
    <Badge color="red" variant="filled" style={nowrap}>
      Live (broker)
    </Badge>
  ) : (
    <Badge color="orange" variant="light" style={nowrap}>
      Sandbox
    </Badge>
  );
}

export const SEVERITY_COLOR: Record<Severity, string> = { info: 'blue', warn: 'orange', critical: 'red' };

export function SeverityBadge({ severity }: { severity: Severity }) {
  return (
    <Badge
      color={SEVERITY_COLOR[severity]}
      variant={severity === 'critical' ? 'filled' : 'light'}
      style={nowrap}
    >
      {severity}
    </Badge>
  );
}
