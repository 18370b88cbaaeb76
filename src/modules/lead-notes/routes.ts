/**
 * Routes of the lead-notes module (placeholder until the module lands).
 */
import { createRouter } from '../../core/routes';

export const leadNoteRoutes = createRouter();
