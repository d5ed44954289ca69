/**
 * The Action Center's reject form (docs/rules/orders.md#action-center): the reason, 1-500
 * characters, is required and kept with the order.
 */
import { Button, Group, Stack, Text, Textarea } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { fieldError } from '../../../api/client';
import type { Outcome } from '../../../components/BookActions';
import { ErrorState } from '../../../components/states';
import { useRejectMutation } from '../../../features/desk/api/action-center';
import { orderText, type PendingOrder } from './queue';

/** The reject form: the reason is required and kept with the order. */
export function RejectForm({
  order,
  onDone,
  onClose,
}: {
  order: PendingOrder;
  onDone: (o: Outcome) => void;
  onClose: () => void;
}) {
  const [reason, setReason] = useState('');
  const [missing, setMissing] = useState(false);
  const reject = useRejectMutation(order.id, {
    onRefreshed: (a) => onDone({ ok: true, message: a.message }),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (reason.trim() === '') {
      setMissing(true);
      return;
    }
    reject.mutate(reason.trim());
  };
  const err = reject.error;
  return (
    <form onSubmit={submit} noValidate aria-label={`Reject pending order ${order.id}`}>
      <Stack>
        <Text>{orderText(order)} is not placed. The reason is kept with it.</Text>
        {err && !fieldError(err, 'reason') && <ErrorState error={err} title="Not rejected" />}
        <Textarea
          label="Reason"
          required
          withAsterisk={false}
          autosize
          minRows={2}
          maxLength={500}
          value={reason}
          onChange={(e) => {
            setReason(e.currentTarget.value);
            setMissing(false);
          }}
          error={missing ? 'Say why the order is rejected.' : fieldError(err, 'reason')}
          data-autofocus
        />
        <Group>
          <Button type="submit" color="red" loading={reject.isPending}>
            Reject order
          </Button>
          <Button variant="default" onClick={onClose}>
            Back
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
