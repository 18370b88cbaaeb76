/**
 * What a saved view may hold, per module: its list filters (the same schema the list route
 * and bulk actions use), its columns and its sort fields. A module joins saved views by adding
 * an entry here.
 */
import type { z } from '@hono/zod-openapi';
import { leadFiltersObject } from '../leads';
import { LEAD_ORDER_BY } from '../leads';
import { LeadSchema } from '../leads';

export interface ViewableModule {
  filters: z.ZodType;
  columns: (column: string) => boolean;
  orderBy: readonly string[];
}

const leadColumns = new Set(Object.keys(LeadSchema.shape));

export const viewableModules: Record<string, ViewableModule> = {
  lead: {
    filters: leadFiltersObject,
    columns: (column) => leadColumns.has(column) || /^custom_fields\.[^.]{1,100}$/.test(column),
    orderBy: LEAD_ORDER_BY,
  },
};
