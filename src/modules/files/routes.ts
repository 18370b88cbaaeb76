/**
 * Routes of the files module (placeholder until the module lands).
 */
import { createRouter } from '../../core/routes';

export const fileRoutes = createRouter();
