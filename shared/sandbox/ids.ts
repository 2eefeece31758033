/** The sandbox's ids: sortable (ULID), with a prefix that says what they name (`conn_`, `op_`, `TRF`...). */
import { ulid } from 'ulid';

export function newId(prefix: string): string {
  return `${prefix}_${ulid()}`;
}

/** The bank's reference of a transfer. */
export function newTransferReference(): string {
  return `TRF${ulid()}`;
}
