/** The connected CRM's properties, commonly mapped ones or all of them, for both object types (two provider calls). */
import type { TenantContext } from '../../db/tenant';
import type { Bindings } from '../../env';
import { callProvider } from '../../providers/calls';
import { recordConnectionSuccess, requireUsable, type IndependentWriter } from '../../providers/connections';
import { COMMON_PROPERTIES, CRM_OBJECT_TYPES } from '../../providers/crm/interface';
import { crmProviderFor } from '../../providers/crm/select';
import { crmConnection } from './connected-apps';

export async function crmProperties(
  ctx: TenantContext,
  env: Bindings,
  writer: IndependentWriter,
  all: boolean,
  connectionId: number | undefined,
) {
  const connection = requireUsable(await crmConnection(ctx, connectionId));
  const provider = crmProviderFor({ env, writer }, connection);
  const lists = await callProvider(writer, connection, 'properties', () =>
    Promise.all(CRM_OBJECT_TYPES.map((type) => provider.properties(type))),
  );
  if (connection.provider !== 'local') await recordConnectionSuccess(ctx.db, connection);
  return CRM_OBJECT_TYPES.flatMap((type, index) =>
    lists[index]
      .map((property) => ({
        object_type: type,
        name: property.name,
        label: property.label,
        type: property.type,
        common: Object.hasOwn(COMMON_PROPERTIES[type], property.name),
        suggested_field: Object.hasOwn(COMMON_PROPERTIES[type], property.name)
          ? COMMON_PROPERTIES[type][property.name]
          : null,
      }))
      .filter((property) => all || property.common),
  );
}
