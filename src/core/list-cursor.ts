/**
 * The keyset cursor of every list: the last row's sort key and id, bound to its order_by and
 * order_in and to the walk it belongs to (`scope`: a fingerprint of the organization, the list
 * and its filters), and the total of the first page carried forward so later pages never recount.
 */
import { base64url } from 'jose';
import { BadRequest } from './errors';

export interface CursorTotal {
  total: number;
  estimate: boolean;
}

export interface CursorState {
  orderBy: string;
  orderIn: 'ASC' | 'DESC';
  value: string | null;
  id: number;
  /** Absent in cursors made before totals were carried: such a page counts again. */
  total?: CursorTotal;
  /**
   * The walk's fingerprint (`listScope` in core/list.ts). Absent in cursors made before cursors
   * were bound to it: such a cursor carries no total (its page counts again).
   */
  scope?: string;
}

interface WireCursor {
  k: string;
  d: 'ASC' | 'DESC';
  v: string | null;
  id: number;
  t?: number;
  e?: 1;
  s?: string;
}

export function encodeCursor(state: CursorState): string {
  const wire: WireCursor = { k: state.orderBy, d: state.orderIn, v: state.value, id: state.id };
  if (state.total) {
    wire.t = state.total.total;
    if (state.total.estimate) wire.e = 1;
  }
  if (state.scope !== undefined) wire.s = state.scope;
  return base64url.encode(JSON.stringify(wire));
}

/**
 * The cursor's state, or a 400 naming `cursor` when it is malformed, made for another
 * order_by/order_in, or made for another walk: another list, other filters or another
 * organization (`scope`), whose total and position mean nothing here.
 */
export function decodeCursor(cursor: string, orderBy: string, orderIn: 'ASC' | 'DESC', scope?: string): CursorState {
  try {
    const wire = JSON.parse(new TextDecoder().decode(base64url.decode(cursor))) as WireCursor;
    if (wire.k !== orderBy || wire.d !== orderIn || !Number.isSafeInteger(wire.id)) throw new Error('mismatch');
    // A sort key goes to Postgres as text: anything but a string (or null) or a NUL byte is forged.
    if (wire.v !== null && (typeof wire.v !== 'string' || wire.v.includes('\u0000'))) throw new Error('sort key');
    if (wire.s !== undefined && (typeof wire.s !== 'string' || wire.s !== scope)) throw new Error('another walk');
    // A total is carried only by a cursor bound to its walk.
    const carried = wire.s !== undefined && Number.isSafeInteger(wire.t) && (wire.t as number) >= 0;
    return {
      orderBy,
      orderIn,
      value: wire.v,
      id: wire.id,
      total: carried ? { total: wire.t as number, estimate: wire.e === 1 } : undefined,
      scope: wire.s,
    };
  } catch {
    throw new BadRequest(
      'cursor is invalid or belongs to a different list, filters or order_by/order_in: pass the next_cursor of the previous page with the same parameters',
      'cursor',
    );
  }
}
