/**
 * The local CRM: the deterministic data set of local-data.ts, served like a CRM's list endpoint
 * (pages by an `after` cursor, properties as asked), offline. It is the provider of a connection
 * made with `provider: "local"`; what it imports is marked `local` (the records' external source).
 */
import { ProviderFailure } from '../failures';
import type { CrmObjectType, CrmPage, CrmPageRequest, CrmProvider } from './interface';
import { LOCAL_COMPANIES, LOCAL_CONTACTS, LOCAL_PROPERTIES, localCompany, localContact } from './local-data';

const SIZES: Record<CrmObjectType, number> = { contacts: LOCAL_CONTACTS, companies: LOCAL_COMPANIES };

export function localCrm(): CrmProvider {
  return {
    name: 'local',
    async verify() {
      return { identity: 'local data set', displayName: 'Local CRM (offline)' };
    },
    async properties(type) {
      return LOCAL_PROPERTIES[type].map((property) => ({ ...property }));
    },
    async listPage(type: CrmObjectType, request: CrmPageRequest): Promise<CrmPage> {
      const offset = request.after ? Number(request.after) : 0;
      if (!Number.isInteger(offset) || offset < 0) {
        throw new ProviderFailure('rejected', 'local', 400, 'the local CRM got a paging cursor it never gave');
      }
      const size = SIZES[type];
      const end = Math.min(size, offset + Math.min(100, request.limit));
      const records = [];
      for (let index = offset + 1; index <= end; index++) {
        const record = type === 'contacts' ? localContact(index) : localCompany(index);
        const properties = Object.fromEntries(
          request.properties.map((name) => [name, record.properties[name] ?? null]),
        );
        records.push({ ...record, properties });
      }
      return { records, next: end < size ? String(end) : null, total: size };
    },
  };
}
