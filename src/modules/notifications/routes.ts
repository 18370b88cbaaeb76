/**
 * Routes of the notifications module (placeholder until the module lands).
 */
import { createRouter } from '../../core/routes';

export const notificationRoutes = createRouter();
