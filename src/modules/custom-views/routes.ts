/**
 * Routes of the custom-views module (placeholder until the module lands).
 */
import { createRouter } from '../../core/routes';

export const customViewRoutes = createRouter();
