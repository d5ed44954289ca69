/** One tab of the Action Center's decided orders, approved or rejected, as a sortable table. */
import { BookTable } from '../../../components/BookTable';
import { ErrorState, Loading } from '../../../components/states';
import { usePendingOrders } from '../../../features/desk/api/action-center';
import { COLUMNS, EMPTY, FILTERS } from './columns';
import type { Status } from './queue';

export function OrdersTab({ status, refetchInterval }: { status: Status; refetchInterval: number | false }) {
  const list = usePendingOrders(status, refetchInterval);
  const label = `${status[0]!.toUpperCase()}${status.slice(1)} orders`;
  if (list.isPending) return <Loading label={`Loading the ${status} orders…`} />;
  if (list.isError)
    return <ErrorState error={list.error} title={`The ${status} orders could not be loaded`} />;
  return (
    <BookTable
      label={label}
      noun={[`${status} order`, `${status} orders`]}
      rows={list.data.data}
      columns={COLUMNS[status]}
      rowKey={(p) => String(p.id)}
      filters={FILTERS}
      empty={EMPTY[status]}
    />
  );
}
