/**
 * Routes of the lead-follow-ups module (placeholder until the module lands).
 */
import { createRouter } from '../../core/routes';

export const leadFollowUpRoutes = createRouter();
