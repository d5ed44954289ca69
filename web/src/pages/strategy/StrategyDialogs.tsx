/**
 * The confirmations of the strategy page's controls (docs/rules/strategies.md): rotate the token
 * (#webhook-token), lock or unlock the webhook (#webhook-pipeline), allow or refuse a live batch
 * start, naming the risk (#batch-start-mode), start a run in sandbox or live mode, stop it (#stop,
 * #cooling-off) and delete the strategy. Each says what it does (docs/rules/web.md#strategy-pages).
 */
import { SegmentedControl, Stack, Text } from '@mantine/core';
import '@mantine/core/styles/SegmentedControl.css';
import { ErrorState } from '../../components/states';
import { Confirm } from '../integrations/common';
import type { Run, Strategy } from './model';

export type Dialog = 'rotate' | 'lock' | 'unlock' | 'live-on' | 'live-off' | 'start' | 'stop' | 'delete';

export function StrategyDialogs({
  strategy,
  activeRun,
  dialog,
  startMode,
  onStartMode,
  pending,
  error,
  onConfirm,
  onClose,
}: {
  strategy: Strategy;
  activeRun: Run | undefined;
  /** The open dialog, if any. */
  dialog: Dialog | undefined;
  startMode: 'sandbox' | 'live';
  onStartMode: (mode: 'sandbox' | 'live') => void;
  /** The action's request is under way. */
  pending: boolean;
  /** The action's refusal, shown in its dialog. */
  error: Error | null;
  onConfirm: (d: Dialog) => void;
  onClose: () => void;
}) {
  return (
    <>
      <Confirm
        opened={dialog === 'rotate'}
        title="Rotate the webhook token?"
        confirm="Rotate"
        pending={pending}
        onConfirm={() => onConfirm('rotate')}
        onClose={onClose}
        error={error && <ErrorState error={error} title="Not rotated" />}
      >
        <Text>
          {strategy.name} gets a new webhook URL, shown once. The current URL stops working at once: update
          your TradingView alerts.
        </Text>
      </Confirm>
      <Confirm
        opened={dialog === 'lock' || dialog === 'unlock'}
        title={dialog === 'unlock' ? 'Unlock the webhook?' : 'Lock the webhook?'}
        confirm={dialog === 'unlock' ? 'Unlock' : 'Lock'}
        pending={pending}
        onConfirm={() => dialog && onConfirm(dialog)}
        onClose={onClose}
        error={error && <ErrorState error={error} title="Not changed" />}
      >
        <Text>
          {dialog === 'unlock'
            ? `Alerts reach ${strategy.name} again and may open runs and place orders.`
            : `Every alert to ${strategy.name} is refused (rejected_locked) until you unlock it. A run already open is not stopped: stop it from this page.`}
        </Text>
      </Confirm>
      <Confirm
        opened={dialog === 'live-on'}
        title="Enable live batch start?"
        confirm="Enable live start"
        pending={pending}
        onConfirm={() => onConfirm('live-on')}
        onClose={onClose}
        error={error && <ErrorState error={error} title="Not enabled" />}
      >
        <Text>
          A start in live mode — from this page, the webhook (
          <Text span ff="monospace">
            {'"mode": "live"'}
          </Text>
          ) or the API — will send <b>real orders to your broker</b>, with real money, for every leg of{' '}
          {strategy.name}. Anyone holding the webhook URL can then trigger them.
        </Text>
      </Confirm>
      <Confirm
        opened={dialog === 'live-off'}
        title="Disable live batch start?"
        confirm="Disable"
        pending={pending}
        onConfirm={() => onConfirm('live-off')}
        onClose={onClose}
        error={error && <ErrorState error={error} title="Not disabled" />}
      >
        <Text>Live starts are refused (rejected_live_disabled); a live run already open is not stopped.</Text>
      </Confirm>
      <Confirm
        opened={dialog === 'start'}
        title="Start a run?"
        confirm="Start"
        pending={pending}
        onConfirm={() => onConfirm('start')}
        onClose={onClose}
        error={error && <ErrorState error={error} title="Not started" />}
      >
        <Stack gap="sm">
          <SegmentedControl
            aria-label="Run mode"
            value={startMode}
            onChange={(v) => onStartMode(v as 'sandbox' | 'live')}
            data={[
              { value: 'sandbox', label: 'Sandbox' },
              { value: 'live', label: 'Live (broker)', disabled: !strategy.live_enabled },
            ]}
          />
          <Text>
            Every leg of {strategy.name} is placed now as a MARKET order, BUY legs before SELL legs,{' '}
            {startMode === 'live' ? <b>as real orders at your broker</b> : 'in the sandbox'}.
          </Text>
          {!strategy.live_enabled && (
            <Text size="sm" c="dimmed">
              Live mode needs live start enabled first.
            </Text>
          )}
        </Stack>
      </Confirm>
      <Confirm
        opened={dialog === 'stop'}
        title="Stop the run?"
        confirm="Stop the run"
        pending={pending}
        onConfirm={() => onConfirm('stop')}
        onClose={onClose}
        error={error && <ErrorState error={error} title="Not stopped" />}
      >
        <Text>
          Working entries of run #{strategy.active_run_id} are cancelled and what each leg filled is exited
          with a MARKET order{activeRun?.mode === 'live' ? ' at your broker' : ' in the sandbox'}. The run
          shows as stopping (stop_pending) until its fills prove it flat; for 30 seconds after, no new run
          opens.
        </Text>
      </Confirm>
      <Confirm
        opened={dialog === 'delete'}
        title="Delete the strategy?"
        confirm="Delete"
        pending={pending}
        onConfirm={() => onConfirm('delete')}
        onClose={onClose}
        error={error && <ErrorState error={error} title="Not deleted" />}
      >
        <Text>
          Delete {strategy.name}? Its webhook URL stops working at once; its runs, event trail and delivery
          audit are kept, and its name is free again.
        </Text>
      </Confirm>
    </>
  );
}
