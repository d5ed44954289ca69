/**
 * A query's three states in words (docs/rules/web.md#field-messages): a labelled spinner while it
 * loads, the server's message when it failed, and what it read once it has.
 */
import type { UseQueryResult } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { ErrorState, Loading } from './states';

export function QueryState<T>({
  query,
  label,
  errorTitle,
  children,
}: {
  query: Pick<UseQueryResult<T>, 'isPending' | 'isError' | 'error' | 'data'>;
  /** What is loading ("Loading the clients…"). */
  label?: string;
  /** The failure's heading. */
  errorTitle?: string;
  children: (data: T) => ReactNode;
}) {
  return (
    <>
      {query.isPending && <Loading {...(label ? { label } : {})} />}
      {query.isError && <ErrorState error={query.error} {...(errorTitle ? { title: errorTitle } : {})} />}
      {query.data !== undefined && children(query.data)}
    </>
  );
}
