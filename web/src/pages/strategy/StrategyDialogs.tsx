/**
 * The confirmations of the strategy page's controls (docs/rules/strategies.md): rotate the token
 * (#webhook-token), lock or unlock the webhook (#webhook-pipeline), allow or refuse a live batch
 * start, naming the risk (#batch-start-mode), start a run in sandbox or live mode, stop it (#stop,
 * #cooling-off) and delete the strategy. Each says what it does (docs/rules/web.md#strategy-pages).
 */
import { SegmentedControl, Stack, Text } from '@mantine/core';
import '@mantine/core/styles/SegmentedControl.css';
import type { ReactNode } from 'react';
import { ErrorState } from '../../components/states';
import { Confirm } from '../../components/webhooks/Confirm';
import type { Run, Strategy } from '../../features/strategies/api/types';

export type Dialog = 'rotate' | 'lock' | 'unlock' | 'live-on' | 'live-off' | 'start' | 'stop' | 'delete';

/**
 * What every dialog shares: the open dialog, the action's request under way, its refusal, and
 * what confirming and closing do.
 */
interface Call {
  dialog: Dialog | undefined;
  pending: boolean;
  error: Error | null;
  onConfirm: (d: Dialog) => void;
  onClose: () => void;
}

/** One dialog: what it asks, its confirm button, and the title of the action's refusal. */
function Ask({
  call,
  act,
  title,
  confirm,
  refused,
  children,
}: {
  call: Call;
  /** The dialog, open while it is the call's. */
  act: Dialog;
  title: string;
  confirm: string;
  refused: string;
  children: ReactNode;
}) {
  return (
    <Confirm
      opened={call.dialog === act}
      title={title}
      confirm={confirm}
      pending={call.pending}
      onConfirm={() => call.onConfirm(act)}
      onClose={call.onClose}
      error={call.error && <ErrorState error={call.error} title={refused} />}
    >
      {children}
    </Confirm>
  );
}

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
  const call: Call = { dialog, pending, error, onConfirm, onClose };
  const ask = (act: Dialog, title: string, confirm: string, refused: string) => ({
    call,
    act,
    title,
    confirm,
    refused,
  });
  // Lock and unlock are one dialog, worded for the change it makes.
  const unlocking = dialog === 'unlock';
  return (
    <>
      <Ask {...ask('rotate', 'Rotate the webhook token?', 'Rotate', 'Not rotated')}>
        <Text>
          {strategy.name} gets a new webhook URL, shown once. The current URL stops working at once: update
          your TradingView alerts.
        </Text>
      </Ask>
      <Ask
        {...(unlocking
          ? ask('unlock', 'Unlock the webhook?', 'Unlock', 'Not changed')
          : ask('lock', 'Lock the webhook?', 'Lock', 'Not changed'))}
      >
        <Text>
          {unlocking
            ? `Alerts reach ${strategy.name} again and may open runs and place orders.`
            : `Every alert to ${strategy.name} is refused (rejected_locked) until you unlock it. A run already open is not stopped: stop it from this page.`}
        </Text>
      </Ask>
      <Ask {...ask('live-on', 'Enable live batch start?', 'Enable live start', 'Not enabled')}>
        <Text>
          A start in live mode — from this page, the webhook (
          <Text span ff="monospace">
            {'"mode": "live"'}
          </Text>
          ) or the API — will send <b>real orders to your broker</b>, with real money, for every leg of{' '}
          {strategy.name}. Anyone holding the webhook URL can then trigger them.
        </Text>
      </Ask>
      <Ask {...ask('live-off', 'Disable live batch start?', 'Disable', 'Not disabled')}>
        <Text>Live starts are refused (rejected_live_disabled); a live run already open is not stopped.</Text>
      </Ask>
      <Ask {...ask('start', 'Start a run?', 'Start', 'Not started')}>
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
      </Ask>
      <Ask {...ask('stop', 'Stop the run?', 'Stop the run', 'Not stopped')}>
        <Text>
          Working entries of run #{strategy.active_run_id} are cancelled and what each leg filled is exited
          with a MARKET order{activeRun?.mode === 'live' ? ' at your broker' : ' in the sandbox'}. The run
          shows as stopping (stop_pending) until its fills prove it flat; for 30 seconds after, no new run
          opens.
        </Text>
      </Ask>
      <Ask {...ask('delete', 'Delete the strategy?', 'Delete', 'Not deleted')}>
        <Text>
          Delete {strategy.name}? Its webhook URL stops working at once; its runs, event trail and delivery
          audit are kept, and its name is free again.
        </Text>
      </Ask>
    </>
  );
}
