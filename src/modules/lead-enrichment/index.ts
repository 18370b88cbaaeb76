/**
 * Lead enrichment's public surface: the bulk job's handler (the routes are mounted by the app).
 */
export { leadEnrichmentJobHandler } from './bulk-job';
