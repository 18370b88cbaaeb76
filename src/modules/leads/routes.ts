/**
 * Routes of the leads module (placeholder until the module lands).
 */
import { createRouter } from '../../core/routes';

export const leadRoutes = createRouter();
