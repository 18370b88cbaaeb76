/**
 * Routes of the lookups module (placeholder until the module lands).
 */
import { createRouter } from '../../core/routes';

export const lookupRoutes = createRouter();
