/** A yes/no dialog for a change that cannot be undone, with the server's refusal inside it. */
import { Button, Group, Modal, Stack } from '@mantine/core';
import type { ReactNode } from 'react';

export function Confirm({
  opened,
  title,
  children,
  confirm,
  pending,
  onConfirm,
  onClose,
  error,
}: {
  opened: boolean;
  title: string;
  children: ReactNode;
  confirm: string;
  pending: boolean;
  onConfirm: () => void;
  onClose: () => void;
  error?: ReactNode;
}) {
  return (
    <Modal opened={opened} onClose={onClose} title={title}>
      <Stack>
        {children}
        {error}
        <Group>
          <Button color="red" loading={pending} onClick={onConfirm}>
            {confirm}
          </Button>
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
