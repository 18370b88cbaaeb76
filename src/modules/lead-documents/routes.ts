/**
 * Routes of the lead-documents module (placeholder until the module lands).
 */
import { createRouter } from '../../core/routes';

export const leadDocumentRoutes = createRouter();
