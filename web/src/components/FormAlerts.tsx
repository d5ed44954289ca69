/**
 * What a form says above its fields (docs/rules/web.md#field-messages): the server's refusal when
 * it names no field of the form (the messages for fields show under them), and the server's
 * answer once the change is done.
 */
import { Alert } from '@mantine/core';
import type { ReactNode } from 'react';
import { onlyFieldErrors } from '../api/client';
import { ErrorState } from './states';

export function FormAlerts({
  error,
  fields,
  title,
  success,
}: {
  error: unknown;
  /** The form's fields: a refusal naming only these is shown under them, not here. */
  fields: readonly string[];
  /** The refusal's heading ("Not saved"). */
  title: string;
  /** The answer to show once done (nothing before). */
  success?: ReactNode;
}) {
  return (
    <>
      {error && !onlyFieldErrors(error, fields) ? <ErrorState error={error} title={title} /> : null}
      {success !== undefined && success !== false && (
        <Alert color="green" role="status">
          {success}
        </Alert>
      )}
    </>
  );
}
