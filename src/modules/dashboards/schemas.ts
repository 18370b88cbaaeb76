/**
 * Request and response shapes of the saved dashboards: the bodies and the Dashboard component,
 * from the field table (fields.ts).
 */
import { z } from '@hono/zod-openapi';
import { SCOPES } from '../saved-queries';
import { dashboardFields } from './fields';

export { BUILT_IN_METRICS, dashboardFields, MAX_WIDGETS, type WidgetValue } from './fields';

export const AddDashboardBody = z.object(dashboardFields.createShape).openapi('AddDashboardRequest', {
  description: 'A dashboard to save',
  example: {
    dashboard_id: 'sales-overview',
    name: 'Sales overview',
    scope: 'team',
    definition: [{ title: 'Leads by status', chart_type: 'bar', source: { saved_query_id: 3 } }],
  },
});

export const UpdateDashboardBody = z
  .object(dashboardFields.updateShape)
  .refine((body) => Object.values(body).some((value) => value !== undefined), {
    message: 'give at least one field to change',
    path: ['name'],
  })
  .openapi('UpdateDashboardRequest', {
    description: 'The fields to change; the definition is replaced whole',
    example: { name: 'Team overview', scope: 'team' },
  });

export const dashboardListFilters = {
  scope: z.enum(SCOPES).optional().openapi({ description: 'Only dashboards of this scope' }),
};

export const DashboardSchema = z.object(dashboardFields.readShape).openapi('Dashboard', {
  description: 'A saved dashboard',
  example: {
    id: 2,
    dashboard_id: 'sales-overview',
    name: 'Sales overview',
    scope: 'team',
    definition: [{ title: 'Leads by status', chart_type: 'bar', source: { saved_query_id: 3 } }],
    user_id: 1,
    created_at: '2026-01-15T09:30:00.000Z',
    updated_at: '2026-01-15T09:30:00.000Z',
  },
});

export type DashboardView = ReturnType<typeof dashboardFields.present>;
export type AddDashboardInput = z.output<typeof AddDashboardBody>;
export type UpdateDashboardInput = z.output<typeof UpdateDashboardBody>;
