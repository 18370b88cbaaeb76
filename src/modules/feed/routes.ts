/**
 * Routes of the feed module (placeholder until the module lands).
 */
import { createRouter } from '../../core/routes';

export const feedRoutes = createRouter();
