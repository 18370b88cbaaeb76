/**
 * Routes of the exports module (placeholder until the module lands).
 */
import { createRouter } from '../../core/routes';

export const exportRoutes = createRouter();
