/**
 * Routes of the imports module (placeholder until the module lands).
 */
import { createRouter } from '../../core/routes';

export const importRoutes = createRouter();
